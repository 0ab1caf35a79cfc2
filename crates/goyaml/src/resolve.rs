//! yaml.v3's implicit and explicit scalar resolution (`resolve.go`), plus the two YAML 1.1
//! checks its encoder adds before choosing the plain style (`encode.go`: `isBase60Float`,
//! `isOldBool`).

use std::borrow::Cow;

use crate::timestamp::{Timestamp, parse_timestamp};

/// Short tags yaml.v3 resolves to.
pub const NULL_TAG: &str = "!!null";
pub const BOOL_TAG: &str = "!!bool";
pub const STR_TAG: &str = "!!str";
pub const INT_TAG: &str = "!!int";
pub const FLOAT_TAG: &str = "!!float";
pub const TIMESTAMP_TAG: &str = "!!timestamp";
pub const SEQ_TAG: &str = "!!seq";
pub const MAP_TAG: &str = "!!map";
pub const BINARY_TAG: &str = "!!binary";
pub const MERGE_TAG: &str = "!!merge";

const LONG_TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// A resolved scalar value, as the Go types yaml.v3 produces for `interface{}`.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Null,
    Bool(bool),
    /// Go `int` / `int64`.
    Int(i64),
    /// Go `uint64` (only for values above `i64::MAX`).
    Uint(u64),
    Float(f64),
    Str(String),
    /// Go `time.Time`.
    Time(Timestamp),
    /// The `<<` merge indicator.
    Merge,
}

/// `shortTag`: `tag:yaml.org,2002:x` becomes `!!x`.
pub fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(LONG_TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_owned(),
    }
}

fn resolvable(tag: &str) -> bool {
    matches!(tag, "" | STR_TAG | BOOL_TAG | INT_TAG | FLOAT_TAG | NULL_TAG | TIMESTAMP_TAG)
}

/// Values yaml.v3 looks up in its resolve map (exact spellings only).
fn lookup(text: &str) -> Option<(&'static str, Scalar)> {
    Some(match text {
        "true" | "True" | "TRUE" => (BOOL_TAG, Scalar::Bool(true)),
        "false" | "False" | "FALSE" => (BOOL_TAG, Scalar::Bool(false)),
        "" | "~" | "null" | "Null" | "NULL" => (NULL_TAG, Scalar::Null),
        ".nan" | ".NaN" | ".NAN" => (FLOAT_TAG, Scalar::Float(f64::NAN)),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            (FLOAT_TAG, Scalar::Float(f64::INFINITY))
        }
        "-.inf" | "-.Inf" | "-.INF" => (FLOAT_TAG, Scalar::Float(f64::NEG_INFINITY)),
        "<<" => (MERGE_TAG, Scalar::Merge),
        _ => return None,
    })
}

/// The first-byte hint table of `resolve.go`.
#[derive(Clone, Copy, PartialEq)]
enum Hint {
    None,
    Sign,
    Digit,
    Map,
    Dot,
}

fn hint(text: &str) -> Hint {
    match text.as_bytes().first() {
        None => Hint::Map, // the empty string is in the map (null)
        Some(b'+' | b'-') => Hint::Sign,
        Some(b'0'..=b'9') => Hint::Digit,
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => {
            Hint::Map
        }
        Some(b'.') => Hint::Dot,
        Some(_) => Hint::None,
    }
}

