//! String functions. Go slices strings by byte; where sprig cuts inside a UTF-8 sequence the
//! result keeps the valid prefix and replaces the broken bytes with U+FFFD (Go would keep the
//! raw bytes, which a Rust string cannot hold).

use certgate_gofmt::quote;
use certgate_gotemplate::{FuncError, FuncMap, Value, budget};

use crate::args::{Arity, Map, call_err, check_size, list, map_value, reg, s, str_list};
use crate::convert::{strslice, strval};
use crate::gofmt::{is_space, sprint};
use certgate_gofmt::unicode as gounicode;

fn bytes_to_string(b: &[u8]) -> String {
    certgate_gofmt::lossy_utf8(b)
}

pub fn register(m: &mut FuncMap) {
    reg(m, "trim", Arity::Exact(1), |a| Ok(s(a.str(0)?.trim_matches(is_space))));
    reg(m, "upper", Arity::Exact(1), |a| {
        Ok(s(a.str(0)?.chars().map(gounicode::to_upper).collect::<String>()))
    });
    reg(m, "lower", Arity::Exact(1), |a| {
        Ok(s(a.str(0)?.chars().map(gounicode::to_lower).collect::<String>()))
    });
    reg(m, "title", Arity::Exact(1), |a| Ok(s(title(a.str(0)?))));
    reg(m, "untitle", Arity::Exact(1), |a| Ok(s(untitle(a.str(0)?))));
    reg(m, "substr", Arity::Exact(3), |a| substr(a.int(0)?, a.int(1)?, a.str(2)?).map(s));
    reg(m, "repeat", Arity::Exact(2), |a| {
        let count = a.int(0)?;
        let text = a.str(1)?;
        if count < 0 {
            return Err(call_err("strings: negative Repeat count"));
        }
        let total = (count as u128).saturating_mul(text.len() as u128);
        check_size("repeat", usize::try_from(total).unwrap_or(usize::MAX))?;
        Ok(s(text.repeat(count as usize)))
    });
    for name in ["trimAll", "trimall"] {
        reg(m, name, Arity::Exact(2), |a| {
            let cut = a.str(0)?;
            Ok(s(a.str(1)?.trim_matches(|c| cut.contains(c))))
        });
    }
    reg(m, "trimSuffix", Arity::Exact(2), |a| {
        let suf = a.str(0)?;
        let st = a.str(1)?;
        Ok(s(st.strip_suffix(suf).unwrap_or(st)))
    });
    reg(m, "trimPrefix", Arity::Exact(2), |a| {
        let pre = a.str(0)?;
        let st = a.str(1)?;
        Ok(s(st.strip_prefix(pre).unwrap_or(st)))
    });
    reg(m, "nospace", Arity::Exact(1), |a| Ok(s(nospace(a.str(0)?))));
    reg(m, "initials", Arity::Exact(1), |a| Ok(s(initials(a.str(0)?))));
    reg(m, "swapcase", Arity::Exact(1), |a| Ok(s(swapcase(a.str(0)?))));
    reg(m, "snakecase", Arity::Exact(1), |a| Ok(s(crate::case::to_lower_words(a.str(0)?, '_'))));
    reg(m, "kebabcase", Arity::Exact(1), |a| Ok(s(crate::case::to_lower_words(a.str(0)?, '-'))));
    reg(m, "camelcase", Arity::Exact(1), |a| Ok(s(crate::case::to_pascal(a.str(0)?))));
    reg(m, "wrap", Arity::Exact(2), |a| Ok(s(wrap(a.str(1)?, a.int(0)?, "\n", false))));
    reg(m, "wrapWith", Arity::Exact(3), |a| {
        let (width, sep, text) = (a.int(0)?, a.str(1)?, a.str(2)?);
        // At most one separator per `width` bytes of input.
        let breaks = text.len() / (width.max(1) as usize) + 1;
        check_size("wrapWith", text.len().saturating_add(breaks.saturating_mul(sep.len())))?;
        Ok(s(wrap(text, width, sep, true)))
    });
    reg(m, "contains", Arity::Exact(2), |a| Ok(Value::Bool(a.str(1)?.contains(a.str(0)?))));
    reg(m, "hasPrefix", Arity::Exact(2), |a| Ok(Value::Bool(a.str(1)?.starts_with(a.str(0)?))));
    reg(m, "hasSuffix", Arity::Exact(2), |a| Ok(Value::Bool(a.str(1)?.ends_with(a.str(0)?))));
    reg(m, "quote", Arity::AtLeast(0), |a| {
        // Go's quoting writes at most four bytes (`\x00`) per byte.
        budget::check_values(a.values, 4, a.values.len())?;
        let parts: Vec<String> = a
            .rest(0)
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| quote(&strval(v)))
            .collect();
        Ok(s(parts.join(" ")))
    });
    reg(m, "squote", Arity::AtLeast(0), |a| {
        budget::check_values(a.values, 1, a.values.len().saturating_mul(3))?;
        let parts: Vec<String> = a
            .rest(0)
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(|v| format!("'{}'", strval(v)))
            .collect();
        Ok(s(parts.join(" ")))
    });
    reg(m, "cat", Arity::AtLeast(0), |a| {
        budget::check_values(a.values, 1, a.values.len())?;
        let parts: Vec<String> =
            a.rest(0).iter().filter(|v| !matches!(v, Value::Nil)).map(sprint).collect();
        Ok(s(parts.join(" ")))
    });
    reg(m, "indent", Arity::Exact(2), |a| indent(a.int(0)?, a.str(1)?).map(s));
    reg(m, "nindent", Arity::Exact(2), |a| {
        indent(a.int(0)?, a.str(1)?).map(|t| s(format!("\n{t}")))
    });
    reg(m, "replace", Arity::Exact(3), |a| {
        let (old, new, src) = (a.str(0)?, a.str(1)?, a.str(2)?);
        let hits = if old.is_empty() { src.chars().count() + 1 } else { src.matches(old).count() };
        check_size("replace", src.len().saturating_add(hits.saturating_mul(new.len())))?;
        Ok(s(src.replace(old, new)))
    });
    reg(m, "plural", Arity::Exact(3), |a| {
        let (one, many) = (a.str(0)?, a.str(1)?);
        Ok(s(if a.int(2)? == 1 { one } else { many }))
    });
    reg(m, "trunc", Arity::Exact(2), |a| {
        let c = a.int(0)?;
        let st = a.str(1)?;
        let len = st.len() as i64;
        let b = st.as_bytes();
        Ok(s(if c < 0 && len + c > 0 {
            bytes_to_string(b.get((len + c) as usize..).unwrap_or_default())
        } else if c >= 0 && len > c {
            bytes_to_string(b.get(..c as usize).unwrap_or_default())
        } else {
            st.to_string()
        }))
    });
    reg(m, "abbrev", Arity::Exact(2), |a| {
        let width = a.int(0)?;
        let st = a.str(1)?;
        if width < 4 {
            return Ok(s(st));
        }
        Ok(s(abbreviate(st, 0, width).unwrap_or_default()))
    });
    reg(m, "abbrevboth", Arity::Exact(3), |a| {
        let (left, right) = (a.int(0)?, a.int(1)?);
        let st = a.str(2)?;
        if right < 4 || (left > 0 && right < 7) {
            return Ok(s(st));
        }
        Ok(s(abbreviate(st, left, right).unwrap_or_default()))
    });
    reg(m, "split", Arity::Exact(2), |a| {
        let parts = go_split(a.str(1)?, a.str(0)?, -1);
        let mut out = Map::new();
        for (i, p) in parts.into_iter().enumerate() {
            out.insert(format!("_{i}").into(), s(p));
        }
        Ok(map_value(out))
    });
    reg(m, "splitList", Arity::Exact(2), |a| Ok(str_list(go_split(a.str(1)?, a.str(0)?, -1))));
    reg(m, "splitn", Arity::Exact(3), |a| {
        let parts = go_split(a.str(2)?, a.str(0)?, a.int(1)?);
        let mut out = Map::new();
        for (i, p) in parts.into_iter().enumerate() {
            out.insert(format!("_{i}").into(), s(p));
        }
        Ok(map_value(out))
    });
    reg(m, "join", Arity::Exact(2), |a| {
        let sep = a.str(0)?;
        // The separator is copied once per element: a long one joins a long list into far
        // more than either.
        let count = match a.any(1) {
            Value::List(items) => items.len(),
            _ => 1,
        };
        let separators = sep.len().saturating_mul(count);
        budget::check_alloc(separators)?;
        budget::check_values(a.rest(1), 1, separators)?;
        Ok(s(strslice(a.any(1)).join(sep)))
    });
    reg(m, "sortAlpha", Arity::Exact(1), |a| {
        let v = a.any(0);
        let mut items = match v {
            Value::List(_) => strslice(v),
            other => return Ok(str_list([strval(other)])),
        };
        items.sort();
        Ok(list(items.into_iter().map(s).collect()))
    });
}

