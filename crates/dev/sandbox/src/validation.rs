//! Custom resources validated against their CRD version's schema, with compiled schemas
//! cached per resource until the CRD changes.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use certgate_schema::Schema;
use serde_json::{Value, json};

use crate::resources::ResourceType;
use crate::status::ApiError;

/// (group, version, plural).
type ResourceId = (String, String, String);

/// Compiled schemas by (group, version, plural) and the schema text they came from
/// (`certgate-schema`: pruning, defaults, types, formats, bounds, patterns, enums, list
/// types, junctors, CEL rules; docs/schema.md).
#[derive(Default)]
pub struct Schemas {
    compiled: RwLock<HashMap<ResourceId, (Value, Arc<Schema>)>>,
}

impl Schemas {
    fn get(&self, resource: &ResourceType, text: &Value) -> Result<Arc<Schema>, ApiError> {
        let key = (resource.group.clone(), resource.version.clone(), resource.plural.clone());
        if let Some((cached_text, schema)) =
            self.compiled.read().unwrap_or_else(PoisonError::into_inner).get(&key)
            && cached_text == text
        {
            return Ok(Arc::clone(schema));
        }
        let schema = Arc::new(Schema::compile(text).map_err(|err| {
            ApiError::new(
                500,
                "InternalError",
                format!("the schema of {} cannot be used: {err}", resource.qualified_plural()),
            )
        })?);
        self.compiled
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, (text.clone(), Arc::clone(&schema)));
        Ok(schema)
    }

    /// Prunes, defaults and validates `object` (with the transition rules against `old`
    /// on updates); a 422 Invalid error in the API server's format when it breaks the
    /// schema or its `x-kubernetes-validations`.
    pub fn validate(
        &self,
        resource: &ResourceType,
        object: &mut Value,
        old: Option<&Value>,
    ) -> Result<(), ApiError> {
        let Some(text) = &resource.schema else { return Ok(()) };
        let schema = self.get(resource, text)?;
        let errors = schema.validate_update(object, old).errors;
        if errors.is_empty() {
            return Ok(());
        }
        let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        let message =
            certgate_schema::invalid_message(&resource.kind, &resource.group, name, &errors);
        Err(ApiError::new(422, "Invalid", message).with_details(json!({
            "name": name,
            "group": resource.group,
            "kind": resource.kind,
            "causes": certgate_schema::causes(&errors),
        })))
    }

    /// The fields of `object` its schema does not declare (`spec.items[0].x`), sorted.
    pub fn unknown_fields(
        &self,
        resource: &ResourceType,
        object: &Value,
    ) -> Result<Vec<String>, ApiError> {
        let Some(text) = &resource.schema else { return Ok(Vec::new()) };
        Ok(self.get(resource, text)?.unknown_fields(object))
    }
}
