//! `template.format(args)`: cel-go's `string.format` (strings extension version 3).
//!
//! Clauses are `%s %d %f %e %b %o %x %X`, optionally with a precision (`%.3f`), and
//! `%%` for a literal percent sign. Behaviour follows cel-go's second formatter (`%d`,
//! `%f` and `%e` accept ints, uints and doubles; NaN and infinities print as `NaN`,
//! `Infinity`, `-Infinity`); error texts are the cel-spec conformance ones.
//!
//! The output is built in a [`Budget`]-checked buffer: formatting a list that holds the
//! same large string many times must fail before it allocates, not after.

use std::fmt::Write as _;

use super::check_len;
use crate::check::Type;
use crate::value::{MAX_COMPARE_DEPTH, MAX_CONCAT_LEN, Value, ValueError};

/// Precision used by `%f` and `%e` without an explicit one, as in C and Go.
const DEFAULT_PRECISION: usize = 6;

/// Largest precision a clause may ask for. cel-go also caps it; this bound keeps one
/// clause's output small whatever the template says.
pub const MAX_FORMAT_PRECISION: usize = 1000;

pub(super) fn format(template: &Value, args: &Value) -> Result<Value, ValueError> {
    let (Value::String(text), Value::List(args)) = (template, args) else {
        return Err(ValueError::no_overload("format", &[template, args]));
    };
    let mut out = Budget::new(MAX_CONCAT_LEN);
    let mut rest: &str = text;
    let mut arg_index = 0_usize;
    while let Some(percent) = rest.find('%') {
        out.push(rest.get(..percent).unwrap_or_default())?;
        let after = rest.get(percent + 1..).unwrap_or_default();
        if let Some(tail) = after.strip_prefix('%') {
            out.push("%")?;
            rest = tail;
            continue;
        }
        let arg = args
            .get(arg_index)
            .ok_or_else(|| ValueError::Message(format!("index {arg_index} out of range")))?;
        if after.is_empty() {
            return Err(ValueError::Message("unexpected end of string".to_owned()));
        }
        let (read, clause) = parse_clause(after).map_err(|reason| {
            ValueError::Message(format!("could not parse formatting clause: {reason}"))
        })?;
        clause.apply(arg, &mut out)?;
        rest = after.get(read..).unwrap_or_default();
        arg_index += 1;
    }
    out.push(rest)?;
    Ok(Value::String(out.buf.into()))
}

/// A parsed formatting clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Clause {
    String,
    Decimal,
    Fixed(usize),
    Scientific(usize),
    Binary,
    Octal,
    Hex { upper: bool },
}

/// Parses the clause after a `%`: how many bytes it spans and what it is, or the
/// reason (cel-go's text) it is not a clause.
fn parse_clause(spec: &str) -> Result<(usize, Clause), String> {
    let bytes = spec.as_bytes();
    let (read, precision) = parse_precision(bytes)
        .map_err(|reason| format!("error while parsing precision: {reason}"))?;
    let verb = *bytes.get(read).ok_or("unexpected end of string")?;
    let precision = precision.unwrap_or(DEFAULT_PRECISION);
    let clause = match verb {
        b's' => Clause::String,
        b'd' => Clause::Decimal,
        b'f' => Clause::Fixed(precision),
        b'e' => Clause::Scientific(precision),
        b'b' => Clause::Binary,
        b'o' => Clause::Octal,
        b'x' => Clause::Hex { upper: false },
        b'X' => Clause::Hex { upper: true },
        // cel-go prints the byte as a character (Latin-1 for a non-ASCII lead byte).
        other => return Err(format!("unrecognized formatting clause \"{}\"", char::from(other))),
    };
    Ok((read + 1, clause))
}

/// An optional `.digits` precision: bytes read and its value.
fn parse_precision(bytes: &[u8]) -> Result<(usize, Option<usize>), String> {
    if bytes.first() != Some(&b'.') {
        return Ok((0, None));
    }
    let digits = bytes.iter().skip(1).take_while(|b| b.is_ascii_digit()).count();
    if digits + 1 >= bytes.len() {
        return Err("could not find end of precision specifier".to_owned());
    }
    let text = std::str::from_utf8(bytes.get(1..=digits).unwrap_or_default()).unwrap_or("");
    let precision: i64 = text.parse().map_err(|_| {
        let reason = if text.is_empty() { "invalid syntax" } else { "value out of range" };
        format!(
            "error while converting precision to integer: strconv.Atoi: parsing {text:?}: {reason}"
        )
    })?;
    let precision = usize::try_from(precision).unwrap_or(usize::MAX);
    if precision > MAX_FORMAT_PRECISION {
        return Err(format!(
            "precision {precision} exceeds maximum allowed precision {MAX_FORMAT_PRECISION}"
        ));
    }
    Ok((digits + 1, Some(precision)))
}

