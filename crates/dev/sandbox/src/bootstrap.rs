//! What a fresh sandbox holds before any client writes: the system namespaces, the RBAC
//! bootstrap policy, the CustomResourceDefinitions certgate serves, and those of the Open
//! Cluster Management kinds and of cert-manager's other kinds (`Certificate`, `Issuer`,
//! `ClusterIssuer`) it reads and writes, as a cluster with OCM and cert-manager has them. With
//! a data directory, objects restored from it are kept and only what is missing is created;
//! stored CRDs are served again.

use serde_json::{Value, json};

use crate::api::{self, prefix};
use crate::requester::Requester;
use crate::resources::ResourceType;
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;
use crate::writes;

/// The namespaces every cluster has.
const NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

fn resource(sandbox: &Sandbox, group: &str, plural: &str) -> Result<ResourceType, ApiError> {
    sandbox.registry.get(group, "v1", plural).ok_or_else(|| {
        ApiError::new(500, "InternalError", format!("built-in resource {plural} is not registered"))
    })
}

async fn create_missing(
    sandbox: &Sandbox,
    resource: &ResourceType,
    object: Value,
) -> Result<(), ApiError> {
    let target =
        Target { resource: resource.clone(), namespace: None, name: None, subresource: None };
    let name =
        object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_owned();
    if sandbox.store.get(&api::key(&target, &name)).is_some() {
        return Ok(());
    }
    writes::create(sandbox, &target, &Requester::system("system:apiserver"), object)
        .await
        .map(|_| ())
}

pub async fn run(sandbox: &Sandbox) -> Result<(), ApiError> {
    let crds = resource(sandbox, "apiextensions.k8s.io", "customresourcedefinitions")?;
    // Stored CRDs (from a data directory) are served before anything else is read.
    let stored = sandbox.store.list(&prefix(&crds, None), None, None);
    for item in stored.items {
        if let Ok(resources) = crate::resources::from_crd(&item.object) {
            sandbox.registry.set_crd(&item.key.name, resources);
        }
    }
    let namespaces = resource(sandbox, "", "namespaces")?;
    for name in NAMESPACES {
        create_missing(
            sandbox,
            &namespaces,
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}),
        )
        .await?;
    }
    // The RBAC kube-apiserver creates at start: discovery for everyone, cluster-admin, the
    // admin/edit/view roles.
    for object in certgate_access::bootstrap_policy() {
        let plural = match object["kind"].as_str() {
            Some("ClusterRole") => "clusterroles",
            Some("ClusterRoleBinding") => "clusterrolebindings",
            other => {
                return Err(ApiError::new(
                    500,
                    "InternalError",
                    format!(
                        "unexpected bootstrap policy kind {}",
                        certgate_gofmt::quote(other.unwrap_or_default())
                    ),
                ));
            }
        };
        let resource = resource(sandbox, crate::rbac::GROUP, plural)?;
        create_missing(sandbox, &resource, object).await?;
    }
    // certgate's own CRDs, then OCM's and cert-manager's, as a hub with cert-manager has
    // upstream's; each only when absent, so a CRD restored from the data directory
    // (upstream's, say) is kept.
    let definitions = certgate_api::crd::all()
        .into_iter()
        .chain(certgate_api::crd::ocm())
        .chain(certgate_api::crd::cert_manager());
    for crd in definitions {
        let object = serde_json::to_value(&crd).map_err(|err| {
            ApiError::new(500, "InternalError", format!("cannot serialize a CRD: {err}"))
        })?;
        create_missing(sandbox, &crds, object).await?;
    }
    Ok(())
}