/// Go's `strings.SplitN` (n < 0: all; n == 0: none); an empty separator splits into runes.
pub fn go_split(st: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    let limit = if n < 0 { usize::MAX } else { n as usize };
    if sep.is_empty() {
        let chars: Vec<char> = st.chars().collect();
        let mut out = Vec::new();
        for (i, c) in chars.iter().enumerate() {
            if out.len() + 1 == limit {
                out.push(chars[i..].iter().collect());
                return out;
            }
            out.push(c.to_string());
        }
        return out;
    }
    st.splitn(limit, sep).map(str::to_string).collect()
}

/// `strings.Title`: title-cases the first letter of each word.
fn title(st: &str) -> String {
    let mut prev = ' ';
    let mut out = String::with_capacity(st.len());
    for c in st.chars() {
        out.push(if is_separator(prev) { gounicode::to_title(c) } else { c });
        prev = c;
    }
    out
}

/// Go's word separator for `strings.Title`: outside ASCII, letters and digits never are and
/// spaces are the only others, so only spaces are.
fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    is_space(c)
}

/// goutils `Uncapitalize`: lower-cases the first letter of each space-delimited word.
fn untitle(st: &str) -> String {
    let mut next = true;
    st.chars()
        .map(|c| {
            if is_space(c) {
                next = true;
                c
            } else if next {
                next = false;
                gounicode::to_lower(c)
            } else {
                c
            }
        })
        .collect()
}