impl Clause {
    fn apply(self, arg: &Value, out: &mut Budget) -> Result<(), ValueError> {
        let text = match (self, arg) {
            (Clause::String, _) => return format_string(arg, out, 0),
            (Clause::Decimal, Value::Int(i)) => i.to_string(),
            (Clause::Decimal, Value::Uint(u)) => u.to_string(),
            (Clause::Decimal, Value::Double(d)) => shortest_fixed(*d),
            (Clause::Fixed(p), Value::Int(_) | Value::Uint(_) | Value::Double(_)) => {
                float_clause(as_double(arg), |d| format!("{d:.p$}"))
            }
            (Clause::Scientific(p), Value::Int(_) | Value::Uint(_) | Value::Double(_)) => {
                float_clause(as_double(arg), |d| scientific(d, p))
            }
            (Clause::Binary, Value::Bool(b)) => u8::from(*b).to_string(),
            (Clause::Binary, Value::Int(i)) => signed(*i, |u| format!("{u:b}")),
            (Clause::Binary, Value::Uint(u)) => format!("{u:b}"),
            (Clause::Octal, Value::Int(i)) => signed(*i, |u| format!("{u:o}")),
            (Clause::Octal, Value::Uint(u)) => format!("{u:o}"),
            (Clause::Hex { upper }, Value::Int(i)) => signed(*i, |u| hex_number(u, upper)),
            (Clause::Hex { upper }, Value::Uint(u)) => hex_number(*u, upper),
            (Clause::Hex { upper }, Value::String(s)) => hex_bytes(s.as_bytes(), upper)?,
            (Clause::Hex { upper }, Value::Bytes(b)) => hex_bytes(b, upper)?,
            _ => return Err(self.type_error(arg)),
        };
        out.push(&text)
    }

    fn type_error(self, arg: &Value) -> ValueError {
        let what = match self {
            Clause::String => {
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, \
                 lists, types, durations, and timestamps"
            }
            Clause::Decimal => "decimal clause can only be used on integers",
            Clause::Fixed(_) => "fixed-point clause can only be used on doubles",
            Clause::Scientific(_) => "scientific clause can only be used on doubles",
            Clause::Binary => "only integers and bools can be formatted as binary",
            Clause::Octal => "octal clause can only be used on integers",
            Clause::Hex { .. } => {
                "only integers, byte buffers, and strings can be formatted as hex"
            }
        };
        ValueError::Message(format!(
            "error during formatting: {what}, was given {}",
            type_name(&arg.type_of())
        ))
    }
}

#[allow(clippy::cast_precision_loss)]
fn as_double(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Uint(u) => *u as f64,
        Value::Double(d) => *d,
        _ => f64::NAN,
    }
}

