//! Go's `encoding/json.Marshal` of a JSON value.

use std::fmt::Write as _;

use serde_json::{Number, Value};

use crate::float::json_float;

/// How Go's `encoding/json` decoder names the kind of a JSON value in its type errors
/// (`json: cannot unmarshal string into Go struct field ...`).
pub fn unmarshal_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Go's `encoding/json.Marshal` of a value: compact, object keys sorted by bytes (Go sorts
/// map keys), `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c` etc., floats formatted
/// as Go formats `float64`.
///
/// Works with an explicit stack, so arbitrarily deep values cannot overflow the call stack.
pub fn json(v: &Value) -> String {
    enum Step<'a> {
        Value(&'a Value),
        Key(&'a str),
        Lit(&'static str),
    }
    let mut out = String::new();
    let mut stack = vec![Step::Value(v)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Lit(s) => out.push_str(s),
            Step::Key(k) => {
                push_json_string(&mut out, k, JsonEscape::MARSHAL);
                out.push(':');
            }
            Step::Value(Value::Null) => out.push_str("null"),
            Step::Value(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
            Step::Value(Value::Number(n)) => push_number(&mut out, n),
            Step::Value(Value::String(s)) => push_json_string(&mut out, s, JsonEscape::MARSHAL),
            Step::Value(Value::Array(items)) => {
                out.push('[');
                stack.push(Step::Lit("]"));
                for (i, item) in items.iter().enumerate().rev() {
                    stack.push(Step::Value(item));
                    if i > 0 {
                        stack.push(Step::Lit(","));
                    }
                }
            }
            Step::Value(Value::Object(map)) => {
                out.push('{');
                stack.push(Step::Lit("}"));
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
                for (i, (k, item)) in entries.into_iter().enumerate().rev() {
                    stack.push(Step::Value(item));
                    stack.push(Step::Key(k));
                    if i > 0 {
                        stack.push(Step::Lit(","));
                    }
                }
            }
        }
    }
    out
}

/// How [`push_json_string`] escapes a string, i.e. which `encoding/json` encoder it mimics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonEscape {
    /// Escape `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`: `json.Marshal` and an
    /// `Encoder` with the default `SetEscapeHTML(true)`; `false` is `SetEscapeHTML(false)`.
    pub html: bool,
    /// Write U+0008 and U+000C as `\b` and `\f`, as Go 1.22 and later do; `false` gives the
    /// `\u0008` and `\u000c` of earlier Go releases.
    pub short_b_f: bool,
}

impl JsonEscape {
    /// `json.Marshal` of current Go (1.22 and later): what [`json()`] writes.
    pub const MARSHAL: Self = Self { html: true, short_b_f: true };
}

/// Appends `s` as a JSON string literal, escaped as Go's `encoding/json` encoder does:
/// `"`, `\\`, `\n`, `\r`, `\t`, other control characters as `\u00XX` (U+0008 and U+000C
/// per [`JsonEscape::short_b_f`]), U+2028 and U+2029 always as `\u2028` / `\u2029`, `<`,
/// `>`, `&` per [`JsonEscape::html`]; DEL and everything else as is.
pub fn push_json_string(out: &mut String, s: &str, escape: JsonEscape) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' if escape.short_b_f => out.push_str("\\b"),
            '\u{c}' if escape.short_b_f => out.push_str("\\f"),
            '<' | '>' | '&' if escape.html => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            _ if c < ' ' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            _ => out.push(c),
        }
    }
    out.push('"');
}

/// Integers as written; floats as Go's `float64` encoder ([`crate::json_float`]).
fn push_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(text) = n.as_f64().and_then(json_float) {
        out.push_str(&text);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json as v;

    use super::{JsonEscape, json, push_json_string};

    #[test]
    fn matches_go_json_marshal() {
        let cases = [
            (v!(null), "null"),
            (v!(true), "true"),
            (v!(-1), "-1"),
            (v!(9000), "9000"),
            (v!(u64::MAX), "18446744073709551615"),
            (v!(1.5), "1.5"),
            (v!(100.0), "100"),
            (v!(1e20), "100000000000000000000"),
            (v!(1e21), "1e+21"),
            (v!(1.5e300), "1.5e+300"),
            (v!(0.000001), "0.000001"),
            (v!(1.5e-7), "1.5e-7"),
            (v!(1e-10), "1e-10"),
            (v!(-0.0), "-0"),
            (v!("False"), r#""False""#),
            (v!(["server auth", "client auth"]), r#"["server auth","client auth"]"#),
            (v!([]), "[]"),
            (v!({}), "{}"),
            (
                v!({"b": "2", "a": "1", "B": [1, {"y": null, "x": true}]}),
                r#"{"B":[1,{"x":true,"y":null}],"a":"1","b":"2"}"#,
            ),
            (v!("<a&b>"), r#""\u003ca\u0026b\u003e""#),
            (v!("q\"\\/"), r#""q\"\\/""#),
            // DEL is not escaped by Go's encoder.
            (v!("\n\r\t\u{8}\u{c}\u{0}\u{1f}\u{7f}"), "\"\\n\\r\\t\\b\\f\\u0000\\u001f\u{7f}\""),
            (v!("\u{2028}\u{2029}é日"), "\"\\u2028\\u2029é日\""),
        ];
        for (input, want) in cases {
            assert_eq!(json(&input), want, "json({input})");
        }
    }

    #[test]
    fn json_strings_follow_the_chosen_escaping() {
        let escaped = |s: &str, html: bool, short_b_f: bool| {
            let mut out = String::from("x");
            push_json_string(&mut out, s, JsonEscape { html, short_b_f });
            out
        };
        let input = "<a&b>\"\\\n\r\t\u{8}\u{c}\u{1}\u{7f}\u{2028}\u{2029}é";
        assert_eq!(
            escaped(input, true, true),
            "x\"\\u003ca\\u0026b\\u003e\\\"\\\\\\n\\r\\t\\b\\f\\u0001\u{7f}\\u2028\\u2029é\""
        );
        // SetEscapeHTML(false) keeps `<>&` but still escapes U+2028 and U+2029; Go before
        // 1.22 wrote U+0008 and U+000C in the long form.
        assert_eq!(
            escaped(input, false, false),
            "x\"<a&b>\\\"\\\\\\n\\r\\t\\u0008\\u000c\\u0001\u{7f}\\u2028\\u2029é\""
        );
        assert_eq!(JsonEscape::MARSHAL, JsonEscape { html: true, short_b_f: true });
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        const DEPTH: usize = 100_000;
        let mut value = v!(1);
        for _ in 0..DEPTH {
            value = serde_json::Value::Array(vec![value]);
        }
        let out = json(&value);
        // Dropping a deeply nested `Value` recurses inside serde_json; unwind it by hand
        // before asserting, so a failure reports instead of overflowing while unwinding.
        while let serde_json::Value::Array(mut items) = value {
            value = items.pop().unwrap_or_default();
        }
        assert!(out == format!("{}1{}", "[".repeat(DEPTH), "]".repeat(DEPTH)));
    }
}
