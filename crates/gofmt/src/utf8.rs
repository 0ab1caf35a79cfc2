//! Go strings that are not valid UTF-8, as text.
//!
//! A Go string is any bytes (`b64dec` of arbitrary input, a byte slice of a multi-byte
//! character). Where Go turns such bytes into text — `encoding/json` encoding or decoding a
//! string, `[]rune` conversions, `range` over the string — each byte that does not start a
//! valid sequence becomes one U+FFFD. Rust's `String::from_utf8_lossy` replaces a whole
//! invalid or truncated sequence with a single U+FFFD instead, so `"u\xe7\xa9"` (base64
//! `deep`) would print `u�` where Go prints `u��`.

/// `bytes` as Go renders them to text: valid UTF-8 kept, one U+FFFD per invalid byte.
pub fn lossy_utf8(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    loop {
        match std::str::from_utf8(bytes) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                // A truncated sequence at the end is as long as what is left; each of
                // its bytes decodes to U+FFFD on its own in Go.
                let bad = e.error_len().unwrap_or(rest.len());
                out.extend(std::iter::repeat_n('\u{FFFD}', bad));
                bytes = &rest[bad..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::lossy_utf8;

    #[test]
    fn each_invalid_byte_is_one_replacement_character() {
        assert_eq!(lossy_utf8(b"u\xe7\xa9"), "u\u{fffd}\u{fffd}");
        assert_eq!(lossy_utf8(b"\xff\xfea"), "\u{fffd}\u{fffd}a");
        assert_eq!(lossy_utf8(b"\xe7\xa9x\xe7\xa9\xa9"), "\u{fffd}\u{fffd}x\u{7a69}");
        assert_eq!(lossy_utf8("é✓".as_bytes()), "é✓");
        assert_eq!(lossy_utf8(b""), "");
    }
}
