//! What an `Issuer` and a `ClusterIssuer` share for these controllers (upstream's
//! `GenericIssuer`): the issuer configuration, the status, and where the issuer's Secrets
//! live (`IssuerOptions.ResourceNamespace`: an Issuer's own namespace, the cluster resource
//! namespace for a ClusterIssuer).

use certgate_api::cert_manager::Issuer;
use certgate_api::cert_manager::{ClusterIssuer, IssuerConfig, IssuerStatus};
use kube::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// An `Issuer` or a `ClusterIssuer`.
pub trait GenericIssuer:
    Resource<DynamicType = ()>
    + Clone
    + Serialize
    + DeserializeOwned
    + std::fmt::Debug
    + Send
    + Sync
    + 'static
{
    /// `Issuer` or `ClusterIssuer`.
    const KIND: &'static str;
    /// The controller that keeps this kind's `Ready` condition (`issuers`, `clusterissuers`).
    const CONTROLLER: &'static str;
    fn config(&self) -> &IssuerConfig;
    fn status(&self) -> Option<&IssuerStatus>;
    fn status_mut(&mut self) -> &mut Option<IssuerStatus>;
    /// The namespace the issuer's Secrets are read from.
    fn resource_namespace<'a>(&'a self, cluster_resource_namespace: &'a str) -> &'a str;
}

impl GenericIssuer for Issuer {
    const KIND: &'static str = "Issuer";
    const CONTROLLER: &'static str = "issuers";

    fn config(&self) -> &IssuerConfig {
        &self.spec.config
    }

    fn status(&self) -> Option<&IssuerStatus> {
        self.status.as_ref()
    }

    fn status_mut(&mut self) -> &mut Option<IssuerStatus> {
        &mut self.status
    }

    fn resource_namespace<'a>(&'a self, _cluster_resource_namespace: &'a str) -> &'a str {
        self.metadata.namespace.as_deref().unwrap_or_default()
    }
}

impl GenericIssuer for ClusterIssuer {
    const KIND: &'static str = "ClusterIssuer";
    const CONTROLLER: &'static str = "clusterissuers";

    fn config(&self) -> &IssuerConfig {
        &self.spec.config
    }

    fn status(&self) -> Option<&IssuerStatus> {
        self.status.as_ref()
    }

    fn status_mut(&mut self) -> &mut Option<IssuerStatus> {
        &mut self.status
    }

    fn resource_namespace<'a>(&'a self, cluster_resource_namespace: &'a str) -> &'a str {
        cluster_resource_namespace
    }
}

/// The API of a kind, where its status is written.
pub trait IssuerApi: GenericIssuer {
    /// The API for this object's status writes.
    fn api(client: kube::Client, namespace: Option<&str>) -> kube::Api<Self>;
}

impl IssuerApi for Issuer {
    fn api(client: kube::Client, namespace: Option<&str>) -> kube::Api<Self> {
        match namespace {
            Some(namespace) => kube::Api::namespaced(client, namespace),
            None => kube::Api::all(client),
        }
    }
}

impl IssuerApi for ClusterIssuer {
    fn api(client: kube::Client, _namespace: Option<&str>) -> kube::Api<Self> {
        kube::Api::all(client)
    }
}