/// A byte as goutils reads a string, one byte per character: bytes from 0x80 become the
/// characters U+0080..U+00FF.
fn byte_char(b: u8) -> char {
    char::from(b)
}

/// goutils `Initials`: the first byte of each space-delimited word (see [`byte_char`]), so a
/// word starting with `é` gives `Ã`.
fn initials(st: &str) -> String {
    let mut gap = true;
    let mut out = String::new();
    for c in st.bytes().map(byte_char) {
        if is_space(c) {
            gap = true;
        } else if gap {
            out.push(c);
            gap = false;
        }
    }
    out
}

/// goutils `DeleteWhiteSpace`, byte by byte (see [`byte_char`]): the continuation bytes 0x85
/// and 0xA0 read as spaces. A string with no space is returned as it is.
fn nospace(st: &str) -> String {
    if !st.bytes().map(byte_char).any(is_space) {
        return st.to_owned();
    }
    st.bytes().map(byte_char).filter(|c| !is_space(*c)).collect()
}

/// goutils `SwapCase`: upper and title case become lower case; a lower-case letter becomes
/// title case at the start or after a space, upper case elsewhere.
fn swapcase(st: &str) -> String {
    let mut space = true;
    let mut out = String::with_capacity(st.len());
    for c in st.chars() {
        out.push(if gounicode::is_upper(c) || gounicode::is_title(c) {
            space = false;
            gounicode::to_lower(c)
        } else if gounicode::is_lower(c) {
            let first = std::mem::replace(&mut space, false);
            if first { gounicode::to_title(c) } else { gounicode::to_upper(c) }
        } else {
            space = is_space(c);
            c
        });
    }
    out
}

