//! Percent-encoding rules of Go's `net/url` for the URL parts a SAN URI can have.

/// Which part of a URL is being escaped or unescaped; the rules differ per part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Path,
    UserPassword,
    Host,
    Zone,
    Fragment,
}

/// Whether `c` must be percent-encoded in `mode` (Go's `shouldEscape`).
pub(super) fn should_escape(c: u8, mode: Mode) -> bool {
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
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    !(mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*'))
}

/// Percent-encodes the bytes `mode` requires, with uppercase hex digits.
pub(super) fn escape(bytes: &[u8], mode: Mode) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if should_escape(b, mode) {
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 0x0f)]));
        } else {
            out.push(char::from(b));
        }
    }
    out
}

/// Decodes percent-escapes, refusing what Go's `unescape` refuses (bad escapes; in hosts,
/// escaped ASCII other than `%25` and unescaped characters that need escaping).
pub(super) fn unescape(text: &str, mode: Mode) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while let Some(&b) = bytes.get(index) {
        if b == b'%' {
            let high = bytes.get(index + 1).copied().and_then(hex_value)?;
            let low = bytes.get(index + 2).copied().and_then(hex_value)?;
            let decoded = (high << 4) | low;
            let is_percent = decoded == b'%';
            match mode {
                Mode::Host if high < 8 && !is_percent => return None,
                Mode::Zone
                    if !is_percent && decoded != b' ' && should_escape(decoded, Mode::Host) =>
                {
                    return None;
                }
                _ => {}
            }
            out.push(decoded);
            index += 3;
        } else {
            if matches!(mode, Mode::Host | Mode::Zone) && b.is_ascii() && should_escape(b, mode) {
                return None;
            }
            out.push(b);
            index += 1;
        }
    }
    Some(out)
}

/// Whether `text` is already an acceptable encoding for `mode` (Go's `validEncoded`), in which
/// case Go re-serializes it unchanged.
pub(super) fn valid_encoded(text: &str, mode: Mode) -> bool {
    text.bytes().all(|b| {
        matches!(
            b,
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
        ) || !should_escape(b, mode)
    })
}

fn hex_value(c: u8) -> Option<u8> {
    char::from(c).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_rules_per_mode() {
        assert_eq!(escape(b"/a b?c", Mode::Path), "/a%20b%3Fc");
        assert_eq!(escape(b"u@s:p", Mode::UserPassword), "u%40s%3Ap");
        assert_eq!(escape("é.com".as_bytes(), Mode::Host), "%C3%A9.com");
        assert_eq!(escape(b"x!(y)/?", Mode::Fragment), "x!(y)/?");
        assert_eq!(escape(b"a!b", Mode::Path), "a%21b");
    }

    #[test]
    fn unescape_rules_per_mode() {
        assert_eq!(unescape("a%2Fb", Mode::Path), Some(b"a/b".to_vec()));
        assert_eq!(unescape("a%2", Mode::Path), None);
        assert_eq!(unescape("a%zz", Mode::Path), None);
        // Hosts may only escape non-ASCII bytes (and %25).
        assert_eq!(unescape("a%41", Mode::Host), None);
        assert_eq!(unescape("%C3%A9", Mode::Host), Some("é".as_bytes().to_vec()));
        assert_eq!(unescape("a b", Mode::Host), None);
        assert_eq!(unescape("%25eth0", Mode::Zone), Some(b"%eth0".to_vec()));
    }

    #[test]
    fn valid_encoding_check() {
        assert!(valid_encoded("/a%2Fb!", Mode::Path));
        assert!(!valid_encoded("/a b", Mode::Path));
    }
}
