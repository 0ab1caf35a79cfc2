//! Go's `fmt.Sprintf`, `fmt.Sprint` and `fmt.Sprintln` over the values a template's
//! JSON-sourced data can hold ([`Arg`]): every verb, the flags `+ - # 0 space`, width,
//! precision, `*`, argument indexes `%[n]d`, element-wise formatting of lists and maps, and
//! Go's texts for misuse (`%!d(string=x)`, `%!v(MISSING)`, `%!(EXTRA type=value)`,
//! `%!(BADWIDTH)`, `%!(BADPREC)`, `%!(NOVERB)`, `%!d(BADINDEX)`).
//!
//! A width or precision reaches at most about ten million (Go's own bound), so one verb can
//! write that many bytes; callers that bound their output estimate it first.

mod fmt;
mod ftoa;
mod printer;

use printer::Printer;

/// A value as `fmt` sees it: Go's `interface{}` holding one of the types JSON decodes to
/// (with integers kept apart from floats).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg<'a> {
    /// An `interface{}` holding nothing.
    Nil,
    Bool(bool),
    /// Go's `int`.
    Int(i64),
    /// Go's `uint64`.
    Uint(u64),
    Float(f64),
    Str(&'a str),
    /// A `[]interface {}`.
    List(Vec<Arg<'a>>),
    /// A `map[string]interface {}`; printed in key order whatever the order here.
    Map(Vec<(&'a str, Arg<'a>)>),
}

impl Arg<'_> {
    /// Go's name of the value's type (`%T`, `%!d(string=x)`): `<nil>`, `bool`, `int`,
    /// `uint64`, `float64`, `string`, `[]interface {}`, `map[string]interface {}`.
    pub fn type_name(&self) -> &'static str {
        match self {
            Arg::Nil => "<nil>",
            Arg::Bool(_) => "bool",
            Arg::Int(_) => "int",
            Arg::Uint(_) => "uint64",
            Arg::Float(_) => "float64",
            Arg::Str(_) => "string",
            Arg::List(_) => "[]interface {}",
            Arg::Map(_) => "map[string]interface {}",
        }
    }
}

/// `fmt.Sprintf(format, args...)`.
pub fn sprintf(format: &str, args: &[Arg<'_>]) -> String {
    let mut p = Printer::default();
    p.do_printf(format, args);
    p.into_string()
}

/// `fmt.Sprint(args...)`: `%v` of each, with a space between two operands when neither is
/// a string.
pub fn sprint(args: &[Arg<'_>]) -> String {
    let mut p = Printer::default();
    let mut previous_string = false;
    for (i, arg) in args.iter().enumerate() {
        let string = matches!(arg, Arg::Str(_));
        if i > 0 && !string && !previous_string {
            p.push_str(" ");
        }
        p.print_arg(arg, 'v');
        previous_string = string;
    }
    p.into_string()
}

/// `fmt.Sprintln(args...)`: `%v` of each, separated by spaces, and a newline.
pub fn sprintln(args: &[Arg<'_>]) -> String {
    let mut p = Printer::default();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            p.push_str(" ");
        }
        p.print_arg(arg, 'v');
    }
    p.push_str("\n");
    p.into_string()
}

#[cfg(test)]
mod tests;
