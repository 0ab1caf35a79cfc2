//! PEM framing exactly as Contour sees it: its "contains a PEM header" test (§2.3 of the spec,
//! quirk included) and Go `encoding/pem` decoding, where a malformed candidate block is skipped
//! rather than failing. Contour's Secret validation only looks at framing and block types, so
//! this module is also what `certgate-ingress` uses to reproduce Contour's status messages.

use base64::Engine;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use crate::Limits;
use crate::error::BundleError;

/// Block label of a CRL.
pub const CRL_LABEL: &str = "X509 CRL";
/// Block label of a certificate.
pub const CERTIFICATE_LABEL: &str = "CERTIFICATE";

/// One well-formed PEM block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PemBlock {
    /// The type between `-----BEGIN ` and `-----`, e.g. `X509 CRL`.
    pub label: String,
    /// The base64-decoded contents (normally DER).
    pub der: Vec<u8>,
    /// Byte offset of the `-----BEGIN` line in the input, for messages.
    pub offset: usize,
}

/// The PEM blocks of a bundle, plus the candidate blocks Go's decoder skipped as malformed
/// (BoringSSL's reader, which Envoy uses, fails on those instead: see `Warning::MalformedPemBlock`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PemBundle {
    pub blocks: Vec<PemBlock>,
    /// Offsets of `-----BEGIN` markers whose block was malformed and skipped.
    pub malformed_offsets: Vec<usize>,
}

/// Contour's Secret-validation errors for the CA (`ca.crt`) and CRL (`crl.pem`) keys. The
/// `Display` texts are Contour's messages, byte for byte (§4.2); the CA ones are shown unwrapped
/// (Contour prefixes them with `invalid CA certificate bundle: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContourPemError {
    /// A PEM header was detected but no well-formed block remains.
    #[error("failed to parse PEM block")]
    FailedToParse,
    /// A CA bundle block that is not `CERTIFICATE`.
    #[error("unexpected block type '{0}'")]
    UnexpectedBlockType(String),
    /// The CA bundle holds no certificate block.
    #[error("failed to locate certificate")]
    NoCertificate,
    /// The CRL data holds no `X509 CRL` block.
    #[error("failed to locate CRL")]
    NoCrl,
}

/// Contour's "contains a PEM header" test, quirk included: the newline search stops 10 bytes
/// short of the closing `-----`, so `-----BEGIN X\n-----` still counts as a header.
pub fn contains_pem_header(data: &[u8]) -> bool {
    let Some(start) = find(data, b"-----BEGIN") else { return false };
    let Some(after) = data.get(start + 10..) else { return false };
    let Some(end) = find(after, b"-----") else { return false };
    match data.get(start..start + end) {
        Some(span) => !span.contains(&b'\n'),
        None => false,
    }
}

/// Contour's `crl.pem` check (§2.2 step 3): succeeds at the first `X509 CRL` block; nothing
/// after it is looked at and the DER is not parsed. The caller checks for an empty key first.
pub fn validate_crl_pem(data: &[u8]) -> Result<(), ContourPemError> {
    let mut rest = data;
    while contains_pem_header(rest) {
        let Some(decoded) = decode_next(rest, false, &mut |_| {}) else {
            return Err(ContourPemError::FailedToParse);
        };
        if decoded.label == CRL_LABEL.as_bytes() {
            return Ok(());
        }
        rest = rest.get(decoded.rest_start..).unwrap_or_default();
    }
    Err(ContourPemError::NoCrl)
}

/// Contour's `ca.crt` check (§2.1 step 3, unwrapped): every block must be `CERTIFICATE`, at
/// least one must exist; the DER is not parsed.
pub fn validate_ca_pem(data: &[u8]) -> Result<(), ContourPemError> {
    let mut rest = data;
    let mut found = false;
    while contains_pem_header(rest) {
        let Some(decoded) = decode_next(rest, false, &mut |_| {}) else {
            return Err(ContourPemError::FailedToParse);
        };
        if decoded.label != CERTIFICATE_LABEL.as_bytes() {
            return Err(ContourPemError::UnexpectedBlockType(
                String::from_utf8_lossy(decoded.label).into_owned(),
            ));
        }
        found = true;
        rest = rest.get(decoded.rest_start..).unwrap_or_default();
    }
    if found { Ok(()) } else { Err(ContourPemError::NoCertificate) }
}

/// Decodes every well-formed block of `data` (Go semantics), within `limits`.
pub fn parse_pem_bundle(data: &[u8], limits: &Limits) -> Result<PemBundle, BundleError> {
    if data.len() > limits.max_bundle_bytes {
        return Err(BundleError::TooLarge { size: data.len(), limit: limits.max_bundle_bytes });
    }
    let mut bundle = PemBundle::default();
    let mut pos = 0usize;
    loop {
        let rest = data.get(pos..).unwrap_or_default();
        let mut skipped = Vec::new();
        let decoded = decode_next(rest, true, &mut |off| skipped.push(pos + off));
        bundle.malformed_offsets.extend(skipped);
        let Some(decoded) = decoded else { break };
        if bundle.blocks.len() >= limits.max_blocks {
            return Err(BundleError::TooManyBlocks { limit: limits.max_blocks });
        }
        bundle.blocks.push(PemBlock {
            label: String::from_utf8_lossy(decoded.label).into_owned(),
            der: decoded.der,
            offset: pos + decoded.begin,
        });
        pos += decoded.rest_start;
    }
    Ok(bundle)
}

