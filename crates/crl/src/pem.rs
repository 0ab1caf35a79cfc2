//! PEM framing exactly as Contour sees it: its "contains a PEM header" test (§2.3 of the spec,
//! quirk included) and its block walks over Go's `pem.Decode`, where a malformed candidate block
//! is skipped rather than failing. The decoding itself is `certgate-pki`'s (the workspace's one
//! PEM implementation); this module adds Contour's walk, its error texts and the bundle limits.
//! Contour's Secret validation only looks at framing and block types, so this module is also
//! what `certgate-ingress` uses to reproduce Contour's status messages.

use certgate_pki::pem::{self, Body};

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

impl PemBlock {
    fn new(block: pem::Block<'_>, base: usize) -> Self {
        PemBlock { label: block.label_lossy(), offset: base + block.begin, der: block.der }
    }
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

/// Contour's block walk, shared by all its PEM Secret checks:
/// `for containsPEMHeader(rest) { block, rest = pem.Decode(rest); if block == nil { fail } }`.
/// Yields each block (offsets relative to the walked data), or one
/// [`ContourPemError::FailedToParse`] and then nothing when a header remains but no
/// well-formed block does.
pub struct ContourBlocks<'a> {
    rest: &'a [u8],
    /// Offset of `rest` in the walked data.
    base: usize,
    body: Body,
    done: bool,
}

impl<'a> ContourBlocks<'a> {
    /// Walks `data`, decoding each block's body.
    pub fn new(data: &'a [u8]) -> Self {
        ContourBlocks { rest: data, base: 0, body: Body::Decode, done: false }
    }

    /// Walks `data` checking bodies without decoding them (every [`PemBlock::der`] is empty):
    /// the CA and CRL checks, which never parse the DER.
    pub fn framing_only(data: &'a [u8]) -> Self {
        ContourBlocks { body: Body::Check, ..ContourBlocks::new(data) }
    }
}

impl Iterator for ContourBlocks<'_> {
    type Item = Result<PemBlock, ContourPemError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || !contains_pem_header(self.rest) {
            return None;
        }
        let Some(block) = pem::next_block(self.rest, self.body, &mut |_| {}) else {
            self.done = true;
            return Some(Err(ContourPemError::FailedToParse));
        };
        let end = block.end;
        let block = PemBlock::new(block, self.base);
        self.rest = self.rest.get(end..).unwrap_or_default();
        self.base += end;
        Some(Ok(block))
    }
}

/// Contour's `crl.pem` check (§2.2 step 3): succeeds at the first `X509 CRL` block; nothing
/// after it is looked at and the DER is not parsed. The caller checks for an empty key first.
pub fn validate_crl_pem(data: &[u8]) -> Result<(), ContourPemError> {
    for block in ContourBlocks::framing_only(data) {
        if block?.label == CRL_LABEL {
            return Ok(());
        }
    }
    Err(ContourPemError::NoCrl)
}

/// Contour's `ca.crt` check (§2.1 step 3, unwrapped): every block must be `CERTIFICATE`, at
/// least one must exist; the DER is not parsed.
pub fn validate_ca_pem(data: &[u8]) -> Result<(), ContourPemError> {
    let mut found = false;
    for block in ContourBlocks::framing_only(data) {
        let block = block?;
        if block.label != CERTIFICATE_LABEL {
            return Err(ContourPemError::UnexpectedBlockType(block.label));
        }
        found = true;
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
        let skipped = &mut bundle.malformed_offsets;
        let Some(block) = pem::next_block(rest, Body::Decode, &mut |s| skipped.push(pos + s.begin))
        else {
            break;
        };
        if bundle.blocks.len() >= limits.max_blocks {
            return Err(BundleError::TooManyBlocks { limit: limits.max_blocks });
        }
        let end = block.end;
        bundle.blocks.push(PemBlock::new(block, pos));
        pos += end;
    }
    Ok(bundle)
}

/// Go's `pem.Decode` for a single block: the first well-formed block of `data` and the rest of
/// `data` after its END line, or `None` when no well-formed block remains (Go's `nil, data`).
/// Malformed candidate blocks are skipped, as Go does. [`PemBlock::offset`] is relative to
/// `data`, and the label is converted lossily to UTF-8. For walks with their own block-type
/// rules, [`ContourBlocks`] does Contour's loop.
pub fn decode_pem_block(data: &[u8]) -> Option<(PemBlock, &[u8])> {
    let (block, rest) = pem::decode(data)?;
    Some((PemBlock::new(block, 0), rest))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
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
    fn contour_walk_gives_offsets_then_stops_at_the_first_failure() {
        let data = b"x\n-----BEGIN A-----\nAAEC\n-----END A-----\n-----BEGIN B-----\n!!\n";
        let walked: Vec<_> = ContourBlocks::new(data).collect();
        assert_eq!(
            walked,
            [
                Ok(PemBlock { label: "A".into(), der: vec![0, 1, 2], offset: 2 }),
                Err(ContourPemError::FailedToParse),
            ]
        );
        let checked = ContourBlocks::framing_only(data).next().unwrap().unwrap();
        assert!(checked.der.is_empty());
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
