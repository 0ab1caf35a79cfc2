//! Reading what the policy-approver controller reads, as the user running `certgate explain`:
//! the request, every CertificateRequestPolicy and (only when a policy selects by Namespace
//! labels) the request's Namespace. Objects are decoded one by one, so one odd object names
//! itself instead of failing the whole list.

use std::collections::BTreeMap;

use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use certgate_approval::NamespaceLookup;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, ApiResource, DynamicObject, ListParams};
use serde::de::DeserializeOwned;

use super::ExplainError;
use crate::shared::kubeconfig::KubeconfigArgs;

/// A client, the namespace of the kubeconfig's context and the API server's address.
pub struct Connection {
    pub client: kube::Client,
    pub default_namespace: String,
    pub server: String,
}

/// A client from the cluster client flags and the kubeconfig.
pub async fn connect(cluster: &KubeconfigArgs) -> Result<Connection, ExplainError> {
    let connection = cluster.connect().await.map_err(|e| ExplainError::Config(e.to_string()))?;
    Ok(Connection {
        client: connection.client,
        default_namespace: connection.default_namespace,
        server: connection.server,
    })
}

/// What to say about a failed call: `what` names the call (`get CertificateRequest "a/b"`),
/// `permission` the RBAC rule it needs.
pub struct Call<'a> {
    pub what: String,
    pub permission: &'a str,
    pub server: &'a str,
}

impl Call<'_> {
    /// A one-line error naming the call, the cause and what to do.
    pub fn failed(&self, err: kube::Error) -> ExplainError {
        let what = &self.what;
        match err {
            kube::Error::Api(status) if status.code == 401 => ExplainError::Cluster(format!(
                "cannot {what}: the API server did not accept the kubeconfig's credentials \
                 (HTTP 401: {}); log in again or pick another --context",
                status.message
            )),
            kube::Error::Api(status) if status.code == 403 => ExplainError::Cluster(format!(
                "cannot {what}: {}; explain needs {}",
                status.message, self.permission
            )),
            kube::Error::Api(status) => {
                let reason =
                    if status.reason.is_empty() { "no reason given" } else { &status.reason };
                ExplainError::Cluster(format!(
                    "cannot {what}: the API server answered HTTP {} ({reason}): {}",
                    status.code, status.message
                ))
            }
            other => match crate::shared::unreachable::message(self.server, &other) {
                Some(message) => ExplainError::Cluster(message),
                None => ExplainError::Cluster(format!(
                    "cannot {what}: the API server at {} could not be used ({}); check that the \
                     cluster is running and that --server, --context or --kubeconfig point at it",
                    self.server,
                    one_line(&other.to_string())
                )),
            },
        }
    }
}

/// The request, or `None` when it does not exist.
pub async fn get_request(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    call: &Call<'_>,
) -> Result<Option<CertificateRequest>, ExplainError> {
    let resource = ApiResource::erase::<CertificateRequest>(&());
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), namespace, &resource);
    let Some(object) = api.get_opt(name).await.map_err(|err| call.failed(err))? else {
        return Ok(None);
    };
    decode::<CertificateRequest>(object).map(Some).map_err(|err| {
        ExplainError::Decode(format!("{} is not a valid CertificateRequest: {err}", call.what))
    })
}

/// Every policy that decodes, and a note for each one that does not (the controller cannot
/// read those either).
pub async fn list_policies(
    client: &kube::Client,
    call: &Call<'_>,
) -> Result<(Vec<CertificateRequestPolicy>, Vec<String>), ExplainError> {
    let resource = ApiResource::erase::<CertificateRequestPolicy>(&());
    let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
    let mut policies = Vec::new();
    let mut notes = Vec::new();
    let mut params = ListParams::default().limit(500);
    loop {
        let page = api.list(&params).await.map_err(|err| call.failed(err))?;
        for object in page.items {
            let name = object.metadata.name.clone().unwrap_or_default();
            match decode::<CertificateRequestPolicy>(object) {
                Ok(policy) => policies.push(policy),
                Err(err) => notes.push(format!(
                    "CertificateRequestPolicy {} was skipped: it does not decode ({err}); \
                     the controller cannot read it either",
                    certgate_gofmt::quote(&name)
                )),
            }
        }
        match page.metadata.continue_.filter(|token| !token.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => break,
        }
    }
    Ok((policies, notes))
}

/// Whether any policy reads Namespace labels (`selector.namespace.matchLabels` set, `{}`
/// included): only then does the review need the request's Namespace.
pub fn needs_namespace(policies: &[CertificateRequestPolicy]) -> bool {
    policies.iter().any(|policy| {
        policy.spec.selector.namespace.as_ref().is_some_and(|ns| ns.match_labels.is_some())
    })
}

/// The request's Namespace as the review sees it.
pub struct FetchedNamespace {
    name: String,
    labels: Result<BTreeMap<String, String>, String>,
}

impl FetchedNamespace {
    /// Not read: the review never asks (no policy selects by labels).
    pub fn unread(name: &str) -> Self {
        FetchedNamespace { name: name.to_owned(), labels: Ok(BTreeMap::new()) }
    }

    /// Reads the Namespace. NotFound (and any other refusal) becomes the review error the
    /// controller would hit, with the API server's own text; a transport failure is an error
    /// of the command. The second value is a note when the refusal was about the caller's
    /// own permissions, which the controller does not share.
    pub async fn read(
        client: &kube::Client,
        name: &str,
        call: &Call<'_>,
    ) -> Result<(Self, Option<String>), ExplainError> {
        let api: Api<Namespace> = Api::all(client.clone());
        let (labels, note) = match api.get(name).await {
            Ok(found) => (Ok(found.metadata.labels.unwrap_or_default()), None),
            Err(kube::Error::Api(status)) if status.code == 403 => {
                let note = format!(
                    "the review fails because you may not read Namespace {} ({}); the \
                     controller, which may, could decide: explain needs {}",
                    certgate_gofmt::quote(name),
                    status.message,
                    call.permission
                );
                (Err(status.message), Some(note))
            }
            Err(kube::Error::Api(status)) => (Err(status.message), None),
            Err(other) => return Err(call.failed(other)),
        };
        Ok((FetchedNamespace { name: name.to_owned(), labels }, note))
    }
}

impl NamespaceLookup for FetchedNamespace {
    fn labels(&self, namespace: &str) -> Result<BTreeMap<String, String>, String> {
        if namespace == self.name {
            self.labels.clone()
        } else {
            // A review only asks about its request's namespace.
            Err(format!("namespaces {} not found", certgate_gofmt::quote(namespace)))
        }
    }
}

/// Decodes a listed object into certgate's type, naming the field that does not fit.
fn decode<T: DeserializeOwned>(object: DynamicObject) -> Result<T, String> {
    let value = serde_json::to_value(object).map_err(|err| err.to_string())?;
    serde_path_to_error::deserialize(value).map_err(|err| {
        let path = err.path().to_string();
        if path == "." {
            err.into_inner().to_string()
        } else {
            format!("{path}: {}", err.into_inner())
        }
    })
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
