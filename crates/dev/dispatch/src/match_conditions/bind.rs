//! The values of one evaluation: the request's objects as CEL sees unstructured JSON, and
//! the `request` variable as upstream's `CreateAdmissionRequest` fills it.

use std::sync::Arc;

use certgate_cel::value::{MapValue, ObjectValue, Value as Cel};
use serde_json::Value;

use super::environment::{ConditionEnvironment, GVK_TYPE, GVR_TYPE, REQUEST_TYPE, USER_INFO_TYPE};
use crate::attributes::{AdmissionAttributes, GroupVersionKind, GroupVersionResource};

/// The variables by slot for `attributes`.
pub(crate) fn variables(env: &ConditionEnvironment, attributes: &AdmissionAttributes) -> Vec<Cel> {
    let mut values = vec![Cel::Null; env.env.slots().len()];
    let mut set = |slot: usize, value: Cel| {
        if let Some(v) = values.get_mut(slot) {
            *v = value;
        }
    };
    set(env.object, attributes.object.as_ref().map_or(Cel::Null, json));
    set(env.old_object, attributes.old_object.as_ref().map_or(Cel::Null, json));
    set(env.request, request(attributes));
    set(env.namespace_object, Cel::Null);
    values
}

/// Unstructured JSON as cel-go's native adapter sees it: integers are `int` (`uint` past
/// `i64`), other numbers `double`.
pub(crate) fn json(value: &Value) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Cel::Int(i),
            (None, Some(u)) => Cel::Uint(u),
            _ => Cel::Double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Cel::string(s),
        Value::Array(items) => Cel::list(items.iter().map(json).collect()),
        Value::Object(map) => {
            let entries = map.iter().map(|(k, v)| (Cel::string(k), json(v))).collect();
            // String keys never collide, so this cannot fail; null keeps it panic-free.
            MapValue::from_entries(entries).map(Cel::Map).unwrap_or(Cel::Null)
        }
    }
}

fn object(type_name: &str, fields: Vec<(&str, Cel)>) -> Cel {
    let fields = fields.into_iter().map(|(name, value)| (Arc::from(name), value)).collect();
    Cel::Object(ObjectValue::new(type_name, fields))
}

fn gvk(kind: &GroupVersionKind) -> Cel {
    object(
        GVK_TYPE,
        vec![
            ("group", Cel::string(&kind.group)),
            ("version", Cel::string(&kind.version)),
            ("kind", Cel::string(&kind.kind)),
        ],
    )
}

fn gvr(resource: &GroupVersionResource) -> Cel {
    object(
        GVR_TYPE,
        vec![
            ("group", Cel::string(&resource.group)),
            ("version", Cel::string(&resource.version)),
            ("resource", Cel::string(&resource.resource)),
        ],
    )
}

/// Optional fields are left unset when empty (their Go `omitempty`), so `has()` is false
/// for them; selecting them still yields `""`.
fn request(attributes: &AdmissionAttributes) -> Cel {
    let user = &attributes.user;
    let mut user_fields = Vec::new();
    if !user.username.is_empty() {
        user_fields.push(("username", Cel::string(&user.username)));
    }
    if !user.uid.is_empty() {
        user_fields.push(("uid", Cel::string(&user.uid)));
    }
    if !user.groups.is_empty() {
        user_fields
            .push(("groups", Cel::list(user.groups.iter().map(|g| Cel::string(g)).collect())));
    }
    if !user.extra.is_empty() {
        let entries = user
            .extra
            .iter()
            .map(|(k, v)| (Cel::string(k), Cel::list(v.iter().map(|s| Cel::string(s)).collect())))
            .collect();
        if let Ok(map) = MapValue::from_entries(entries) {
            user_fields.push(("extra", Cel::Map(map)));
        }
    }
    let mut fields = vec![("kind", gvk(&attributes.kind)), ("resource", gvr(&attributes.resource))];
    if !attributes.subresource.is_empty() {
        fields.push(("subResource", Cel::string(&attributes.subresource)));
    }
    // The sandbox converts nothing: the request's kind and resource are the served ones.
    fields.push(("requestKind", gvk(&attributes.kind)));
    fields.push(("requestResource", gvr(&attributes.resource)));
    if !attributes.subresource.is_empty() {
        fields.push(("requestSubResource", Cel::string(&attributes.subresource)));
    }
    if !attributes.name.is_empty() {
        fields.push(("name", Cel::string(&attributes.name)));
    }
    if !attributes.namespace.is_empty() {
        fields.push(("namespace", Cel::string(&attributes.namespace)));
    }
    fields.push(("operation", Cel::string(attributes.operation.as_str())));
    fields.push(("userInfo", object(USER_INFO_TYPE, user_fields)));
    fields.push(("dryRun", Cel::Bool(attributes.dry_run)));
    if !attributes.options.is_null() {
        fields.push(("options", json(&attributes.options)));
    }
    object(REQUEST_TYPE, fields)
}
