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
use crate::{FuncError, Value, print};

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
        "printf" => match args.split_first() {
            Some((Value::String(format), rest)) => {
                let shape = format_shape(format, star_width(rest));
                check_alloc(shape.extra)?;
                check_values(rest, shape.factor, shape.extra)
            }
            // Go's argument checks, placed as Go places them. A nil format stays gotmpl's
            // error: Go words a missing key and a stored null differently.
            None => Err(FuncError::arg_count(1, 0, true)),
            Some((Value::Nil, _)) => Ok(()),
            Some((format, _)) => Err(FuncError::arg_type("string", format).at_argument(0)),
        },
        _ => Ok(()),
    }
}

/// What a `printf` format can make of its arguments.
#[derive(Debug, PartialEq, Eq)]
struct Shape {
    /// Each argument's text may take this many times its weight (`budget::weight`, at least
    /// [`NODE`] bytes for every value in it: a list's elements are padded one by one).
    factor: usize,
    /// Bytes independent of the arguments: the format itself and a number's text per verb
    /// (widths pad arguments only, so they are in `factor`).
    extra: usize,
}

/// Go's bound on a width or precision written in the format: it reads digits while the
/// number so far is at most a million (`%9999999d` pads to almost ten million).
const MAX_WIDTH: usize = 10_000_009;
/// Go's bound on a width or precision taken from an argument (`%*d`).
const MAX_STAR: u64 = 1_000_000;
/// Longest text one verb makes of a number beyond its `%v` weight: `%f` of 1e308, `%#b` of
/// an integer.
const NUMBER_TEXT: usize = 400;
/// The weight of one value before its text (see `budget::measure`).
const NODE: usize = crate::budget::NODE;

/// The widest `*` width or precision the arguments could supply.
fn star_width(args: &[Value]) -> usize {
    let widest = args
        .iter()
        .filter_map(|a| match a {
            Value::Int(i) => Some(i.unsigned_abs()),
            Value::Uint(u) => Some(*u),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    widest.min(MAX_STAR) as usize
}

fn format_shape(format: &str, star: usize) -> Shape {
    let mut extra = format.len();
    let mut verbs = 0usize;
    let mut escaping = false;
    let mut indexed = false;
    let mut long_numbers = false;
    let mut widest = 0usize;
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
                '*' => widest = widest.max(star),
                '.' => {
                    widest = widest.max(number.min(MAX_WIDTH));
                    number = 0;
                }
                '[' => {
                    // An argument index, not a width.
                    indexed = true;
                    for skipped in chars.by_ref() {
                        if skipped == ']' {
                            break;
                        }
                    }
                }
                '#' => escaping = true,
                '+' | '-' | ' ' => {}
                verb => {
                    if matches!(verb, 'q' | 'x' | 'X' | 'U') {
                        escaping = true;
                    }
                    if matches!(verb, 'f' | 'F' | 'b') {
                        long_numbers = true;
                    }
                    break;
                }
            }
        }
        widest = widest.max(number.min(MAX_WIDTH));
    }
    // `% #x` writes five bytes per byte of a string; every value in a list or map is padded
    // to the width on its own and `%f` can make hundreds of digits of one number; explicit
    // argument indexes let every verb print the same argument again.
    let per_value = widest.saturating_add(if long_numbers { NUMBER_TEXT } else { 0 });
    let mut factor: usize = if escaping { 5 } else { 1 };
    factor = factor.saturating_add(per_value.div_ceil(NODE));
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

/// Runs the builtin `name` on `args`: gotmpl's, with gotmpl's result or error, except
/// `print`, `println` and `printf`, which are Go's `fmt` (`crate::print`), and where gotmpl
/// is stricter than Go (found by the differential test against Go's text/template):
/// `html`, `js` and `urlquery` take any number of arguments and escape their `fmt.Sprint`
/// (that is, `print`, with `<no value>` for nil), and `index` of a non-nil item with no indices is the item itself.
pub(crate) fn run(name: &'static str, args: &[Value]) -> Result<Value, gotmpl::TemplateError> {
    let text = |t: String| Ok(Value::String(Arc::from(t)));
    match (name, args) {
        // Go's fmt, not gotmpl's printing (see `crate::print`); a non-string format is
        // gotmpl's error.
        ("print", _) => return text(print::sprint(args)),
        ("println", _) => return text(print::sprintln(args)),
        ("printf", [Value::String(format), rest @ ..]) => {
            return text(print::sprintf(format, rest));
        }
        ("html" | "js" | "urlquery", [Value::String(_)]) => {}
        ("html" | "js" | "urlquery", _) => {
            // Go prints a nil argument as `<no value>` here (and, being a string then, with
            // no space before or after it).
            let printable: Vec<Value> = args
                .iter()
                .map(|a| match a {
                    Value::Nil => Value::String(Arc::from("<no value>")),
                    other => other.clone(),
                })
                .collect();
            let joined = Value::String(Arc::from(print::sprint(&printable)));
            return run_gotmpl(name, &[joined]);
        }
        ("index", [item]) if !matches!(item, Value::Nil) => return Ok(item.clone()),
        ("index", [item, indexes @ ..]) => {
            if let Some(byte) = string_byte(item, indexes) {
                return Ok(byte);
            }
        }
        _ => {}
    }
    run_gotmpl(name, args)
}

