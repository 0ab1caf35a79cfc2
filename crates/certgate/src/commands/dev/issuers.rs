//! cert-manager's kinds in the API server `certgate dev` serves: `Certificate`, `Issuer` and
//! `ClusterIssuer`, with certgate's typed CRDs ([`certgate_api::crd::cert_manager`], which
//! accept every object upstream's accept). Approving a request is checked against its signer
//! (`issuers.cert-manager.io/<namespace>.<name>`), which the webhook resolves through API
//! discovery; without the issuer kinds every approval would be refused. cert-manager is not
//! in the sandbox, which installs these CRDs itself at start when absent; registering them
//! here too, again only when absent, keeps `certgate dev` correct on any API server. A CRD
//! that already exists (cert-manager's own, applied by the user) is never replaced.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};

use super::DevError;

/// Registers the kinds that are not registered yet.
pub async fn register(client: &kube::Client) -> Result<(), DevError> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for crd in certgate_api::crd::cert_manager() {
        match api.create(&PostParams::default(), &crd).await {
            Ok(_) => {}
            // Already registered: whoever registered it, it stays as it is.
            Err(kube::Error::Api(status)) if status.code == 409 => {}
            Err(err) => {
                let kind = &crd.spec.names.kind;
                return Err(DevError::Issuers(format!("{kind}: {err}")));
            }
        }
    }
    Ok(())
}
