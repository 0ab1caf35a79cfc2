//! Decoding of string and bytes literal bodies (escape sequences).
//!
//! The lexer has already checked the escapes' syntax; what can still fail here is
//! reported with cel-go's words.

/// cel-go's message for an escape it cannot decode.
const UNESCAPE: &str = "unable to unescape string";
/// cel-go's message for an escape that is no code point in a string.
const CODE_POINT: &str = "invalid unicode code point";

/// Decodes the body of a non-raw literal. For strings, `\x`, octal, `\u` and `\U`
/// escapes denote code points; for bytes, `\x` and octal escapes denote single octets
/// and `\u`/`\U` are not allowed (CEL language definition).
///
/// On error, returns cel-go's message.
pub(crate) fn unescape(body: &str, bytes: bool) -> Result<Vec<u8>, &'static str> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    while let Some(pos) = rest.find('\\') {
        out.extend_from_slice(rest.get(..pos).unwrap_or("").as_bytes());
        let escape = rest.get(pos..).unwrap_or("");
        let (consumed, decoded) = decode_escape(escape, bytes)?;
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
fn decode_escape(text: &str, bytes: bool) -> Result<(usize, Decoded), &'static str> {
    let mut chars = text.chars();
    chars.next();
    let Some(letter) = chars.next() else {
        return Err(UNESCAPE);
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
        'u' | 'U' if bytes => return Err(UNESCAPE),
        'u' => (4, 16),
        'U' => (8, 16),
        '0'..='3' => (3, 8),
        _ => return Err(UNESCAPE),
    };
    // Octal escapes include their first digit in `letter`.
    let skip = if radix == 8 { 1 } else { 2 };
    let len = skip + digits;
    let body = text.get(skip..len).ok_or(UNESCAPE)?;
    if !body.chars().all(|c| c.is_digit(radix)) {
        return Err(UNESCAPE);
    }
    let value = u32::from_str_radix(body, radix).map_err(|_| UNESCAPE)?;
    if bytes {
        // Two hex or three octal (max \377) digits always fit in an octet.
        let octet = u8::try_from(value).map_err(|_| UNESCAPE)?;
        return Ok((len, Decoded::Octet(octet)));
    }
    // Surrogates and values above U+10FFFF are not code points.
    let c = char::from_u32(value).ok_or(CODE_POINT)?;
    Ok((len, Decoded::Char(c)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(body: &str) -> Result<String, &'static str> {
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
        assert_eq!(unescape(r"a\u0041", true), Err("unable to unescape string"));
    }

    #[test]
    fn escapes_that_are_no_code_point_use_cel_go_words() {
        assert_eq!(string(r"\uD800"), Err("invalid unicode code point"));
        assert_eq!(string(r"\U00110000"), Err("invalid unicode code point"));
    }
}
