//! PEM bodies as Go decodes them: spaces and tabs removed, `\r` and `\n` skipped, then
//! `base64.StdEncoding` (padding required, non-zero trailing bits tolerated). Bodies are
//! decoded in bounded chunks so a multi-megabyte CRL is not copied a second time.

use base64::Engine as _;
use base64::alphabet::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// Go's `base64.StdEncoding`.
const GO_STD_BASE64: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// Size of the stripped-base64 chunks decoded at once; a multiple of 4 so that chunks are
/// whole quanta.
const CHUNK: usize = 64 * 1024;

fn is_skipped(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Whether the body decodes, without keeping what it decodes to.
pub(super) fn is_valid_base64(body: &[u8]) -> bool {
    decode_into(body, None)
}

/// The decoded body, or `None` when it is not valid base64.
pub(super) fn decode_base64(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 3);
    decode_into(body, Some(&mut out)).then_some(out)
}

/// The `base64` crate's description of why the body does not decode, for messages (such as
/// `Invalid symbol 42, offset 1.`). Only called once a body was found invalid.
pub(super) fn base64_error(body: &[u8]) -> String {
    let compact: Vec<u8> = body.iter().copied().filter(|b| !is_skipped(*b)).collect();
    GO_STD_BASE64.decode(&compact).err().map(|e| e.to_string()).unwrap_or_default()
}

fn decode_into(body: &[u8], mut out: Option<&mut Vec<u8>>) -> bool {
    let mut chunk = Vec::with_capacity(CHUNK.min(body.len()));
    // Only a check needs somewhere to decode to; a decode writes straight into `out`.
    let mut scratch = match out {
        Some(_) => Vec::new(),
        None => vec![0u8; decoded_len_estimate(CHUNK.min(body.len()))],
    };
    let mut rest = body;
    loop {
        chunk.clear();
        rest = fill_chunk(rest, &mut chunk);
        let last = rest.iter().all(|b| is_skipped(*b));
        // Padding is only allowed in the final quantum of the whole body.
        if !last && chunk.contains(&b'=') {
            return false;
        }
        let decoded = match out.as_deref_mut() {
            Some(out) => {
                let start = out.len();
                out.resize(start + decoded_len_estimate(chunk.len()), 0);
                let decoded =
                    GO_STD_BASE64.decode_slice(&chunk, out.get_mut(start..).unwrap_or_default());
                out.truncate(start + decoded.as_ref().map_or(0, |n| *n));
                decoded
            }
            None => GO_STD_BASE64.decode_slice(&chunk, &mut scratch),
        };
        if decoded.is_err() {
            return false;
        }
        if last {
            return true;
        }
    }
}

/// Moves up to [`CHUNK`] base64 bytes (skipped bytes left out) from `body` into `chunk`, a
/// run between line breaks at a time; returns what is left of `body`.
fn fill_chunk<'a>(mut body: &'a [u8], chunk: &mut Vec<u8>) -> &'a [u8] {
    while chunk.len() < CHUNK {
        let start = body.iter().position(|b| !is_skipped(*b)).unwrap_or(body.len());
        body = body.get(start..).unwrap_or_default();
        if body.is_empty() {
            break;
        }
        let run = body.iter().position(|b| is_skipped(*b)).unwrap_or(body.len());
        let take = run.min(CHUNK - chunk.len());
        chunk.extend_from_slice(body.get(..take).unwrap_or_default());
        body = body.get(take..).unwrap_or_default();
    }
    body
}

/// The output room `decode_slice` asks for: three bytes per started quantum.
fn decoded_len_estimate(encoded: usize) -> usize {
    encoded.div_ceil(4) * 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunked_decoding_matches_a_single_pass() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let text = base64::engine::general_purpose::STANDARD.encode(&data);
        let mut body = Vec::new();
        for line in text.as_bytes().chunks(64) {
            body.extend_from_slice(line);
            body.extend_from_slice(b"\r\n");
        }
        assert_eq!(decode_base64(&body), Some(data.clone()));
        assert!(is_valid_base64(&body));
        // Runs that straddle a chunk boundary, and a body of exactly one chunk.
        let mut body = Vec::new();
        for line in text.as_bytes().chunks(76) {
            body.extend_from_slice(line);
            body.extend_from_slice(b" \t\n");
        }
        assert_eq!(decode_base64(&body), Some(data.clone()));
        let exact = &data[..CHUNK / 4 * 3];
        let text_exact = base64::engine::general_purpose::STANDARD.encode(exact);
        assert_eq!(text_exact.len(), CHUNK);
        assert_eq!(decode_base64(text_exact.as_bytes()).as_deref(), Some(exact));
        assert_eq!(decode_base64(b" \r\n"), Some(Vec::new()));
        // Padding inside the body is refused even when it ends a chunk.
        let mut padded = text.clone().into_bytes();
        padded.splice(CHUNK - 2..CHUNK, *b"==");
        assert!(!is_valid_base64(&padded));
        assert!(base64_error(&padded).starts_with("Invalid"));
    }
}
