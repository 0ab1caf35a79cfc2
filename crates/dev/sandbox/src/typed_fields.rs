//! The typed fields a real API server cannot even decode when they have the wrong JSON type:
//! `metadata.labels`/`annotations` (maps of strings), `metadata.finalizers` (strings), and
//! the data maps of ConfigMaps and Secrets. kube-apiserver answers those with 400 and the
//! decoder's text wrapped by `transformDecodeError`
//! (k8s.io/apiserver/pkg/endpoints/handlers/rest.go): `<Kind> in version "<v>" cannot be
//! handled as a <Kind>: json: cannot unmarshal <json type> into Go struct field
//! <Struct>.<path> of type <Go type>`. Without this check the sandbox stored such objects,
//! and every typed client then failed to read them back.

use base64::Engine as _;
use serde_json::{Map, Value};

use crate::resources::ResourceType;
use crate::status::ApiError;

/// What a field decodes into in Go.
#[derive(Clone, Copy)]
enum GoType {
    /// `map[string]string`
    StringMap,
    /// `map[string][]byte`: values are base64 strings.
    BytesMap,
    /// `[]string`
    Strings,
}

/// Checks the typed fields of `object`; a 400 in the API server's words when one has the
/// wrong JSON type.
pub fn check(object: &Value, resource: &ResourceType) -> Result<(), ApiError> {
    let mut fields: Vec<(&str, &str, &str, GoType)> = vec![
        ("/metadata/labels", "ObjectMeta", "metadata.labels", GoType::StringMap),
        ("/metadata/annotations", "ObjectMeta", "metadata.annotations", GoType::StringMap),
        ("/metadata/finalizers", "ObjectMeta", "metadata.finalizers", GoType::Strings),
    ];
    if resource.group.is_empty() && resource.plural == "configmaps" {
        fields.push(("/data", "ConfigMap", "data", GoType::StringMap));
        fields.push(("/binaryData", "ConfigMap", "binaryData", GoType::BytesMap));
    }
    if resource.group.is_empty() && resource.plural == "secrets" {
        fields.push(("/data", "Secret", "data", GoType::BytesMap));
        fields.push(("/stringData", "Secret", "stringData", GoType::StringMap));
    }
    for (pointer, go_struct, path, go_type) in fields {
        if let Some(value) = object.pointer(pointer)
            && let Err(problem) = decode(value, go_type)
        {
            let detail = match problem {
                Problem::Type { found, expected } => format!(
                    "json: cannot unmarshal {found} into Go struct field {go_struct}.{path} of type {expected}"
                ),
                Problem::Base64(detail) => detail,
            };
            let (kind, version) = (&resource.kind, &resource.version);
            return Err(ApiError::bad_request(format!(
                "{kind} in version \"{version}\" cannot be handled as a {kind}: {detail}"
            )));
        }
    }
    Ok(())
}

enum Problem {
    Type { found: &'static str, expected: &'static str },
    Base64(String),
}

fn decode(value: &Value, go_type: GoType) -> Result<(), Problem> {
    let container = match go_type {
        GoType::StringMap => "map[string]string",
        GoType::BytesMap => "map[string][]uint8",
        GoType::Strings => "[]string",
    };
    match (value, go_type) {
        // JSON null decodes into a nil map or slice.
        (Value::Null, _) => Ok(()),
        (Value::Object(map), GoType::StringMap) => strings(map.values(), "string"),
        (Value::Object(map), GoType::BytesMap) => bytes(map),
        (Value::Array(items), GoType::Strings) => strings(items.iter(), "string"),
        (other, _) => {
            Err(Problem::Type { found: certgate_gofmt::unmarshal_kind(other), expected: container })
        }
    }
}

fn strings<'a>(
    mut values: impl Iterator<Item = &'a Value>,
    expected: &'static str,
) -> Result<(), Problem> {
    match values.find(|v| !matches!(v, Value::String(_) | Value::Null)) {
        Some(other) => {
            Err(Problem::Type { found: certgate_gofmt::unmarshal_kind(other), expected })
        }
        None => Ok(()),
    }
}

/// `[]byte` values are standard base64 strings; Go's decoder reports the first bad byte.
fn bytes(map: &Map<String, Value>) -> Result<(), Problem> {
    strings(map.values(), "[]uint8")?;
    for text in map.values().filter_map(Value::as_str) {
        if let Err(err) = base64::engine::general_purpose::STANDARD.decode(text) {
            let at = match err {
                base64::DecodeError::InvalidByte(at, _)
                | base64::DecodeError::InvalidLastSymbol(at, _) => at,
                base64::DecodeError::InvalidLength(len) => len - len % 4,
                base64::DecodeError::InvalidPadding => text.len().saturating_sub(1),
            };
            return Err(Problem::Base64(format!("illegal base64 data at input byte {at}")));
        }
    }
    Ok(())
}
