//! `/validate` CREATE or UPDATE of a Certificate, an Issuer or a ClusterIssuer: decode the
//! object's spec, run [`crate::certificate`] or [`crate::issuer`], answer with upstream's
//! aggregate of the field errors (403), as cert-manager's webhook answers.
//!
//! Only the new object is read: upstream validates an UPDATE exactly as a CREATE.

use certgate_api::cert_manager::{CertificateSpec, IssuerConfig};
use certgate_api::field::{FieldError, aggregate_texts};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::lenient::Text;
use crate::objects::{ObjectType, check_type, expect_type, is_object, present, wrong_type};
use crate::verdict::{DenialKind, Verdict};
use crate::wire::AdmissionRequest;
use crate::{certificate, issuer};

pub(crate) const CERTIFICATE: ObjectType =
    ObjectType { api_version: "cert-manager.io/v1", kind: "Certificate" };
pub(crate) const ISSUER: ObjectType =
    ObjectType { api_version: "cert-manager.io/v1", kind: "Issuer" };
pub(crate) const CLUSTER_ISSUER: ObjectType =
    ObjectType { api_version: "cert-manager.io/v1", kind: "ClusterIssuer" };

/// The most field errors one answer lists; a hostile object with a million bad entries
/// gets the first ones and a count of the rest, not a message a million lines long.
pub(crate) const MAX_REPORTED_ERRORS: usize = 100;
/// The most bytes of error texts one answer lists (the same bound, for errors whose values
/// are long).
pub(crate) const MAX_REPORTED_BYTES: usize = 256 * 1024;

/// The object as this review reads it: its type and its spec (absent: Go's zero value).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "S: DeserializeOwned + Default"))]
struct Object<S> {
    #[serde(default)]
    api_version: Text,
    #[serde(default)]
    kind: Text,
    #[serde(default)]
    spec: S,
}

fn decode<S: DeserializeOwned + Default>(
    request: &AdmissionRequest<&RawValue>,
    expected: ObjectType,
) -> Result<S, Verdict> {
    let raw = present(request.object, "object", expected, "admitted")?;
    if !is_object(raw) {
        return Err(wrong_type("", "", "object", expected));
    }
    match serde_json::from_str::<Object<S>>(raw.get()) {
        Ok(object) => {
            expect_type(&object.api_version.0, &object.kind.0, "object", expected)?;
            Ok(object.spec)
        }
        Err(err) => {
            check_type(raw, "object", expected)?;
            Err(Verdict::bad_request(format!(
                "request.object is not a valid {} {}: {err}",
                expected.api_version, expected.kind
            )))
        }
    }
}

/// The verdict for `errors`: allowed when empty, else upstream's aggregate (at most
/// [`MAX_REPORTED_ERRORS`] of them).
pub(crate) fn verdict(errors: Vec<FieldError>) -> Verdict {
    verdict_with_warnings(errors, Vec::new())
}

/// [`verdict`], carrying `warnings` either way, as upstream answers.
fn verdict_with_warnings(errors: Vec<FieldError>, warnings: Vec<String>) -> Verdict {
    let total = errors.len();
    let mut texts: Vec<String> = Vec::new();
    let mut bytes = 0usize;
    for error in errors.into_iter().take(MAX_REPORTED_ERRORS) {
        let text = error.to_string();
        bytes = bytes.saturating_add(text.len());
        if bytes > MAX_REPORTED_BYTES && !texts.is_empty() {
            break;
        }
        texts.push(text);
    }
    if total > texts.len() {
        texts.push(format!(
            "and {} more errors not shown (certgate lists at most {MAX_REPORTED_ERRORS}, \
             {MAX_REPORTED_BYTES} bytes)",
            total - texts.len()
        ));
    }
    match aggregate_texts(texts) {
        None => Verdict::Allowed { patch: None, warnings },
        Some(message) => Verdict::Denied { kind: DenialKind::Forbidden, message, warnings },
    }
}

/// `/validate` CREATE or UPDATE of a Certificate.
pub(crate) fn validate_certificate(request: &AdmissionRequest<&RawValue>) -> Verdict {
    match decode::<CertificateSpec>(request, CERTIFICATE) {
        Ok(spec) => verdict(certificate::validate(&spec)),
        Err(denied) => denied,
    }
}

/// `/validate` CREATE or UPDATE of an Issuer (`cluster` false) or a ClusterIssuer.
pub(crate) fn validate_issuer(request: &AdmissionRequest<&RawValue>, cluster: bool) -> Verdict {
    let expected = if cluster { CLUSTER_ISSUER } else { ISSUER };
    match decode::<IssuerConfig>(request, expected) {
        Ok(config) => verdict_with_warnings(issuer::validate(&config), issuer::warnings(&config)),
        Err(denied) => denied,
    }
}
