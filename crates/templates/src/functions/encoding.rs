//! base64 functions, and Go's `base64.StdEncoding` decoder: its error offsets end up in
//! rendered policies (`base64dec` returns the error text as its value).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use certgate_gotemplate::{FuncError, FuncMap, Value};

use super::args::{expect_count, string_arg};

/// `base64.CorruptInputError`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal base64 data at input byte {0}")]
pub(crate) struct CorruptInput(pub usize);

fn decode_symbol(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// `base64.StdEncoding.DecodeString`: padded, `\r` and `\n` skipped, not strict about the
/// unused bits of the last symbol. Decodes one quantum at a time as Go's `decodeQuantum`
/// does, so the reported offsets are Go's.
pub(crate) fn decode_std(input: &str) -> Result<Vec<u8>, CorruptInput> {
    let src = input.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    while si < src.len() {
        let mut dbuf = [0u8; 4];
        let mut dlen = 4;
        let mut j = 0;
        let mut trailing_error = None;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(CorruptInput(si - j));
            }
            let c = src[si];
            si += 1;
            if let Some(value) = decode_symbol(c) {
                dbuf[j] = value;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(CorruptInput(si - 1));
            }
            // Padding: only after two or three symbols, "==" after two.
            match j {
                0 | 1 => return Err(CorruptInput(si - 1)),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(CorruptInput(src.len()));
                    }
                    if src[si] != b'=' {
                        return Err(CorruptInput(si - 1));
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                trailing_error = Some(CorruptInput(si));
            }
            dlen = j;
            break;
        }
        let value = u32::from(dbuf[0]) << 18
            | u32::from(dbuf[1]) << 12
            | u32::from(dbuf[2]) << 6
            | u32::from(dbuf[3]);
        let bytes = [(value >> 16) as u8, (value >> 8) as u8, value as u8];
        out.extend_from_slice(&bytes[..dlen - 1]);
        if let Some(error) = trailing_error {
            return Err(error);
        }
    }
    Ok(out)
}

pub(crate) fn encode_std(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// `base64enc`/`b64enc` and `base64dec`/`b64dec` (sprig's versions are shadowed).
pub(super) fn register(map: &mut FuncMap) {
    for name in ["base64enc", "b64enc"] {
        map.insert(name, move |args: &[Value]| {
            expect_count(name, args, 1)?;
            Ok(Value::from(encode_std(string_arg(&args[0])?.as_bytes())))
        });
    }
    for name in ["base64dec", "b64dec"] {
        map.insert(name, move |args: &[Value]| -> Result<Value, FuncError> {
            expect_count(name, args, 1)?;
            // Invalid input is not an error: the error text becomes the value, as upstream.
            Ok(Value::from(match decode_std(string_arg(&args[0])?) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(error) => error.to_string(),
            }))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoder_matches_go() {
        #[rustfmt::skip]
        let cases: &[(&str, Result<&[u8], usize>)] = &[
            ("", Ok(b"")),
            ("aGk=", Ok(b"hi")),
            ("aGVsbG8=", Ok(b"hello")),
            ("aGVs\nbG8=", Ok(b"hello")),
            ("aGVsbG8", Err(4)),
            ("abc!", Err(3)),
            ("====", Err(0)),
            ("aGk=x", Err(4)),
            ("aG==", Ok(b"h")),
            ("aG=", Err(3)),
            ("aG=x", Err(2)),
            ("a", Err(0)),
            ("not base64!", Err(3)),
        ];
        for (input, want) in cases {
            assert_eq!(decode_std(input).map_err(|e| e.0), want.map(<[u8]>::to_vec), "{input:?}");
        }
    }
}
