//! Validation of the built-in kinds whose content the sandbox acts on: webhook
//! configurations (kube-apiserver's rules, from `certgate-dispatch`) and RBAC objects (they
//! must decode, or they would silently grant nothing).

use certgate_dispatch::{ConfigurationKind, validate_configuration};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::status::ApiError;
use crate::target::Target;

pub fn validate(target: &Target, object: &Value) -> Result<(), ApiError> {
    let resource = &target.resource;
    let problems: Vec<String> = match (resource.group.as_str(), resource.plural.as_str()) {
        (crate::admission::GROUP, "mutatingwebhookconfigurations") => {
            webhook_problems(ConfigurationKind::Mutating, object)?
        }
        (crate::admission::GROUP, "validatingwebhookconfigurations") => {
            webhook_problems(ConfigurationKind::Validating, object)?
        }
        (crate::rbac::GROUP, "roles") => decodes::<Role>(object),
        (crate::rbac::GROUP, "clusterroles") => decodes::<ClusterRole>(object),
        (crate::rbac::GROUP, "rolebindings") => decodes::<RoleBinding>(object),
        (crate::rbac::GROUP, "clusterrolebindings") => decodes::<ClusterRoleBinding>(object),
        _ => Vec::new(),
    };
    let Some(aggregate) = certgate_api::field::aggregate_texts(problems) else { return Ok(()) };
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    Err(ApiError::invalid(
        &resource.qualified_kind(),
        &resource.group,
        &resource.kind,
        name,
        &aggregate,
        None,
    ))
}

/// The configuration's field errors; one that does not even decode is a 400, as upstream.
fn webhook_problems(kind: ConfigurationKind, object: &Value) -> Result<Vec<String>, ApiError> {
    let errors = validate_configuration(kind, object);
    if let [only] = errors.as_slice()
        && only.field.is_empty()
    {
        return Err(ApiError::bad_request(only.detail.clone()));
    }
    Ok(errors.iter().map(ToString::to_string).collect())
}

fn decodes<T: DeserializeOwned>(object: &Value) -> Vec<String> {
    match serde_json::from_value::<T>(object.clone()) {
        Ok(_) => Vec::new(),
        Err(err) => vec![format!("<body>: Invalid value: {err}")],
    }
}
