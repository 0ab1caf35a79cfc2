//! The AdmissionReview request body (upstream's `CreateV1AdmissionReview` and
//! `CreateV1beta1AdmissionReview`), field for field as Go's encoding/json writes it.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::attributes::AdmissionAttributes;

/// The AdmissionReview version a webhook is called with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReviewVersion {
    V1,
    V1beta1,
}

impl ReviewVersion {
    pub(crate) fn api_version(self) -> &'static str {
        match self {
            ReviewVersion::V1 => "admission.k8s.io/v1",
            ReviewVersion::V1beta1 => "admission.k8s.io/v1beta1",
        }
    }

    /// The first version in the webhook's `admissionReviewVersions` the server knows:
    /// upstream walks the list in order, so `[v1beta1, v1]` gets v1beta1.
    pub(crate) fn choose(listed: &[String]) -> Option<ReviewVersion> {
        listed.iter().find_map(|v| match v.as_str() {
            "v1" => Some(ReviewVersion::V1),
            "v1beta1" => Some(ReviewVersion::V1beta1),
            _ => None,
        })
    }
}

#[derive(Serialize)]
struct Review<'a> {
    kind: &'static str,
    #[serde(rename = "apiVersion")]
    api_version: &'static str,
    request: Request<'a>,
}

#[derive(Serialize)]
struct GroupVersionKind<'a> {
    group: &'a str,
    version: &'a str,
    kind: &'a str,
}

#[derive(Serialize)]
struct GroupVersionResource<'a> {
    group: &'a str,
    version: &'a str,
    resource: &'a str,
}

/// `authentication/v1.UserInfo`: every field `omitempty`.
#[derive(Serialize)]
struct UserInfo<'a> {
    #[serde(skip_serializing_if = "str::is_empty")]
    username: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    uid: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    groups: &'a [String],
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    extra: &'a BTreeMap<String, Vec<String>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Request<'a> {
    uid: &'a str,
    kind: GroupVersionKind<'a>,
    resource: GroupVersionResource<'a>,
    #[serde(skip_serializing_if = "str::is_empty")]
    sub_resource: &'a str,
    request_kind: GroupVersionKind<'a>,
    request_resource: GroupVersionResource<'a>,
    #[serde(skip_serializing_if = "str::is_empty")]
    request_sub_resource: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    namespace: &'a str,
    operation: &'static str,
    user_info: UserInfo<'a>,
    /// A `RawExtension` without an object encodes as `null`; it is never omitted.
    object: Option<&'a Value>,
    old_object: Option<&'a Value>,
    dry_run: bool,
    options: &'a Value,
}

/// The JSON body for one call. The kind and resource are the request's own: the sandbox does
/// not convert objects, so an Equivalent match is still sent in the served version, and the
/// `request*` fields repeat them as upstream does when no conversion happened.
pub(crate) fn body(version: ReviewVersion, uid: &str, attributes: &AdmissionAttributes) -> Vec<u8> {
    let kind = || GroupVersionKind {
        group: &attributes.kind.group,
        version: &attributes.kind.version,
        kind: &attributes.kind.kind,
    };
    let resource = || GroupVersionResource {
        group: &attributes.resource.group,
        version: &attributes.resource.version,
        resource: &attributes.resource.resource,
    };
    let review = Review {
        kind: "AdmissionReview",
        api_version: version.api_version(),
        request: Request {
            uid,
            kind: kind(),
            resource: resource(),
            sub_resource: &attributes.subresource,
            request_kind: kind(),
            request_resource: resource(),
            request_sub_resource: &attributes.subresource,
            name: &attributes.name,
            namespace: &attributes.namespace,
            operation: attributes.operation.as_str(),
            user_info: UserInfo {
                username: &attributes.user.username,
                uid: &attributes.user.uid,
                groups: &attributes.user.groups,
                extra: &attributes.user.extra,
            },
            object: attributes.object.as_ref(),
            old_object: attributes.old_object.as_ref(),
            dry_run: attributes.dry_run,
            options: &attributes.options,
        },
    };
    // Serializing borrowed JSON values and strings cannot fail; an empty body would be
    // answered by the webhook as undecodable rather than panic here.
    serde_json::to_vec(&review).unwrap_or_default()
}