/// Go's `index` ending on a string yields a byte, a `uint8`, which certgate carries as a
/// small `Uint` (see `crate::type_name`); gotmpl yields an `int`. `None` when the last index
/// is not into a string (failures were refused before, by `builtin_errors`).
fn string_byte(item: &Value, indexes: &[Value]) -> Option<Value> {
    let (last, path) = indexes.split_last()?;
    let mut item = item;
    for index in path {
        item = match (item, index) {
            (Value::List(items), _) => items.get(usize::try_from(as_int(index)?).ok()?)?,
            (Value::Map(map), Value::String(key)) => map.get(key)?,
            _ => return None,
        };
    }
    let Value::String(text) = item else { return None };
    let byte = text.as_bytes().get(usize::try_from(as_int(last)?).ok()?)?;
    Some(Value::Uint(u64::from(*byte)))
}

fn as_int(index: &Value) -> Option<i128> {
    match index {
        Value::Int(i) => Some(i128::from(*i)),
        Value::Uint(u) => Some(i128::from(*u)),
        _ => None,
    }
}

fn run_gotmpl(name: &'static str, args: &[Value]) -> Result<Value, gotmpl::TemplateError> {
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
        assert_eq!(format_shape("%s-%s", 0), Shape { factor: 1, extra: 5 + 2 * NUMBER_TEXT });
        assert_eq!(format_shape("%q", 0).factor, 5);
        assert_eq!(format_shape("%#v", 0).factor, 5);
        assert_eq!(format_shape("%[1]s%[1]s%[1]s", 0).factor, 3);
        assert_eq!(format_shape("%99999999s", 0).factor, 1 + MAX_WIDTH.div_ceil(NODE));
        assert_eq!(format_shape("%*.*d", 7).factor, 2);
        assert_eq!(format_shape("%10.3f", 0).extra, 6 + NUMBER_TEXT);
        // Each element of a list is padded on its own.
        assert_eq!(format_shape("%48v", 0).factor, 3);
        assert_eq!(format_shape("%f", 0).factor, 1 + NUMBER_TEXT.div_ceil(NODE));
        assert_eq!(star_width(&[Value::Int(-5), Value::Uint(u64::MAX)]), MAX_STAR as usize);
    }

    #[test]
    fn print_builtins_are_gos_fmt() {
        let s = |t: &str| Value::String(Arc::from(t));
        let text = |v: Result<Value, gotmpl::TemplateError>| match v {
            Ok(Value::String(t)) => t.to_string(),
            other => panic!("{other:?}"),
        };
        let list = Value::List(vec![s("ab"), Value::Int(1)].into());
        assert_eq!(
            text(run("printf", &[s("%x|%v"), list.clone(), Value::Float(1e6)])),
            "[6162 1]|1e+06"
        );
        assert_eq!(
            text(run("print", &[Value::Int(1), Value::Int(2), s("a"), Value::Nil])),
            "1 2a<nil>"
        );
        assert_eq!(text(run("println", &[list, s("b")])), "[ab 1] b\n");
        assert_eq!(text(run("urlquery", &[Value::Float(1e21), Value::Int(1)])), "1e%2B21+1");
        assert!(run("printf", &[Value::Int(1)]).is_err());
        let refused = |args: &[Value]| precheck("printf", args).err().map(|e| e.render("printf"));
        assert_eq!(
            refused(&[]).as_deref(),
            Some("wrong number of args for printf: want at least 1 got 0")
        );
        assert_eq!(
            refused(&[Value::Int(1)]).as_deref(),
            Some("wrong type for value; expected string; got int")
        );
        assert_eq!(refused(&[Value::Nil]), None);
    }

    /// Go's `evalArgs`: escapers take any arguments and escape their `fmt.Sprint`; `index`
    /// with no indices returns its item.
    #[test]
    fn escapers_are_variadic_and_index_without_indices_is_the_item() {
        let s = |t: &str| Value::String(Arc::from(t));
        let text = |v: Result<Value, gotmpl::TemplateError>| match v {
            Ok(Value::String(t)) => t.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(text(run("urlquery", &[Value::Float(2.5), s("")])), "2.5");
        assert_eq!(text(run("html", &[s("<"), s(">")])), "&lt;&gt;");
        assert_eq!(text(run("js", &[Value::Int(1), Value::Int(2)])), "1 2");
        assert_eq!(text(run("html", &[])), "");
        assert_eq!(text(run("html", &[Value::Nil])), "&lt;no value&gt;");
        assert_eq!(text(run("html", &[Value::Bool(false), Value::Nil])), "false&lt;no value&gt;");
        assert!(matches!(run("index", &[Value::Float(1.5)]), Ok(Value::Float(f)) if f == 1.5));
        assert!(run("index", &[Value::Nil]).is_err());
    }

    #[test]
    fn runs_gotmpls_builtins_with_their_types() {
        let s = |t: &str| Value::String(Arc::from(t));
        assert!(matches!(run("eq", &[Value::Int(1), Value::Int(1)]), Ok(Value::Bool(true))));
        assert!(matches!(run("len", &[s("abc")]), Ok(Value::Int(3))));
        let printed = run("printf", &[s("%s=%d"), s("a"), Value::Int(1)]);
        assert!(matches!(printed, Ok(Value::String(ref t)) if &**t == "a=1"));
        assert!(run("index", &[Value::Nil]).is_err());
        // A string's byte is Go's uint8.
        assert!(matches!(run("index", &[s("ab"), Value::Int(1)]), Ok(Value::Uint(98))));
        let nested = Value::List(vec![s("x"), s("é")].into());
        assert!(matches!(
            run("index", &[nested, Value::Int(1), Value::Uint(1)]),
            Ok(Value::Uint(0xa9))
        ));
        let many: Vec<Value> = (0..40).map(Value::Int).collect();
        assert!(matches!(run("print", &many), Ok(Value::String(_))));
    }
}
