//! The printer columns kube-apiserver's Tables show for some built-in kinds between Name and
//! Age (`kubectl get namespaces` shows STATUS, `kubectl get configmaps` DATA): one column
//! per entry, with how its cell is computed from the object.

use serde_json::{Value, json};

use crate::resources::ResourceType;

/// One built-in column: its name, Table type, and cell.
pub(crate) struct Column {
    pub name: &'static str,
    pub kind: &'static str,
    pub description: &'static str,
    pub cell: fn(&Value) -> Value,
}

/// How many keys a map field holds (a missing one: none).
fn count(object: &Value, fields: &[&str]) -> usize {
    fields.iter().filter_map(|f| object.get(*f).and_then(Value::as_object)).map(|m| m.len()).sum()
}

fn text(object: &Value, pointer: &str) -> Value {
    json!(object.pointer(pointer).and_then(Value::as_str).unwrap_or_default())
}

const NAMESPACE: &[Column] = &[Column {
    name: "Status",
    kind: "string",
    description: "The namespace's lifecycle phase.",
    cell: |ns| text(ns, "/status/phase"),
}];

const CONFIG_MAP: &[Column] = &[Column {
    name: "Data",
    kind: "string",
    description: "How many data and binaryData entries the ConfigMap holds.",
    cell: |cm| json!(count(cm, &["data", "binaryData"])),
}];

const SECRET: &[Column] = &[
    Column {
        name: "Type",
        kind: "string",
        description: "The Secret's type.",
        cell: |secret| text(secret, "/type"),
    },
    Column {
        name: "Data",
        kind: "string",
        description: "How many data entries the Secret holds.",
        cell: |secret| json!(count(secret, &["data"])),
    },
];

const SERVICE_ACCOUNT: &[Column] = &[Column {
    name: "Secrets",
    kind: "string",
    description: "How many Secrets the ServiceAccount lists.",
    cell: |sa| json!(sa.get("secrets").and_then(Value::as_array).map_or(0, Vec::len)),
}];

/// The columns `resource` shows between Name and Age; none for most kinds.
pub(crate) fn of(resource: &ResourceType) -> &'static [Column] {
    if !resource.group.is_empty() || resource.is_custom() {
        return &[];
    }
    match resource.plural.as_str() {
        "namespaces" => NAMESPACE,
        "configmaps" => CONFIG_MAP,
        "secrets" => SECRET,
        "serviceaccounts" => SERVICE_ACCOUNT,
        _ => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::builtins;

    fn cells(plural: &str, object: &Value) -> Vec<Value> {
        let resource = builtins().into_iter().find(|r| r.group.is_empty() && r.plural == plural);
        of(&resource.unwrap()).iter().map(|column| (column.cell)(object)).collect()
    }

    #[test]
    fn cells_are_computed_from_the_object() {
        assert_eq!(cells("namespaces", &json!({"status": {"phase": "Active"}})), [json!("Active")]);
        let cm = json!({"data": {"a": "1", "b": "2"}, "binaryData": {"c": "AA=="}});
        assert_eq!(cells("configmaps", &cm), [json!(3)]);
        assert_eq!(cells("configmaps", &json!({})), [json!(0)]);
        let secret = json!({"type": "Opaque", "data": {"k": "dg=="}});
        assert_eq!(cells("secrets", &secret), [json!("Opaque"), json!(1)]);
        assert_eq!(cells("serviceaccounts", &json!({"secrets": [{"name": "x"}]})), [json!(1)]);
        assert!(cells("events", &json!({})).is_empty());
    }
}
