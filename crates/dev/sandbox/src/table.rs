//! Server-side printing: `kubectl get` asks for a `meta.k8s.io/v1` Table and prints its
//! columns. Every kind gets Name and Age (and Namespace is added by kubectl for `-A`);
//! some built-in kinds get their columns from `builtin_columns`, custom resources their
//! CRD's `additionalPrinterColumns`.

use axum::http::{HeaderMap, header};
use serde_json::{Value, json};

use crate::resources::ResourceType;

/// Whether the client asked for a Table (kubectl sends `application/json;as=Table;...`).
pub fn wanted(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("as=Table"))
}

fn age(created: &str) -> String {
    let Ok(created) = chrono::DateTime::parse_from_rfc3339(created) else {
        return "<unknown>".to_owned();
    };
    let seconds = (chrono::Utc::now() - created.with_timezone(&chrono::Utc)).num_seconds().max(0);
    match seconds {
        s if s < 120 => format!("{s}s"),
        s if s < 600 => format!("{}m{}s", s / 60, s % 60),
        s if s < 3 * 3600 => format!("{}m", s / 60),
        s if s < 8 * 3600 => format!("{}h{}m", s / 3600, (s % 3600) / 60),
        s if s < 2 * 86400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86400),
    }
}

fn columns(resource: &ResourceType) -> Vec<Value> {
    let mut columns = vec![
        json!({"name": "Name", "type": "string", "format": "name", "description": "Name must be unique within a namespace.", "priority": 0}),
    ];
    for column in crate::builtin_columns::of(resource) {
        columns.push(json!({
            "name": column.name,
            "type": column.kind,
            "format": "",
            "description": column.description,
            "priority": 0,
        }));
    }
    for column in &resource.printer_columns {
        if column.get("name").and_then(Value::as_str) == Some("Age") {
            continue;
        }
        columns.push(json!({
            "name": column.get("name").cloned().unwrap_or(Value::Null),
            "type": column.get("type").cloned().unwrap_or(json!("string")),
            "format": column.get("format").cloned().unwrap_or(json!("")),
            "description": column.get("description").cloned().unwrap_or(json!("")),
            "priority": column.get("priority").cloned().unwrap_or(json!(0)),
        }));
    }
    columns.push(json!({"name": "Age", "type": "date", "format": "", "description": "Time since creation.", "priority": 0}));
    columns
}

fn row(resource: &ResourceType, object: &Value) -> Value {
    let text = |p: &str| object.pointer(p).and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut cells = vec![json!(text("/metadata/name"))];
    cells.extend(crate::builtin_columns::of(resource).iter().map(|column| (column.cell)(object)));
    for column in &resource.printer_columns {
        if column.get("name").and_then(Value::as_str) == Some("Age") {
            continue;
        }
        let path = column.get("jsonPath").and_then(Value::as_str).unwrap_or_default();
        let values = crate::jsonpath::evaluate(object, path);
        cells.push(match values.as_slice() {
            [] => Value::Null,
            [one] => (*one).clone(),
            many => json!(many.iter().map(|v| cell_text(v)).collect::<Vec<_>>().join(",")),
        });
    }
    cells.push(json!(age(&text("/metadata/creationTimestamp"))));
    let metadata = object.get("metadata").cloned().unwrap_or_else(|| json!({}));
    json!({
        "cells": cells,
        "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata},
    })
}

fn cell_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A Table of a list's items.
pub fn from_list(resource: &ResourceType, list: &Value) -> Value {
    let rows: Vec<Value> = list
        .get("items")
        .and_then(Value::as_array)
        .map(|items| items.iter().map(|item| row(resource, item)).collect())
        .unwrap_or_default();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": list.get("metadata").cloned().unwrap_or_else(|| json!({})),
        "columnDefinitions": columns(resource),
        "rows": rows,
    })
}

/// A Table of one object.
pub fn from_object(resource: &ResourceType, object: &Value) -> Value {
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": object.pointer("/metadata/resourceVersion").cloned().unwrap_or(Value::Null)},
        "columnDefinitions": columns(resource),
        "rows": [row(resource, object)],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::builtins;

    fn resource(plural: &str) -> ResourceType {
        builtins().into_iter().find(|r| r.group.is_empty() && r.plural == plural).unwrap()
    }

    fn names(table: &Value) -> Vec<&str> {
        table["columnDefinitions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect()
    }

    #[test]
    fn built_in_kinds_show_their_columns_between_name_and_age() {
        let ns = json!({"metadata": {"name": "payments"}, "status": {"phase": "Active"}});
        let table = from_object(&resource("namespaces"), &ns);
        assert_eq!(names(&table), ["Name", "Status", "Age"]);
        assert_eq!(
            table["rows"][0]["cells"].as_array().unwrap()[..2],
            [json!("payments"), json!("Active")]
        );
        let list = json!({"items": [{"metadata": {"name": "cm"}, "data": {"a": "1"}}]});
        let table = from_list(&resource("configmaps"), &list);
        assert_eq!(names(&table), ["Name", "Data", "Age"]);
        assert_eq!(table["rows"][0]["cells"].as_array().unwrap()[..2], [json!("cm"), json!(1)]);
        assert_eq!(names(&from_list(&resource("events"), &list)), ["Name", "Age"]);
    }
}
