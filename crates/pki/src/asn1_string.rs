//! ASN.1 string values decoded the way Go's `encoding/asn1` decodes them into an `any`:
//! policy matches on exactly the strings Go would produce, and a string type with content
//! Go refuses is an error rather than a silently different value.

use asn1_rs::Tag;

use crate::der::Element;

/// Decodes `element` if it is one of the string types Go turns into a Go string.
///
/// `Ok(None)` means "not a string type" (Go leaves such values as non-strings); `Err` means a
/// string type whose content Go rejects.
pub(crate) fn go_string(element: &Element<'_>) -> Result<Option<String>, String> {
    let decode = if element.is_universal_primitive(Tag::PrintableString) {
        printable
    } else if element.is_universal_primitive(Tag::NumericString) {
        numeric
    } else if element.is_universal_primitive(Tag::Ia5String) {
        ia5
    } else if element.is_universal_primitive(Tag::T61String) {
        t61
    } else if element.is_universal_primitive(Tag::Utf8String) {
        utf8
    } else if element.is_universal_primitive(Tag::BmpString) {
        bmp
    } else {
        return Ok(None);
    };
    decode(element.content()).map(Some)
}

/// Whether `element` is a UTF8String, PrintableString, IA5String or T61String (the types an
/// otherName value is shown as text for).
pub(crate) fn is_text_type(element: &Element<'_>) -> bool {
    [Tag::Utf8String, Tag::PrintableString, Tag::Ia5String, Tag::T61String]
        .into_iter()
        .any(|tag| element.is_universal_primitive(tag))
}

fn printable(bytes: &[u8]) -> Result<String, String> {
    // Go also accepts '*' and '&', which real certificates use despite X.680.
    let allowed = |b: u8| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
                b' ' | b'\''
                    | b'('
                    | b')'
                    | b'+'
                    | b','
                    | b'-'
                    | b'.'
                    | b'/'
                    | b':'
                    | b'='
                    | b'?'
                    | b'*'
                    | b'&'
            )
    };
    ascii_checked(bytes, allowed, "PrintableString")
}

fn numeric(bytes: &[u8]) -> Result<String, String> {
    ascii_checked(bytes, |b| b.is_ascii_digit() || b == b' ', "NumericString")
}

fn ia5(bytes: &[u8]) -> Result<String, String> {
    ascii_checked(bytes, |b| b.is_ascii(), "IA5String")
}

fn ascii_checked(bytes: &[u8], allowed: impl Fn(u8) -> bool, kind: &str) -> Result<String, String> {
    match bytes.iter().position(|&b| !allowed(b)) {
        Some(at) => Err(format!("{kind} contains invalid character at byte {at}")),
        // Every allowed byte is ASCII, so this is a lossless conversion.
        None => Ok(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// T.61 is treated as Latin-1, as Go (and BoringSSL) do.
fn t61(bytes: &[u8]) -> Result<String, String> {
    Ok(bytes.iter().map(|&b| char::from(b)).collect())
}

fn utf8(bytes: &[u8]) -> Result<String, String> {
    std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(|e| format!("UTF8String is not valid UTF-8 ({e})"))
}

/// UTF-16BE; a trailing NUL code unit is dropped and unpaired surrogates become U+FFFD, as in Go.
fn bmp(bytes: &[u8]) -> Result<String, String> {
    if !bytes.len().is_multiple_of(2) {
        return Err(format!("BMPString has odd length {}", bytes.len()));
    }
    let bytes = bytes.strip_suffix(&[0, 0]).unwrap_or(bytes);
    let units = bytes
        .chunks_exact(2)
        .map(|pair| pair.iter().fold(0u16, |acc, &b| (acc << 8) | u16::from(b)));
    Ok(char::decode_utf16(units).map(|unit| unit.unwrap_or(char::REPLACEMENT_CHARACTER)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::der::read;

    fn decode(tag: u8, content: &[u8]) -> Result<Option<String>, String> {
        let mut der = vec![tag, u8::try_from(content.len()).unwrap()];
        der.extend_from_slice(content);
        let (element, _) = read(&der, "v").unwrap();
        go_string(&element)
    }

    #[test]
    fn string_types_decode_like_go() {
        assert_eq!(decode(0x13, b"Ab1 *&'()+,-./:=?"), Ok(Some("Ab1 *&'()+,-./:=?".into())));
        assert_eq!(decode(0x12, b"12 3"), Ok(Some("12 3".into())));
        assert_eq!(decode(0x16, b"a@b"), Ok(Some("a@b".into())));
        assert_eq!(decode(0x14, &[0x63, 0xe9]), Ok(Some("cé".into())));
        assert_eq!(decode(0x0c, "日本".as_bytes()), Ok(Some("日本".into())));
        assert_eq!(decode(0x1e, &[0x00, 0x41, 0x65, 0xe5, 0x00, 0x00]), Ok(Some("A日".into())));
        assert_eq!(decode(0x1e, &[0xd8, 0x00, 0x00, 0x41]), Ok(Some("\u{fffd}A".into())));
    }

    #[test]
    fn invalid_content_is_an_error() {
        assert_eq!(
            decode(0x13, b"a_b"),
            Err("PrintableString contains invalid character at byte 1".into())
        );
        assert_eq!(
            decode(0x12, b"1a"),
            Err("NumericString contains invalid character at byte 1".into())
        );
        assert_eq!(
            decode(0x16, &[b'a', 0x80]),
            Err("IA5String contains invalid character at byte 1".into())
        );
        assert_eq!(decode(0x1e, &[0x00]), Err("BMPString has odd length 1".into()));
        assert!(decode(0x0c, &[0xff]).unwrap_err().starts_with("UTF8String is not valid UTF-8"));
    }

    #[test]
    fn other_types_are_not_strings() {
        assert_eq!(decode(0x04, b"abc"), Ok(None)); // OCTET STRING
        assert_eq!(decode(0x1c, &[0, 0, 0, 0x41]), Ok(None)); // UniversalString
        assert_eq!(decode(0x1b, b"abc"), Ok(None)); // GeneralString
        assert_eq!(decode(0x80, b"abc"), Ok(None)); // [0]
    }
}
