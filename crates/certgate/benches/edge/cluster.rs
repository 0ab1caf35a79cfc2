//! The API server side: an in-process sandbox with the Contour CRDs (and, as the live tests
//! do, a schema-less CRD standing in for `discovery.k8s.io/v1` EndpointSlices, which the
//! sandbox does not serve), the objects of HTTPProxies with client validation as JSON, and a
//! watch of their statuses.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use futures_util::StreamExt as _;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::ApiResource;
use kube::runtime::watcher;
use serde_json::{Value, json};

use super::processes::lock;

pub const BACKEND_BODY: &str = "hello from the edge benchmark backend";

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub async fn client(kubeconfig: &str) -> kube::Client {
    let kubeconfig = Kubeconfig::from_yaml(kubeconfig).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk(group, version, kind),
        plural,
    )
}

/// The API resource of an object of this benchmark, from its `apiVersion` and `kind`.
fn resource_of(object: &Value) -> ApiResource {
    let kind = object["kind"].as_str().unwrap();
    let (group, version, plural) = match kind {
        "Namespace" => ("", "v1", "namespaces"),
        "Secret" => ("", "v1", "secrets"),
        "Service" => ("", "v1", "services"),
        "EndpointSlice" => ("discovery.k8s.io", "v1", "endpointslices"),
        "HTTPProxy" => ("projectcontour.io", "v1", "httpproxies"),
        "CustomResourceDefinition" => ("apiextensions.k8s.io", "v1", "customresourcedefinitions"),
        other => panic!("no resource for kind {other}"),
    };
    resource(group, version, kind, plural)
}

pub fn httpproxy_resource() -> ApiResource {
    resource("projectcontour.io", "v1", "HTTPProxy", "httpproxies")
}

fn api_for(client: &kube::Client, object: &Value) -> Api<DynamicObject> {
    let resource = resource_of(object);
    match object["metadata"]["namespace"].as_str() {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
        None => Api::all_with(client.clone(), &resource),
    }
}

pub async fn create(client: &kube::Client, object: &Value) -> Result<(), kube::Error> {
    let dynamic: DynamicObject = serde_json::from_value(object.clone()).unwrap();
    api_for(client, object).create(&PostParams::default(), &dynamic).await.map(|_| ())
}

/// Creates `objects` in order of kind (namespaces first), 32 at a time within a kind.
pub async fn create_all(client: &kube::Client, objects: &[Value]) {
    for kind in ["Namespace", "Secret", "Service", "EndpointSlice", "HTTPProxy"] {
        futures_util::stream::iter(objects.iter().filter(|o| o["kind"] == kind))
            .map(|object| async move {
                create(client, object).await.unwrap_or_else(|e| {
                    panic!("cannot create {} {}: {e}", kind, object["metadata"]["name"])
                });
            })
            .buffer_unordered(32)
            .for_each(|()| async {})
            .await;
    }
}

const ENDPOINT_SLICE_CRD: &str = r#"{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "endpointslices.discovery.k8s.io"},
  "spec": {"group": "discovery.k8s.io", "scope": "Namespaced",
    "names": {"plural": "endpointslices", "singular": "endpointslice", "kind": "EndpointSlice",
              "listKind": "EndpointSliceList"},
    "versions": [{"name": "v1", "served": true, "storage": true,
      "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
}"#;

/// Installs the Contour CRDs (`shared/upstream-crds`) and the EndpointSlice stand-in, and
/// waits until HTTPProxies and EndpointSlices are served.
pub async fn install_crds(client: &kube::Client) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/upstream-crds/projectcontour.io_crds.yaml"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut crds: Vec<Value> = serde_saphyr::from_multiple::<Value>(&text)
        .unwrap()
        .into_iter()
        .filter(|d| d["kind"] == "CustomResourceDefinition")
        .collect();
    crds.push(serde_json::from_str(ENDPOINT_SLICE_CRD).unwrap());
    for crd in &crds {
        create(client, crd).await.unwrap();
    }
    let started = Instant::now();
    for resource in [httpproxy_resource(), resource_of(&json!({"kind": "EndpointSlice"}))] {
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
        while api.list(&Default::default()).await.is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "CRD {} not served",
                resource.plural
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

pub fn namespace(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
}

pub fn secret(namespace: &str, name: &str, type_: &str, data: &[(&str, &str)]) -> Value {
    let data: serde_json::Map<String, Value> =
        data.iter().map(|(k, v)| ((*k).to_owned(), Value::String(b64(v.as_bytes())))).collect();
    json!({"apiVersion": "v1", "kind": "Secret", "type": type_,
           "metadata": {"namespace": namespace, "name": name}, "data": data})
}

pub fn service(namespace: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": namespace, "name": "app"},
           "spec": {"ports": [{"port": 80, "protocol": "TCP"}]}})
}

/// The Service's endpoints: the loopback backend.
pub fn endpoint_slice(namespace: &str, backend_port: u16) -> Value {
    json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
           "metadata": {"namespace": namespace, "name": "app-1",
                        "labels": {"kubernetes.io/service-name": "app"}},
           "addressType": "IPv4",
           "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": true}}],
           "ports": [{"port": backend_port, "protocol": "TCP"}]})
}

