//! Go `net/url` percent-encoding rules: which bytes each URL component may hold
//! unescaped, and strict decoding with Go's error cases.

use std::fmt::Write as _;

use super::url_parse::UrlParseReason;

/// The URL component being escaped or unescaped; the rules differ per component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// Go's `shouldEscape`: whether byte `c` must be percent-encoded in component `mode`.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
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
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// Go's `unescape`: decodes `%XX` (and `+` as space in query components), rejecting
/// malformed escapes, `%XX` of ASCII bytes in hosts (except `%25`), and in hosts and
/// zones ASCII bytes a host may not contain.
pub(crate) fn unescape(s: &str, mode: Mode) -> Result<Vec<u8>, UrlParseReason> {
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
                    return Err(UrlParseReason::Escape(owned(bytes.get(i..end))));
                };
                let escape = bytes.get(i..i + 3);
                let is_percent = escape == Some(b"%25".as_slice());
                let value = hi << 4 | lo;
                if mode == Mode::Host && hi < 8 && !is_percent {
                    return Err(UrlParseReason::Escape(owned(escape)));
                }
                if mode == Mode::Zone
                    && !is_percent
                    && value != b' '
                    && should_escape(value, Mode::Host)
                {
                    return Err(UrlParseReason::Escape(owned(escape)));
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
                    return Err(UrlParseReason::InvalidHost(lossy(bytes.get(i..=i))));
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

fn lossy(bytes: Option<&[u8]>) -> String {
    String::from_utf8_lossy(bytes.unwrap_or_default()).into_owned()
}

/// Go's `escape` for paths: percent-encodes (upper-case hex) every byte the component
/// may not hold literally.
pub(crate) fn escape(bytes: &[u8], mode: Mode) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &c in bytes {
        if should_escape(c, mode) {
            let _ = write!(out, "%{c:02X}");
        } else {
            out.push(char::from(c));
        }
    }
    out
}

/// Go's `validEncoded`: whether `s` may be used as the escaped form as written
/// (sub-delimiters, `:`, `@`, `[`, `]` and `%` are accepted literally).
pub(crate) fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes().all(|c| {
        matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'['
                | b']'
                | b'%'
        ) || !should_escape(c, mode)
    })
}
