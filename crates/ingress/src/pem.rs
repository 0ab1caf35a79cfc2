//! PEM walking exactly as Contour does it: Go's `encoding/pem.Decode` plus Contour's
//! `containsPEMHeader` pre-check (spec §2.3), byte for byte, quirks included.
//!
//! Contour's Secret checks only look at PEM framing and block types, so this module is all the
//! "parsing" the Secret validation needs; it never looks inside the DER.

use base64::Engine as _;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

/// One decoded PEM block (headers are not needed by any caller, so they are not kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The label between `-----BEGIN ` and `-----`, e.g. `X509 CRL`.
    pub label: Vec<u8>,
    pub bytes: Vec<u8>,
}

const BEGIN_TOKEN: &[u8] = b"-----BEGIN";
const DASHES: &[u8] = b"-----";
const PEM_START: &[u8] = b"\n-----BEGIN ";
const PEM_END: &[u8] = b"\n-----END ";

/// Go's `StdEncoding`: padding required, non-zero trailing bits tolerated (it is not `Strict`).
const GO_STD: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Contour's `containsPEMHeader`. The closing `-----` is searched from `start + 10`, but the
/// newline check covers `data[start .. start + end)` with `end` relative to `start + 10`, so the
/// last ten bytes before the closing dashes escape the newline check (the spec's quirk).
pub fn contains_pem_header(data: &[u8]) -> bool {
    let Some(start) = find(data, BEGIN_TOKEN) else {
        return false;
    };
    let after = start + BEGIN_TOKEN.len();
    let Some(end) = data.get(after..).and_then(|rest| find(rest, DASHES)) else {
        return false;
    };
    let checked = data.get(start..start + end).unwrap_or_default();
    !checked.contains(&b'\n')
}

/// Go's `getLine`: the line without its `\n` (and a `\r` before it), right-trimmed of spaces and
/// tabs, and the rest after the newline.
fn get_line(data: &[u8]) -> (&[u8], &[u8]) {
    let (mut line_end, rest_start) = match data.iter().position(|b| *b == b'\n') {
        Some(i) => (i, i + 1),
        None => (data.len(), data.len()),
    };
    if rest_start > line_end && line_end > 0 && data[line_end - 1] == b'\r' {
        line_end -= 1;
    }
    let mut line = &data[..line_end];
    while let Some((last, head)) = line.split_last() {
        if *last == b' ' || *last == b'\t' {
            line = head;
        } else {
            break;
        }
    }
    (line, &data[rest_start..])
}

fn go_base64(data: &[u8]) -> Option<Vec<u8>> {
    // Go's decoder skips `\r` and `\n` itself; spaces and tabs were removed by the caller.
    let cleaned: Vec<u8> = data.iter().copied().filter(|b| *b != b'\r' && *b != b'\n').collect();
    GO_STD.decode(cleaned).ok()
}

/// Go's `pem.Decode`: finds the next well-formed block, skipping malformed candidates. Returns
/// `None` when no well-formed block remains (Go returns `nil, data`).
pub fn decode(data: &[u8]) -> Option<(Block, &[u8])> {
    let mut rest = data;
    loop {
        if rest.starts_with(&PEM_START[1..]) {
            rest = &rest[PEM_START.len() - 1..];
        } else if let Some(i) = find(rest, PEM_START) {
            rest = &rest[i + PEM_START.len()..];
        } else {
            return None;
        }

        let (type_line, after_type) = get_line(rest);
        rest = after_type;
        let Some(label) = type_line.strip_suffix(DASHES) else {
            continue;
        };

        // Header lines ("Key: value") follow until the first line without a colon.
        let mut has_headers = false;
        loop {
            if rest.is_empty() {
                return None;
            }
            let (line, next) = get_line(rest);
            if !line.contains(&b':') {
                break;
            }
            has_headers = true;
            rest = next;
        }

        // Without headers the END line may follow immediately, without a newline before it.
        let (end_index, end_trailer_index) = if !has_headers && rest.starts_with(&PEM_END[1..]) {
            (0, PEM_END.len() - 1)
        } else {
            match find(rest, PEM_END) {
                Some(i) => (i, i + PEM_END.len()),
                None => continue,
            }
        };

        let end_trailer = &rest[end_trailer_index..];
        let trailer_len = label.len() + DASHES.len();
        if end_trailer.len() < trailer_len {
            continue;
        }
        let (trailer, rest_of_end_line) = end_trailer.split_at(trailer_len);
        if !trailer.starts_with(label) || !trailer.ends_with(DASHES) {
            continue;
        }
        if !get_line(rest_of_end_line).0.is_empty() {
            continue;
        }

        let body: Vec<u8> =
            rest[..end_index].iter().copied().filter(|b| *b != b' ' && *b != b'\t').collect();
        let Some(bytes) = go_base64(&body) else {
            continue;
        };
        // `- 1`: an empty body matched the END marker without its leading newline.
        let (_, remaining) = get_line(&rest[end_index + PEM_END.len() - 1..]);
        return Some((Block { label: label.to_vec(), bytes }, remaining));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_quirk_and_basic_decode() {
        assert!(contains_pem_header(b"-----BEGIN X\n-----"));
        assert!(!contains_pem_header(b"no pem here"));
        assert!(!contains_pem_header(b"-----BEGIN X509 CRL\nxxxxxxxxxxxxxx-----"));
        let (block, rest) =
            decode(b"junk\n-----BEGIN A-----\nAAAA\n-----END A-----\ntail").unwrap();
        assert_eq!(block.label, b"A");
        assert_eq!(block.bytes, vec![0, 0, 0]);
        assert_eq!(rest, b"tail");
        assert!(decode(b"-----BEGIN A-----\nAAA\n-----END A-----\n").is_none());
        let (empty, _) = decode(b"-----BEGIN E-----\n-----END E-----\n").unwrap();
        assert!(empty.bytes.is_empty());
    }
}
