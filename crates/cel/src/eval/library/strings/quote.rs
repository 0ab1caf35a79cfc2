//! `strings.quote(s)`: `s` as a double-quoted CEL string literal.
//!
//! cel-go escapes only the C control escapes, the backslash and the double quote, and
//! copies every other code point (printable or not) unchanged; this is not Go's `%q`.

use super::check_len;
use crate::value::{Value, ValueError};

pub(super) fn quote(s: &Value) -> Result<Value, ValueError> {
    let Value::String(text) = s else {
        return Err(ValueError::no_overload("strings.quote", &[s]));
    };
    // Each escaped character is one byte that becomes two.
    let escapes = text.chars().filter(|c| escape(*c).is_some()).count();
    let len = text.len().saturating_add(escapes).saturating_add(2);
    check_len(len)?;
    let mut out = String::with_capacity(len);
    out.push('"');
    for c in text.chars() {
        match escape(c) {
            Some(escaped) => out.push_str(escaped),
            None => out.push(c),
        }
    }
    out.push('"');
    Ok(Value::String(out.into()))
}

fn escape(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{7}' => "\\a",
        '\u{8}' => "\\b",
        '\u{c}' => "\\f",
        '\n' => "\\n",
        '\r' => "\\r",
        '\t' => "\\t",
        '\u{b}' => "\\v",
        '\\' => "\\\\",
        '"' => "\\\"",
        _ => return None,
    })
}