/// A root HTTPProxy for `fqdn` serving `serving`, validating clients with the CA Secret `ca`
/// and the CRL Secret `crl`, routing `/` to the Service `app`.
pub fn httpproxy(
    namespace: &str,
    name: &str,
    fqdn: &str,
    serving: &str,
    ca: &str,
    crl: &str,
) -> Value {
    json!({"apiVersion": "projectcontour.io/v1", "kind": "HTTPProxy",
           "metadata": {"namespace": namespace, "name": name},
           "spec": {"virtualhost": {"fqdn": fqdn, "tls": {"secretName": serving,
                        "clientValidation": {"caSecret": ca, "crlSecret": crl}}},
                    "routes": [{"services": [{"name": "app", "port": 80}]}]}})
}

/// Replaces `crl.pem` of the Secret `namespace/name` (a merge patch of its data).
pub async fn set_crl(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    crl_pem: &str,
) -> Result<(), kube::Error> {
    let api: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), namespace, &resource("", "v1", "Secret", "secrets"));
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"crl.pem": b64(crl_pem.as_bytes())}})),
    )
    .await
    .map(|_| ())
}

/// When HTTPProxies turned `valid`, as a watch of this process sees their statuses.
#[derive(Default)]
pub struct Statuses {
    current: HashMap<(String, String), String>,
    /// The n-th entry: when the n-th proxy was first seen `valid`.
    pub valid_at: Vec<Instant>,
}

/// Watches every HTTPProxy's `status.currentStatus`.
pub async fn watch_statuses(
    client: kube::Client,
) -> (Arc<Mutex<Statuses>>, tokio::task::AbortHandle) {
    let statuses = Arc::new(Mutex::new(Statuses::default()));
    let api: Api<DynamicObject> = Api::all_with(client, &httpproxy_resource());
    let (ready, listed) = tokio::sync::oneshot::channel();
    let state = statuses.clone();
    let task = tokio::spawn(async move {
        let mut ready = Some(ready);
        let mut stream = watcher(api, watcher::Config::default()).boxed();
        while let Some(event) = stream.next().await {
            match event {
                Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object)) => {
                    let now = Instant::now();
                    let key = (
                        object.metadata.namespace.clone().unwrap_or_default(),
                        object.metadata.name.clone().unwrap_or_default(),
                    );
                    let status = object
                        .data
                        .pointer("/status/currentStatus")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned();
                    let mut statuses = lock(&state);
                    let was_valid = statuses.current.get(&key).is_some_and(|s| s == "valid");
                    if status == "valid" && !was_valid {
                        statuses.valid_at.push(now);
                    }
                    statuses.current.insert(key, status);
                }
                Ok(watcher::Event::InitDone) => {
                    if let Some(ready) = ready.take() {
                        let _ = ready.send(());
                    }
                }
                Ok(_) => {}
                Err(error) => eprintln!("HTTPProxy watch: {error}"),
            }
        }
    });
    listed.await.unwrap();
    (statuses, task.abort_handle())
}

impl Statuses {
    /// How many proxies are `valid` now.
    pub fn valid(&self) -> usize {
        self.current.values().filter(|s| *s == "valid").count()
    }
}
