//! Ownership after a write that is not an apply.
//!
//! An update or a JSON, merge or strategic merge patch may remove fields that apply
//! managers own. The API server's field manager drops removed fields from every manager's
//! set, so nobody owns a field that does not exist; otherwise a later apply by another
//! manager would conflict on it. (Lease release is the common case: the holder clears
//! `holderIdentity` with a patch, and the next candidate applies it.)

use serde_json::Value;

use crate::fields::{self, FieldPath, FieldSet};
use crate::walk;

/// Drops from every `metadata.managedFields` entry the fields `object` no longer has, and
/// entries left owning nothing. Entries that lose nothing are kept byte for byte.
pub fn prune_managed_fields(object: &mut Value) {
    let Some(root) = object.as_object_mut() else { return };
    let Some(Value::Array(entries)) =
        root.get_mut("metadata").and_then(|m| m.get_mut("managedFields")).map(Value::take)
    else {
        return;
    };
    let snapshot = Value::Object(root.clone());
    let pruned: Vec<Value> =
        entries.into_iter().filter_map(|entry| prune_entry(&snapshot, entry)).collect();
    if let Some(Value::Object(metadata)) = root.get_mut("metadata") {
        metadata.insert("managedFields".to_owned(), Value::Array(pruned));
    }
}

fn prune_entry(object: &Value, mut entry: Value) -> Option<Value> {
    let Some(owned) = entry.get("fieldsV1").map(fields::from_fields_v1) else {
        return Some(entry);
    };
    // One walk for all paths: keyed list items are found through an index, not one by one.
    let paths: Vec<&FieldPath> = owned.iter().collect();
    let present = walk::values_at(object, &paths);
    let kept: FieldSet = owned
        .iter()
        .filter(|path| present.get(path).is_some_and(|value| !value.is_null()))
        .cloned()
        .collect();
    if kept.len() == owned.len() {
        return Some(entry);
    }
    if kept.is_empty() {
        return None;
    }
    if let Some(map) = entry.as_object_mut() {
        map.insert("fieldsV1".to_owned(), fields::to_fields_v1(&kept));
    }
    Some(entry)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn lease(spec: Value, managed: Value) -> Value {
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
               "metadata": {"name": "l", "managedFields": managed}, "spec": spec})
    }

    #[test]
    fn removed_fields_lose_their_owner_and_empty_entries_go() {
        let holder = json!({"manager": "a", "operation": "Apply",
            "fieldsV1": {"f:spec": {"f:holderIdentity": {}, "f:renewTime": {}}}});
        let other = json!({"manager": "b", "operation": "Apply",
            "fieldsV1": {"f:spec": {"f:leaseTransitions": {}}}});
        let mut object = lease(json!({"leaseTransitions": 1}), json!([holder, other.clone()]));
        prune_managed_fields(&mut object);
        assert_eq!(object["metadata"]["managedFields"], json!([other]));
    }

    #[test]
    fn partly_removed_entries_keep_the_rest_and_untouched_entries_stay_as_they_were() {
        // `k:` keys are kept verbatim in an entry that loses nothing.
        let untouched =
            json!({"manager": "c", "fieldsV1": {"f:spec": {"f:list": {"k:{\"name\":\"x\"}": {}}}}});
        let partial = json!({"manager": "a",
            "fieldsV1": {"f:spec": {"f:holderIdentity": {}, "f:renewTime": {}}}});
        let mut object = lease(
            json!({"renewTime": "t", "list": [{"name": "x"}]}),
            json!([partial, untouched.clone()]),
        );
        prune_managed_fields(&mut object);
        assert_eq!(
            object["metadata"]["managedFields"],
            json!([{"manager": "a", "fieldsV1": {"f:spec": {"f:renewTime": {}}}}, untouched])
        );
    }

    #[test]
    fn objects_without_managed_fields_are_left_alone() {
        let mut object = json!({"metadata": {"name": "x"}, "spec": {}});
        let before = object.clone();
        prune_managed_fields(&mut object);
        assert_eq!(object, before);
        let mut not_an_object = json!([1, 2]);
        prune_managed_fields(&mut not_an_object);
        assert_eq!(not_an_object, json!([1, 2]));
    }
}
