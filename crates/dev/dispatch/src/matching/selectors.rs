//! `namespaceSelector` and `objectSelector` (upstream's namespace and object matchers).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::attributes::{AdmissionAttributes, Operation, object_labels};
use crate::rejection::Rejection;
use crate::validation::selector::unusable;

fn is_empty(selector: &LabelSelector) -> bool {
    selector.match_labels.as_ref().is_none_or(|m| m.is_empty())
        && selector.match_expressions.as_ref().is_none_or(|e| e.is_empty())
}

/// Whether the request's namespace matches. Cluster-scoped objects other than Namespaces
/// always match; a Namespace being created or updated is matched by its own new labels.
pub(crate) fn namespace_matches(
    selector: Option<&LabelSelector>,
    attributes: &AdmissionAttributes,
) -> Result<bool, Box<Rejection>> {
    let is_namespaces = attributes.resource.resource == "namespaces";
    if attributes.namespace.is_empty() && !is_namespaces {
        return Ok(true);
    }
    // An unset selector is the v1 default `{}`, which selects everything.
    let Some(selector) = selector else { return Ok(true) };
    if let Some(error) = unusable(selector) {
        return Err(Box::new(Rejection::internal(&error)));
    }
    if is_empty(selector) {
        return Ok(true);
    }
    let labels = namespace_labels(attributes)
        .ok_or_else(|| Box::new(Rejection::namespace_not_found(&attributes.namespace)))?;
    Ok(certgate_rbac::label_selector_matches(selector, &labels))
}

fn namespace_labels(attributes: &AdmissionAttributes) -> Option<BTreeMap<String, String>> {
    let is_namespaces = attributes.resource.resource == "namespaces";
    let writes_namespace = is_namespaces
        && attributes.subresource.is_empty()
        && matches!(attributes.operation, Operation::Create | Operation::Update);
    if writes_namespace {
        // Upstream reads the labels from the object in the request: the stored Namespace
        // does not have them yet.
        return Some(attributes.object.as_ref().and_then(object_labels).unwrap_or_default());
    }
    if let Some(labels) = &attributes.namespace_labels {
        return Some(labels.clone());
    }
    if is_namespaces {
        // Deleting a Namespace or writing one of its subresources: the stored Namespace is
        // the one the request addresses.
        return attributes
            .old_object
            .as_ref()
            .or(attributes.object.as_ref())
            .and_then(object_labels);
    }
    None
}

/// Whether the new or the old object's labels match.
pub(crate) fn object_matches(
    selector: Option<&LabelSelector>,
    attributes: &AdmissionAttributes,
) -> Result<bool, Box<Rejection>> {
    let Some(selector) = selector else { return Ok(true) };
    if let Some(error) = unusable(selector) {
        return Err(Box::new(Rejection::internal(&error)));
    }
    if is_empty(selector) {
        return Ok(true);
    }
    let matches = |object: Option<&serde_json::Value>| {
        object
            .and_then(object_labels)
            .is_some_and(|labels| certgate_rbac::label_selector_matches(selector, &labels))
    };
    Ok(matches(attributes.object.as_ref()) || matches(attributes.old_object.as_ref()))
}
