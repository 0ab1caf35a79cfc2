//! Admission webhooks around a write, as the API server calls them: mutating webhooks
//! before the object's system fields and validation, validating webhooks after. Without a
//! registered configuration, nothing is called and nothing is built.

use std::collections::BTreeMap;

use certgate_dispatch::{
    AdmissionAttributes, Configurations, GroupVersionKind, GroupVersionResource, Rejection,
};
use serde_json::{Value, json};

use crate::api::key;
use crate::requester::Requester;
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;

pub use certgate_dispatch::Operation;

pub const GROUP: &str = "admissionregistration.k8s.io";

/// Whether writes to `target` change which webhooks are called.
pub fn is_webhook_configuration(target: &Target) -> bool {
    target.resource.group == GROUP
}

/// The registered webhook configurations, as stored now.
pub fn build(sandbox: &Sandbox) -> Configurations {
    let list = |plural: &str| -> Vec<Value> {
        let Some(resource) = sandbox.registry.get(GROUP, "v1", plural) else { return Vec::new() };
        let listed = sandbox.store.list(&crate::api::prefix(&resource, None), None, None);
        listed.items.into_iter().map(|stored| stored.object).collect()
    };
    Configurations::from_objects(
        &list("mutatingwebhookconfigurations"),
        &list("validatingwebhookconfigurations"),
    )
}

/// Runs the mutating webhooks that match; returns the object they leave (`object` itself
/// when none matched). For a DELETE, `object` is `Value::Null`.
pub async fn mutate(
    sandbox: &Sandbox,
    target: &Target,
    requester: &Requester,
    operation: Operation,
    object: Value,
    old: Option<&Value>,
) -> Result<Value, ApiError> {
    let configurations = sandbox.webhooks();
    if configurations.is_empty() {
        return Ok(object);
    }
    let object = (!object.is_null()).then_some(object);
    let mut attributes = attributes(sandbox, target, requester, operation, object, old);
    let outcome = sandbox.dispatcher.mutate(&configurations, &mut attributes).await;
    requester.warn(outcome.as_ref().map_or_else(|r| r.warnings.clone(), Clone::clone));
    outcome.map_err(rejected)?;
    Ok(attributes.object.unwrap_or(Value::Null))
}

/// Runs the validating webhooks that match; any denial refuses the write.
pub async fn validate(
    sandbox: &Sandbox,
    target: &Target,
    requester: &Requester,
    operation: Operation,
    object: Option<&Value>,
    old: Option<&Value>,
) -> Result<(), ApiError> {
    let configurations = sandbox.webhooks();
    if configurations.is_empty() {
        return Ok(());
    }
    let attributes = attributes(sandbox, target, requester, operation, object.cloned(), old);
    let outcome = sandbox.dispatcher.validate(&configurations, &attributes).await;
    requester.warn(outcome.as_ref().map_or_else(|r| r.warnings.clone(), Clone::clone));
    outcome.map(|_| ()).map_err(rejected)
}

fn attributes(
    sandbox: &Sandbox,
    target: &Target,
    requester: &Requester,
    operation: Operation,
    object: Option<Value>,
    old: Option<&Value>,
) -> AdmissionAttributes {
    let resource = &target.resource;
    let name = object
        .as_ref()
        .or(old)
        .and_then(|o| o.pointer("/metadata/name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let is_namespace = resource.group.is_empty() && resource.plural == "namespaces";
    let namespace = match &target.namespace {
        Some(namespace) => namespace.clone(),
        // Requests addressing an existing Namespace carry its name as their namespace.
        None if is_namespace && operation != Operation::Create => name.clone(),
        None => String::new(),
    };
    let namespace_labels = if is_namespace {
        object.as_ref().or(old).map(labels)
    } else if resource.namespaced {
        Some(namespace_labels(sandbox, &namespace))
    } else {
        None
    };
    AdmissionAttributes {
        operation,
        kind: GroupVersionKind::new(&resource.group, &resource.version, &resource.kind),
        resource: GroupVersionResource::new(&resource.group, &resource.version, &resource.plural),
        subresource: target.subresource.clone().unwrap_or_default(),
        namespaced: resource.namespaced,
        name,
        namespace,
        user: requester.user.clone(),
        object,
        old_object: old.cloned(),
        dry_run: requester.dry_run,
        options: options(operation, requester),
        namespace_labels,
    }
}

/// The options object the API server passes to webhooks for the operation.
fn options(operation: Operation, requester: &Requester) -> Value {
    let kind = match operation {
        Operation::Create => "CreateOptions",
        Operation::Update => "UpdateOptions",
        Operation::Delete | Operation::Connect => "DeleteOptions",
    };
    let mut options = json!({"kind": kind, "apiVersion": "meta.k8s.io/v1"});
    if requester.dry_run {
        options["dryRun"] = json!(["All"]);
    }
    if let Some(manager) = &requester.field_manager
        && operation != Operation::Delete
    {
        options["fieldManager"] = json!(manager);
    }
    options
}

fn namespace_labels(sandbox: &Sandbox, namespace: &str) -> BTreeMap<String, String> {
    let Some(resource) = sandbox.registry.get("", "v1", "namespaces") else {
        return BTreeMap::new();
    };
    let target = Target { resource, namespace: None, name: None, subresource: None };
    sandbox
        .store
        .get(&key(&target, namespace))
        .map(|stored| labels(&stored.object))
        .unwrap_or_default()
}

fn labels(object: &Value) -> BTreeMap<String, String> {
    object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|labels| {
            labels
                .iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

fn rejected(rejection: Rejection) -> ApiError {
    let error = ApiError::new(rejection.code, rejection.reason, rejection.message);
    match rejection.details {
        Some(details) => error.with_details(details),
        None => error,
    }
}
