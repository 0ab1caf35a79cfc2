//! Validation of custom resources against the structural `openAPIV3Schema` of their
//! CustomResourceDefinition version, as the Kubernetes API server applies it: pruning of
//! unknown fields, defaulting, types, required fields, enums and value bounds, reported as
//! Kubernetes field errors, and the CEL rules of `x-kubernetes-validations` (run on objects,
//! and checked with the CRD by [`crd_rule_errors`]). Used by the sandbox API server
//! (development and tests only).
//!
//! ```
//! use certgate_schema::{Schema, invalid_message};
//! use serde_json::json;
//!
//! let schema = Schema::compile(&json!({
//!     "type": "object",
//!     "properties": {"spec": {"type": "object", "required": ["replicas"],
//!         "properties": {"replicas": {"type": "integer"}}}}
//! }))?;
//! let mut object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
//!     "metadata": {"name": "w"}, "spec": {"replicas": "two", "colour": "red"}});
//! let errors = schema.validate(&mut object);
//! assert_eq!(object["spec"].get("colour"), None); // pruned
//! assert_eq!(
//!     invalid_message("Widget", "example.com", "w", &errors),
//!     r#"Widget.example.com "w" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string""#,
//! );
//! # Ok::<(), certgate_schema::SchemaError>(())
//! ```

#![forbid(unsafe_code)]

mod check;
mod compile;
mod crd_rules;
mod error;
mod format;
mod gofloat;
mod gore;
mod junctor;
mod listtype;
mod node;
mod normalize;
mod rule_types;
mod rules;
mod rules_eval;
mod status;

use serde_json::Value;

use certgate_api::field::{self, FieldError};

pub use crd_rules::{
    STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, crd_rule_errors,
};
pub use error::SchemaError;
pub use status::{StatusCause, causes, invalid_message};

/// Nesting deeper than this (counting every sub-schema, including `allOf`/`anyOf`/`oneOf`/
/// `not` branches) is refused at compile time, which also bounds every later walk.
pub const MAX_DEPTH: usize = 64;

/// A compiled structural schema of one CRD version.
#[derive(Clone, Debug)]
pub struct Schema {
    root: node::Node,
    /// Whether any node has `x-kubernetes-validations`.
    has_rules: bool,
}

impl Schema {
    /// Compiles a CRD version's `openAPIV3Schema`, refusing malformed and non-structural
    /// schemas (and patterns the `regex` crate cannot compile).
    pub fn compile(open_api_v3_schema: &Value) -> Result<Schema, SchemaError> {
        compile::root(open_api_v3_schema).map(|root| Schema { has_rules: any_rules(&root), root })
    }

    /// Prunes unknown fields, applies defaults and drops non-nullable nulls in `object`
    /// (as the API server does when decoding a custom resource), then validates it.
    /// Returns the field errors in the API server's order; empty when the object is valid.
    /// Root `apiVersion`, `kind` and `metadata` are neither pruned nor validated here.
    pub fn validate(&self, object: &mut Value) -> Vec<FieldError> {
        self.validate_update(object, None).errors
    }

    /// [`Schema::validate`] for a create (`old` is `None`) or an update from `old`, which
    /// also runs the transition rules (`oldSelf`), and reports the pruned fields.
    pub fn validate_update(&self, object: &mut Value, old: Option<&Value>) -> Outcome {
        let unknown_fields = normalize::root(&self.root, object);
        let mut errors = check::root(&self.root, object);
        errors.extend(listtype::root(&self.root, object));
        if self.has_rules {
            if errors.iter().any(blocks_rules) {
                // The API server does not run rules on values of the wrong type.
                errors.push(FieldError::invalid(
                    field::Path::new("<nil>"),
                    field::BadValue::Json(Value::Null),
                    "some validation rules were not checked because the object was invalid; \
                     correct the existing errors to complete validation",
                ));
            } else {
                errors.extend(rules_eval::root(&self.root, object, old));
            }
        }
        Outcome { errors, unknown_fields }
    }

    /// The paths of the fields of `object` the schema does not declare (which
    /// [`Schema::validate`] prunes), sorted, e.g. `spec.items[0].x`: what the API server
    /// refuses under `fieldValidation=Strict` and warns about under `Warn`.
    pub fn unknown_fields(&self, object: &Value) -> Vec<String> {
        let mut copy = object.clone();
        normalize::root(&self.root, &mut copy)
    }
}

/// What [`Schema::validate_update`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Field errors, schema keywords first, then `x-kubernetes-validations` rules.
    pub errors: Vec<FieldError>,
    /// The pruned fields, as [`Schema::unknown_fields`] reports them.
    pub unknown_fields: Vec<String>,
}

/// Errors after which kube-apiserver skips the CEL rules: wrong types and unsupported values.
fn blocks_rules(error: &FieldError) -> bool {
    error.kind == field::ErrorType::NotSupported
        || error.detail.contains(" in body must be of type ")
}

fn any_rules(node: &node::Node) -> bool {
    !node.rules.is_empty()
        || node.properties.values().any(any_rules)
        || node.items.as_deref().is_some_and(any_rules)
        || matches!(&node.additional, node::Additional::Schema(n) if any_rules(n))
}
