//! What happens around writes of particular kinds: namespaces must exist and not be
//! terminating for their contents to be created; deleting a namespace deletes its
//! contents first; a CustomResourceDefinition is served as soon as it is stored, and its
//! resources go away with it; custom resources are validated against their schema.

use std::sync::Arc;
use std::time::Duration;

use certgate_store::{Key, Modification, Prefix, Stored};
use serde_json::{Value, json};

use crate::api::prefix;
use crate::requester::Requester;
use crate::resources::{self, ResourceType};
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;
use crate::writes;

const CRDS: &str = "customresourcedefinitions";
const NAMESPACES: &str = "namespaces";
/// The finalizer the namespace controller removes once a namespace is empty.
const NAMESPACE_FINALIZER: &str = "kubernetes";

fn is_crd(target: &Target) -> bool {
    target.resource.group == "apiextensions.k8s.io" && target.resource.plural == CRDS
}

fn is_namespace(target: &Target) -> bool {
    target.resource.group.is_empty() && target.resource.plural == NAMESPACES
}

/// Whether deleting an object of `target`'s kind goes through a terminating phase.
pub fn finalizes(target: &Target) -> bool {
    is_namespace(target)
}

fn namespace_key(name: &str) -> Key {
    Key {
        group: String::new(),
        resource: NAMESPACES.to_owned(),
        namespace: String::new(),
        name: name.to_owned(),
    }
}

/// Checks before a create (the API server's NamespaceLifecycle admission, before any
/// webhook): the namespace exists and is not terminating; namespaces get their defaults.
pub fn before_create(
    sandbox: &Sandbox,
    target: &Target,
    object: &mut Value,
) -> Result<(), ApiError> {
    if let Some(namespace) = target.namespace.as_deref().filter(|_| target.resource.namespaced) {
        let stored = sandbox
            .store
            .get(&namespace_key(namespace))
            .ok_or_else(|| ApiError::not_found(NAMESPACES, namespace))?;
        if crate::objects::is_deleting(&stored.object) {
            return Err(ApiError::new(
                403,
                "Forbidden",
                format!(
                    "{} \"{}\" is forbidden: unable to create new content in namespace {namespace} because it is being terminated",
                    target.resource.qualified_plural(),
                    object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default()
                ),
            ));
        }
    }
    if crate::secrets::is_secret(target) {
        crate::secrets::decode(object);
    }
    if is_namespace(target) {
        object["spec"] = json!({"finalizers": [NAMESPACE_FINALIZER]});
        object["status"] = json!({"phase": "Active"});
        labels_with_name(object);
    }
    Ok(())
}

/// `kubernetes.io/metadata.name`, which the API server puts on every namespace.
fn labels_with_name(object: &mut Value) {
    let name = object.pointer("/metadata/name").cloned().unwrap_or(Value::Null);
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        let labels = metadata.entry("labels").or_insert_with(|| json!({}));
        if let Some(labels) = labels.as_object_mut() {
            labels.insert("kubernetes.io/metadata.name".to_owned(), name);
        }
    }
}

/// Defaults of an update, before admission.
pub fn before_update(target: &Target, new: &mut Value) {
    if crate::secrets::is_secret(target) {
        crate::secrets::decode(new);
    }
    if is_namespace(target) {
        labels_with_name(new);
    }
}

/// Validation of the object for its kind, after mutating admission: CRDs must be servable,
/// custom resources are defaulted, pruned and validated against their schema.
pub fn validate(
    sandbox: &Sandbox,
    target: &Target,
    object: &mut Value,
    old: Option<&Value>,
) -> Result<(), ApiError> {
    if is_crd(target) {
        resources::from_crd(object).map_err(|err| {
            ApiError::new(
                422,
                "Invalid",
                format!(
                    "CustomResourceDefinition.apiextensions.k8s.io \"{}\" is invalid: {}",
                    err.name, err.reason
                ),
            )
        })?;
        return crate::crd_rules::check(object);
    }
    if target.resource.is_custom() {
        return sandbox.schemas.validate(&target.resource, object, old);
    }
    match old {
        None => crate::event_validation::validate_create(&target.resource, object)?,
        Some(old) if crate::secrets::is_secret(target) => {
            crate::secrets::check_update(object, old)?
        }
        Some(_) => {}
    }
    crate::builtin_validation::validate(target, object)
}

/// After an object was stored: CRDs start being served (and get their Established
/// status), namespaces being deleted start terminating. Returns the object as stored last.
pub fn after_write(sandbox: &Sandbox, target: &Target, stored: Stored) -> Result<Value, ApiError> {
    sandbox.changed(target);
    if is_crd(target) {
        return establish(sandbox, stored);
    }
    if is_namespace(target) && crate::objects::is_deleting(&stored.object) {
        return start_termination(sandbox, stored);
    }
    Ok(stored.object)
}

