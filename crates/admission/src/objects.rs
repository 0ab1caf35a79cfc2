//! Decoding `request.object` / `request.oldObject` into the typed resource, after checking
//! it is the kind the request's resource holds.

use certgate_api::policy::{CertificateRequestPolicySpec, CertificateRequestPolicyStatus};
use certgate_api::{
    CertificateRequest, CertificateRequestPolicy, CertificateRequestSpec, CertificateRequestStatus,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

use crate::lenient::Text;
use crate::verdict::Verdict;

/// The `apiVersion` and `kind` of the objects a handled resource holds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ObjectType {
    pub(crate) api_version: &'static str,
    pub(crate) kind: &'static str,
}

pub(crate) const CERTIFICATE_REQUEST: ObjectType =
    ObjectType { api_version: "cert-manager.io/v1", kind: "CertificateRequest" };
pub(crate) const CERTIFICATE_REQUEST_POLICY: ObjectType =
    ObjectType { api_version: "policy.cert-manager.io/v1alpha1", kind: "CertificateRequestPolicy" };

/// An object's `apiVersion` and `kind`; every other field is skipped unread.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TypeMeta {
    #[serde(default)]
    api_version: Text,
    #[serde(default)]
    kind: Text,
}

/// The request's `field` (e.g. `object`), or the denial saying it is missing.
pub(crate) fn present<'a, T: ?Sized>(
    object: Option<&'a T>,
    field: &str,
    expected: ObjectType,
    purpose: &str,
) -> Result<&'a T, Verdict> {
    object.ok_or_else(|| {
        Verdict::bad_request(format!(
            "request.{field} is missing; it must hold the {} being {purpose}",
            expected.kind
        ))
    })
}

/// A custom resource decoded together with its `apiVersion` and `kind`, in one pass over
/// the object's text (the resource types themselves do not keep those two fields).
pub(crate) trait Enveloped: Sized {
    type Spec: DeserializeOwned;
    type Status: DeserializeOwned;
    const TYPE: ObjectType;
    fn assemble(metadata: ObjectMeta, spec: Self::Spec, status: Option<Self::Status>) -> Self;
}

impl Enveloped for CertificateRequest {
    type Spec = CertificateRequestSpec;
    type Status = CertificateRequestStatus;
    const TYPE: ObjectType = CERTIFICATE_REQUEST;
    fn assemble(metadata: ObjectMeta, spec: Self::Spec, status: Option<Self::Status>) -> Self {
        CertificateRequest { metadata, spec, status }
    }
}

impl Enveloped for CertificateRequestPolicy {
    type Spec = CertificateRequestPolicySpec;
    type Status = CertificateRequestPolicyStatus;
    const TYPE: ObjectType = CERTIFICATE_REQUEST_POLICY;
    fn assemble(metadata: ObjectMeta, spec: Self::Spec, status: Option<Self::Status>) -> Self {
        CertificateRequestPolicy { metadata, spec, status }
    }
}

/// The wire shape of a custom resource: what the resource types read (`metadata` and
/// `spec` required, `status` optional), plus the type.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "S: DeserializeOwned, St: DeserializeOwned"))]
struct Envelope<S, St> {
    #[serde(default)]
    api_version: Text,
    #[serde(default)]
    kind: Text,
    metadata: ObjectMeta,
    spec: S,
    status: Option<St>,
}

/// Decodes `raw` (the request's `field`, e.g. `object`) as a `T`, or the denial saying why
/// it cannot be evaluated: missing, not a `T` by its type, or not a valid one.
pub(crate) fn decode<T: Enveloped>(raw: Option<&RawValue>, field: &str) -> Result<T, Verdict> {
    let expected = T::TYPE;
    let raw = present(raw, field, expected, "admitted")?;
    if !is_object(raw) {
        return Err(wrong_type("", "", field, expected));
    }
    match serde_json::from_str::<Envelope<T::Spec, T::Status>>(raw.get()) {
        Ok(envelope) => {
            expect_type(&envelope.api_version.0, &envelope.kind.0, field, expected)?;
            Ok(T::assemble(envelope.metadata, envelope.spec, envelope.status))
        }
        // The type decides which message applies: a Certificate sent where a
        // CertificateRequest belongs is misrouted, not an invalid CertificateRequest.
        Err(err) => {
            check_type(raw, field, expected)?;
            Err(Verdict::bad_request(format!(
                "request.{field} is not a valid {} {}: {err}",
                expected.api_version, expected.kind
            )))
        }
    }
}

/// Whether `raw` is a JSON object: serde reads a struct from an array too, by position.
pub(crate) fn is_object(raw: &RawValue) -> bool {
    raw.get().trim_start().starts_with('{')
}

/// Denies an object whose `apiVersion`/`kind` is not `expected`: the webhook registration
/// routed a resource here whose objects certgate would misread.
pub(crate) fn check_type(raw: &RawValue, field: &str, expected: ObjectType) -> Result<(), Verdict> {
    let meta = if is_object(raw) { serde_json::from_str::<TypeMeta>(raw.get()).ok() } else { None };
    // Anything else, or an object repeating a key, names no type.
    let (api_version, kind) = meta.map(|m| (m.api_version.0, m.kind.0)).unwrap_or_default();
    expect_type(&api_version, &kind, field, expected)
}

/// Denies `api_version`/`kind`, read from the request's `field`, unless they are `expected`.
pub(crate) fn expect_type(
    api_version: &str,
    kind: &str,
    field: &str,
    expected: ObjectType,
) -> Result<(), Verdict> {
    if api_version == expected.api_version && kind == expected.kind {
        return Ok(());
    }
    Err(wrong_type(api_version, kind, field, expected))
}

/// The denial for an object of another type than `expected` (`""` when it names none).
pub(crate) fn wrong_type(
    api_version: &str,
    kind: &str,
    field: &str,
    expected: ObjectType,
) -> Verdict {
    Verdict::bad_request(format!(
        "request.{field} has apiVersion {api_version:?} and kind {kind:?}, expected {:?} and {:?}",
        expected.api_version, expected.kind
    ))
}
