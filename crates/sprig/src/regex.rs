//! Regular expressions. Go's RE2 syntax and Rust's `regex` agree on nearly everything;
//! compile errors carry Rust's description under Go's prefix.

use certgate_gotemplate::{FuncError, FuncMap, Value};
use regex::{NoExpand, Regex};

use crate::args::{Arity, call_err, check_size, list, reg, s, str_list};

/// Go caps repetition counts at 1000; Rust's limit is on compiled size. Both refuse huge
/// programs; this bounds memory per call.
const SIZE_LIMIT: usize = 10 * (1 << 20);

fn compile(expr: &str) -> Result<Regex, String> {
    regex::RegexBuilder::new(expr)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| format!("error parsing regexp: {}", one_line(&e.to_string())))
}

/// Rust's multi-line error rendering reduced to its last line (the description).
fn one_line(msg: &str) -> String {
    msg.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(msg)
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

/// sprig's plain versions use `regexp.MustCompile`, whose panic text names the expression.
fn must_compile(expr: &str) -> Result<Regex, FuncError> {
    compile(expr).map_err(|e| call_err(format!("regexp: Compile({}): {e}", go_backquote(expr))))
}

fn go_backquote(expr: &str) -> String {
    if expr.contains('`') { certgate_gofmt::quote(expr) } else { format!("`{expr}`") }
}

fn find_all(re: &Regex, st: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    let limit = if n < 0 { usize::MAX } else { n as usize };
    re.find_iter(st).take(limit).map(|m| m.as_str().to_string()).collect()
}

/// Go's `Regexp.Split`.
fn split(re: &Regex, st: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    if !re.as_str().is_empty() && st.is_empty() {
        return vec![String::new()];
    }
    let limit = if n < 0 { usize::MAX } else { n as usize };
    let mut out = Vec::new();
    let (mut beg, mut end) = (0usize, 0usize);
    for m in re.find_iter(st) {
        if n > 0 && out.len() == limit - 1 {
            break;
        }
        end = m.start();
        if m.end() != 0 {
            out.push(st[beg..end].to_string());
        }
        beg = m.end();
    }
    if end != st.len() {
        out.push(st[beg..].to_string());
    }
    out
}

/// Go's `regexp.QuoteMeta`: escapes exactly `\.+*?()|[]{}^$`.
fn quote_meta(st: &str) -> String {
    let mut out = String::with_capacity(st.len());
    for c in st.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

pub fn register(m: &mut FuncMap) {
    reg(m, "regexMatch", Arity::Exact(2), |a| {
        let (expr, st) = (a.str(0)?, a.str(1)?);
        Ok(Value::Bool(compile(expr).is_ok_and(|re| re.is_match(st))))
    });
    reg(m, "mustRegexMatch", Arity::Exact(2), |a| {
        let re = compile(a.str(0)?).map_err(call_err)?;
        Ok(Value::Bool(re.is_match(a.str(1)?)))
    });
    for (name, must) in [("regexFindAll", false), ("mustRegexFindAll", true)] {
        reg(m, name, Arity::Exact(3), move |a| {
            let re =
                if must { compile(a.str(0)?).map_err(call_err)? } else { must_compile(a.str(0)?)? };
            Ok(str_list(find_all(&re, a.str(1)?, a.int(2)?)))
        });
    }
    for (name, must) in [("regexFind", false), ("mustRegexFind", true)] {
        reg(m, name, Arity::Exact(2), move |a| {
            let re =
                if must { compile(a.str(0)?).map_err(call_err)? } else { must_compile(a.str(0)?)? };
            Ok(s(re.find(a.str(1)?).map_or("", |m| m.as_str())))
        });
    }
    for (name, must, literal) in [
        ("regexReplaceAll", false, false),
        ("mustRegexReplaceAll", true, false),
        ("regexReplaceAllLiteral", false, true),
        ("mustRegexReplaceAllLiteral", true, true),
    ] {
        reg(m, name, Arity::Exact(3), move |a| {
            let re =
                if must { compile(a.str(0)?).map_err(call_err)? } else { must_compile(a.str(0)?)? };
            let (st, repl) = (a.str(1)?, a.str(2)?);
            if !repl.is_empty() {
                // Bound the result before building it: each match yields the replacement,
                // whose `$` references copy at most the match itself.
                let refs = if literal { 0 } else { repl.matches('$').count() };
                let total = re.find_iter(st).fold(st.len(), |acc, m| {
                    acc.saturating_add(repl.len()).saturating_add(refs.saturating_mul(m.len()))
                });
                check_size(a.name, total)?;
            }
            let out =
                if literal { re.replace_all(st, NoExpand(repl)) } else { re.replace_all(st, repl) };
            Ok(s(out))
        });
    }
    for (name, must) in [("regexSplit", false), ("mustRegexSplit", true)] {
        reg(m, name, Arity::Exact(3), move |a| {
            let re =
                if must { compile(a.str(0)?).map_err(call_err)? } else { must_compile(a.str(0)?)? };
            Ok(list(split(&re, a.str(1)?, a.int(2)?).into_iter().map(s).collect()))
        });
    }
    reg(m, "regexQuoteMeta", Arity::Exact(1), |a| Ok(s(quote_meta(a.str(0)?))));
}
