//! Go's builtin functions under the execution budget.
//!
//! gotmpl's builtins (`print`, `printf`, `slice`, `eq`, ...) run inside gotmpl with no hook
//! and do not expose their implementations, yet `printf "%s%s" $s $s` is how a template
//! doubles a string. Every builtin call except `and`/`or` (evaluated lazily by the engine
//! itself) and `call` (templates cannot make function values) is therefore renamed to a call
//! site like any FuncMap function (see `sites`); its wrapper counts the step, refuses a
//! result whose estimated size does not fit the budget, and only then runs gotmpl's own
//! builtin — through a one-action helper template per name and argument count, so the
//! results and error texts stay exactly gotmpl's.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use crate::budget::{check_alloc, check_values};
use crate::{FuncError, Value};

/// The builtins run under the budget.
pub(crate) const GUARDED: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "not", "len", "index", "slice", "print", "println",
    "printf", "html", "js", "urlquery",
];

pub(crate) fn is_guarded(name: &str) -> bool {
    GUARDED.contains(&name)
}

/// Whether the builtin's result is new data that counts against the budget (`index`
/// returns a part of its argument, the comparisons a boolean, `len` a number).
pub(crate) fn produces_data(name: &str) -> bool {
    matches!(name, "slice" | "print" | "println" | "printf" | "html" | "js" | "urlquery")
}

