//! Implementations of cel-go's strings extension (version 3) declared by
//! [`crate::check::add_strings_extension`].
//!
//! Indices are code-point indices, as in cel-go (which works on Go runes); searches
//! run on the UTF-8 bytes and convert offsets, so they stay linear in the receiver.
//! Every result is bounded by [`MAX_CONCAT_LEN`] before it is built.

mod format;
mod quote;
mod search;

#[cfg(test)]
mod format_tests;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use crate::eval::{Functions, Impl};
use crate::value::{MAX_CONCAT_LEN, Value, ValueError};

pub(super) fn register(functions: &mut Functions) {
    functions.add("string_char_at_int", Impl::Binary(char_at));
    functions.add("string_index_of_string", Impl::Binary(search::index_of));
    functions.add("string_index_of_string_int", Impl::Ternary(search::index_of_offset));
    functions.add("string_last_index_of_string", Impl::Binary(search::last_index_of));
    functions.add("string_last_index_of_string_int", Impl::Ternary(search::last_index_of_offset));
    functions.add("string_lower_ascii", Impl::Unary(lower_ascii));
    functions.add("string_upper_ascii", Impl::Unary(upper_ascii));
    functions.add("string_trim", Impl::Unary(trim));
    functions.add("string_reverse", Impl::Unary(reverse));
    functions.add("string_replace_string_string", Impl::Ternary(replace_all));
    functions.add("string_replace_string_string_int", Impl::Variadic(replace_n));
    functions.add("string_split_string", Impl::Binary(split_all));
    functions.add("string_split_string_int", Impl::Ternary(split));
    functions.add("string_substring_int", Impl::Binary(substring));
    functions.add("string_substring_int_int", Impl::Ternary(substring_range));
    functions.add("list_join", Impl::Unary(join));
    functions.add("list_join_string", Impl::Binary(join_separator));
    functions.add("string_format", Impl::Binary(format::format));
    functions.add("strings_quote", Impl::Unary(quote::quote));
}

/// cel-go's text for an index outside the string.
pub(super) fn out_of_range(index: i64) -> ValueError {
    ValueError::Message(format!("index out of range: {index}"))
}

/// Fails with [`ValueError::TooLarge`] when a result would exceed the engine bound.
pub(super) fn check_len(len: usize) -> Result<(), ValueError> {
    if len > MAX_CONCAT_LEN {
        return Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN });
    }
    Ok(())
}

/// The byte offset of code point `index` of `s`, where `index == count` is the end;
/// `None` beyond the end or for a negative index.
pub(super) fn byte_offset(s: &str, index: i64) -> Option<usize> {
    let index = usize::try_from(index).ok()?;
    if index == 0 {
        return Some(0);
    }
    match s.char_indices().nth(index) {
        Some((offset, _)) => Some(offset),
        None if s.chars().count() == index => Some(s.len()),
        None => None,
    }
}

fn string(s: impl Into<Arc<str>>) -> Value {
    Value::String(s.into())
}

/// `s.charAt(i)`: the code point at `i`, `""` at the end of the string.
fn char_at(s: &Value, i: &Value) -> Result<Value, ValueError> {
    let (Value::String(s), Value::Int(i)) = (s, i) else {
        return Err(ValueError::no_overload("charAt", &[s, i]));
    };
    let start = byte_offset(s, *i).ok_or_else(|| out_of_range(*i))?;
    let rest = s.get(start..).unwrap_or_default();
    let end = rest.chars().next().map_or(0, char::len_utf8);
    Ok(string(rest.get(..end).unwrap_or_default()))
}

fn lower_ascii(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => Ok(string(s.to_ascii_lowercase())),
        _ => Err(ValueError::no_overload("lowerAscii", &[s])),
    }
}

fn upper_ascii(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => Ok(string(s.to_ascii_uppercase())),
        _ => Err(ValueError::no_overload("upperAscii", &[s])),
    }
}

/// `s.trim()`: removes leading and trailing Unicode `White_Space`, the set Go's
/// `unicode.IsSpace` (and so cel-go) uses; Rust's `char::is_whitespace` is the same set.
fn trim(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(text) => {
            let trimmed = text.trim();
            // No copy when nothing was trimmed.
            if trimmed.len() == text.len() { Ok(s.clone()) } else { Ok(string(trimmed)) }
        }
        _ => Err(ValueError::no_overload("trim", &[s])),
    }
}

/// `s.reverse()`: the code points in reverse order.
fn reverse(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => Ok(string(s.chars().rev().collect::<String>())),
        _ => Err(ValueError::no_overload("reverse", &[s])),
    }
}

fn replace_all(s: &Value, old: &Value, new: &Value) -> Result<Value, ValueError> {
    replace(s, old, new, &Value::Int(-1))
}

