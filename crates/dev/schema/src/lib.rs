//! Validation of custom resources against the structural `openAPIV3Schema` of their
//! CustomResourceDefinition version, as the Kubernetes API server applies it: pruning of
//! unknown fields, defaulting, types, required fields, enums and value bounds, reported as
//! Kubernetes field errors. Used by the sandbox API server (development and tests only).
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
mod error;
mod format;
mod gofloat;
mod gore;
mod junctor;
mod listtype;
mod node;
mod normalize;
mod status;

use serde_json::Value;

use certgate_api::field::FieldError;

pub use error::SchemaError;
pub use status::{StatusCause, causes, invalid_message};

/// Nesting deeper than this (counting every sub-schema, including `allOf`/`anyOf`/`oneOf`/
/// `not` branches) is refused at compile time, which also bounds every later walk.
pub const MAX_DEPTH: usize = 64;

/// A compiled structural schema of one CRD version.
#[derive(Clone, Debug)]
pub struct Schema {
    root: node::Node,
}

impl Schema {
    /// Compiles a CRD version's `openAPIV3Schema`, refusing malformed and non-structural
    /// schemas (and patterns the `regex` crate cannot compile).
    pub fn compile(open_api_v3_schema: &Value) -> Result<Schema, SchemaError> {
        compile::root(open_api_v3_schema).map(|root| Schema { root })
    }

    /// Prunes unknown fields, applies defaults and drops non-nullable nulls in `object`
    /// (as the API server does when decoding a custom resource), then validates it.
    /// Returns the field errors in the API server's order; empty when the object is valid.
    /// Root `apiVersion`, `kind` and `metadata` are neither pruned nor validated here.
    pub fn validate(&self, object: &mut Value) -> Vec<FieldError> {
        normalize::root(&self.root, object);
        let mut errors = check::root(&self.root, object);
        errors.extend(listtype::root(&self.root, object));
        errors
    }
}