/// Refuses a call whose result cannot fit the budget, before gotmpl builds it.
pub(crate) fn precheck(name: &str, args: &[Value]) -> Result<(), FuncError> {
    match name {
        "print" | "println" => check_values(args, 1, args.len().saturating_add(1)),
        // `&#34;`, `\u003C`, `%3C`: at most six bytes out for one in.
        "html" | "js" | "urlquery" => check_values(args, 6, 16),
        "slice" => check_values(args.get(..1).unwrap_or(&[]), 1, 0),
        "printf" => match args.first() {
            Some(Value::String(format)) => {
                let shape = format_shape(format);
                check_alloc(shape.extra)?;
                check_values(&args[1..], shape.factor, shape.extra)
            }
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

/// What a `printf` format can make of its arguments.
#[derive(Debug, PartialEq, Eq)]
struct Shape {
    /// Each argument's text may appear this many times its `%v` length.
    factor: usize,
    /// Bytes independent of the arguments: the format itself, widths and precisions.
    extra: usize,
}

/// gotmpl clamps every width and precision to this (Go's fmt would not).
const MAX_WIDTH: usize = u16::MAX as usize;
/// Longest text one verb makes of a number beyond its `%v` weight: `%f` of 1e308, `%b` of
/// a float or an int.
const NUMBER_TEXT: usize = 400;

fn format_shape(format: &str) -> Shape {
    let mut extra = format.len();
    let mut verbs = 0usize;
    let mut escaping = false;
    let mut indexed = false;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        verbs += 1;
        extra = extra.saturating_add(NUMBER_TEXT);
        // Flags, argument indexes, width and precision up to the verb letter.
        let mut number = 0usize;
        while let Some(&next) = chars.peek() {
            chars.next();
            match next {
                '0'..='9' => {
                    number = number.saturating_mul(10).saturating_add(next as usize - '0' as usize)
                }
                '*' => extra = extra.saturating_add(MAX_WIDTH),
                '.' => {
                    extra = extra.saturating_add(number.min(MAX_WIDTH));
                    number = 0;
                }
                '[' => indexed = true,
                '#' => escaping = true,
                '+' | '-' | ' ' | ']' => {}
                verb => {
                    if matches!(verb, 'q' | 'x' | 'X' | 'U') {
                        escaping = true;
                    }
                    break;
                }
            }
        }
        extra = extra.saturating_add(number.min(MAX_WIDTH));
    }
    // `%q` and `%x` write up to four bytes per byte; explicit argument indexes let every
    // verb print the same argument again.
    let mut factor: usize = if escaping { 4 } else { 1 };
    if indexed {
        factor = factor.saturating_mul(verbs.max(1));
    }
    Shape { factor, extra }
}

thread_local! {
    static CAPTURED: RefCell<Option<Value>> = const { RefCell::new(None) };
}

const CAPTURE: &str = "certgate_capture";
/// Helpers kept per builtin for argument counts up to this; longer calls build theirs.
const CACHED_ARITY: usize = 16;

type Helpers = HashMap<(&'static str, usize), Arc<gotmpl::Template>>;
static HELPERS: LazyLock<Mutex<Helpers>> = LazyLock::new(|| Mutex::new(HashMap::new()));

/// Runs gotmpl's builtin `name` on `args`, with gotmpl's result or error.
pub(crate) fn run(name: &'static str, args: &[Value]) -> Result<Value, gotmpl::TemplateError> {
    let helper = helper(name, args.len())?;
    let data: BTreeMap<Arc<str>, Value> =
        args.iter().enumerate().map(|(i, v)| (key(i), v.clone())).collect();
    CAPTURED.with(|c| c.borrow_mut().take());
    let mut sink = String::new();
    helper.execute_fmt(&mut sink, &Value::Map(Arc::new(data)))?;
    Ok(CAPTURED.with(|c| c.borrow_mut().take()).unwrap_or(Value::Nil))
}

/// The data key of argument `i` (shared for the common argument counts: builtins run in
/// loops).
fn key(i: usize) -> Arc<str> {
    static KEYS: LazyLock<Vec<Arc<str>>> =
        LazyLock::new(|| (0..=CACHED_ARITY).map(|i| Arc::from(format!("a{i}"))).collect());
    KEYS.get(i).cloned().unwrap_or_else(|| Arc::from(format!("a{i}")))
}

fn helper(
    name: &'static str,
    arity: usize,
) -> Result<Arc<gotmpl::Template>, gotmpl::TemplateError> {
    if arity > CACHED_ARITY {
        return build(name, arity).map(Arc::new);
    }
    let mut cache = HELPERS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(helper) = cache.get(&(name, arity)) {
        return Ok(helper.clone());
    }
    let helper = Arc::new(build(name, arity)?);
    cache.insert((name, arity), helper.clone());
    Ok(helper)
}

/// `{{certgate_capture (<name> .a0 .a1 ...)}}`: the builtin's value is handed back through
/// the capture function (the template's output would lose its type).
fn build(name: &str, arity: usize) -> Result<gotmpl::Template, gotmpl::TemplateError> {
    let mut source = format!("{{{{{CAPTURE} ({name}");
    for i in 0..arity {
        source.push_str(&format!(" .a{i}"));
    }
    source.push_str(")}}");
    gotmpl::Template::new(name)
        .func(CAPTURE, |args: &[Value]| {
            let value = args.first().cloned().unwrap_or(Value::Nil);
            CAPTURED.with(|c| *c.borrow_mut() = Some(value));
            Ok(Value::String(Arc::from("")))
        })
        .parse(&source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_shapes() {
        assert_eq!(format_shape("%s-%s"), Shape { factor: 1, extra: 5 + 2 * NUMBER_TEXT });
        assert_eq!(format_shape("%q").factor, 4);
        assert_eq!(format_shape("%#v").factor, 4);
        assert_eq!(format_shape("%[1]s%[1]s%[1]s").factor, 3);
        assert_eq!(format_shape("%99999999s").extra, 10 + NUMBER_TEXT + MAX_WIDTH);
        assert_eq!(format_shape("%*.*d").extra, 5 + NUMBER_TEXT + 2 * MAX_WIDTH);
        assert_eq!(format_shape("%10.3f").extra, 6 + NUMBER_TEXT + 13);
    }

    #[test]
    fn runs_gotmpls_builtins_with_their_types() {
        let s = |t: &str| Value::String(Arc::from(t));
        assert!(matches!(run("eq", &[Value::Int(1), Value::Int(1)]), Ok(Value::Bool(true))));
        assert!(matches!(run("len", &[s("abc")]), Ok(Value::Int(3))));
        let printed = run("printf", &[s("%s=%d"), s("a"), Value::Int(1)]);
        assert!(matches!(printed, Ok(Value::String(ref t)) if &**t == "a=1"));
        assert!(run("index", &[Value::Int(1)]).is_err());
        let many: Vec<Value> = (0..40).map(Value::Int).collect();
        assert!(matches!(run("print", &many), Ok(Value::String(_))));
    }
}
