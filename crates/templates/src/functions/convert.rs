//! Conversion and formatting functions: `toInt`, `atoi`, `toBool`, `toLiteral`, `indent`,
//! `autoindent` and the YAML helpers, with Go's parsing rules (strconv, spf13/cast).

use std::sync::LazyLock;

use certgate_gotemplate::{FuncError, FuncMap, Value, from_value, to_value};
use regex::Regex;

use super::args::{expect_count, int_arg, string_arg};

/// Results of `indent` larger than this fail instead of exhausting memory.
const MAX_INDENT_OUTPUT: usize = 16 << 20;

#[derive(Debug, PartialEq, Eq)]
enum ParseIntError {
    Syntax,
    /// Out of range; Go returns the clamped value with the error.
    Range(i64),
}

/// Go's `underscoreOK`: underscores only between digits (a base prefix counts as a digit).
fn underscore_ok(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s).as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = s[1].eq_ignore_ascii_case(&b'x');
    }
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_digit() || hex && c.is_ascii_hexdigit() {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// `strconv.ParseInt(s, base, 64)` for base 10 or 0 (prefixes `0x`, `0o`, `0b`, leading `0`
/// for octal, underscores).
fn go_parse_int(s: &str, base0: bool) -> Result<i64, ParseIntError> {
    let (negative, digits) = match s.as_bytes().first() {
        None => return Err(ParseIntError::Syntax),
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        Some(_) => (false, s),
    };
    if digits.is_empty() {
        return Err(ParseIntError::Syntax);
    }
    let (base, body) = if base0 && digits.starts_with('0') {
        let bytes = digits.as_bytes();
        match bytes.get(1).map(u8::to_ascii_lowercase) {
            Some(b'b') if bytes.len() >= 3 => (2, &digits[2..]),
            Some(b'o') if bytes.len() >= 3 => (8, &digits[2..]),
            Some(b'x') if bytes.len() >= 3 => (16, &digits[2..]),
            _ => (8, &digits[1..]),
        }
    } else {
        (10, digits)
    };
    let mut value: u64 = 0;
    let mut underscores = false;
    for c in body.bytes() {
        let digit = match c {
            b'_' if base0 => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => u64::from(c - b'0'),
            b'a'..=b'z' | b'A'..=b'Z' => u64::from(c.to_ascii_lowercase() - b'a' + 10),
            _ => return Err(ParseIntError::Syntax),
        };
        if digit >= base {
            return Err(ParseIntError::Syntax);
        }
        // Go stops at the first overflow: later characters are not looked at.
        match value.checked_mul(base).and_then(|v| v.checked_add(digit)) {
            Some(v) => value = v,
            None => return Err(ParseIntError::Range(if negative { i64::MIN } else { i64::MAX })),
        }
    }
    if underscores && !underscore_ok(digits) {
        return Err(ParseIntError::Syntax);
    }
    let cutoff = 1u64 << 63;
    if negative {
        if value > cutoff {
            return Err(ParseIntError::Range(i64::MIN));
        }
        Ok((value as i64).wrapping_neg())
    } else {
        if value >= cutoff {
            return Err(ParseIntError::Range(i64::MAX));
        }
        Ok(value as i64)
    }
}

static STRING_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([-+]?[0-9]*)(\.[0-9]*)?$").unwrap_or_else(|_| unreachable!("constant regex"))
});

/// spf13/cast `trimDecimal`: `"1.50"` → `"1"`, `".5"` → `"0"`.
fn trim_decimal(s: &str) -> String {
    if !s.contains('.') {
        return s.to_owned();
    }
    match STRING_NUMBER.captures(s) {
        Some(captures) => match captures.get(1).map_or("", |m| m.as_str()) {
            "" => "0".to_owned(),
            sign @ ("-" | "+") => format!("{sign}0"),
            integer => integer.to_owned(),
        },
        None => s.to_owned(),
    }
}

/// spf13/cast `ToInt` (v1.10): any failure is 0.
fn cast_to_int(value: &Value) -> i64 {
    match value {
        Value::Int(i) => *i,
        Value::Uint(u) => i64::try_from(*u).unwrap_or(0),
        Value::Float(f)
            if f.is_finite()
                && *f >= -9.223_372_036_854_776e18
                && *f < 9.223_372_036_854_776e18 =>
        {
            f.trunc() as i64
        }
        Value::Bool(b) => i64::from(*b),
        Value::String(s) if s.is_empty() => 0,
        Value::String(s) => go_parse_int(&trim_decimal(s), true).unwrap_or(0),
        _ => 0,
    }
}

/// `strconv.Atoi`; like upstream, the error is dropped, so out-of-range input gives Go's
/// clamped value and other errors give 0.
fn atoi(s: &str) -> i64 {
    match go_parse_int(s, false) {
        Ok(v) | Err(ParseIntError::Range(v)) => v,
        Err(ParseIntError::Syntax) => 0,
    }
}

/// `strconv.ParseBool`; invalid input is false.
fn parse_bool(s: &str) -> bool {
    matches!(s, "1" | "t" | "T" | "TRUE" | "true" | "True")
}

