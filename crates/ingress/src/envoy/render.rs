//! Rendering a context as the `typed_config` Envoy reads: a `google.protobuf.Any` in proto3
//! JSON (`@type` first, then the message fields), or the same document as YAML.

use prost::Name as _;
use serde_json::{Map, Value};

use super::proto_json::to_object;
use super::types::DownstreamTlsContext;
use crate::error::IngressError;

/// Proto3 JSON of the context wrapped in `Any`. Fails only if the context has a field set that
/// the writer does not render (`translate` sets none).
pub fn to_json(context: &DownstreamTlsContext) -> Result<Value, IngressError> {
    let fields = to_object(context.clone()).map_err(|err| IngressError::Render(err.to_string()))?;
    let mut object = Map::new();
    object.insert("@type".to_string(), Value::String(DownstreamTlsContext::type_url()));
    object.extend(fields);
    Ok(Value::Object(object))
}

/// YAML of [`to_json`], as accepted in an Envoy bootstrap or static resource file.
pub fn to_yaml(context: &DownstreamTlsContext) -> Result<String, IngressError> {
    serde_saphyr::to_string(&to_json(context)?).map_err(|err| IngressError::Render(err.to_string()))
}