/// Go `strconv.ParseUint(s, 0, 64)` on text without sign or underscores.
fn parse_uint_base0(s: &str) -> Option<u64> {
    if s.is_empty() {
        return None;
    }
    let bytes = s.as_bytes();
    let (radix, digits) = if bytes[0] == b'0' {
        match bytes.get(1).map(u8::to_ascii_lowercase) {
            Some(b'b') if s.len() >= 3 => (2, &s[2..]),
            Some(b'o') if s.len() >= 3 => (8, &s[2..]),
            Some(b'x') if s.len() >= 3 => (16, &s[2..]),
            _ => (8, &s[1..]),
        }
    } else {
        (10, s)
    };
    if digits.is_empty() {
        // "0" alone: octal prefix with no digits is zero.
        return (s == "0").then_some(0);
    }
    // from_str_radix would accept a leading '+', which Go does not here.
    if !digits.bytes().all(|b| (b as char).is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Go `strconv.ParseInt(s, 0, 64)`.
fn parse_int_base0(s: &str) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = parse_uint_base0(rest)?;
    if negative {
        if magnitude <= 1u64 << 63 { Some((magnitude as i64).wrapping_neg()) } else { None }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` (yamlStyleFloat).
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go `strconv.ParseFloat(s, 64)` for decimal text already known to be well formed;
/// out-of-range values are an error in Go (ErrRange), so they do not resolve as floats.
fn parse_finite_float(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// `resolve("", text)` for an untagged plain scalar: the tag and the Go value.
pub fn resolve_plain(text: &str) -> (&'static str, Scalar) {
    resolve_plain_ref(text).unwrap_or_else(|| (STR_TAG, Scalar::Str(text.to_owned())))
}

/// [`resolve_plain`] without copying the text: `None` when the scalar is the `!!str` of its
/// own text, which is most scalars, so callers that own the text need not copy it again.
pub fn resolve_plain_ref(text: &str) -> Option<(&'static str, Scalar)> {
    let h = hint(text);
    // Most plain scalars (names, images, paths) start with a letter that no other type can
    // start with; they are decided by their first byte alone.
    if h == Hint::None {
        return None;
    }
    if let Some(found) = lookup(text) {
        return Some(found);
    }
    match h {
        Hint::Dot => {
            // ParseFloat on the raw text (no underscore removal on this path); Go's
            // ParseFloat would also take forms like ".5e3".
            if is_yaml_style_float(text)
                && let Some(f) = parse_finite_float(text)
            {
                return Some((FLOAT_TAG, Scalar::Float(f)));
            }
        }
        Hint::Digit | Hint::Sign => {
            if let Some(t) = parse_timestamp(text) {
                return Some((TIMESTAMP_TAG, Scalar::Time(t)));
            }
            // The explicit 0b/0o branches of resolve.go only matter for values ParseInt
            // already rejected (overflow); those fall through to a string here as well,
            // except "-0b…"/"-0o…" which Go's ParseInt already handles.
            return number(text);
        }
        Hint::Map | Hint::None => {}
    }
    None
}

/// The int, uint and float rules of `resolve`, tried in its order on the text without
/// underscores; `None` for a string.
fn number(text: &str) -> Option<(&'static str, Scalar)> {
    // Underscores are rare; only text that has them is copied to drop them.
    let plain: Cow<'_, str> = if text.contains('_') {
        Cow::Owned(text.chars().filter(|&c| c != '_').collect())
    } else {
        Cow::Borrowed(text)
    };
    if let Some(i) = parse_int_base0(&plain) {
        return Some((INT_TAG, Scalar::Int(i)));
    }
    if let Some(u) = parse_uint_base0(&plain) {
        return Some((INT_TAG, Scalar::Uint(u)));
    }
    if is_yaml_style_float(&plain)
        && let Some(f) = parse_finite_float(&plain)
    {
        return Some((FLOAT_TAG, Scalar::Float(f)));
    }
    None
}

/// `resolve(tag, text)` with an explicit short tag. `Err` carries Go's failure text.
pub fn resolve_tagged(tag: &str, text: &str) -> Result<(String, Scalar), String> {
    if !resolvable(tag) {
        // Custom tags, !!binary, !!merge: the text is kept as a string.
        return Ok((tag.to_owned(), Scalar::Str(text.to_owned())));
    }
    let (rtag, value) = if tag == STR_TAG {
        (STR_TAG, Scalar::Str(text.to_owned()))
    } else if tag == TIMESTAMP_TAG || tag.is_empty() {
        resolve_plain(text)
    } else {
        // Explicitly tagged values are not tried as timestamps (resolve.go only does so for
        // untagged or !!timestamp scalars).
        match resolve_plain(text) {
            (TIMESTAMP_TAG, _) => resolve_without_timestamp(text),
            other => other,
        }
    };
    if tag.is_empty() || tag == rtag || tag == STR_TAG {
        return Ok((rtag.to_owned(), value));
    }
    if tag == FLOAT_TAG
        && let Scalar::Int(i) = value
    {
        // An !!int under an !!float tag converts (the deferred fix-up in resolve.go).
        return Ok((FLOAT_TAG.to_owned(), Scalar::Float(i as f64)));
    }
    Err(format!("cannot decode {rtag} `{text}` as a {tag}"))
}

fn resolve_without_timestamp(text: &str) -> (&'static str, Scalar) {
    number(text).unwrap_or_else(|| (STR_TAG, Scalar::Str(text.to_owned())))
}

/// `isOldBool`: YAML 1.1 booleans the encoder still quotes.
pub fn is_old_bool(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "on"
            | "On"
            | "ON"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
pub fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else {
        return false;
    };
    if !(first == b'+' || first == b'-' || first.is_ascii_digit()) || !s.contains(':') {
        return false;
    }
    let mut i = usize::from(first == b'+' || first == b'-');
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        // [0-5]?[0-9]: one or two digits, the first of two at most 5.
        let d1 = b.get(i).copied().filter(u8::is_ascii_digit);
        let d2 = b.get(i + 1).copied().filter(u8::is_ascii_digit);
        match (d1, d2) {
            (Some(a), Some(_)) if a <= b'5' => i += 2,
            (Some(_), _) => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// Whether yaml.v3's encoder may write `s` as a plain scalar without changing its type:
/// it must resolve to `!!str` and not look like a YAML 1.1 bool or base-60 float.
pub fn plain_keeps_string(s: &str) -> bool {
    resolve_plain(s).0 == STR_TAG && !is_base60_float(s) && !is_old_bool(s)
}
