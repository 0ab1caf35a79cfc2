//! The watched objects: one kube-rs watcher per kind feeding a reflector store, every change
//! reported to [`Changes`] once the store has its first list. Like Contour, the controller
//! watches every Secret of the cluster: a Secret an HTTPProxy names can be in any namespace
//! (delegation) and no label or field selector picks exactly the referenced ones, so the
//! stores hold every Secret's data in memory (the cost is the size of the cluster's
//! Secrets, as for Contour).
//!
//! The Envoy Service, whose `status.loadBalancer` goes into the HTTPProxy statuses, is read
//! from the Service store, which holds every Service whole (status included): Contour too
//! reads it from its one Service informer, and a watch of its own would only repeat it.

use std::fmt::Debug;
use std::hash::Hash;

use futures_util::StreamExt as _;
use k8s_openapi::api::core::v1::{Secret as KubeSecret, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice as KubeEndpointSlice;
use kube::Resource;
use kube::api::{Api, DynamicObject};
use kube::runtime::WatchStreamExt as _;
use kube::runtime::reflector::ObjectRef;
use kube::runtime::reflector::store::{Store, Writer};
use kube::runtime::watcher;
use serde::de::DeserializeOwned;
use tokio::task::JoinHandle;

use super::debounce::Changes;
use super::decide::Inputs;
use super::objects::{self, ObjectError};
use super::status::LoadBalancer;

/// Readers of every store.
#[derive(Clone)]
pub struct Stores {
    proxies: Store<DynamicObject>,
    delegations: Store<DynamicObject>,
    secrets: Store<KubeSecret>,
    services: Store<Service>,
    slices: Store<KubeEndpointSlice>,
}

/// The watch tasks; aborted when dropped.
pub struct Feeds(Vec<JoinHandle<()>>);

impl Drop for Feeds {
    fn drop(&mut self) {
        self.0.iter().for_each(JoinHandle::abort);
    }
}

impl Stores {
    /// Starts one watch per kind, cluster-wide.
    pub fn watch(client: &kube::Client, changes: &Changes) -> (Stores, Feeds) {
        let proxy_writer = Writer::<DynamicObject>::new(objects::httpproxy_resource());
        let delegation_writer = Writer::<DynamicObject>::new(objects::delegation_resource());
        let (secrets, secret_writer) = kube::runtime::reflector::store::<KubeSecret>();
        let (services, service_writer) = kube::runtime::reflector::store::<Service>();
        let (slices, slice_writer) = kube::runtime::reflector::store::<KubeEndpointSlice>();
        let stores = Stores {
            proxies: proxy_writer.as_reader(),
            delegations: delegation_writer.as_reader(),
            secrets,
            services,
            slices,
        };
        let proxy_api = Api::all_with(client.clone(), &objects::httpproxy_resource());
        let delegation_api = Api::all_with(client.clone(), &objects::delegation_resource());
        let feeds = Feeds(vec![
            tokio::spawn(feed("HTTPProxy", proxy_api, proxy_writer, changes.clone())),
            tokio::spawn(feed(
                "TLSCertificateDelegation",
                delegation_api,
                delegation_writer,
                changes.clone(),
            )),
            tokio::spawn(feed("Secret", Api::all(client.clone()), secret_writer, changes.clone())),
            tokio::spawn(feed(
                "Service",
                Api::all(client.clone()),
                service_writer,
                changes.clone(),
            )),
            tokio::spawn(feed(
                "EndpointSlice",
                Api::all(client.clone()),
                slice_writer,
                changes.clone(),
            )),
        ]);
        (stores, feeds)
    }

    /// Completes once every store holds its first list: a decision over a half-listed cache
    /// would report Secrets or Services missing that exist (and write that into statuses).
    /// `false` if a watch ended first.
    pub async fn ready(&self) -> bool {
        self.proxies.wait_until_ready().await.is_ok()
            && self.delegations.wait_until_ready().await.is_ok()
            && self.secrets.wait_until_ready().await.is_ok()
            && self.services.wait_until_ready().await.is_ok()
            && self.slices.wait_until_ready().await.is_ok()
    }

    /// The stores' contents as the decision's input; objects that do not convert are left
    /// out and logged.
    pub fn inputs(&self) -> Inputs {
        let mut proxies = converted(&self.proxies, objects::proxy);
        proxies.sort_by(|a, b| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())));
        let mut delegations = converted(&self.delegations, objects::delegation);
        delegations.sort_by(|a, b| {
            (a.metadata.namespace(), a.metadata.name())
                .cmp(&(b.metadata.namespace(), b.metadata.name()))
        });
        let mut services = converted(&self.services, objects::service);
        services.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let mut slices = converted(&self.slices, objects::endpoint_slice);
        slices.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let secrets = self.secrets.state().iter().map(|s| objects::secret(s)).collect();
        Inputs { proxies, secrets, delegations, services, slices }
    }

    /// The `status.loadBalancer` of the Service `name` in `namespace` (Contour's
    /// `--envoy-service-namespace` and `--envoy-service-name`); no address when there is no
    /// such Service. An empty `namespace` takes a Service of that name in any namespace, as
    /// Contour does (with several, the first by namespace; Contour takes the last changed).
    pub fn load_balancer(&self, namespace: &str, name: &str) -> LoadBalancer {
        let status = if namespace.is_empty() {
            let mut named: Vec<_> = self
                .services
                .state()
                .into_iter()
                .filter(|s| s.metadata.name.as_deref() == Some(name))
                .collect();
            named.sort_by(|a, b| a.metadata.namespace.cmp(&b.metadata.namespace));
            named.into_iter().next()
        } else {
            self.services.get(&ObjectRef::new(name).within(namespace))
        };
        LoadBalancer(
            status
                .and_then(|service| service.status.as_ref()?.load_balancer.clone())
                .unwrap_or_default(),
        )
    }
}

fn converted<K, T>(store: &Store<K>, convert: impl Fn(&K) -> Result<T, ObjectError>) -> Vec<T>
where
    K: Resource + Clone + 'static,
    K::DynamicType: Eq + Hash + Clone,
{
    store
        .state()
        .iter()
        .filter_map(|object| match convert(object) {
            Ok(value) => Some(value),
            Err(error) => {
                tracing::warn!(
                    kind = error.kind,
                    namespace = %error.namespace,
                    name = %error.name,
                    error = %error.message,
                    "object left out of the edge configuration"
                );
                None
            }
        })
        .collect()
}

/// Applies the watch of `api` to `writer`, reporting every change after the first list
/// (and the end of each list, initial or after a re-list) to `changes`.
async fn feed<K>(kind: &'static str, api: Api<K>, mut writer: Writer<K>, changes: Changes)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Clone + Eq + Hash,
{
    let mut stream = watcher(api, watcher::Config::default()).default_backoff().boxed();
    while let Some(event) = stream.next().await {
        match event {
            Ok(event) => {
                writer.apply_watcher_event(&event);
                match event {
                    watcher::Event::Apply(_)
                    | watcher::Event::Delete(_)
                    | watcher::Event::InitDone => changes.changed(),
                    watcher::Event::Init | watcher::Event::InitApply(_) => {}
                }
            }
            Err(error) => {
                tracing::warn!(kind, error = %error, "edge watch failed; retrying with back-off")
            }
        }
    }
}
