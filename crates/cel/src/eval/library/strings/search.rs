//! `indexOf` and `lastIndexOf` on strings, with cel-go's code-point indices and
//! range errors.
//!
//! The search itself runs on bytes (`str::find`, linear), and byte offsets are turned
//! into code-point indices afterwards: a match of a valid UTF-8 needle always starts
//! on a code-point boundary, so the two views agree.

use super::{byte_offset, out_of_range};
use crate::value::{Value, ValueError};

fn strings<'a>(
    function: &str,
    s: &'a Value,
    sub: &'a Value,
    rest: &[&Value],
) -> Result<(&'a str, &'a str), ValueError> {
    match (s, sub) {
        (Value::String(s), Value::String(sub)) => Ok((s, sub)),
        _ => {
            let mut args = vec![s, sub];
            args.extend_from_slice(rest);
            Err(ValueError::no_overload(function, &args))
        }
    }
}

fn offset_arg<'a>(
    function: &str,
    s: &'a Value,
    sub: &'a Value,
    offset: &'a Value,
) -> Result<(&'a str, &'a str, i64), ValueError> {
    match offset {
        Value::Int(offset) => strings(function, s, sub, &[]).map(|(s, sub)| (s, sub, *offset)),
        _ => Err(ValueError::no_overload(function, &[s, sub, offset])),
    }
}

/// The code-point index of byte offset `offset` (a code-point boundary) of `s`.
fn code_point_index(s: &str, offset: usize) -> i64 {
    let count = s.get(..offset).map_or(0, |head| head.chars().count());
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// `s.indexOf(sub)`: the code-point index of the first occurrence, or -1.
pub(super) fn index_of(s: &Value, sub: &Value) -> Result<Value, ValueError> {
    let (text, needle) = strings("indexOf", s, sub, &[])?;
    Ok(Value::Int(text.find(needle).map_or(-1, |at| code_point_index(text, at))))
}

/// `s.indexOf(sub, offset)`: the first occurrence at or after code point `offset`. An
/// empty `sub` is found at `offset` itself, unchecked, as in cel-go; otherwise `offset`
/// must index a code point of `s` (the end of the string is out of range).
pub(super) fn index_of_offset(s: &Value, sub: &Value, offset: &Value) -> Result<Value, ValueError> {
    let (text, needle, offset) = offset_arg("indexOf", s, sub, offset)?;
    if needle.is_empty() {
        return Ok(Value::Int(offset));
    }
    let start = byte_offset(text, offset)
        .filter(|&start| start < text.len())
        .ok_or_else(|| out_of_range(offset))?;
    let found = text.get(start..).and_then(|rest| rest.find(needle));
    Ok(Value::Int(found.map_or(-1, |at| code_point_index(text, start + at))))
}

/// `s.lastIndexOf(sub)`: the code-point index of the last occurrence, or -1; an empty
/// `sub` is found at the end (the code-point length).
pub(super) fn last_index_of(s: &Value, sub: &Value) -> Result<Value, ValueError> {
    let (text, needle) = strings("lastIndexOf", s, sub, &[])?;
    Ok(Value::Int(text.rfind(needle).map_or(-1, |at| code_point_index(text, at))))
}

/// `s.lastIndexOf(sub, offset)`: the last occurrence starting at or before code point
/// `offset`, with the same range rules as [`index_of_offset`].
pub(super) fn last_index_of_offset(
    s: &Value,
    sub: &Value,
    offset: &Value,
) -> Result<Value, ValueError> {
    let (text, needle, offset) = offset_arg("lastIndexOf", s, sub, offset)?;
    if needle.is_empty() {
        return Ok(Value::Int(offset));
    }
    let start = byte_offset(text, offset)
        .filter(|&start| start < text.len())
        .ok_or_else(|| out_of_range(offset))?;
    // A match starting at or before `start` ends at or before `start + needle.len()`,
    // and on a code-point boundary, so the first boundary at or below that bounds it.
    let mut end = start.saturating_add(needle.len()).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let found = text.get(..end).and_then(|head| head.rfind(needle));
    Ok(Value::Int(found.map_or(-1, |at| code_point_index(text, at))))
}
