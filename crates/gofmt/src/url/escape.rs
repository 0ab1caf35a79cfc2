//! Go's percent-encoding rules per URL component (`shouldEscape`, `escape`, `unescape`,
//! `validEncoded`): which bytes each component may hold literally, and strict decoding.

use std::fmt::Write as _;

use crate::{quote, quote_bytes};

/// The URL component being escaped or unescaped; the rules differ per component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// Why Go's `unescape` rejected a component, with Go's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EscapeError {
    /// A malformed or disallowed `%` escape (the bytes as written, up to three).
    #[error("invalid URL escape {}", quote_bytes(.0))]
    Escape(Vec<u8>),
    /// An ASCII byte a host may not hold literally.
    #[error("invalid character {} in host name", quote(.0))]
    InvalidHost(String),
}

/// Go's `shouldEscape`: whether byte `c` must be percent-encoded in component `mode`.
pub(crate) fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    // Hosts and zones may hold sub-delimiters and the bytes of IP literals and ports
    // literally (`<`, `>` and `"` because Go allows them there).
    if matches!(mode, Mode::Host | Mode::Zone)
        && (is_sub_delim(c) || matches!(c, b':' | b'[' | b']' | b'<' | b'>' | b'"'))
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    !(mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*'))
}

/// RFC 3986 sub-delimiters: `!$&'()*+,;=`.
pub(crate) fn is_sub_delim(c: u8) -> bool {
    matches!(c, b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=')
}

fn hex_value(c: u8) -> Option<u8> {
    char::from(c).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// Go's `unescape`: decodes `%XX` (and `+` as a space in query components), rejecting
/// malformed escapes, `%XX` of ASCII bytes in hosts (except `%25`), and in hosts and
/// zones ASCII bytes a host may not contain.
pub fn unescape(s: &str, mode: Mode) -> Result<Vec<u8>, EscapeError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0usize;
    while let Some(&c) = bytes.get(i) {
        match c {
            b'%' => {
                let (Some(hi), Some(lo)) = (
                    bytes.get(i + 1).copied().and_then(hex_value),
                    bytes.get(i + 2).copied().and_then(hex_value),
                ) else {
                    let end = bytes.len().min(i + 3);
                    return Err(EscapeError::Escape(owned(bytes.get(i..end))));
                };
                let written = bytes.get(i..i + 3);
                let is_percent = written == Some(b"%25".as_slice());
                let value = (hi << 4) | lo;
                if mode == Mode::Host && hi < 8 && !is_percent {
                    return Err(EscapeError::Escape(owned(written)));
                }
                if mode == Mode::Zone
                    && !is_percent
                    && value != b' '
                    && should_escape(value, Mode::Host)
                {
                    return Err(EscapeError::Escape(owned(written)));
                }
                out.push(value);
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    let literal = String::from_utf8_lossy(bytes.get(i..=i).unwrap_or_default());
                    return Err(EscapeError::InvalidHost(literal.into_owned()));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

fn owned(bytes: Option<&[u8]>) -> Vec<u8> {
    bytes.unwrap_or_default().to_vec()
}

/// Go's `escape`: percent-encodes (upper-case hex) every byte the component may not
/// hold literally.
pub fn escape(bytes: &[u8], mode: Mode) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &c in bytes {
        if should_escape(c, mode) {
            // Writing to a String cannot fail.
            let _ = write!(out, "%{c:02X}");
        } else {
            out.push(char::from(c));
        }
    }
    out
}

/// Go's `validEncoded`: whether `s` may be used as the escaped form as written
/// (sub-delimiters, `:`, `@`, `[`, `]` and `%` are accepted literally).
pub fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes().all(|c| {
        is_sub_delim(c) || matches!(c, b':' | b'@' | b'[' | b']' | b'%') || !should_escape(c, mode)
    })
}
