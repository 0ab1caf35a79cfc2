//! Go's `pem.Decode`, step for step: find a `-----BEGIN ` at the start of the data or of a
//! line, read the type line and any `Key: value` headers, find the END line, check it names
//! the same type and ends the line, then decode the body. A candidate failing any step is
//! skipped and the search resumes just past the lines Go consumed (type line and headers).

use super::base64::{base64_error, decode_base64, is_valid_base64};

const BEGIN: &[u8] = b"-----BEGIN ";
const NEWLINE_BEGIN: &[u8] = b"\n-----BEGIN ";
const NEWLINE_END: &[u8] = b"\n-----END ";
const DASHES: &[u8] = b"-----";

/// One well-formed PEM block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<'a> {
    /// The type between `-----BEGIN ` and `-----`, as bytes: Go's `Type` may hold any bytes.
    pub label: &'a [u8],
    /// The decoded body (normally DER); empty when decoded with [`Body::Check`].
    pub der: Vec<u8>,
    /// Offset of the `-----BEGIN` marker in the data searched.
    pub begin: usize,
    /// Offset just past the END line, where Go's `rest` starts.
    pub end: usize,
}

impl Block<'_> {
    /// The label as text, invalid UTF-8 replaced (Go's `%s` of the string, once JSON-encoded).
    pub fn label_lossy(&self) -> String {
        String::from_utf8_lossy(self.label).into_owned()
    }
}

/// Whether a block's body is decoded or only checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// Decode the base64 into [`Block::der`].
    Decode,
    /// Only check that it decodes, without allocating ([`Block::der`] stays empty): Contour's
    /// Secret checks look at framing and block types only.
    Check,
}

/// A candidate block Go's decoder passed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skipped<'a> {
    /// Offset of its `-----BEGIN` marker in the data searched.
    pub begin: usize,
    /// Label and raw body when the framing was right but the base64 was not.
    base64: Option<(&'a [u8], &'a [u8])>,
}

impl<'a> Skipped<'a> {
    /// The label and Go-compatible base64 error when only the body was wrong (the error text
    /// is computed here, on the failure path only).
    pub fn base64_failure(&self) -> Option<(&'a [u8], String)> {
        self.base64.map(|(label, body)| (label, base64_error(body)))
    }
}

impl std::fmt::Display for Skipped<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.base64_failure() {
            Some((label, reason)) => write!(
                f,
                "PEM block {:?} at byte {} is not valid base64: {reason}",
                String::from_utf8_lossy(label),
                self.begin
            ),
            None => write!(f, "malformed PEM block at byte {}", self.begin),
        }
    }
}

/// Go's `pem.Decode`: the first well-formed block of `data` and the rest of `data` after its
/// END line, or `None` when no well-formed block remains (Go's `nil, data`).
pub fn decode(data: &[u8]) -> Option<(Block<'_>, &[u8])> {
    let block = next_block(data, Body::Decode, &mut |_| {})?;
    let rest = data.get(block.end..).unwrap_or_default();
    Some((block, rest))
}

/// Whether the data contains a PEM block start marker at all (at its start or after a `\n`).
pub fn has_begin_marker(data: &[u8]) -> bool {
    data.starts_with(BEGIN) || find(data, NEWLINE_BEGIN).is_some()
}

/// The first well-formed block of `data`, Go's way, reporting each candidate skipped on the
/// way to it. Offsets are relative to `data`; call again on `data[block.end..]` for the next.
pub fn next_block<'a>(
    data: &'a [u8],
    body: Body,
    skipped: &mut dyn FnMut(Skipped<'a>),
) -> Option<Block<'a>> {
    let mut pos = 0usize;
    let mut end_markers = EndMarkers::default();
    loop {
        let rest = data.get(pos..)?;
        // A block starts at the beginning of the data or of a line.
        let begin = if rest.starts_with(BEGIN) && (pos == 0 || data.get(pos - 1) == Some(&b'\n')) {
            pos
        } else {
            pos + find(rest, NEWLINE_BEGIN)? + 1
        };
        match candidate(data, begin + BEGIN.len(), &mut end_markers) {
            Ok(found) => {
                let der = match body {
                    Body::Decode => decode_base64(found.body),
                    Body::Check => is_valid_base64(found.body).then(Vec::new),
                };
                if let Some(der) = der {
                    return Some(Block { label: found.label, der, begin, end: found.end });
                }
                skipped(Skipped { begin, base64: Some((found.label, found.body)) });
                pos = found.resume;
            }
            Err(resume) => {
                skipped(Skipped { begin, base64: None });
                pos = resume;
            }
        }
    }
}

