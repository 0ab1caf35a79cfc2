//! Stamping an object's `metadata.resourceVersion`: the only field the store writes.

use serde_json::{Map, Value};

use crate::api::{Key, StoreError};

/// Sets `metadata.resourceVersion` to the decimal `revision`, creating `metadata` when
/// absent, so that every object the store hands out names the write it came from.
pub(crate) fn stamp(key: &Key, object: &mut Value, revision: u64) -> Result<(), StoreError> {
    let invalid = |reason| StoreError::InvalidObject { key: Box::new(key.clone()), reason };
    let Value::Object(fields) = object else {
        return Err(invalid("the value is not a JSON object"));
    };
    let metadata = fields.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(metadata) = metadata else {
        return Err(invalid("`metadata` is not a JSON object"));
    };
    metadata.insert("resourceVersion".to_owned(), Value::String(revision.to_string()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn key() -> Key {
        Key {
            group: String::new(),
            resource: "configmaps".to_owned(),
            namespace: "default".to_owned(),
            name: "a".to_owned(),
        }
    }

    #[test]
    fn creates_metadata_and_keeps_other_fields() {
        let mut object = json!({"data": {"x": "1"}});
        stamp(&key(), &mut object, 7).unwrap();
        assert_eq!(object, json!({"data": {"x": "1"}, "metadata": {"resourceVersion": "7"}}));
    }

    #[test]
    fn overwrites_a_stale_resource_version() {
        let mut object = json!({"metadata": {"name": "a", "resourceVersion": "3"}});
        stamp(&key(), &mut object, 12).unwrap();
        assert_eq!(object, json!({"metadata": {"name": "a", "resourceVersion": "12"}}));
    }

    #[test]
    fn rejects_values_it_cannot_stamp() {
        for (mut value, reason) in [
            (json!([1, 2]), "the value is not a JSON object"),
            (json!({"metadata": "x"}), "`metadata` is not a JSON object"),
        ] {
            let error = stamp(&key(), &mut value, 1).unwrap_err();
            assert!(
                matches!(error, StoreError::InvalidObject { reason: r, .. } if r == reason),
                "{error}"
            );
        }
    }
}
