//! `spec.request` checks on CREATE: present, `spec.usages` known, CSR decodable and in
//! agreement with `spec.usages` / `spec.isCA` (cert-manager-requests spec §3.1).

use crate::csr_match;
use crate::error::RequestError;
use crate::usages;
use certgate_api::CertificateRequestSpec;
use certgate_api::field::{BadValue, FieldError, Path};

/// Requests longer than this many bytes are shown shortened in error values.
const MAX_SHOWN_REQUEST_BYTES: usize = 100;
/// How many leading bytes of a shortened request are shown, before `...`.
const SHORTENED_REQUEST_BYTES: usize = 97;

/// Validates `spec.request` together with `spec.usages` and `spec.isCA`. At most one error:
/// each failing step stops the checks after it, as upstream does.
pub(crate) fn validate(spec: &CertificateRequestSpec, spec_path: &Path) -> Vec<FieldError> {
    let request_path = spec_path.child("request");
    if spec.request.is_empty() {
        return vec![FieldError::required(request_path, "must be specified")];
    }

    let usages = spec.usages.as_deref().unwrap_or_default();
    let is_ca = spec.is_ca.unwrap_or(false);
    let requested = match usages::requested(usages, is_ca) {
        Ok(requested) => requested,
        Err(unknown) => {
            // Upstream's value is the usages slice, a non-string Go type: JSON.
            let value = BadValue::Json(serde_json::Value::from(usages.to_vec()));
            let detail = RequestError::UnknownUsages(unknown).to_string();
            return vec![FieldError::invalid(spec_path.child("usages"), value, detail)];
        }
    };

    let checked = certgate_pki::decode_csr(&spec.request)
        .map_err(RequestError::from)
        .and_then(|csr| csr_match::check(&csr, &requested, is_ca));
    match checked {
        Ok(()) => Vec::new(),
        Err(err) => {
            let value = BadValue::Str(shown_request(&spec.request));
            vec![FieldError::invalid(request_path, value, err.to_string())]
        }
    }
}

/// The request as shown in error values: the PEM text, shortened to its first 97 bytes
/// plus `...` when longer than 100 bytes so a CSR does not flood the message.
fn shown_request(request: &[u8]) -> String {
    // Bytes that are not UTF-8 cannot be carried in a string value; they are shown as
    // U+FFFD where Go would print `\x..` escapes. A PEM request is ASCII, so this only
    // affects requests that fail to decode anyway.
    match request.get(..SHORTENED_REQUEST_BYTES) {
        Some(head) if request.len() > MAX_SHOWN_REQUEST_BYTES => {
            format!("{}...", String::from_utf8_lossy(head))
        }
        _ => String::from_utf8_lossy(request).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_up_to_100_bytes_are_shown_whole() {
        let request = "a".repeat(100);
        assert_eq!(shown_request(request.as_bytes()), request);
    }

    #[test]
    fn longer_requests_are_cut_to_97_bytes_plus_ellipsis() {
        let request = format!("{}bcd{}", "a".repeat(96), "e".repeat(10));
        assert_eq!(shown_request(request.as_bytes()), format!("{}b...", "a".repeat(96)));
    }
}
