//! SelfSubjectRulesReview (`authorization.k8s.io/v1`): everything the requester may do in a
//! namespace, as `kubectl auth can-i --list` shows it.

use certgate_api::field::aggregate_texts;
use certgate_rbac::{RbacAuthorizer, UserInfo};
use serde_json::{Map, Value, json};

use super::ReviewError;
use crate::decode::{Decoder, Field};
use crate::status::StatusError;

/// `POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews`: the rules of every binding
/// that applies to the requester in `spec.namespace`. RBAC lists rules completely, so
/// `incomplete` is false; role references that do not resolve are reported in
/// `evaluationError`.
pub fn self_subject_rules_review(
    body: &Value,
    requester: &UserInfo,
    rbac: &RbacAuthorizer,
) -> Result<Value, ReviewError> {
    let decoder = Decoder { kind: "SelfSubjectRulesReview" };
    let bad = ReviewError::BadRequest;
    let root = decoder.root(body).map_err(bad)?;
    let spec = decoder
        .object(
            root.get("spec"),
            Field { go_struct: "SelfSubjectRulesReview", path: "spec" },
            "v1.SelfSubjectRulesReviewSpec",
        )
        .map_err(bad)?;
    let namespace = decoder
        .string(
            spec.and_then(|s| s.get("namespace")),
            Field { go_struct: "SelfSubjectRulesReviewSpec", path: "spec.namespace" },
        )
        .map_err(bad)?;
    if namespace.is_empty() {
        return Err(ReviewError::BadRequest(StatusError::bad_request("no namespace on request")));
    }
    let found = rbac.rules_for(requester, &namespace);
    let mut resource_rules = Vec::new();
    let mut non_resource_rules = Vec::new();
    for rule in &found.rules {
        let resources = rule.resources.as_deref().unwrap_or_default();
        if !resources.is_empty() {
            let mut map = Map::new();
            map.insert("verbs".into(), rule.verbs.clone().into());
            for (key, items) in [
                ("apiGroups", rule.api_groups.as_deref().unwrap_or_default()),
                ("resources", resources),
                ("resourceNames", rule.resource_names.as_deref().unwrap_or_default()),
            ] {
                if !items.is_empty() {
                    map.insert(key.into(), items.into());
                }
            }
            resource_rules.push(Value::Object(map));
        }
        let urls = rule.non_resource_urls.as_deref().unwrap_or_default();
        if !urls.is_empty() {
            non_resource_rules.push(json!({ "verbs": rule.verbs, "nonResourceURLs": urls }));
        }
    }
    let mut status = Map::new();
    status.insert("resourceRules".into(), resource_rules.into());
    status.insert("nonResourceRules".into(), non_resource_rules.into());
    status.insert("incomplete".into(), false.into());
    // `utilerrors.NewAggregate(errors).Error()`: one message as is, several as `[a, b]`.
    if let Some(error) = aggregate_texts(found.errors.iter().cloned()) {
        status.insert("evaluationError".into(), error.into());
    }
    // kube-apiserver answers with a new object: the spec is not echoed.
    Ok(json!({
        "kind": "SelfSubjectRulesReview",
        "apiVersion": "authorization.k8s.io/v1",
        "metadata": { "creationTimestamp": null },
        "spec": {},
        "status": Value::Object(status),
    }))
}
