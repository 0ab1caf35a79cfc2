//! Finds the first PEM block the way Go's `encoding/pem.Decode` does, because cert-manager
//! and approver-policy read `spec.request` with it: text before and after the block is
//! ignored, RFC 1421 headers are skipped, and a candidate block whose framing or base64 is
//! broken is skipped in favour of a later valid one.

use base64::Engine as _;
use base64::alphabet::STANDARD;
use base64::engine::{GeneralPurpose, GeneralPurposeConfig};

const BEGIN: &[u8] = b"-----BEGIN ";
const NEWLINE_BEGIN: &[u8] = b"\n-----BEGIN ";
const NEWLINE_END: &[u8] = b"\n-----END ";
const DASHES: &[u8] = b"-----";

/// Go's `base64.StdEncoding`: padding required, non-zero trailing bits tolerated.
const GO_STD_BASE64: GeneralPurpose = GeneralPurpose::new(
    &STANDARD,
    GeneralPurposeConfig::new().with_decode_allow_trailing_bits(true),
);

/// A decoded PEM block.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Block<'a> {
    pub(crate) label: &'a [u8],
    pub(crate) der: Vec<u8>,
}

/// The first well-framed block whose base64 was invalid, kept to explain a failure when no
/// valid block follows it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Base64Failure<'a> {
    pub(crate) label: &'a [u8],
    pub(crate) reason: String,
}

/// Whether the input contains a PEM block start marker at all.
pub(crate) fn has_begin_marker(data: &[u8]) -> bool {
    data.starts_with(BEGIN) || find(data, NEWLINE_BEGIN).is_some()
}

/// Returns the first valid PEM block, or the first base64 failure if no block is valid.
pub(crate) fn first_block(data: &[u8]) -> Result<Option<Block<'_>>, Base64Failure<'_>> {
    let mut failure: Option<Base64Failure<'_>> = None;
    let mut rest = data;
    let mut end_markers = EndMarkers::default();
    loop {
        rest = if let Some(after) = rest.strip_prefix(BEGIN) {
            after
        } else if let Some(at) = find(rest, NEWLINE_BEGIN) {
            tail(rest, at + NEWLINE_BEGIN.len())
        } else {
            return failure.map_or(Ok(None), Err);
        };

        let (type_line, after_type) = get_line(rest);
        rest = after_type;
        let Some(label) = type_line.strip_suffix(DASHES) else {
            continue;
        };

        // Skip `Key: value` header lines; Go gives up entirely if the input ends here.
        let mut has_headers = false;
        loop {
            if rest.is_empty() {
                return failure.map_or(Ok(None), Err);
            }
            let (line, next) = get_line(rest);
            if !line.contains(&b':') {
                break;
            }
            has_headers = true;
            rest = next;
        }

        // Without headers the END line may follow the BEGIN line directly.
        let (end_index, trailer_index) = if !has_headers && rest.starts_with(&NEWLINE_END[1..]) {
            (0, NEWLINE_END.len() - 1)
        } else if let Some(at) = end_markers.next_in(data, rest) {
            (at, at + NEWLINE_END.len())
        } else {
            // No END line anywhere after this point: no later candidate can be a block.
            return failure.map_or(Ok(None), Err);
        };

        // `-----END <label>-----`, then only whitespace up to the end of the line.
        let trailer = tail(rest, trailer_index);
        let trailer_len = label.len() + DASHES.len();
        let (Some(end_label), Some(after_end)) =
            (trailer.get(..trailer_len), trailer.get(trailer_len..))
        else {
            continue;
        };
        if !end_label.starts_with(label) || !end_label.ends_with(DASHES) {
            continue;
        }
        if !get_line(after_end).0.is_empty() {
            continue;
        }

        let body = rest.get(..end_index).unwrap_or_default();
        match decode_body(body) {
            Ok(der) => return Ok(Some(Block { label, der })),
            Err(reason) => {
                failure.get_or_insert(Base64Failure { label, reason });
            }
        }
    }
}

/// The next `\n-----END ` at or after a position, remembered so that many BEGIN lines
/// sharing one END line cost one scan, not one scan each (which would be quadratic).
#[derive(Default)]
struct EndMarkers {
    /// Absolute offset of the last marker found; `Some(None)` once none is left.
    next: Option<Option<usize>>,
}

impl EndMarkers {
    /// Offset of the next marker relative to `rest`, a suffix of `data`.
    fn next_in(&mut self, data: &[u8], rest: &[u8]) -> Option<usize> {
        let start = data.len().saturating_sub(rest.len());
        let absolute = match self.next {
            Some(Some(at)) if at >= start => Some(at),
            Some(None) => None,
            _ => find(rest, NEWLINE_END).map(|at| at + start),
        };
        self.next = Some(absolute);
        absolute.map(|at| at - start)
    }
}

