//! Go's `encoding/json.Marshal` of a JSON value.

use std::fmt::Write as _;

use serde_json::{Number, Value};

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
                push_string(&mut out, k);
                out.push(':');
            }
            Step::Value(Value::Null) => out.push_str("null"),
            Step::Value(Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
            Step::Value(Value::Number(n)) => push_number(&mut out, n),
            Step::Value(Value::String(s)) => push_string(&mut out, s),
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

/// A JSON string with Go's `HTMLEscape`-enabled escaping.
fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Go 1.22 and later use the short forms for these two.
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
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

/// Integers as written; floats as Go's `float64` encoder: shortest round-trip digits,
/// plain notation for 1e-6 <= |f| < 1e21, otherwise `1e+21` / `1e-7` exponent form.
fn push_number(out: &mut String, n: &Number) {
    if let Some(i) = n.as_i64() {
        let _ = write!(out, "{i}");
    } else if let Some(u) = n.as_u64() {
        let _ = write!(out, "{u}");
    } else if let Some(f) = n.as_f64() {
        let abs = f.abs();
        if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
            // Rust prints `1.5e-7` / `1e21`; Go prints `1.5e-7` / `1e+21` (after trimming a
            // leading zero from a negative two-digit exponent).
            let formatted = format!("{f:e}");
            match formatted.split_once('e') {
                Some((mantissa, exp)) if !exp.starts_with('-') => {
                    let _ = write!(out, "{mantissa}e+{exp:0>2}");
                }
                _ => out.push_str(&formatted),
            }
        } else {
            let _ = write!(out, "{f}");
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json as v;

    use super::json;

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