/// A candidate block whose framing is well formed (its body may still fail to decode).
struct Candidate<'a> {
    label: &'a [u8],
    /// The raw base64 body, between the headers and the END line.
    body: &'a [u8],
    /// Offset after the END line.
    end: usize,
    /// Where the search resumes if the body is rejected: just past the header lines.
    resume: usize,
}

/// Parses the candidate whose `-----BEGIN ` ends at `after_begin`. A rejected candidate gives
/// the offset where Go resumes: just past the type line and any header lines. When the data
/// ends inside the header lines Go gives up on the whole input; resuming at the end of the
/// data has the same effect.
fn candidate<'a>(
    data: &'a [u8],
    after_begin: usize,
    end_markers: &mut EndMarkers,
) -> Result<Candidate<'a>, usize> {
    let rest = data.get(after_begin..).ok_or(data.len())?;
    let (type_line, mut cursor) = get_line(rest);
    let label = type_line.strip_suffix(DASHES).ok_or(after_begin + cursor)?;
    // Headers: "Key: value" lines until the first line without a colon.
    let mut had_headers = false;
    loop {
        let remaining = rest.get(cursor..).unwrap_or_default();
        if remaining.is_empty() {
            return Err(data.len());
        }
        let (line, next) = get_line(remaining);
        if !line.contains(&b':') {
            break;
        }
        had_headers = true;
        cursor += next;
    }
    let resume = after_begin + cursor;
    let body_rest = rest.get(cursor..).ok_or(resume)?;
    // Without headers the END line may follow the BEGIN line directly.
    let (end_index, trailer_index) = if !had_headers && body_rest.starts_with(&NEWLINE_END[1..]) {
        (0, NEWLINE_END.len() - 1)
    } else {
        let at = end_markers.next_from(data, resume).ok_or(resume)?;
        (at, at + NEWLINE_END.len())
    };
    // `-----END <label>-----`, then only spaces and tabs up to the end of the line.
    let trailer = body_rest.get(trailer_index..).ok_or(resume)?;
    let trailer_len = label.len() + DASHES.len();
    let end_label = trailer.get(..trailer_len).ok_or(resume)?;
    let rest_of_end_line = trailer.get(trailer_len..).ok_or(resume)?;
    if !end_label.starts_with(label) || !end_label.ends_with(DASHES) {
        return Err(resume);
    }
    if !get_line(rest_of_end_line).0.is_empty() {
        return Err(resume);
    }
    let body = body_rest.get(..end_index).ok_or(resume)?;
    // `- 1`: an empty body matched the END marker without its leading newline.
    let end_line_start = end_index + NEWLINE_END.len() - 1;
    let after_end = body_rest.get(end_line_start..).ok_or(resume)?;
    let (_, consumed) = get_line(after_end);
    Ok(Candidate { label, body, end: resume + end_line_start + consumed, resume })
}

/// The next `\n-----END ` at or after an offset, remembered so that many BEGIN lines sharing
/// one END line cost one scan, not one scan each (which would be quadratic).
#[derive(Default)]
struct EndMarkers {
    /// Absolute offset of the last marker found; `Some(None)` once none is left.
    next: Option<Option<usize>>,
}

impl EndMarkers {
    /// Offset of the next marker relative to `start`. Offsets only grow within one search.
    fn next_from(&mut self, data: &[u8], start: usize) -> Option<usize> {
        let absolute = match self.next {
            Some(Some(at)) if at >= start => Some(at),
            Some(None) => None,
            _ => find(data.get(start..)?, NEWLINE_END).map(|at| at + start),
        };
        self.next = Some(absolute);
        absolute.map(|at| at - start)
    }
}

