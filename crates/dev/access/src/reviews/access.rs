//! SubjectAccessReview, LocalSubjectAccessReview and SelfSubjectAccessReview
//! (`authorization.k8s.io/v1`): "may this user do this?" asked through the API, as
//! `kubectl auth can-i` does.

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_gofmt::quote;
use certgate_rbac::{NonResourceAttributes, ResourceAttributes, UserInfo};
use serde_json::{Map, Value, json};

use super::ReviewError;
use super::object_meta::ObjectMeta;
use crate::decode::{Decoder, Field};
use crate::invalid::InvalidRequest;
use crate::status::StatusError;
use crate::{RequestAttributes, RequestAuthorizer};

const GROUP: &str = "authorization.k8s.io";
const API_VERSION: &str = "authorization.k8s.io/v1";

/// `POST /apis/authorization.k8s.io/v1/subjectaccessreviews`: may `spec.user` (with
/// `spec.groups`, `spec.extra`, `spec.uid`) do what `spec.*Attributes` say?
pub fn subject_access_review(
    body: &Value,
    authorizer: &dyn RequestAuthorizer,
) -> Result<Value, ReviewError> {
    let kind = "SubjectAccessReview";
    let mut review = Review::decode(kind, body, true)?;
    // The generic create handler clears the namespace of cluster-scoped objects.
    review.metadata.namespace.clear();
    let mut errors = review.spec.validate(true);
    if !review.metadata.is_empty() {
        errors.push(metadata_not_empty(&review, "must be empty"));
    }
    invalid(errors)?;
    let user = review.spec.user();
    Ok(review.answer(kind, json!({ "creationTimestamp": null }), &user, authorizer, true))
}

