//! How server-side apply treats each list: atomic, a set, or a map keyed by some fields.
//!
//! kube-apiserver reads this from the schema: `x-kubernetes-list-type` and
//! `x-kubernetes-list-map-keys` in a CRD's `openAPIV3Schema`, and for built-in kinds the
//! list markers of the Go types, which match their strategic merge tags (a `merge` list
//! with a merge key is a map list, a `merge` list of primitives is a set). `metadata` is
//! `ObjectMeta` in every kind, CRDs included.

use serde_json::Value;

use crate::strategy::{ListStrategy, MergeStrategy, metadata_list};

/// `x-kubernetes-list-type` (with the map keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ListType {
    /// The whole list is one value, owned and replaced as one.
    Atomic,
    /// Items are scalars, each owned by value.
    Set,
    /// Items are objects, each owned by the values of these fields (in declared order).
    Map(Vec<String>),
}

/// Where list types come from for one object.
#[derive(Clone, Copy)]
pub(crate) enum Lists<'a> {
    /// No schema: every list is atomic (outside `metadata`).
    None,
    /// A built-in kind's strategic merge table.
    Builtin(&'a dyn MergeStrategy),
    /// A CRD version's `openAPIV3Schema`.
    Crd(&'a Value),
}

impl Lists<'_> {
    /// The type of the list at `path` (field names from the root; list items add no step).
    pub(crate) fn list_type(&self, path: &[&str]) -> ListType {
        if path.first() == Some(&"metadata") {
            return from_strategy(metadata_list(path));
        }
        match self {
            Lists::None => ListType::Atomic,
            Lists::Builtin(strategy) => from_strategy(strategy.list(path)),
            Lists::Crd(schema) => crd_list_type(schema, path),
        }
    }
}

fn from_strategy(strategy: ListStrategy) -> ListType {
    match strategy {
        ListStrategy::Replace => ListType::Atomic,
        ListStrategy::MergeByKey(key) => ListType::Map(vec![key.into_owned()]),
        ListStrategy::MergePrimitives => ListType::Set,
    }
}

/// Follows `path` through `properties`/`additionalProperties`, stepping into `items`
/// whenever it passes an array. Structural schemas keep list types out of `allOf` and
/// friends, so those need no walking. Anything unexpected is atomic, as upstream treats
/// lists without a list type in a CRD.
fn crd_list_type(schema: &Value, path: &[&str]) -> ListType {
    let mut node = schema;
    for name in path {
        if node.get("type").and_then(Value::as_str) == Some("array") {
            let Some(items) = node.get("items") else { return ListType::Atomic };
            node = items;
        }
        let next = node
            .get("properties")
            .and_then(|p| p.get(*name))
            .or_else(|| node.get("additionalProperties").filter(|a| a.is_object()));
        let Some(next) = next else { return ListType::Atomic };
        node = next;
    }
    match node.get("x-kubernetes-list-type").and_then(Value::as_str) {
        Some("set") => ListType::Set,
        Some("map") => {
            let keys: Vec<String> = node
                .get("x-kubernetes-list-map-keys")
                .and_then(Value::as_array)
                .map(|keys| keys.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default();
            if keys.is_empty() { ListType::Atomic } else { ListType::Map(keys) }
        }
        _ => ListType::Atomic,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn crd_schemas_give_map_set_and_atomic_lists_nested_or_not() {
        let schema = json!({"type": "object", "properties": {
            "status": {"type": "object", "properties": {"conditions": {
                "type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["type"],
                "items": {"type": "object", "properties": {"tags": {
                    "type": "array", "x-kubernetes-list-type": "set",
                    "items": {"type": "string"}}}}}}},
            "spec": {"type": "object", "properties": {"plain": {"type": "array"}}}}});
        let lists = Lists::Crd(&schema);
        assert_eq!(lists.list_type(&["status", "conditions"]), ListType::Map(vec!["type".into()]));
        assert_eq!(lists.list_type(&["status", "conditions", "tags"]), ListType::Set);
        assert_eq!(lists.list_type(&["spec", "plain"]), ListType::Atomic);
        assert_eq!(lists.list_type(&["spec", "missing"]), ListType::Atomic);
        assert_eq!(lists.list_type(&["metadata", "finalizers"]), ListType::Set);
        assert_eq!(Lists::None.list_type(&["status", "conditions"]), ListType::Atomic);
    }
}
