//! The `admission.k8s.io/v1` AdmissionReview as the API server sends it, and the response
//! it expects back.
//!
//! Own serde types rather than kube-core's: every request field is optional here so that a
//! review with a missing or mistyped field still yields its `uid`, and can be answered with
//! a denial the API server matches to its call instead of a bare HTTP error.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::review::Rejection;

pub(crate) const API_VERSION: &str = "admission.k8s.io/v1";
pub(crate) const KIND: &str = "AdmissionReview";

/// `null` reads as the default, as Go's decoder leaves the zero value for it.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Option::<T>::deserialize(d).map(Option::unwrap_or_default)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "O: Deserialize<'de>"))]
struct ReviewIn<O> {
    #[serde(default, deserialize_with = "nullable")]
    api_version: String,
    #[serde(default, deserialize_with = "nullable")]
    kind: String,
    #[serde(default)]
    request: Option<AdmissionRequest<O>>,
}

/// `metav1.GroupVersionResource`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub(crate) struct Gvr {
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) group: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) version: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) resource: String,
}

impl Gvr {
    /// Go's zero `GroupVersionResource`, which upstream treats as "unset".
    pub(crate) fn is_unset(&self) -> bool {
        self.group.is_empty() && self.version.is_empty() && self.resource.is_empty()
    }
}

/// `authenticationv1.UserInfo`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub(crate) struct UserInfoIn {
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) username: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) uid: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) groups: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) extra: BTreeMap<String, NullableList>,
}

/// An `extra` value: a list of strings where `null` means empty.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub(crate) struct NullableList(pub(crate) Vec<String>);

impl<'de> Deserialize<'de> for NullableList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        nullable(d).map(NullableList)
    }
}

impl UserInfoIn {
    /// The requester as the authorizer sees it.
    pub(crate) fn to_rbac(&self) -> certgate_rbac::UserInfo {
        certgate_rbac::UserInfo {
            username: self.username.clone(),
            uid: self.uid.clone(),
            groups: self.groups.clone(),
            extra: self.extra.iter().map(|(k, v)| (k.clone(), v.0.clone())).collect(),
        }
    }
}

/// `admissionv1.AdmissionRequest`, only the fields certgate reads.
///
/// `object` and `oldObject` are read as `O`, chosen per endpoint: `/mutate` reads only
/// what the identity stamp needs in the same pass, `/validate` keeps JSON text borrowed
/// from the body (`&RawValue`) and decodes it once the route is known, straight into the
/// resource's type. Neither goes through a `serde_json::Value`, which cost most of a
/// review's time (`benches/handle.rs`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "O: Deserialize<'de>"))]
pub(crate) struct AdmissionRequest<O> {
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) uid: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) resource: Gvr,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) sub_resource: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) operation: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) namespace: String,
    #[serde(default, deserialize_with = "nullable")]
    pub(crate) user_info: UserInfoIn,
    /// `None` when absent or `null`.
    #[serde(default)]
    pub(crate) object: Option<O>,
    #[serde(default)]
    pub(crate) old_object: Option<O>,
}

impl<O> AdmissionRequest<O> {
    /// `group/version/resource[/subresource]`, for logs and metrics.
    pub(crate) fn resource_label(&self) -> String {
        let r = &self.resource;
        let mut label = if r.group.is_empty() {
            format!("{}/{}", r.version, r.resource)
        } else {
            format!("{}/{}/{}", r.group, r.version, r.resource)
        };
        if !self.sub_resource.is_empty() {
            label.push('/');
            label.push_str(&self.sub_resource);
        }
        label
    }
}

/// A body that parsed far enough to be answered, or not.
pub(crate) enum Parsed<O> {
    /// A well-formed review.
    Request(Box<AdmissionRequest<O>>),
    /// The review is malformed, but names its `uid`: answered with this denial message.
    Malformed { uid: String, message: String },
}

fn bad_request(message: String) -> Rejection {
    Rejection { status: 400, message }
}