/// NaN and the infinities print as cel-go names them, whatever the clause.
fn float_clause(d: f64, finite: impl FnOnce(f64) -> String) -> String {
    if d.is_nan() {
        "NaN".to_owned()
    } else if d.is_infinite() {
        if d > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else {
        finite(d)
    }
}

/// Go's `strconv.FormatFloat(d, 'f', -1, 64)`: the shortest digits that round-trip,
/// never in exponent form. Rust's `Display` for `f64` prints exactly that.
fn shortest_fixed(d: f64) -> String {
    float_clause(d, |d| d.to_string())
}

/// Go's `%.pe`: the exponent has a sign and at least two digits (`1.5e+03`).
fn scientific(d: f64, precision: usize) -> String {
    let rust = format!("{d:.precision$e}");
    let (mantissa, exponent) = rust.split_once('e').unwrap_or((&rust, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

/// Formats a signed integer as Go does in bases other than 10: a minus sign and the
/// magnitude, not the two's complement.
fn signed(i: i64, digits: impl FnOnce(u64) -> String) -> String {
    let magnitude = digits(i.unsigned_abs());
    if i < 0 { format!("-{magnitude}") } else { magnitude }
}

fn hex_number(u: u64, upper: bool) -> String {
    if upper { format!("{u:X}") } else { format!("{u:x}") }
}

fn hex_bytes(bytes: &[u8], upper: bool) -> Result<String, ValueError> {
    check_len(bytes.len().saturating_mul(2))?;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing to a `String` cannot fail.
        let _ = if upper { write!(out, "{b:02X}") } else { write!(out, "{b:02x}") };
    }
    Ok(out)
}

/// The name cel-go reports for a type in formatting errors and prints for type values:
/// the type's name without its parameters (`list`, `map`, `optional_type`).
fn type_name(ty: &Type) -> String {
    match ty {
        Type::List(_) => "list".to_owned(),
        Type::Map(..) => "map".to_owned(),
        Type::TypeOf(_) => "type".to_owned(),
        Type::Opaque { name, .. } | Type::Object(name) => name.clone(),
        other => other.to_string(),
    }
}

/// Go's `time.Duration.Seconds()` printed shortest, then `s` (`6347s`, `1.5s`).
fn duration_seconds(nanos: i128) -> String {
    #[allow(clippy::cast_precision_loss)]
    let seconds = (nanos / 1_000_000_000) as f64 + (nanos % 1_000_000_000) as f64 / 1e9;
    format!("{}s", shortest_fixed(seconds))
}

/// The `%s` rendering: scalars as `string()` would (doubles shortest, never in
/// exponent form), lists as `[a, b]`, maps as `{k: v}` sorted by the rendered key.
fn format_string(arg: &Value, out: &mut Budget, depth: usize) -> Result<(), ValueError> {
    if depth > MAX_COMPARE_DEPTH {
        return Err(ValueError::Message(format!(
            "error during formatting: value nests deeper than {MAX_COMPARE_DEPTH} levels"
        )));
    }
    match arg {
        Value::Null => out.push("null"),
        Value::Bool(b) => out.push(if *b { "true" } else { "false" }),
        Value::Int(i) => out.push(&i.to_string()),
        Value::Uint(u) => out.push(&u.to_string()),
        Value::Double(d) => out.push(&shortest_fixed(*d)),
        Value::String(s) => out.push(s),
        Value::Bytes(b) => out.push(&String::from_utf8_lossy(b)),
        Value::Duration(d) => out.push(&duration_seconds(d.total_nanos())),
        Value::Timestamp(t) => out.push(&t.to_string()),
        Value::Type(t) => out.push(&type_name(t)),
        Value::List(items) => {
            out.push("[")?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(", ")?;
                }
                format_string(item, out, depth + 1)?;
            }
            out.push("]")
        }
        Value::Map(map) => {
            let mut entries = Vec::with_capacity(map.len());
            for (key, value) in map.iter() {
                // Each rendered entry draws on what is left of the output budget.
                let mut key_out = Budget::new(out.remaining());
                format_string(&key.to_value(), &mut key_out, depth + 1)?;
                let mut value_out = Budget::new(out.remaining());
                format_string(value, &mut value_out, depth + 1)?;
                out.reserve(key_out.buf.len() + value_out.buf.len())?;
                entries.push((key_out.buf, value_out.buf));
            }
            out.release();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            out.push("{")?;
            for (i, (key, value)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(", ")?;
                }
                out.push(key)?;
                out.push(": ")?;
                out.push(value)?;
            }
            out.push("}")
        }
        Value::Optional(_) | Value::Opaque(_) | Value::Object(_) => {
            Err(Clause::String.type_error(arg))
        }
    }
}

/// An output buffer that refuses to grow beyond a limit.
struct Budget {
    buf: String,
    limit: usize,
    /// Bytes set aside for parts rendered separately (map entries) until they are
    /// written.
    reserved: usize,
}

impl Budget {
    fn new(limit: usize) -> Self {
        Self { buf: String::new(), limit, reserved: 0 }
    }

    fn remaining(&self) -> usize {
        self.limit.saturating_sub(self.buf.len()).saturating_sub(self.reserved)
    }

    fn push(&mut self, s: &str) -> Result<(), ValueError> {
        if s.len() > self.limit.saturating_sub(self.buf.len()) {
            return Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN });
        }
        self.buf.push_str(s);
        Ok(())
    }

    fn reserve(&mut self, len: usize) -> Result<(), ValueError> {
        if len > self.remaining() {
            return Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN });
        }
        self.reserved += len;
        Ok(())
    }

    fn release(&mut self) {
        self.reserved = 0;
    }
}
