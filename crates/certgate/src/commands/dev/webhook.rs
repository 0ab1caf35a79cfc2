//! certgate's admission webhook inside `certgate dev`: served on loopback with a throw-away
//! CA, asking the sandbox itself for SubjectAccessReviews and discovery, and registered with
//! upstream's webhook configurations so the sandbox calls it as a cluster would.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use certgate_serving::ConnectionPolicy;
use certgate_webhook::registration::{Endpoint, configurations};
use certgate_webhook::{DevCertificates, Metrics, RunningServer, ServerOptions, TlsSource};
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, Patch, PatchParams};

use super::DevError;

/// SubjectAccessReview answers are not reused: the sandbox answers in microseconds, and an
/// RBAC change takes effect at the next request, as with cert-manager's webhook.
const SAR_CACHE_TTL: Duration = Duration::ZERO;
/// The field manager of the registered configurations.
const MANAGER: &str = "certgate-dev";

/// Starts the webhook on `listen` and registers it with the sandbox `client` talks to.
pub async fn start(
    listen: SocketAddr,
    connections: ConnectionPolicy,
    client: kube::Client,
) -> Result<RunningServer, DevError> {
    if !listen.ip().is_loopback() {
        return Err(DevError::WebhookNotLoopback(listen));
    }
    let certificates =
        DevCertificates::generate(&[]).map_err(|e| DevError::Webhook(e.to_string()))?;
    let admission =
        certgate_webhook::cluster_admission::admission(Some(client.clone()), SAR_CACHE_TTL);
    let server = certgate_webhook::start(
        ServerOptions {
            listen,
            tls: TlsSource::Fixed(certificates.serving),
            connections,
            // `certgate dev` serves every metric on its own --metrics-listen, when asked.
            metrics_listener: None,
        },
        Arc::new(admission),
        Arc::new(Metrics::default()),
    )
    .await
    .map_err(|e| DevError::Webhook(e.to_string()))?;
    let endpoint = Endpoint::Url(format!("https://{}", server.local_addr()));
    for configuration in configurations(&endpoint, &certificates.ca_pem) {
        register(&client, configuration).await?;
    }
    Ok(server)
}

/// Creates or updates one webhook configuration (server-side apply, forced: this process
/// owns them).
async fn register(client: &kube::Client, configuration: serde_json::Value) -> Result<(), DevError> {
    let kind = configuration["kind"].as_str().unwrap_or_default().to_owned();
    let name = configuration["metadata"]["name"].as_str().unwrap_or_default().to_owned();
    let plural = format!("{}s", kind.to_ascii_lowercase());
    let gvk = GroupVersionKind::gvk("admissionregistration.k8s.io", "v1", &kind);
    let api: Api<DynamicObject> =
        Api::all_with(client.clone(), &ApiResource::from_gvk_with_plural(&gvk, &plural));
    api.patch(&name, &PatchParams::apply(MANAGER).force(), &Patch::Apply(&configuration))
        .await
        .map_err(|e| DevError::Webhook(format!("cannot register {kind} {name}: {e}")))?;
    Ok(())
}
