//! Decoding of string and bytes literal bodies (escape sequences).

use super::error::SyntaxErrorKind;

/// Decodes the body of a non-raw literal. For strings, `\x`, octal, `\u` and `\U`
/// escapes denote code points; for bytes, `\x` and octal escapes denote single octets
/// and `\u`/`\U` are not allowed (CEL language definition).
///
/// On error, returns the kind and the byte offset of the escape within `body`.
pub(crate) fn unescape(body: &str, bytes: bool) -> Result<Vec<u8>, (SyntaxErrorKind, usize)> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    while let Some(pos) = rest.find('\\') {
        out.extend_from_slice(rest.get(..pos).unwrap_or("").as_bytes());
        let escape = rest.get(pos..).unwrap_or("");
        let at = body.len() - escape.len();
        let (consumed, decoded) = decode_escape(escape, bytes).map_err(|kind| (kind, at))?;
        match decoded {
            Decoded::Octet(b) => out.push(b),
            Decoded::Char(c) => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
        rest = escape.get(consumed..).unwrap_or("");
    }
    out.extend_from_slice(rest.as_bytes());
    Ok(out)
}

enum Decoded {
    Octet(u8),
    Char(char),
}

/// Decodes the escape at the start of `text` (which begins with a backslash) and
/// returns how many bytes it spans.
fn decode_escape(text: &str, bytes: bool) -> Result<(usize, Decoded), SyntaxErrorKind> {
    let mut chars = text.chars();
    chars.next();
    let invalid = |len: usize| {
        let shown: String = text.chars().take(len).collect();
        SyntaxErrorKind::InvalidEscape(shown)
    };
    let Some(letter) = chars.next() else {
        return Err(invalid(1));
    };
    let simple = match letter {
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        '\\' | '\'' | '"' | '?' | '`' => Some(letter),
        _ => None,
    };
    if let Some(c) = simple {
        return Ok((2, Decoded::Char(c)));
    }
    let (digits, radix) = match letter {
        'x' | 'X' => (2, 16),
        'u' | 'U' if bytes => return Err(SyntaxErrorKind::UnicodeEscapeInBytes),
        'u' => (4, 16),
        'U' => (8, 16),
        '0'..='3' => (3, 8),
        _ => return Err(invalid(2)),
    };
    // Octal escapes include their first digit in `letter`.
    let skip = if radix == 8 { 1 } else { 2 };
    let len = skip + digits;
    let body = text.get(skip..len).ok_or_else(|| invalid(len))?;
    if !body.chars().all(|c| c.is_digit(radix)) {
        return Err(invalid(len));
    }
    let value = u32::from_str_radix(body, radix).map_err(|_| invalid(len))?;
    if bytes {
        // Two hex or three octal (max \377) digits always fit in an octet.
        let octet = u8::try_from(value).map_err(|_| invalid(len))?;
        return Ok((len, Decoded::Octet(octet)));
    }
    // Surrogates and values above U+10FFFF are not code points.
    let c = char::from_u32(value).ok_or_else(|| invalid(len))?;
    Ok((len, Decoded::Char(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(body: &str) -> Result<String, (SyntaxErrorKind, usize)> {
        unescape(body, false).map(|b| String::from_utf8(b).unwrap_or_default())
    }

    #[test]
    fn simple_and_numeric_escapes() {
        assert_eq!(
            string(r#"\a\b\f\n\r\t\v\\\'\"\?\`"#),
            Ok("\u{7}\u{8}\u{c}\n\r\t\u{b}\\'\"?`".to_owned())
        );
        assert_eq!(string(r"\000\012\177\377"), Ok("\0\n\u{7f}\u{ff}".to_owned()));
        assert_eq!(string(r"\x4a\X4B\u01aB\U0001F62C"), Ok("JKƫ😬".to_owned()));
    }

    #[test]
    fn bytes_escapes_are_octets() {
        assert_eq!(unescape(r"\377\xFF\303\277ÿ", true), Ok(vec![255, 255, 195, 191, 195, 191]));
        assert_eq!(unescape(r"a\u0041", true), Err((SyntaxErrorKind::UnicodeEscapeInBytes, 1)));
    }

    #[test]
    fn invalid_escapes_are_located() {
        assert_eq!(string(r"ab\q"), Err((SyntaxErrorKind::InvalidEscape(r"\q".into()), 2)));
        assert_eq!(string(r"\400"), Err((SyntaxErrorKind::InvalidEscape(r"\4".into()), 0)));
        assert_eq!(string(r"\xZZ"), Err((SyntaxErrorKind::InvalidEscape(r"\xZZ".into()), 0)));
        assert_eq!(string(r"\uD800"), Err((SyntaxErrorKind::InvalidEscape(r"\uD800".into()), 0)));
        assert_eq!(
            string(r"\U00110000"),
            Err((SyntaxErrorKind::InvalidEscape(r"\U00110000".into()), 0))
        );
        assert_eq!(string(r"\x4"), Err((SyntaxErrorKind::InvalidEscape(r"\x4".into()), 0)));
        assert_eq!(string("\\"), Err((SyntaxErrorKind::InvalidEscape("\\".into()), 0)));
    }
}
