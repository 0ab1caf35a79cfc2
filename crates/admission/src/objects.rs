//! Decoding `request.object` / `request.oldObject` into the typed resource, after checking
//! it is the kind the request's resource holds.

use serde::Deserialize;
use serde_json::Value;

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

/// Decodes `value` (the request's `field`, e.g. `object`) as `expected`, or the denial
/// saying why it cannot be evaluated.
pub(crate) fn decode<'a, T: Deserialize<'a>>(
    value: Option<&'a Value>,
    field: &str,
    expected: ObjectType,
) -> Result<T, Verdict> {
    let Some(value) = value.filter(|v| !v.is_null()) else {
        return Err(Verdict::bad_request(format!(
            "request.{field} is missing; it must hold the {} being admitted",
            expected.kind
        )));
    };
    check_type(value, field, expected)?;
    T::deserialize(value).map_err(|err| {
        Verdict::bad_request(format!(
            "request.{field} is not a valid {} {}: {err}",
            expected.api_version, expected.kind
        ))
    })
}

/// Denies an object whose `apiVersion`/`kind` is not `expected`: the webhook registration
/// routed a resource here whose objects certgate would misread.
pub(crate) fn check_type(value: &Value, field: &str, expected: ObjectType) -> Result<(), Verdict> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    if api_version == expected.api_version && kind == expected.kind {
        return Ok(());
    }
    Err(Verdict::bad_request(format!(
        "request.{field} has apiVersion {api_version:?} and kind {kind:?}, expected {:?} and {:?}",
        expected.api_version, expected.kind
    )))
}