/// Go's `getLine`: the line up to its `\n`, without at most one `\r` right before that `\n`
/// (none on a last line without `\n`), then right-trimmed of spaces and tabs only; and the
/// number of bytes consumed (including the `\n`).
fn get_line(data: &[u8]) -> (&[u8], usize) {
    let (line, consumed) = match data.iter().position(|b| *b == b'\n') {
        Some(i) => {
            let line = data.get(..i).unwrap_or_default();
            (line.strip_suffix(b"\r").unwrap_or(line), i + 1)
        }
        None => (data, data.len()),
    };
    let trimmed_len = line.iter().rposition(|b| !matches!(b, b' ' | b'\t')).map_or(0, |i| i + 1);
    (line.get(..trimmed_len).unwrap_or_default(), consumed)
}

/// First occurrence of `needle`: look for its first byte, then compare (markers are short).
fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut from = 0;
    while let Some(i) = haystack.get(from..)?.iter().position(|b| *b == first) {
        let at = from + i;
        if haystack.get(at..at + needle.len())? == needle {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (label, DER) of the first block, or (label, reason) of the first base64 failure when
    /// no block is valid: what a CSR reader makes of the input.
    type Outcome = Result<Option<(String, Vec<u8>)>, (String, String)>;

    fn block(data: &str) -> Outcome {
        let mut failure = None;
        let found = next_block(data.as_bytes(), Body::Decode, &mut |s| {
            if failure.is_none() {
                failure = s.base64_failure();
            }
        });
        match (found, failure) {
            (Some(b), _) => Ok(Some((b.label_lossy(), b.der))),
            (None, Some((label, reason))) => {
                Err((String::from_utf8_lossy(label).into_owned(), reason))
            }
            (None, None) => Ok(None),
        }
    }

    fn skipped(data: &str) -> Vec<usize> {
        let mut offsets = Vec::new();
        let mut rest = data.as_bytes();
        let mut base = 0;
        while let Some(b) = next_block(rest, Body::Check, &mut |s| offsets.push(base + s.begin)) {
            base += b.end;
            rest = rest.get(b.end..).unwrap_or_default();
        }
        offsets
    }

    #[test]
    fn decodes_block_surrounded_by_text() {
        let input = "Subject: x\n-----BEGIN CERTIFICATE REQUEST-----\r\nAQID\r\nBA==\r\n-----END CERTIFICATE REQUEST-----  \ntrailer";
        assert_eq!(
            block(input).unwrap(),
            Some(("CERTIFICATE REQUEST".to_string(), vec![1, 2, 3, 4]))
        );
        let (found, rest) = decode(input.as_bytes()).unwrap();
        assert_eq!((found.begin, rest), (11, &b"trailer"[..]));
    }

    #[test]
    fn skips_headers_and_whitespace_in_body() {
        let input = "-----BEGIN X-----\nProc-Type: 4,ENCRYPTED\n\n AQ\tID\n-----END X-----\n";
        assert_eq!(block(input).unwrap(), Some(("X".to_string(), vec![1, 2, 3])));
        let crlf =
            "-----BEGIN A-----\r\nProc-Type: 4,ENCRYPTED\r\n\r\nAA\r\nEC\r\n-----END A-----\r\n";
        assert_eq!(block(crlf).unwrap(), Some(("A".to_string(), vec![0, 1, 2])));
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
        assert_eq!(skipped(input), vec![0]);
    }

    #[test]
    fn padding_rules_are_go_std_encoding() {
        assert!(block("-----BEGIN X-----\nAQIDBA\n-----END X-----\n").is_err());
        assert!(block("-----BEGIN A-----\nAA==\nAAEC\n-----END A-----\n").is_err());
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
        assert_eq!(skipped(&input).len(), 2000);
    }

    #[test]
    fn unterminated_inputs_are_not_blocks() {
        assert_eq!(block("-----BEGIN X-----").unwrap(), None);
        assert_eq!(block("-----BEGIN X-----\nAQID").unwrap(), None);
        assert_eq!(block("-----BEGIN X").unwrap(), None);
    }

    #[test]
    fn skipped_blocks_say_what_was_wrong() {
        let mut seen = Vec::new();
        let data = b"-----BEGIN A-----\n!!!!\n-----END A-----\n-----BEGIN B\n";
        assert!(next_block(data, Body::Decode, &mut |s| seen.push(s.to_string())).is_none());
        assert_eq!(
            seen,
            [
                "PEM block \"A\" at byte 0 is not valid base64: Invalid symbol 33, offset 0.",
                "malformed PEM block at byte 39",
            ]
        );
    }
}
