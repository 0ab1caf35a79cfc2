//! The watched Kubernetes objects, turned into `certgate-ingress`'s input types.
//!
//! Each conversion is a plain function over one object, so the decision stays a function of
//! the stores' contents. An object that does not convert (a field of the wrong JSON type,
//! no name) is left out of the decision and logged by kind, namespace and name only: Contour's
//! informers would not have decoded it either. Secret contents are never logged.

use std::collections::BTreeMap;

use certgate_ingress::NamespacedName;
use certgate_ingress::secrets::{CA_CERTIFICATE_KEY, CRL_KEY, TLS_CERT_KEY, TLS_PRIVATE_KEY_KEY};
use certgate_ingress::types::{EndpointSlice, HttpProxy, KubeService, TlsCertificateDelegation};
use k8s_openapi::api::core::v1::{Secret as KubeSecret, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice as KubeEndpointSlice;
use kube::api::{ApiResource, DynamicObject};

/// The `projectcontour.io/v1` kinds, as the watches and the status writes address them.
pub fn httpproxy_resource() -> ApiResource {
    contour_resource("HTTPProxy", "httpproxies")
}

pub fn delegation_resource() -> ApiResource {
    contour_resource("TLSCertificateDelegation", "tlscertificatedelegations")
}

fn contour_resource(kind: &str, plural: &str) -> ApiResource {
    ApiResource {
        group: "projectcontour.io".to_owned(),
        version: "v1".to_owned(),
        api_version: "projectcontour.io/v1".to_owned(),
        kind: kind.to_owned(),
        plural: plural.to_owned(),
    }
}

/// The Secret keys Contour reads; other keys are not copied into the decision's input.
const SECRET_KEYS: [&str; 4] = [TLS_CERT_KEY, TLS_PRIVATE_KEY_KEY, CA_CERTIFICATE_KEY, CRL_KEY];

/// Why one watched object is left out.
#[derive(Debug, thiserror::Error)]
#[error("{kind} {namespace}/{name} cannot be read: {message}")]
pub struct ObjectError {
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    pub message: String,
}

fn meta_names(meta: &kube::api::ObjectMeta) -> (String, String) {
    (meta.namespace.clone().unwrap_or_default(), meta.name.clone().unwrap_or_default())
}

fn via_json<T>(
    kind: &'static str,
    meta: &kube::api::ObjectMeta,
    object: &impl serde::Serialize,
    parse: impl FnOnce(&serde_json::Value) -> Result<T, certgate_ingress::IngressError>,
) -> Result<T, ObjectError> {
    let (namespace, name) = meta_names(meta);
    let fail = |message: String| ObjectError {
        kind,
        namespace: namespace.clone(),
        name: name.clone(),
        message,
    };
    let value = serde_json::to_value(object).map_err(|e| fail(e.to_string()))?;
    parse(&value).map_err(|e| fail(e.to_string()))
}

pub fn proxy(object: &DynamicObject) -> Result<HttpProxy, ObjectError> {
    via_json("HTTPProxy", &object.metadata, object, HttpProxy::from_value)
}

pub fn delegation(object: &DynamicObject) -> Result<TlsCertificateDelegation, ObjectError> {
    via_json(
        "TLSCertificateDelegation",
        &object.metadata,
        object,
        TlsCertificateDelegation::from_value,
    )
}

pub fn service(object: &Service) -> Result<KubeService, ObjectError> {
    via_json("Service", &object.metadata, object, KubeService::from_value)
}

pub fn endpoint_slice(object: &KubeEndpointSlice) -> Result<EndpointSlice, ObjectError> {
    via_json("EndpointSlice", &object.metadata, object, EndpointSlice::from_value)
}

/// A Secret with only the keys Contour reads (copied, never re-encoded). Watched Secrets
/// never carry `stringData`: the API server merges it into `data` on write.
pub fn secret(object: &KubeSecret) -> (NamespacedName, certgate_ingress::Secret) {
    let (namespace, name) = meta_names(&object.metadata);
    let type_ = match object.type_.as_deref() {
        Some(t) if !t.is_empty() => t,
        _ => "Opaque",
    };
    let mut secret = certgate_ingress::Secret::new(&namespace, &name, type_);
    let data = object.data.as_ref();
    secret.data = SECRET_KEYS
        .iter()
        .filter_map(|key| data?.get(*key).map(|value| ((*key).to_owned(), value.0.clone())))
        .collect::<BTreeMap<_, _>>();
    (NamespacedName { namespace, name }, secret)
}

#[cfg(test)]
mod tests {
    use k8s_openapi::ByteString;

    use super::*;

    #[test]
    fn a_secret_keeps_only_the_keys_contour_reads() {
        let mut object = KubeSecret::default();
        object.metadata.namespace = Some("ns".into());
        object.metadata.name = Some("crl".into());
        object.data = Some(
            [("crl.pem", b"x".to_vec()), ("other", b"y".to_vec())]
                .into_iter()
                .map(|(k, v)| (k.to_owned(), ByteString(v)))
                .collect(),
        );
        let (key, secret) = secret(&object);
        assert_eq!((key.namespace.as_str(), key.name.as_str()), ("ns", "crl"));
        assert_eq!(secret.type_, "Opaque");
        assert_eq!(secret.data.keys().collect::<Vec<_>>(), ["crl.pem"]);
    }

    #[test]
    fn a_proxy_is_read_from_its_dynamic_object() {
        let object: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "projectcontour.io/v1", "kind": "HTTPProxy",
            "metadata": {"namespace": "ns", "name": "p", "generation": 3},
            "spec": {"virtualhost": {"fqdn": "a.example.com"}},
        }))
        .unwrap();
        let proxy = proxy(&object).unwrap();
        assert_eq!(proxy.name(), "p");
        assert_eq!(proxy.metadata.generation, Some(3));

        let broken: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "projectcontour.io/v1", "kind": "HTTPProxy",
            "metadata": {"namespace": "ns", "name": "q"},
            "spec": {"virtualhost": {"fqdn": 7}},
        }))
        .unwrap();
        let error = super::proxy(&broken).unwrap_err();
        assert!(error.to_string().starts_with("HTTPProxy ns/q cannot be read: "), "{error}");
    }
}
