//! From `spec.request` bytes to DER: size limit, then the first PEM block (as Go's
//! `pem.Decode` finds it), else raw DER.

use std::borrow::Cow;

use crate::csr::{CsrError, MAX_CSR_BYTES};
use crate::pem;

/// PEM labels of a PKCS#10 request; `NEW CERTIFICATE REQUEST` is what older Netscape and
/// Microsoft tools write.
const REQUEST_LABELS: [&[u8]; 2] = [b"CERTIFICATE REQUEST", b"NEW CERTIFICATE REQUEST"];

/// Longest PEM label quoted back in an error.
const MAX_LABEL_CHARS: usize = 64;

/// The DER of the request in `input`.
pub(crate) fn der_bytes(input: &[u8]) -> Result<Cow<'_, [u8]>, CsrError> {
    if input.len() > MAX_CSR_BYTES {
        return Err(CsrError::TooLarge { size: input.len(), limit: MAX_CSR_BYTES });
    }
    if input.is_empty() {
        return Err(CsrError::Empty);
    }
    // Like cert-manager, the first valid block decides; when there is none, the first block
    // whose base64 was broken explains why.
    let mut base64_failure = None;
    let block = pem::next_block(input, pem::Body::Decode, &mut |skipped| {
        if base64_failure.is_none() {
            base64_failure = skipped.base64_failure();
        }
    });
    match (block, base64_failure) {
        (Some(block), _) if REQUEST_LABELS.contains(&block.label) => Ok(Cow::Owned(block.der)),
        (Some(block), _) => Err(CsrError::WrongPemType { found: label_text(block.label) }),
        (None, Some((label, reason))) => {
            Err(CsrError::InvalidBase64 { label: label_text(label), reason })
        }
        // DER always starts with the SEQUENCE tag of the CertificationRequest.
        (None, None) if input.first() == Some(&0x30) && !pem::has_begin_marker(input) => {
            Ok(Cow::Borrowed(input))
        }
        (None, None) => Err(CsrError::NotPemOrDer),
    }
}

fn label_text(label: &[u8]) -> String {
    String::from_utf8_lossy(label).chars().take(MAX_LABEL_CHARS).collect()
}