/// Parses a body the caller has already checked against the size limit.
pub(crate) fn parse<'a, O: Deserialize<'a>>(body: &'a [u8]) -> Result<Parsed<O>, Rejection> {
    // serde would also read a struct from a JSON array, by position.
    if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(bad_request(
            "the body is not an AdmissionReview: expected a JSON object".to_owned(),
        ));
    }
    // JSON is UTF-8: checking the whole body at once is much cheaper than serde_json
    // checking each string as it reads it.
    let text = std::str::from_utf8(body).map_err(|err| {
        bad_request(format!("the body is not JSON: it is not UTF-8 text ({err})"))
    })?;
    let review: ReviewIn<O> = match serde_json::from_str(text) {
        Ok(review) => review,
        Err(err) => return salvage(text, &err),
    };
    if review.api_version != API_VERSION || review.kind != KIND {
        return Err(wrong_type(&review.api_version, &review.kind));
    }
    let Some(request) = review.request else {
        return Err(bad_request(
            "the AdmissionReview has no request; the API server always sends one".to_owned(),
        ));
    };
    if request.uid.is_empty() {
        return Err(missing_uid());
    }
    Ok(Parsed::Request(Box::new(request)))
}

fn wrong_type(api_version: &str, kind: &str) -> Rejection {
    bad_request(format!(
        "expected apiVersion {API_VERSION:?} and kind {KIND:?}, got {api_version:?} and {kind:?}; \
         register the webhook with admissionReviewVersions [\"v1\"]"
    ))
}

fn missing_uid() -> Rejection {
    bad_request("the AdmissionReview request has no uid to answer to".to_owned())
}

/// A body that did not fit the review's shape: if it is JSON naming a v1 review and its
/// `uid`, it is answered with a denial; otherwise it is rejected.
fn salvage<O>(body: &str, err: &serde_json::Error) -> Result<Parsed<O>, Rejection> {
    let value: Value = serde_json::from_str(body)
        .map_err(|_| bad_request(format!("the body is not JSON: {err}")))?;
    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind) = (text("/apiVersion"), text("/kind"));
    if api_version != API_VERSION || kind != KIND {
        return Err(wrong_type(api_version, kind));
    }
    let uid = text("/request/uid");
    if uid.is_empty() {
        return Err(missing_uid());
    }
    Ok(Parsed::Malformed {
        uid: uid.to_owned(),
        message: format!("the AdmissionReview request is malformed: {err}"),
    })
}

/// `metav1.Status` of a denial.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub(crate) struct Status {
    pub(crate) code: u16,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub(crate) message: String,
    pub(crate) reason: &'static str,
    /// `Failure`, or empty (left out) as controller-runtime's validators answer.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub(crate) status: &'static str,
}

/// `admissionv1.AdmissionResponse`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AdmissionResponse<'a> {
    pub(crate) uid: &'a str,
    pub(crate) allowed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) status: Option<Status>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) patch_type: Option<&'static str>,
    /// Base64 of the JSON patch, as a JSON string literal: base64 needs no escaping, so it
    /// is written as it is instead of being scanned for characters to escape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) patch: Option<Box<RawValue>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub(crate) warnings: &'a [String],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReviewOut<'a> {
    api_version: &'static str,
    kind: &'static str,
    response: AdmissionResponse<'a>,
}

/// The response body.
pub(crate) fn serialize(response: AdmissionResponse<'_>) -> Result<Vec<u8>, Rejection> {
    // Room for a typical answer (a patch is ~700 bytes), so the buffer is not regrown.
    let mut body = Vec::with_capacity(1024);
    let review = ReviewOut { api_version: API_VERSION, kind: KIND, response };
    serde_json::to_writer(&mut body, &review).map_err(|err| Rejection {
        status: 500,
        message: format!("the AdmissionReview response could not be serialized: {err}"),
    })?;
    Ok(body)
}
