//! cert-manager's issuer kinds in the sandbox. Approving a request is checked against its
//! signer (`issuers.cert-manager.io/<namespace>.<name>`), which the webhook resolves through
//! API discovery; without the kinds every approval would be refused. cert-manager is not in
//! the sandbox, so these are stand-ins with an open schema: registered only when absent, so
//! cert-manager's own CRDs applied by the user are never replaced.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use serde_json::json;

use super::DevError;

/// (kind, plural, scope).
const KINDS: [(&str, &str, &str); 2] =
    [("Issuer", "issuers", "Namespaced"), ("ClusterIssuer", "clusterissuers", "Cluster")];

/// The stand-in CustomResourceDefinition of one issuer kind.
fn definition(kind: &str, plural: &str, scope: &str) -> serde_json::Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": format!("{plural}.cert-manager.io"),
            "labels": {"app.kubernetes.io/managed-by": "certgate-dev"},
        },
        "spec": {
            "group": "cert-manager.io",
            "names": {
                "kind": kind,
                "listKind": format!("{kind}List"),
                "plural": plural,
                "singular": kind.to_lowercase(),
                "categories": ["cert-manager"],
            },
            "scope": scope,
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "x-kubernetes-preserve-unknown-fields": true,
                }},
            }],
        },
    })
}

/// Registers the kinds that are not registered yet.
pub async fn register(client: &kube::Client) -> Result<(), DevError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for (kind, plural, scope) in KINDS {
        let crd: CustomResourceDefinition = serde_json::from_value(definition(kind, plural, scope))
            .map_err(|e| DevError::Issuers(format!("the {kind} stand-in is malformed: {e}")))?;
        match api.create(&PostParams::default(), &crd).await {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.code == 409 => {}
            Err(err) => {
                return Err(DevError::Issuers(format!("{kind}: {err}")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_ins_are_valid_definitions_of_cert_managers_names() {
        for (kind, plural, scope) in KINDS {
            let crd: CustomResourceDefinition =
                serde_json::from_value(definition(kind, plural, scope)).unwrap();
            assert_eq!(
                crd.metadata.name.as_deref(),
                Some(format!("{plural}.cert-manager.io").as_str())
            );
            assert_eq!(crd.spec.scope, scope);
            assert_eq!(crd.spec.names.kind, kind);
        }
    }
}