fn replace_n(args: &[Value]) -> Result<Value, ValueError> {
    match args {
        [s, old, new, n] => replace(s, old, new, n),
        _ => Err(ValueError::no_overload("replace", &args.iter().collect::<Vec<_>>())),
    }
}

/// `s.replace(old, new[, n])`: Go's `strings.Replace` — at most `n` replacements left
/// to right, all when `n` is negative; an empty `old` matches before every code point
/// and at the end.
fn replace(s: &Value, old: &Value, new: &Value, n: &Value) -> Result<Value, ValueError> {
    let (Value::String(text), Value::String(from), Value::String(to), Value::Int(n)) =
        (s, old, new, n)
    else {
        return Err(ValueError::no_overload("replace", &[s, old, new, n]));
    };
    let limit = usize::try_from(*n).unwrap_or(usize::MAX);
    let count = text.matches(from.as_ref()).take(limit).count();
    if count == 0 {
        return Ok(s.clone());
    }
    let len = (text.len() - count * from.len()).saturating_add(count.saturating_mul(to.len()));
    check_len(len)?;
    Ok(string(text.replacen(from.as_ref(), to, count)))
}

fn split_all(s: &Value, sep: &Value) -> Result<Value, ValueError> {
    split(s, sep, &Value::Int(-1))
}

/// `s.split(sep[, n])`: Go's `strings.SplitN` — `n == 0` gives no parts, a negative
/// `n` all of them, otherwise at most `n` with the rest of the string in the last; an
/// empty separator splits into code points.
fn split(s: &Value, sep: &Value, n: &Value) -> Result<Value, ValueError> {
    let (Value::String(text), Value::String(sep), Value::Int(n)) = (s, sep, n) else {
        return Err(ValueError::no_overload("split", &[s, sep, n]));
    };
    let limit = match usize::try_from(*n) {
        Ok(0) => return Ok(Value::list(Vec::new())),
        Ok(limit) => limit,
        Err(_) => usize::MAX,
    };
    let parts: Vec<&str> = if sep.is_empty() {
        split_code_points(text, limit)
    } else {
        text.splitn(limit, sep.as_ref()).collect()
    };
    check_len(parts.len())?;
    Ok(Value::list(parts.into_iter().map(string).collect()))
}

/// The first `limit - 1` code points one by one, then the remainder.
fn split_code_points(text: &str, limit: usize) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if parts.len() + 1 >= limit {
            parts.push(rest);
            return parts;
        }
        let (head, tail) = rest.split_at(c.len_utf8());
        parts.push(head);
        rest = tail;
    }
    parts
}

/// `s.substring(start)`: from code point `start` to the end.
fn substring(s: &Value, start: &Value) -> Result<Value, ValueError> {
    let (Value::String(text), Value::Int(start)) = (s, start) else {
        return Err(ValueError::no_overload("substring", &[s, start]));
    };
    let from = byte_offset(text, *start).ok_or_else(|| out_of_range(*start))?;
    Ok(string(text.get(from..).unwrap_or_default()))
}

/// `s.substring(start, end)`: code points `start` (inclusive) to `end` (exclusive).
fn substring_range(s: &Value, start: &Value, end: &Value) -> Result<Value, ValueError> {
    let (Value::String(text), Value::Int(start), Value::Int(end)) = (s, start, end) else {
        return Err(ValueError::no_overload("substring", &[s, start, end]));
    };
    if start > end {
        return Err(ValueError::Message(format!(
            "invalid substring range. start: {start}, end: {end}"
        )));
    }
    let from = byte_offset(text, *start).ok_or_else(|| out_of_range(*start))?;
    let to = byte_offset(text, *end).ok_or_else(|| out_of_range(*end))?;
    Ok(string(text.get(from..to).unwrap_or_default()))
}

fn join(list: &Value) -> Result<Value, ValueError> {
    join_with(list, "", &[list])
}

fn join_separator(list: &Value, sep: &Value) -> Result<Value, ValueError> {
    let Value::String(separator) = sep else {
        return Err(ValueError::no_overload("join", &[list, sep]));
    };
    join_with(list, separator, &[list, sep])
}

/// `list.join([separator])` of a list of strings; `args` are the call's arguments, for
/// the error when an element is not a string.
fn join_with(list: &Value, separator: &str, args: &[&Value]) -> Result<Value, ValueError> {
    let not_strings = || ValueError::no_overload("join", args);
    let Value::List(items) = list else { return Err(not_strings()) };
    let mut parts = Vec::with_capacity(items.len());
    for item in items.iter() {
        let Value::String(s) = item else { return Err(not_strings()) };
        parts.push(s.as_ref());
    }
    let separators = separator.len().saturating_mul(parts.len().saturating_sub(1));
    check_len(parts.iter().map(|p| p.len()).fold(separators, usize::saturating_add))?;
    Ok(string(parts.join(separator)))
}