/// `POST /apis/authorization.k8s.io/v1/namespaces/<ns>/localsubjectaccessreviews`: a
/// SubjectAccessReview confined to the namespace of the URL.
pub fn local_subject_access_review(
    body: &Value,
    namespace_in_url: &str,
    authorizer: &dyn RequestAuthorizer,
) -> Result<Value, ReviewError> {
    let kind = "LocalSubjectAccessReview";
    let mut review = Review::decode(kind, body, true)?;
    // The generic create handler: the body's namespace defaults to, and must equal, the URL's.
    if review.metadata.namespace.is_empty() {
        review.metadata.namespace = namespace_in_url.to_owned();
    } else if review.metadata.namespace != namespace_in_url {
        return Err(ReviewError::BadRequest(StatusError::bad_request(
            "the namespace of the provided object does not match the namespace sent on the request",
        )));
    }
    let namespace = review.metadata.namespace.clone();
    let mut errors = review.spec.validate(true);
    let without_namespace = ObjectMeta { namespace: String::new(), ..review.metadata.clone() };
    if !without_namespace.is_empty() {
        errors.push(metadata_not_empty(&review, "must be empty except for namespace"));
    }
    if let Some(resource) = &review.spec.resource
        && resource.attributes.namespace != namespace
    {
        errors.push(FieldError::invalid(
            spec().child("resourceAttributes").child("namespace"),
            BadValue::Str(resource.attributes.namespace.clone()),
            "must match metadata.namespace",
        ));
    }
    if let Some(non_resource) = &review.spec.non_resource {
        errors.push(FieldError::invalid(
            spec().child("nonResourceAttributes"),
            BadValue::GoSyntax(go_non_resource(non_resource)),
            "disallowed on this kind of request",
        ));
    }
    invalid(errors)?;
    let user = review.spec.user();
    let metadata = json!({ "namespace": namespace, "creationTimestamp": null });
    Ok(review.answer(kind, metadata, &user, authorizer, true))
}

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews`: may the requester do this?
/// (`kubectl auth can-i`).
pub fn self_subject_access_review(
    body: &Value,
    requester: &UserInfo,
    authorizer: &dyn RequestAuthorizer,
) -> Result<Value, ReviewError> {
    let kind = "SelfSubjectAccessReview";
    let mut review = Review::decode(kind, body, false)?;
    review.metadata.namespace.clear();
    let mut errors = review.spec.validate(false);
    if !review.metadata.is_empty() {
        errors.push(metadata_not_empty(&review, "must be empty"));
    }
    invalid(errors)?;
    Ok(review.answer(kind, json!({ "creationTimestamp": null }), requester, authorizer, false))
}

/// Reviews are created to be answered: their metadata must stay (almost) empty.
fn metadata_not_empty(review: &Review, detail: &str) -> FieldError {
    FieldError::invalid(
        Path::new("metadata"),
        BadValue::GoSyntax(review.metadata.go_syntax()),
        detail,
    )
}

fn spec() -> Path {
    Path::new("spec")
}

/// The review handlers name the kind from a field that decoding leaves empty, so the message
/// reads `.authorization.k8s.io "" is invalid: ...`.
fn invalid(errors: Vec<FieldError>) -> Result<(), ReviewError> {
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ReviewError::Invalid(InvalidRequest::new("", GROUP, "", errors)))
    }
}

struct Review {
    metadata: ObjectMeta,
    spec: Spec,
}

#[derive(Default)]
struct Spec {
    resource: Option<Resource>,
    non_resource: Option<NonResourceAttributes>,
    user: String,
    groups: Vec<String>,
    extra: std::collections::BTreeMap<String, Vec<String>>,
    uid: String,
}

struct Resource {
    attributes: ResourceAttributes,
    field_selector: Option<Selector>,
    label_selector: Option<Selector>,
}

/// `FieldSelectorAttributes` / `LabelSelectorAttributes`, kept to validate and echo; RBAC
/// does not look at selectors.
struct Selector {
    raw: String,
    requirements: Vec<Value>,
}

impl Review {
    fn decode(kind: &'static str, body: &Value, with_subject: bool) -> Result<Self, ReviewError> {
        let decoder = Decoder { kind };
        let bad = ReviewError::BadRequest;
        let root = decoder.root(body).map_err(bad)?;
        let metadata = ObjectMeta::decode(&decoder, root.get("metadata")).map_err(bad)?;
        let spec_type = if with_subject {
            "v1.SubjectAccessReviewSpec"
        } else {
            "v1.SelfSubjectAccessReviewSpec"
        };
        let spec_struct =
            if with_subject { "SubjectAccessReviewSpec" } else { "SelfSubjectAccessReviewSpec" };
        let Some(spec) = decoder
            .object(root.get("spec"), Field { go_struct: kind, path: "spec" }, spec_type)
            .map_err(bad)?
        else {
            return Ok(Review { metadata, spec: Spec::default() });
        };
        let field = |path| Field { go_struct: spec_struct, path };
        let resource = decoder
            .object(
                spec.get("resourceAttributes"),
                field("spec.resourceAttributes"),
                "v1.ResourceAttributes",
            )
            .map_err(bad)?
            .map(|map| decode_resource(&decoder, map))
            .transpose()
            .map_err(bad)?;
        let non_resource = decoder
            .object(
                spec.get("nonResourceAttributes"),
                field("spec.nonResourceAttributes"),
                "v1.NonResourceAttributes",
            )
            .map_err(bad)?
            .map(|map| -> Result<_, StatusError> {
                let field = |path| Field { go_struct: "NonResourceAttributes", path };
                Ok(NonResourceAttributes {
                    path: decoder
                        .string(map.get("path"), field("spec.nonResourceAttributes.path"))?,
                    verb: decoder
                        .string(map.get("verb"), field("spec.nonResourceAttributes.verb"))?,
                })
            })
            .transpose()
            .map_err(bad)?;
        let mut decoded = Spec { resource, non_resource, ..Spec::default() };
        if with_subject {
            decoded.user = decoder.string(spec.get("user"), field("spec.user")).map_err(bad)?;
            decoded.groups =
                decoder.strings(spec.get("groups"), field("spec.groups")).map_err(bad)?;
            decoded.extra = decoder.extra(spec.get("extra"), field("spec.extra")).map_err(bad)?;
            decoded.uid = decoder.string(spec.get("uid"), field("spec.uid")).map_err(bad)?;
        }
        Ok(Review { metadata, spec: decoded })
    }

    /// The review with `status` filled in, spec echoed as kube-apiserver serializes it.
    fn answer(
        &self,
        kind: &str,
        metadata: Value,
        user: &UserInfo,
        authorizer: &dyn RequestAuthorizer,
        with_subject: bool,
    ) -> Value {
        let attributes = match (&self.spec.resource, &self.spec.non_resource) {
            (Some(resource), _) => RequestAttributes::Resource(resource.attributes.clone()),
            (None, Some(non_resource)) => RequestAttributes::NonResource(non_resource.clone()),
            // Validation refuses a spec with neither.
            (None, None) => RequestAttributes::NonResource(NonResourceAttributes::default()),
        };
        let decision = authorizer.authorize(user, &attributes);
        let mut status = Map::new();
        status.insert("allowed".into(), decision.allowed.into());
        if !decision.reason.is_empty() {
            status.insert("reason".into(), decision.reason.into());
        }
        json!({
            "kind": kind,
            "apiVersion": API_VERSION,
            "metadata": metadata,
            "spec": self.spec.to_json(with_subject),
            "status": Value::Object(status),
        })
    }
}

fn decode_resource(decoder: &Decoder, map: &Map<String, Value>) -> Result<Resource, StatusError> {
    let field = |path| Field { go_struct: "ResourceAttributes", path };
    let string = |key: &str, path| decoder.string(map.get(key), field(path));
    let selector =
        |key: &str, path: &str, go_type: &str| -> Result<Option<Selector>, StatusError> {
            let here = Field { go_struct: "ResourceAttributes", path };
            let Some(selector) = decoder.object(map.get(key), here, go_type)? else {
                return Ok(None);
            };
            let go_struct = go_type.trim_start_matches("v1.");
            let raw_path = format!("{path}.rawSelector");
            let requirements_path = format!("{path}.requirements");
            let raw = decoder
                .string(selector.get("rawSelector"), Field { go_struct, path: &raw_path })?;
            let requirements = match selector.get("requirements") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items.clone(),
                Some(other) => {
                    let requirement_type = if key == "fieldSelector" {
                        "[]v1.FieldSelectorRequirement"
                    } else {
                        "[]v1.LabelSelectorRequirement"
                    };
                    let field = Field { go_struct, path: &requirements_path };
                    decoder.object(Some(other), field, requirement_type)?;
                    Vec::new()
                }
            };
            Ok(Some(Selector { raw, requirements }))
        };
    Ok(Resource {
        attributes: ResourceAttributes {
            namespace: string("namespace", "spec.resourceAttributes.namespace")?,
            verb: string("verb", "spec.resourceAttributes.verb")?,
            group: string("group", "spec.resourceAttributes.group")?,
            version: string("version", "spec.resourceAttributes.version")?,
            resource: string("resource", "spec.resourceAttributes.resource")?,
            subresource: string("subresource", "spec.resourceAttributes.subresource")?,
            name: string("name", "spec.resourceAttributes.name")?,
        },
        field_selector: selector(
            "fieldSelector",
            "spec.resourceAttributes.fieldSelector",
            "v1.FieldSelectorAttributes",
        )?,
        label_selector: selector(
            "labelSelector",
            "spec.resourceAttributes.labelSelector",
            "v1.LabelSelectorAttributes",
        )?,
    })
}

impl Spec {
    /// `ValidateSubjectAccessReviewSpec` (or the self variant, without the subject check).
    fn validate(&self, with_subject: bool) -> Vec<FieldError> {
        let mut errors = Vec::new();
        match (&self.resource, &self.non_resource) {
            (Some(_), Some(non_resource)) => errors.push(FieldError::invalid(
                spec().child("nonResourceAttributes"),
                BadValue::GoSyntax(go_non_resource(non_resource)),
                "cannot be specified in combination with resourceAttributes",
            )),
            (None, None) => errors.push(FieldError::invalid(
                spec().child("resourceAttributes"),
                BadValue::Null,
                "exactly one of nonResourceAttributes or resourceAttributes must be specified",
            )),
            _ => {}
        }
        if with_subject && self.user.is_empty() && self.groups.is_empty() {
            errors.push(FieldError::invalid(
                spec().child("user"),
                BadValue::Str(self.user.clone()),
                "at least one of user or group must be specified",
            ));
        }
        if let Some(resource) = &self.resource {
            let attributes = spec().child("resourceAttributes");
            let selectors = [
                (attributes.child("fieldSelector"), &resource.field_selector),
                (attributes.child("labelSelector"), &resource.label_selector),
            ];
            for (path, selector) in selectors {
                let Some(selector) = selector else { continue };
                match (selector.raw.is_empty(), selector.requirements.is_empty()) {
                    (false, false) => errors.push(FieldError::invalid(
                        path.child("rawSelector"),
                        BadValue::Str(selector.raw.clone()),
                        "may not specified at the same time as requirements",
                    )),
                    (true, true) => errors.push(FieldError::required(
                        path.child("requirements"),
                        format!(
                            "when {path} is specified, requirements or rawSelector is required"
                        ),
                    )),
                    _ => {}
                }
            }
        }
        errors
    }

    /// The user the review asks about.
    fn user(&self) -> UserInfo {
        UserInfo {
            username: self.user.clone(),
            uid: self.uid.clone(),
            groups: self.groups.clone(),
            extra: self.extra.clone(),
        }
    }

    /// As `v1.SubjectAccessReviewSpec` serializes: empty fields left out.
    fn to_json(&self, with_subject: bool) -> Value {
        let mut spec = Map::new();
        if let Some(resource) = &self.resource {
            let a = &resource.attributes;
            let mut map = Map::new();
            for (key, value) in [
                ("namespace", &a.namespace),
                ("verb", &a.verb),
                ("group", &a.group),
                ("version", &a.version),
                ("resource", &a.resource),
                ("subresource", &a.subresource),
                ("name", &a.name),
            ] {
                if !value.is_empty() {
                    map.insert(key.into(), value.clone().into());
                }
            }
            for (key, selector) in [
                ("fieldSelector", &resource.field_selector),
                ("labelSelector", &resource.label_selector),
            ] {
                if let Some(selector) = selector {
                    let mut inner = Map::new();
                    if !selector.raw.is_empty() {
                        inner.insert("rawSelector".into(), selector.raw.clone().into());
                    }
                    if !selector.requirements.is_empty() {
                        inner.insert("requirements".into(), selector.requirements.clone().into());
                    }
                    map.insert(key.into(), Value::Object(inner));
                }
            }
            spec.insert("resourceAttributes".into(), Value::Object(map));
        }
        if let Some(non_resource) = &self.non_resource {
            let mut map = Map::new();
            if !non_resource.path.is_empty() {
                map.insert("path".into(), non_resource.path.clone().into());
            }
            if !non_resource.verb.is_empty() {
                map.insert("verb".into(), non_resource.verb.clone().into());
            }
            spec.insert("nonResourceAttributes".into(), Value::Object(map));
        }
        if with_subject {
            if !self.user.is_empty() {
                spec.insert("user".into(), self.user.clone().into());
            }
            if !self.groups.is_empty() {
                spec.insert("groups".into(), self.groups.clone().into());
            }
            if !self.extra.is_empty() {
                spec.insert("extra".into(), json!(self.extra));
            }
            if !self.uid.is_empty() {
                spec.insert("uid".into(), self.uid.clone().into());
            }
        }
        Value::Object(spec)
    }
}

/// `%#v` of the internal `authorization.NonResourceAttributes`.
fn go_non_resource(attributes: &NonResourceAttributes) -> String {
    format!(
        "authorization.NonResourceAttributes{{Path:{}, Verb:{}}}",
        quote(&attributes.path),
        quote(&attributes.verb)
    )
}
