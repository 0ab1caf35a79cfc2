//! Minimal core `v1` `Service` and `discovery.k8s.io/v1` `EndpointSlice` views: exactly what
//! Contour's service lookup and its EndpointSlice translator read, so this crate needs no
//! `k8s-openapi`. Fields are parsed leniently (absent = Go zero value); anything else in the
//! objects is ignored, because these types are inputs only and never written back.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::ObjectMeta;
use crate::error::IngressError;

/// The label that ties an EndpointSlice to its Service.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// A Service: identity, type, ports and annotations (Contour reads its upstream-protocol
/// annotations from them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KubeService {
    pub namespace: String,
    pub name: String,
    /// `spec.type`; `ExternalName` Services are refused by Contour's default configuration.
    pub type_: String,
    pub external_name: String,
    pub ports: Vec<ServicePort>,
    pub annotations: BTreeMap<String, String>,
}

/// One `spec.ports` entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServicePort {
    pub name: String,
    pub port: i32,
    /// `targetPort` as written (a number or a port name); Contour does not read it: endpoints
    /// carry the resolved target port.
    pub target_port: Option<String>,
    /// `protocol`; empty means TCP.
    pub protocol: String,
    pub app_protocol: Option<String>,
}

/// An EndpointSlice reduced to the addresses, readiness and ports Contour uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointSlice {
    pub namespace: String,
    pub name: String,
    /// Value of the `kubernetes.io/service-name` label; empty when the label is absent.
    pub service_name: String,
    pub endpoints: Vec<Endpoint>,
    pub ports: Vec<EndpointPort>,
}

/// One endpoint of a slice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Endpoint {
    pub addresses: Vec<String>,
    /// `conditions.ready`; `None` (unknown) counts as ready, as in Contour.
    pub ready: Option<bool>,
}

/// One port of a slice; `None` fields are absent in the object.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointPort {
    pub name: Option<String>,
    pub port: Option<i32>,
    pub protocol: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawService {
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default)]
    spec: RawServiceSpec,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct RawServiceSpec {
    #[serde(rename = "type", default)]
    type_: Option<String>,
    #[serde(default)]
    external_name: Option<String>,
    #[serde(default)]
    ports: Option<Vec<RawServicePort>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServicePort {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    port: Option<i32>,
    #[serde(default)]
    target_port: Option<Value>,
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    app_protocol: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEndpointSlice {
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default)]
    endpoints: Option<Vec<RawEndpoint>>,
    #[serde(default)]
    ports: Option<Vec<RawEndpointPort>>,
}

#[derive(Deserialize)]
struct RawEndpoint {
    #[serde(default)]
    addresses: Option<Vec<String>>,
    #[serde(default)]
    conditions: Option<RawConditions>,
}

#[derive(Deserialize)]
struct RawConditions {
    #[serde(default)]
    ready: Option<bool>,
}

#[derive(Deserialize)]
struct RawEndpointPort {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    port: Option<i32>,
    #[serde(default)]
    protocol: Option<String>,
}

/// `metadata.labels` / `metadata.annotations` as strings (non-string values are skipped: the
/// API server would not store them).
fn string_map(meta: &ObjectMeta, key: &str) -> BTreeMap<String, String> {
    meta.extra
        .get(key)
        .and_then(Value::as_object)
        .map(|m| {
            m.iter().filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string()))).collect()
        })
        .unwrap_or_default()
}

impl KubeService {
    /// Reads a Service from a manifest value.
    pub fn from_value(value: &Value) -> Result<Self, IngressError> {
        let raw = RawService::deserialize(value).map_err(|err| IngressError::InvalidObject {
            kind: "Service",
            message: err.to_string(),
        })?;
        let ports = raw
            .spec
            .ports
            .unwrap_or_default()
            .into_iter()
            .map(|p| ServicePort {
                name: p.name.unwrap_or_default(),
                port: p.port.unwrap_or_default(),
                target_port: p.target_port.map(|t| match t {
                    Value::String(s) => s,
                    other => other.to_string(),
                }),
                protocol: p.protocol.unwrap_or_default(),
                app_protocol: p.app_protocol,
            })
            .collect();
        Ok(KubeService {
            namespace: raw.metadata.namespace().to_string(),
            name: raw.metadata.name().to_string(),
            type_: raw.spec.type_.unwrap_or_default(),
            external_name: raw.spec.external_name.unwrap_or_default(),
            ports,
            annotations: string_map(&raw.metadata, "annotations"),
        })
    }
}

impl EndpointSlice {
    /// Reads an EndpointSlice from a manifest value.
    pub fn from_value(value: &Value) -> Result<Self, IngressError> {
        let raw = RawEndpointSlice::deserialize(value).map_err(|err| {
            IngressError::InvalidObject { kind: "EndpointSlice", message: err.to_string() }
        })?;
        let labels = string_map(&raw.metadata, "labels");
        Ok(EndpointSlice {
            namespace: raw.metadata.namespace().to_string(),
            name: raw.metadata.name().to_string(),
            service_name: labels.get(SERVICE_NAME_LABEL).cloned().unwrap_or_default(),
            endpoints: raw
                .endpoints
                .unwrap_or_default()
                .into_iter()
                .map(|e| Endpoint {
                    addresses: e.addresses.unwrap_or_default(),
                    ready: e.conditions.and_then(|c| c.ready),
                })
                .collect(),
            ports: raw
                .ports
                .unwrap_or_default()
                .into_iter()
                .map(|p| EndpointPort { name: p.name, port: p.port, protocol: p.protocol })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_service_and_slice() {
        let svc = KubeService::from_value(&json!({
            "metadata": {"namespace": "ns", "name": "app", "annotations": {"a": "b"}},
            "spec": {"ports": [{"name": "http", "port": 80, "targetPort": "web"}, {"port": 81, "targetPort": 8081, "protocol": "UDP"}]}
        }))
        .unwrap();
        assert_eq!(svc.ports[0].target_port.as_deref(), Some("web"));
        assert_eq!(svc.ports[1].target_port.as_deref(), Some("8081"));
        assert_eq!(svc.ports[1].protocol, "UDP");
        assert_eq!(svc.annotations.get("a").map(String::as_str), Some("b"));
        let slice = EndpointSlice::from_value(&json!({
            "metadata": {"namespace": "ns", "name": "app-x", "labels": {SERVICE_NAME_LABEL: "app"}},
            "endpoints": [{"addresses": ["10.0.0.1"], "conditions": {"ready": false}}, {"addresses": ["10.0.0.2"]}],
            "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}]
        }))
        .unwrap();
        assert_eq!(slice.service_name, "app");
        assert_eq!(slice.endpoints[0].ready, Some(false));
        assert_eq!(slice.endpoints[1].ready, None);
        assert_eq!(slice.ports[0].port, Some(8080));
    }
}
