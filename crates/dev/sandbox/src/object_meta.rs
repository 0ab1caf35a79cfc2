//! `ValidateObjectMetaAccessor` / `ValidateObjectMetaAccessorUpdate`
//! (k8s.io/apimachinery/pkg/api/validation/objectmeta.go at v0.33.0): the metadata rules
//! every kind shares, with apimachinery's messages, run on every create and update. Before
//! this the sandbox stored invalid label keys and values, unbounded annotations, invalid
//! finalizers and owner references a real API server refuses with 422.

use certgate_api::field::{BadValue, FieldError, Path};
use serde_json::{Map, Value, json};

use crate::names;
use crate::resources::ResourceType;
use crate::status::ApiError;

/// `TotalAnnotationSizeLimitB`: keys and values of all annotations together.
pub const MAX_ANNOTATIONS_BYTES: usize = 256 * 1024;

/// Finalizers upstream refuses together (`metav1.FinalizerOrphanDependents`,
/// `metav1.FinalizerDeleteDependents`).
const ORPHAN: &str = "orphan";
const FOREGROUND: &str = "foregroundDeletion";

/// Validates the metadata of a new object (after its name was generated).
pub fn validate_create(resource: &ResourceType, object: &Value) -> Result<(), ApiError> {
    let metadata = metadata(object);
    let mut errors = Vec::new();
    let text = |field: &str| metadata.get(field).and_then(Value::as_str).unwrap_or_default();
    let generate_name = text("generateName");
    if !generate_name.is_empty() {
        for problem in name_problems(resource, generate_name, true) {
            errors.push(FieldError::invalid(
                Path::new("metadata").child("generateName"),
                BadValue::Str(generate_name.to_owned()),
                problem,
            ));
        }
    }
    let name = text("name");
    for problem in name_problems(resource, name, false) {
        errors.push(FieldError::invalid(
            Path::new("metadata").child("name"),
            BadValue::Str(name.to_owned()),
            problem,
        ));
    }
    common(metadata, &mut errors);
    result(resource, name, &errors)
}

/// Validates the metadata of an update (the name cannot change, so it is not checked).
pub fn validate_update(resource: &ResourceType, object: &Value) -> Result<(), ApiError> {
    let metadata = metadata(object);
    let mut errors = Vec::new();
    common(metadata, &mut errors);
    let name = metadata.get("name").and_then(Value::as_str).unwrap_or_default();
    result(resource, name, &errors)
}