/// Go's `pem.Decode` for a single block: the first well-formed block of `data` and the rest of
/// `data` after its END line, or `None` when no well-formed block remains (Go's `nil, data`).
/// Malformed candidate blocks are skipped, as Go does. This is the walker behind
/// [`validate_crl_pem`], [`validate_ca_pem`] and [`parse_pem_bundle`], exposed for callers with
/// their own block-type rules (e.g. Contour's TLS Secret check of `tls.crt` and `tls.key`), which
/// loop `while contains_pem_header(rest)` as Contour does. [`PemBlock::offset`] is relative to
/// `data`, and the label is converted lossily to UTF-8.
pub fn decode_pem_block(data: &[u8]) -> Option<(PemBlock, &[u8])> {
    let decoded = decode_next(data, true, &mut |_| {})?;
    let block = PemBlock {
        label: String::from_utf8_lossy(decoded.label).into_owned(),
        der: decoded.der,
        offset: decoded.begin,
    };
    Some((block, data.get(decoded.rest_start..).unwrap_or_default()))
}

pub(crate) struct Decoded<'a> {
    label: &'a [u8],
    /// The decoded body (empty unless asked for).
    der: Vec<u8>,
    /// Offset of the `-----BEGIN` marker.
    begin: usize,
    /// Offset where decoding of the next block starts.
    rest_start: usize,
}

const BEGIN: &[u8] = b"-----BEGIN ";
const END: &[u8] = b"\n-----END ";
const DASHES: &[u8] = b"-----";

