//! Validation of a raw CertificateRequest or CertificateRequestPolicy against its CRD's
//! structural schema, as the API server applies it on create: non-nullable `null`s are
//! dropped, then types, required fields, enums and string formats are checked, giving the
//! API server's field errors. What the schema accepts decodes into the typed resources; what
//! it rejects is reported with upstream's messages instead of a serde error.
//!
//! The schema is certgate's generated CRD ([`crate::crd::all`]), which the `upstream_crds`
//! test keeps equal to upstream's for every keyword checked here. The sandbox API server has
//! a complete implementation of the same rules (`crates/dev/schema`, a development crate
//! product code cannot use); this one covers only the keywords these two CRDs use on the
//! fields a manifest carries: `type`, `required`, `enum`, `format` (`byte`, `date-time`).

mod check;

use std::sync::OnceLock;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps,
};
use serde_json::Value;

use crate::field::{FieldError, aggregate};
use crate::gofmt;

/// A resource certgate validates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resource {
    CertificateRequest,
    CertificateRequestPolicy,
}

impl Resource {
    /// `<plural>.<group>`, the CRD's name.
    fn crd_name(self) -> &'static str {
        match self {
            Resource::CertificateRequest => "certificaterequests.cert-manager.io",
            Resource::CertificateRequestPolicy => {
                "certificaterequestpolicies.policy.cert-manager.io"
            }
        }
    }

    /// `Kind.group`, as the API server qualifies the kind in a 422.
    pub fn qualified_kind(self) -> &'static str {
        match self {
            Resource::CertificateRequest => "CertificateRequest.cert-manager.io",
            Resource::CertificateRequestPolicy => "CertificateRequestPolicy.policy.cert-manager.io",
        }
    }
}

fn schema(resource: Resource) -> Option<&'static JSONSchemaProps> {
    static CRDS: OnceLock<Vec<CustomResourceDefinition>> = OnceLock::new();
    let crds = CRDS.get_or_init(crate::crd::all);
    crds.iter()
        .find(|crd| crd.metadata.name.as_deref() == Some(resource.crd_name()))?
        .spec
        .versions
        .first()?
        .schema
        .as_ref()?
        .open_api_v3_schema
        .as_ref()
}

/// Drops the non-nullable `null`s of `object` (as the API server does before validating),
/// validates it, and stores integral numbers of `integer` fields as integers (`2048.0` is
/// `2048`, as the API server stores it), so that what is valid decodes into the types.
/// Returns the field errors in the API server's order; empty when valid. The root
/// `apiVersion`, `kind` and `metadata` are the API server's own business and are left alone.
pub fn validate(resource: Resource, object: &mut Value) -> Vec<FieldError> {
    match schema(resource) {
        Some(schema) => validate_against(schema, object),
        // The generated CRDs always carry a schema; without one there is nothing to check.
        None => Vec::new(),
    }
}

/// [`validate`] against another CRD version's `openAPIV3Schema` (upstream's, in tests).
pub fn validate_against(schema: &JSONSchemaProps, object: &mut Value) -> Vec<FieldError> {
    drop_nulls(schema, object, true);
    let mut errors = Vec::new();
    check::value(schema, object, "", &mut errors);
    if errors.is_empty() {
        integers(schema, object);
    }
    errors
}

/// Rewrites integral floats where the schema says `integer` (validation accepted them).
fn integers(schema: &JSONSchemaProps, value: &mut Value) {
    match value {
        Value::Number(n) if schema.type_.as_deref() == Some("integer") && n.is_f64() => {
            // Validation accepted it, so it is integral and within ±2^53: the cast is exact.
            let i = n.as_f64().unwrap_or_default() as i64;
            *value = Value::from(i);
        }
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if let Some(child) = child(schema, key) {
                    integers(child, v);
                }
            }
        }
        Value::Array(list) => {
            if let Some(item) = check::items(schema) {
                list.iter_mut().for_each(|v| integers(item, v));
            }
        }
        _ => {}
    }
}

/// `<Kind>.<group> "<name>" is invalid: <errors>`, the message of the API server's 422.
pub fn invalid_message(resource: Resource, name: &str, errors: &[FieldError]) -> String {
    let name = gofmt::quote(name);
    match aggregate(errors) {
        Some(errors) => format!("{} {name} is invalid: {errors}", resource.qualified_kind()),
        None => format!("{} {name} is invalid", resource.qualified_kind()),
    }
}

/// Removes properties whose value is `null` where the schema does not allow null (none of
/// these CRDs does): the API server prunes them rather than rejecting them. Nulls inside
/// lists stay and fail the type check, as upstream. Recursion follows the schema, whose
/// depth is fixed, whatever the object's depth.
fn drop_nulls(schema: &JSONSchemaProps, value: &mut Value, root: bool) {
    match value {
        Value::Object(map) => {
            map.retain(|key, v| {
                (root && check::is_type_meta_or_metadata(key))
                    || !v.is_null()
                    || child(schema, key).is_some_and(|c| c.nullable == Some(true))
            });
            for (key, v) in map.iter_mut() {
                if root && check::is_type_meta_or_metadata(key) {
                    continue;
                }
                if let Some(child) = child(schema, key) {
                    drop_nulls(child, v, false);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = check::items(schema) {
                for v in items {
                    drop_nulls(item, v, false);
                }
            }
        }
        _ => {}
    }
}

/// The schema of `key` in an object: a declared property, or the map values' schema.
fn child<'s>(schema: &'s JSONSchemaProps, key: &str) -> Option<&'s JSONSchemaProps> {
    schema.properties.as_ref().and_then(|p| p.get(key)).or_else(|| check::additional(schema))
}

/// Gives a CertificateRequest without `spec` the empty one, which is what Go decodes it to
/// (every spec field at its zero value). Upstream's CRD accepts such a request, and
/// cert-manager's webhook, not a decoding error, reports the missing fields.
pub fn zero_spec(object: &mut Value) {
    if let Value::Object(map) = object
        && !map.contains_key("spec")
    {
        map.insert("spec".to_owned(), Value::Object(Default::default()));
    }
}

/// Removes `status` from a manifest: the API server drops it on create for resources with a
/// status subresource, so it is neither validated nor stored.
pub fn drop_status(object: &mut Value) {
    if let Value::Object(map) = object {
        let _: Option<Value> = map.remove("status");
    }
}

#[cfg(test)]
mod tests;