fn metadata(object: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    object.get("metadata").and_then(Value::as_object).unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// The name rule of the kind, as the API server's strategies pick it: RBAC objects take
/// any path segment (`system:discovery`), namespaces an RFC 1123 label, the rest an RFC 1123
/// subdomain. A `generateName` prefix may end in '-'.
fn name_problems(resource: &ResourceType, name: &str, prefix: bool) -> Vec<String> {
    let name = if prefix { names::mask_trailing_dash(name) } else { name.to_owned() };
    if resource.group == "rbac.authorization.k8s.io" {
        names::path_segment(&name, prefix)
    } else if resource.group.is_empty() && resource.plural == "namespaces" {
        names::dns1123_label(&name)
    } else {
        names::dns1123_subdomain(&name)
    }
}

/// Labels, annotations, owner references and finalizers, in upstream's order.
fn common(metadata: &Map<String, Value>, errors: &mut Vec<FieldError>) {
    let labels_path = Path::new("metadata").child("labels");
    for (key, value) in strings(metadata.get("labels")) {
        for problem in names::qualified_name(key) {
            errors.push(FieldError::invalid(
                labels_path.clone(),
                BadValue::Str(key.to_owned()),
                problem,
            ));
        }
        for problem in names::label_value(value) {
            errors.push(FieldError::invalid(
                labels_path.clone(),
                BadValue::Str(value.to_owned()),
                problem,
            ));
        }
    }
    let annotations_path = Path::new("metadata").child("annotations");
    let mut annotations_size = 0usize;
    for (key, value) in strings(metadata.get("annotations")) {
        // Upstream: a qualified name, except that case does not matter.
        for problem in names::qualified_name(&key.to_ascii_lowercase()) {
            errors.push(FieldError::invalid(
                annotations_path.clone(),
                BadValue::Str(key.to_owned()),
                problem,
            ));
        }
        annotations_size = annotations_size.saturating_add(key.len()).saturating_add(value.len());
    }
    if annotations_size > MAX_ANNOTATIONS_BYTES {
        errors.push(FieldError {
            kind: certgate_api::field::ErrorType::TooLong,
            path: annotations_path,
            value: None,
            detail: format!("may not be more than {MAX_ANNOTATIONS_BYTES} bytes"),
        });
    }
    owner_references(metadata.get("ownerReferences"), errors);
    finalizers(metadata.get("finalizers"), errors);
}

/// Entries of a map of strings (other values were refused as undecodable before this).
fn strings(value: Option<&Value>) -> Vec<(&str, &str)> {
    value
        .and_then(Value::as_object)
        .map(|map| map.iter().map(|(k, v)| (k.as_str(), v.as_str().unwrap_or_default())).collect())
        .unwrap_or_default()
}

/// `validateOwnerReference`: apiVersion with a version, kind, name and uid all set.
fn owner_references(value: Option<&Value>, errors: &mut Vec<FieldError>) {
    let path = Path::new("metadata").child("ownerReferences");
    for reference in value.and_then(Value::as_array).into_iter().flatten() {
        let text = |field: &str| reference.get(field).and_then(Value::as_str).unwrap_or_default();
        let api_version = text("apiVersion");
        // `schema.ParseGroupVersion`: "v1", "group/version"; anything else has no version.
        let version = match api_version.split('/').collect::<Vec<_>>().as_slice() {
            [version] | [_, version] => *version,
            _ => "",
        };
        let checks = [
            ("apiVersion", version, "version must not be empty", api_version),
            ("kind", text("kind"), "kind must not be empty", text("kind")),
            ("name", text("name"), "name must not be empty", text("name")),
            ("uid", text("uid"), "uid must not be empty", text("uid")),
        ];
        for (field, checked, detail, shown) in checks {
            if checked.is_empty() {
                errors.push(FieldError::invalid(
                    path.child(field),
                    BadValue::Str(shown.to_owned()),
                    detail,
                ));
            }
        }
    }
}

/// `ValidateFinalizers`: qualified names, and not both orphan and foreground deletion.
fn finalizers(value: Option<&Value>, errors: &mut Vec<FieldError>) {
    let path = Path::new("metadata").child("finalizers");
    let list: Vec<&str> =
        value.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    for finalizer in &list {
        for problem in names::qualified_name(finalizer) {
            errors.push(FieldError::invalid(
                path.clone(),
                BadValue::Str((*finalizer).to_owned()),
                problem,
            ));
        }
    }
    if list.contains(&ORPHAN) && list.contains(&FOREGROUND) {
        let quoted: Vec<String> = list.iter().map(|f| certgate_gofmt::quote(f)).collect();
        errors.push(FieldError::invalid(
            path,
            BadValue::GoSyntax(format!("[]string{{{}}}", quoted.join(", "))),
            format!("finalizer {ORPHAN} and {FOREGROUND} cannot be both set"),
        ));
    }
}

/// 422 Invalid with every error, as `errors.NewInvalid` words and details it.
fn result(resource: &ResourceType, name: &str, errors: &[FieldError]) -> Result<(), ApiError> {
    let Some(aggregate) = certgate_api::field::aggregate(errors) else { return Ok(()) };
    let causes: Vec<Value> = errors
        .iter()
        .map(|e| json!({"reason": e.kind.cause(), "message": e.body(), "field": e.path.as_str()}))
        .collect();
    Err(ApiError::invalid(
        &resource.qualified_kind(),
        &resource.group,
        &resource.kind,
        name,
        &aggregate,
        Some(causes),
    ))
}
