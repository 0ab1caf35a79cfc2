//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses a different subset

use certgate_api::field::FieldError;
use certgate_schema::Schema;
use serde_json::Value;

pub const UPSTREAM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../../shared/upstream-crds");

/// Every CRD document of an upstream YAML file.
pub fn upstream_crds(file: &str) -> Vec<Value> {
    let path = format!("{UPSTREAM}/{file}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    let docs: Vec<Value> =
        serde_saphyr::from_multiple(&text).unwrap_or_else(|e| panic!("parse {path}: {e}"));
    docs.into_iter()
        .filter(|doc| doc.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition"))
        .collect()
}

/// Every upstream YAML file name.
pub fn upstream_files() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(UPSTREAM)
        .expect("upstream CRD directory")
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".yaml"))
        .collect();
    files.sort();
    files
}

/// `(kind/version, openAPIV3Schema)` of every version of a CRD.
pub fn version_schemas(crd: &Value) -> Vec<(String, Value)> {
    let kind = crd.pointer("/spec/names/kind").and_then(Value::as_str).unwrap_or_default();
    crd.pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|version| {
            let name = version.get("name")?.as_str()?;
            let schema = version.pointer("/schema/openAPIV3Schema")?.clone();
            Some((format!("{kind}/{name}"), schema))
        })
        .collect()
}

/// The compiled schema of `kind` (first served version) in an upstream file.
pub fn upstream_schema(file: &str, kind: &str) -> Schema {
    let crd = upstream_crds(file)
        .into_iter()
        .find(|crd| crd.pointer("/spec/names/kind").and_then(Value::as_str) == Some(kind))
        .unwrap_or_else(|| panic!("{kind} in {file}"));
    let (_, schema) = version_schemas(&crd).into_iter().next().expect("a version with a schema");
    Schema::compile(&schema).unwrap_or_else(|e| panic!("{kind}: {e}"))
}

/// Rendered error texts, for exact comparisons.
pub fn texts(errors: &[FieldError]) -> Vec<String> {
    errors.iter().map(ToString::to_string).collect()
}

/// Compiles `schema` and validates `object`, returning the error texts and the normalized
/// object.
pub fn run(schema: Value, mut object: Value) -> (Vec<String>, Value) {
    let schema = Schema::compile(&schema).unwrap_or_else(|e| panic!("compile: {e}"));
    let errors = schema.validate(&mut object);
    (texts(&errors), object)
}