/// `indent`: `spaces + additional` spaces before every line, then trimmed, so the first
/// line continues where the template stands.
fn indent(spaces: i64, additional: usize, text: &str) -> Result<String, FuncError> {
    let count = i64::try_from(additional).ok().and_then(|a| a.checked_add(spaces));
    let count = match count.map(usize::try_from) {
        Some(Ok(count)) => count,
        // Go's strings.Repeat panics; text/template turns the panic into the call's error.
        _ => return Err(FuncError::call("strings: negative Repeat count")),
    };
    let lines = text.matches('\n').count() + 1;
    let size = count.saturating_mul(lines).saturating_add(text.len());
    if size > MAX_INDENT_OUTPUT {
        return Err(FuncError::call(format!(
            "the indented text would be larger than {MAX_INDENT_OUTPUT} bytes"
        )));
    }
    certgate_gotemplate::budget::check_alloc(size)?;
    let pad = " ".repeat(count);
    let mut out = String::with_capacity(text.len() + lines * (count + 1));
    out.push('\n');
    out.push_str(&pad);
    out.push_str(&text.replace('\n', &format!("\n{pad}")));
    Ok(out.trim().to_owned())
}

pub(super) fn register(map: &mut FuncMap, additional_indentation: usize) {
    map.insert("toInt", |args: &[Value]| {
        expect_count("toInt", args, 1)?;
        Ok(Value::Int(cast_to_int(&args[0])))
    });
    map.insert("atoi", |args: &[Value]| {
        expect_count("atoi", args, 1)?;
        Ok(Value::Int(atoi(string_arg(&args[0])?)))
    });
    map.insert("toBool", |args: &[Value]| {
        expect_count("toBool", args, 1)?;
        Ok(Value::Bool(parse_bool(string_arg(&args[0])?)))
    });
    map.insert("toLiteral", |args: &[Value]| {
        expect_count("toLiteral", args, 1)?;
        let text = string_arg(&args[0])?;
        if text.contains('\n') {
            return Err(FuncError::call(
                "new lines are not allowed in the string passed to the toLiteral function",
            ));
        }
        Ok(Value::from(text))
    });
    map.insert("indent", move |args: &[Value]| {
        expect_count("indent", args, 2)?;
        let (spaces, text) = (int_arg(&args[0])?, string_arg(&args[1])?);
        Ok(Value::from(indent(spaces, additional_indentation, text)?))
    });
    map.insert("autoindent", |args: &[Value]| {
        expect_count("autoindent", args, 1)?;
        string_arg(&args[0])?;
        // The pipeline rewrites autoindent before parsing; reaching it means it could not.
        Err(FuncError::call("an unexpected error occurred where autoindent could not be processed"))
    });
    for name in ["fromYAML", "fromYaml"] {
        map.insert(name, move |args: &[Value]| {
            expect_count(name, args, 1)?;
            let json = certgate_goyaml::from_yaml(string_arg(&args[0])?)
                .map_err(|e| FuncError::call(e.to_string()))?;
            Ok(to_value(&json))
        });
    }
    for name in ["toYAML", "toYaml"] {
        map.insert(name, move |args: &[Value]| {
            expect_count(name, args, 1)?;
            // Refused before converting: a value sharing parts serializes to far more text
            // than it occupies.
            certgate_gotemplate::budget::check_values(args, 1, 0)?;
            let yaml = certgate_goyaml::to_yaml(&from_value(&args[0]));
            Ok(Value::from(yaml.strip_suffix('\n').unwrap_or(&yaml)))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_int_is_gos() {
        assert_eq!(go_parse_int("0x1F", true), Ok(31));
        assert_eq!(go_parse_int("010", true), Ok(8));
        assert_eq!(go_parse_int("0b101", true), Ok(5));
        assert_eq!(go_parse_int("0o17", true), Ok(15));
        assert_eq!(go_parse_int("1_000", true), Ok(1000));
        assert_eq!(go_parse_int("1__0", true), Err(ParseIntError::Syntax));
        assert_eq!(go_parse_int("1_000", false), Err(ParseIntError::Syntax));
        assert_eq!(go_parse_int("-9223372036854775808", false), Ok(i64::MIN));
        assert_eq!(go_parse_int("9223372036854775808", false), Err(ParseIntError::Range(i64::MAX)));
        assert_eq!(go_parse_int("0", true), Ok(0));
        assert_eq!(go_parse_int("0x", true), Err(ParseIntError::Syntax));
        assert_eq!(go_parse_int("09", true), Err(ParseIntError::Syntax));
        assert_eq!(go_parse_int("+", false), Err(ParseIntError::Syntax));
    }

    #[test]
    fn trim_decimal_is_casts() {
        assert_eq!(trim_decimal("1.50"), "1");
        assert_eq!(trim_decimal(".5"), "0");
        assert_eq!(trim_decimal("-.5"), "-0");
        assert_eq!(trim_decimal("0x1.5"), "0x1.5");
        assert_eq!(trim_decimal("12"), "12");
    }
}