/// After an object was removed: a CRD's resources and objects go with it.
pub fn after_delete(sandbox: &Sandbox, target: &Target, stored: &Stored) {
    sandbox.changed(target);
    if !is_crd(target) {
        return;
    }
    let Ok(resources) = resources::from_crd(&stored.object) else { return };
    sandbox.registry.remove_crd(&stored.key.name);
    if let Some(resource) = resources.first() {
        let listed = sandbox.store.list(&prefix(resource, None), None, None);
        for item in listed.items {
            let _ = sandbox.store.delete(&item.key, None);
        }
    }
}

/// Serves the CRD's resources and records that in its status, as the API server's
/// controllers do within moments of the create.
fn establish(sandbox: &Sandbox, stored: Stored) -> Result<Value, ApiError> {
    let crd = &stored.object;
    let resources =
        resources::from_crd(crd).map_err(|err| ApiError::new(422, "Invalid", err.to_string()))?;
    sandbox.registry.set_crd(&stored.key.name, resources);
    let names = crd.pointer("/spec/names").cloned().unwrap_or_else(|| json!({}));
    let now = crate::objects::now();
    let condition = |kind: &str, reason: &str, message: &str| json!({"type": kind, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message});
    let status = json!({
        "conditions": [
            condition("NamesAccepted", "NoConflicts", "no conflicts found"),
            condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
        ],
        "acceptedNames": names,
        "storedVersions": crd.pointer("/spec/versions").and_then(Value::as_array).map(|versions| {
            versions
                .iter()
                .filter(|v| v.get("storage").and_then(Value::as_bool).unwrap_or(false))
                .filter_map(|v| v.get("name").cloned())
                .collect::<Vec<_>>()
        }).unwrap_or_default(),
    });
    let established =
        crd.pointer("/status/conditions").and_then(Value::as_array).is_some_and(|conditions| {
            conditions.iter().any(|c| c["type"] == "Established" && c["status"] == "True")
        });
    if established && crd.pointer("/status/acceptedNames") == Some(&names) {
        return Ok(stored.object);
    }
    let updated = sandbox.store.modify(&stored.key, |current| {
        let mut object = current.object.clone();
        object["status"] = status.clone();
        Ok::<_, ApiError>(Modification::Replace(object))
    });
    match updated {
        Ok(Some(stored)) => Ok(stored.object),
        Ok(None) => Ok(stored.object),
        Err(err) => Err(ApiError::new(500, "InternalError", err.to_string())),
    }
}

/// Marks the namespace Terminating and deletes its contents in the background; the
/// namespace itself goes once it is empty.
fn start_termination(sandbox: &Sandbox, stored: Stored) -> Result<Value, ApiError> {
    let name = stored.key.name.clone();
    let updated = sandbox.store.modify(&stored.key, |current| {
        if current.object.pointer("/status/phase").and_then(Value::as_str) == Some("Terminating") {
            return Ok::<_, ApiError>(Modification::Keep);
        }
        let mut object = current.object.clone();
        object["status"] = json!({"phase": "Terminating"});
        Ok(Modification::Replace(object))
    });
    let object = match updated {
        Ok(Some(stored)) => stored.object,
        _ => stored.object,
    };
    if let Some(sandbox) = sandbox.this.upgrade() {
        tokio::spawn(terminate(sandbox, name));
    }
    Ok(object)
}

/// Deletes everything in the namespace, waits for finalizers, then the namespace.
async fn terminate(sandbox: Arc<Sandbox>, namespace: String) {
    loop {
        let mut remaining = 0usize;
        for (_, _, resources) in sandbox.registry.group_versions() {
            for resource in resources.iter().filter(|r| r.namespaced) {
                remaining += delete_contents(&sandbox, resource, &namespace).await;
            }
        }
        if remaining == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = sandbox.store.modify(&namespace_key(&namespace), |current| {
        let mut object = current.object.clone();
        if let Some(finalizers) =
            object.pointer_mut("/spec/finalizers").and_then(Value::as_array_mut)
        {
            finalizers.retain(|f| f != NAMESPACE_FINALIZER);
        }
        if crate::objects::has_finalizers(&object) {
            return Ok::<_, ApiError>(Modification::Replace(object));
        }
        Ok(Modification::Delete)
    });
}

/// Asks every object of `resource` in `namespace` to be deleted; returns how many remain.
async fn delete_contents(sandbox: &Sandbox, resource: &ResourceType, namespace: &str) -> usize {
    let listed = sandbox.store.list(
        &Prefix { namespace: Some(namespace.to_owned()), ..prefix(resource, None) },
        None,
        None,
    );
    let target = Target {
        resource: resource.clone(),
        namespace: Some(namespace.to_owned()),
        name: None,
        subresource: None,
    };
    // The namespace controller's deletes go through admission like any client's.
    let controller = Requester::system("system:serviceaccount:kube-system:namespace-controller");
    let none = writes::Preconditions::default();
    let mut remaining = 0;
    for item in listed.items {
        let _ = writes::delete(sandbox, &target, &item.key.name, &controller, &none).await;
        if sandbox.store.get(&item.key).is_some() {
            remaining += 1;
        }
    }
    remaining
}