/// sprig's `substr`, including Go's panics for out-of-range bounds (reported as errors).
fn substr(start: i64, end: i64, st: &str) -> Result<String, FuncError> {
    let b = st.as_bytes();
    let len = b.len() as i64;
    if start < 0 {
        // Go names the length only when the bound exceeds it.
        if end < 0 {
            return Err(call_err(format!("runtime error: slice bounds out of range [:{end}]")));
        }
        if end > len {
            return Err(call_err(format!(
                "runtime error: slice bounds out of range [:{end}] with length {len}"
            )));
        }
        return Ok(bytes_to_string(&b[..end as usize]));
    }
    if end < 0 || end > len {
        if start > len {
            return Err(call_err(format!(
                "runtime error: slice bounds out of range [{start}:{len}]"
            )));
        }
        return Ok(bytes_to_string(&b[start as usize..]));
    }
    if start > end {
        return Err(call_err(format!("runtime error: slice bounds out of range [{start}:{end}]")));
    }
    Ok(bytes_to_string(&b[start as usize..end as usize]))
}

fn indent(spaces: i64, text: &str) -> Result<String, FuncError> {
    if spaces < 0 {
        return Err(call_err("strings: negative Repeat count"));
    }
    let lines = text.matches('\n').count() + 1;
    check_size("indent", (spaces as usize).saturating_mul(lines).saturating_add(text.len()))?;
    let pad = " ".repeat(spaces as usize);
    Ok(format!("{pad}{}", text.replace('\n', &format!("\n{pad}"))))
}

/// goutils `AbbreviateFull`; `None` where goutils returns an error (sprig then prints "").
fn abbreviate(st: &str, offset: i64, max_width: i64) -> Option<String> {
    let b = st.as_bytes();
    let len = b.len() as i64;
    if st.is_empty() {
        return Some(String::new());
    }
    if max_width < 4 {
        return None;
    }
    if len <= max_width {
        return Some(st.to_string());
    }
    let mut offset = offset.min(len);
    if len - offset < max_width - 3 {
        offset = len - (max_width - 3);
    }
    if offset <= 4 {
        return Some(format!("{}...", bytes_to_string(b.get(..(max_width - 3) as usize)?)));
    }
    if max_width < 7 {
        return None;
    }
    if offset + max_width - 3 < len {
        let rest = bytes_to_string(b.get(offset as usize..)?);
        return Some(format!("...{}", abbreviate(&rest, 0, max_width - 3)?));
    }
    Some(format!("...{}", bytes_to_string(b.get((len - (max_width - 3)) as usize..)?)))
}

/// goutils `WrapCustom`: breaks at the last space within the width; long words are cut
/// (`wrapWith`) or left whole (`wrap`).
fn wrap(st: &str, width: i64, newline: &str, wrap_long: bool) -> String {
    if st.is_empty() {
        return String::new();
    }
    let newline = if newline.is_empty() { "\n" } else { newline };
    let width = width.max(1) as usize;
    let b = st.as_bytes();
    let len = b.len();
    let mut offset = 0usize;
    let mut out: Vec<u8> = Vec::new();
    while len - offset > width {
        if b[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = (width + offset + 1).min(len);
        let window = &b[offset..end];
        if let Some(sp) = window.iter().rposition(|c| *c == b' ') {
            out.extend_from_slice(&b[offset..offset + sp]);
            out.extend_from_slice(newline.as_bytes());
            offset += sp + 1;
        } else if wrap_long {
            out.extend_from_slice(&b[offset..offset + width]);
            out.extend_from_slice(newline.as_bytes());
            offset += width;
        } else {
            let end = width + offset;
            match b[end..].iter().position(|c| *c == b' ') {
                None => {
                    out.extend_from_slice(&b[offset..]);
                    offset = len;
                }
                Some(i) => {
                    out.extend_from_slice(&b[offset..end + i]);
                    out.extend_from_slice(newline.as_bytes());
                    offset = end + i + 1;
                }
            }
        }
    }
    out.extend_from_slice(&b[offset..]);
    bytes_to_string(&out)
}