/// Go strips spaces and tabs, and its decoder ignores CR and LF anywhere.
fn decode_body(body: &[u8]) -> Result<Vec<u8>, String> {
    let compact: Vec<u8> =
        body.iter().copied().filter(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')).collect();
    GO_STD_BASE64.decode(&compact).map_err(|e| e.to_string())
}

/// The first line (without its `\n` or `\r\n`, trailing spaces and tabs trimmed) and the rest.
fn get_line(data: &[u8]) -> (&[u8], &[u8]) {
    let (line, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(at) => (data.get(..at).unwrap_or_default(), tail(data, at + 1)),
        None => (data, &[][..]),
    };
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let trimmed_len =
        line.iter().rposition(|&b| b != b' ' && b != b'\t').map_or(0, |last| last + 1);
    (line.get(..trimmed_len).unwrap_or_default(), rest)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn tail(data: &[u8], from: usize) -> &[u8] {
    data.get(from..).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (label, DER) of a block, or (label, reason) of a base64 failure.
    type Outcome = Result<Option<(String, Vec<u8>)>, (String, String)>;

    fn block(data: &str) -> Outcome {
        first_block(data.as_bytes())
            .map(|b| b.map(|b| (String::from_utf8_lossy(b.label).into_owned(), b.der)))
            .map_err(|f| (String::from_utf8_lossy(f.label).into_owned(), f.reason))
    }

    #[test]
    fn decodes_block_surrounded_by_text() {
        let input = "Subject: x\n-----BEGIN CERTIFICATE REQUEST-----\r\nAQID\r\nBA==\r\n-----END CERTIFICATE REQUEST-----  \ntrailer";
        assert_eq!(
            block(input).unwrap(),
            Some(("CERTIFICATE REQUEST".to_string(), vec![1, 2, 3, 4]))
        );
    }

    #[test]
    fn skips_headers_and_whitespace_in_body() {
        let input = "-----BEGIN X-----\nProc-Type: 4,ENCRYPTED\n\n AQ\tID\n-----END X-----\n";
        assert_eq!(block(input).unwrap(), Some(("X".to_string(), vec![1, 2, 3])));
    }

    #[test]
    fn empty_block_without_newline_before_end() {
        assert_eq!(
            block("-----BEGIN X-----\n-----END X-----").unwrap(),
            Some(("X".to_string(), vec![]))
        );
    }

    #[test]
    fn mismatched_end_label_is_not_a_block() {
        assert_eq!(block("-----BEGIN X-----\nAQID\n-----END Y-----\n").unwrap(), None);
        // Text after the END marker on the same line also disqualifies the block.
        assert_eq!(block("-----BEGIN X-----\nAQID\n-----END X----- junk\n").unwrap(), None);
    }

    #[test]
    fn invalid_base64_is_reported_when_no_valid_block_follows() {
        let (label, reason) = block("-----BEGIN X-----\nA*ID\n-----END X-----\n").unwrap_err();
        assert_eq!(label, "X");
        assert_eq!(reason, "Invalid symbol 42, offset 1.");
    }

    #[test]
    fn later_valid_block_wins_over_broken_one() {
        let input =
            "-----BEGIN A-----\n!!!!\n-----END A-----\n-----BEGIN B-----\nAQID\n-----END B-----\n";
        assert_eq!(block(input).unwrap(), Some(("B".to_string(), vec![1, 2, 3])));
    }

    #[test]
    fn missing_padding_is_invalid_like_go_std_encoding() {
        assert!(block("-----BEGIN X-----\nAQIDBA\n-----END X-----\n").is_err());
    }

    #[test]
    fn begin_must_start_a_line() {
        assert_eq!(block("x-----BEGIN X-----\nAQID\n-----END X-----\n").unwrap(), None);
        assert!(!has_begin_marker(b"x-----BEGIN X-----"));
        assert!(has_begin_marker(b"x\n-----BEGIN X-----"));
    }

    #[test]
    fn many_candidates_share_one_end_line() {
        let mut input = "-----BEGIN A-----\n".repeat(2000);
        input.push_str("-----BEGIN B-----\nAQID\n-----END B-----\n");
        assert_eq!(block(&input).unwrap(), Some(("B".to_string(), vec![1, 2, 3])));
        let mut input = "-----BEGIN A-----\nAQID\n".repeat(2000);
        input.push_str("-----END Z-----\n");
        assert_eq!(block(&input).unwrap(), None);
    }

    #[test]
    fn unterminated_inputs_are_not_blocks() {
        assert_eq!(block("-----BEGIN X-----").unwrap(), None);
        assert_eq!(block("-----BEGIN X-----\nAQID").unwrap(), None);
        assert_eq!(block("-----BEGIN X").unwrap(), None);
    }
}