/// Go's `pem.Decode`: the next well-formed block, skipping malformed candidates (their offsets
/// are passed to `skipped`). `None` when no well-formed block remains.
pub(crate) fn decode_next<'a>(
    data: &'a [u8],
    want_der: bool,
    skipped: &mut dyn FnMut(usize),
) -> Option<Decoded<'a>> {
    let mut pos = 0usize;
    loop {
        let rest = data.get(pos..)?;
        // A block starts at the beginning of the data or of a line.
        let begin = if rest.starts_with(BEGIN) && (pos == 0 || data.get(pos - 1) == Some(&b'\n')) {
            pos
        } else {
            pos + find(rest, b"\n-----BEGIN ")? + 1
        };
        let after_begin = begin + BEGIN.len();
        match decode_at(data, after_begin) {
            Ok(candidate) => {
                // Go skips blocks whose body does not decode.
                let der = if want_der {
                    decode_base64(candidate.body)
                } else {
                    base64_is_valid(candidate.body).then(Vec::new)
                };
                if let Some(der) = der {
                    return Some(Decoded {
                        label: candidate.label,
                        der,
                        begin,
                        rest_start: candidate.rest_start,
                    });
                }
                skipped(begin);
                pos = candidate.resume;
            }
            Err(resume) => {
                skipped(begin);
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
    /// Offset after the END line, where the next block is searched.
    rest_start: usize,
    /// Where the search resumes if the body is rejected: just past the header lines.
    resume: usize,
}

/// Parses one candidate block whose `-----BEGIN ` ends at `after_begin`. A rejected candidate
/// gives the offset where Go resumes its search: just past the lines it consumed, i.e. the type
/// line and any header lines (Go keeps its `rest` there and searches again from it). When the
/// data ends inside the header lines, Go gives up on the whole input; resuming at the end of the
/// data has the same effect.
fn decode_at(data: &[u8], after_begin: usize) -> Result<Candidate<'_>, usize> {
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
    // From here on, a rejection resumes just past the headers.
    let resume = after_begin + cursor;
    let body_rest = rest.get(cursor..).ok_or(resume)?;
    let (end_index, trailer_index) = if !had_headers && body_rest.starts_with(&END[1..]) {
        (0, END.len() - 1)
    } else {
        let i = find(body_rest, END).ok_or(resume)?;
        (i, i + END.len())
    };
    let trailer = body_rest.get(trailer_index..).ok_or(resume)?;
    let trailer_len = label.len() + DASHES.len();
    let end_type = trailer.get(..trailer_len).ok_or(resume)?;
    let rest_of_end_line = trailer.get(trailer_len..).ok_or(resume)?;
    if !end_type.starts_with(label) || !end_type.ends_with(DASHES) {
        return Err(resume);
    }
    let (tail, _) = get_line(rest_of_end_line);
    if !tail.is_empty() {
        return Err(resume);
    }
    let body = body_rest.get(..end_index).ok_or(resume)?;
    // Resume after the END line (`- 1`: an empty body matched the END marker without its
    // leading newline).
    let end_line_start = end_index + END.len() - 1;
    let after_end = body_rest.get(end_line_start..).ok_or(resume)?;
    let (_, consumed) = get_line(after_end);
    Ok(Candidate { label, body, rest_start: resume + end_line_start + consumed, resume })
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

pub(crate) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || haystack.len() < needle.len() {
        return None;
    }
    // memchr-style: look for the first byte, then compare; enough for headers and markers.
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

/// Go's `StdEncoding`: padding required, non-zero trailing bits tolerated.
const ENGINE: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
);

/// Go removes spaces and tabs, and its decoder skips `\r` and `\n`.
fn is_skipped(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Size of the stripped-base64 chunks decoded at once; a multiple of 4 so that chunks are whole
/// quanta. Chunking avoids a second copy of a multi-megabyte body.
const CHUNK: usize = 64 * 1024;

fn base64_is_valid(body: &[u8]) -> bool {
    decode_base64_into(body, None)
}

fn decode_base64(body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 3);
    decode_base64_into(body, Some(&mut out)).then_some(out)
}

fn decode_base64_into(body: &[u8], mut out: Option<&mut Vec<u8>>) -> bool {
    let mut chunk = Vec::with_capacity(CHUNK.min(body.len()));
    let mut scratch = [0u8; CHUNK / 4 * 3];
    let mut iter = body.iter().copied().filter(|b| !is_skipped(*b)).peekable();
    loop {
        chunk.clear();
        chunk.extend(iter.by_ref().take(CHUNK));
        let last = iter.peek().is_none();
        // Padding is only allowed in the final quantum of the whole body.
        if !last && chunk.contains(&b'=') {
            return false;
        }
        match ENGINE.decode_slice(&chunk, &mut scratch) {
            Ok(n) => {
                if let Some(out) = out.as_deref_mut() {
                    out.extend_from_slice(scratch.get(..n).unwrap_or_default());
                }
            }
            Err(_) => return false,
        }
        if last {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_quirk() {
        assert!(contains_pem_header(b"-----BEGIN X\n-----"));
        assert!(contains_pem_header(b"-----BEGIN X509 CRL\n-----"));
        assert!(!contains_pem_header(b"-----BEGIN\nsome long text here-----"));
        assert!(contains_pem_header(b"junk\n-----BEGIN X509 CRL-----\n"));
        assert!(!contains_pem_header(b"no header"));
        assert!(!contains_pem_header(b"-----BEGIN X509 CRL"));
    }

    #[test]
    fn decode_skips_malformed() {
        let data =
            b"-----BEGIN A-----\n!!!!\n-----END A-----\n-----BEGIN B-----\nAAEC\n-----END B-----\n";
        let b = parse_pem_bundle(data, &Limits::default()).unwrap();
        assert_eq!(b.blocks.len(), 1);
        assert_eq!(b.blocks[0].label, "B");
        assert_eq!(b.blocks[0].der, vec![0, 1, 2]);
        assert_eq!(b.malformed_offsets, vec![0]);
    }

    #[test]
    fn mismatched_end_is_skipped_and_validation_reports() {
        assert_eq!(
            validate_crl_pem(b"-----BEGIN X509 CRL-----\nAAEC\n-----END CERTIFICATE-----\n"),
            Err(ContourPemError::FailedToParse)
        );
        assert_eq!(validate_crl_pem(b"-----BEGIN X\n-----"), Err(ContourPemError::FailedToParse));
        assert_eq!(validate_crl_pem(b"nothing"), Err(ContourPemError::NoCrl));
        assert_eq!(
            validate_crl_pem(b"-----BEGIN FOO-----\nAAEC\n-----END FOO-----\n-----BEGIN X509 CRL-----\nAAEC\n-----END X509 CRL-----\ngarbage -----BEGIN"),
            Ok(())
        );
        assert_eq!(
            validate_ca_pem(b"-----BEGIN FOO-----\nAAEC\n-----END FOO-----\n"),
            Err(ContourPemError::UnexpectedBlockType("FOO".into()))
        );
        assert_eq!(validate_ca_pem(b""), Err(ContourPemError::NoCertificate));
    }

    #[test]
    fn headers_and_crlf() {
        let data =
            b"-----BEGIN A-----\r\nProc-Type: 4,ENCRYPTED\r\n\r\nAA\r\nEC\r\n-----END A-----\r\n";
        let b = parse_pem_bundle(data, &Limits::default()).unwrap();
        assert_eq!(b.blocks[0].der, vec![0, 1, 2]);
    }

    #[test]
    fn padding_in_the_middle_is_rejected() {
        let data = b"-----BEGIN A-----\nAA==\nAAEC\n-----END A-----\n";
        assert!(parse_pem_bundle(data, &Limits::default()).unwrap().blocks.is_empty());
    }
}
