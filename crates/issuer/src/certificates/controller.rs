//! The `certificates` controller's runtime: the watches, the reads a pass needs, and the
//! writes [`plan`](super::plan) decides. Requests and Secrets are watched through
//! reflectors whose events trigger passes only after the stores hold them, so a pass never
//! sees a request older than the event that woke it.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use certgate_api::CertificateRequest;
use certgate_api::cert_manager::Certificate;
use certgate_clock::Clock;
use certgate_issuance::BackoffConfig;
use certgate_runtime::{ControllerMetrics, ControllerSpec, EventSink, Launch};
use chrono::{DateTime, Utc};
use futures_util::{FutureExt as _, StreamExt as _};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::Client;
use kube::api::{Api, DeleteParams, PostParams};
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::events::Reporter;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt as _, watcher};

use super::labels;
use super::plan::{self, NewKey, Snapshot, Step};
use crate::effects::{kube_event, reference};

/// `certificates`.
pub const NAME: &str = "certificates";

/// `certificates`: off by default.
pub const CERTIFICATES: ControllerSpec = ControllerSpec {
    name: NAME,
    on_by_default: false,
    summary: "cert-manager's Certificate controllers as one: the private key\n\
              Secret, the CertificateRequest of each revision, the Secret with\n\
              tls.crt, tls.key and ca.crt, renewal before expiry, and the retry\n\
              backoff after a denied or failed request\n\
              (--certificate-request-{minimum,maximum}-backoff-duration); off by\n\
              default.",
    results: &["triggered", "issued", "failed", "denied", "backing-off"],
    run: |launch| run(launch).boxed(),
};

static BACKOFF_CONFIG: OnceLock<BackoffConfig> = OnceLock::new();

/// The default backoff, cert-manager's (1 h doubling to 32 h).
pub const BACKOFF: BackoffConfig = BackoffConfig {
    initial: certgate_issuance::backoff::DEFAULT_MINIMUM,
    max: certgate_issuance::backoff::DEFAULT_MAXIMUM,
};

/// Sets the retry backoff (`--certificate-request-minimum-backoff-duration`,
/// `--certificate-request-maximum-backoff-duration`) once per process, before the
/// controller starts; `false` when it was already set.
pub fn set_backoff(config: BackoffConfig) -> bool {
    BACKOFF_CONFIG.set(config).is_ok()
}

fn backoff() -> BackoffConfig {
    BACKOFF_CONFIG.get().copied().unwrap_or(BACKOFF)
}

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("cannot {action} for Certificate {certificate}: {source}")]
    Api { action: &'static str, certificate: String, source: kube::Error },
    #[error("cannot make the private key or request for Certificate {certificate}: {message}")]
    Key { certificate: String, message: String },
}

struct Context {
    client: Client,
    events: EventSink,
    requests: Store<CertificateRequest>,
    certificates: Store<Certificate>,
    clock: Arc<dyn Clock>,
    metrics: Arc<ControllerMetrics>,
}

/// Runs the controller until the launch's shutdown completes.
pub async fn run(launch: Launch) {
    let Launch { client, settings, metrics, clock, shutdown, .. } = launch;
    let (requests, request_writer) = reflector::store::<CertificateRequest>();
    let request_events =
        watcher(Api::<CertificateRequest>::all(client.clone()), watcher::Config::default())
            .default_backoff()
            .reflect(request_writer)
            .touched_objects();
    let secret_events =
        watcher(Api::<PartialObjectMeta<Secret>>::all(client.clone()), watcher::Config::default())
            .default_backoff()
            .touched_objects();
    let controller =
        Controller::new(Api::<Certificate>::all(client.clone()), watcher::Config::default());
    let certificates = controller.store();
    let by_secret = certificates.clone();
    let reporter = Reporter {
        controller: format!("cert-manager-{NAME}"),
        instance: settings.instance.clone(),
    };
    let context = Arc::new(Context {
        events: EventSink::new(client.clone(), reporter, NAME),
        client,
        requests,
        certificates: certificates.clone(),
        clock,
        metrics,
    });
    tracing::info!(controller = NAME, "watching Certificates");
    controller
        .with_config(Config::default().concurrency(settings.concurrency))
        .owns_stream(request_events)
        .watches_stream(secret_events, move |secret| secret_owners(&by_secret.state(), &secret))
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, context)
        .for_each(|outcome| async move {
            if let Err(err) = outcome {
                tracing::debug!(controller = NAME, error = %err, "reconcile did not complete");
            }
        })
        .await;
}

/// The Certificates a Secret concerns: those naming it as `spec.secretName`, and the one
/// owning it (a next private key).
fn secret_owners(
    certificates: &[Arc<Certificate>],
    secret: &PartialObjectMeta<Secret>,
) -> Vec<ObjectRef<Certificate>> {
    let owner_uids: Vec<&str> = secret
        .metadata
        .owner_references
        .iter()
        .flatten()
        .filter(|o| o.kind == "Certificate")
        .map(|o| o.uid.as_str())
        .collect();
    certificates
        .iter()
        .filter(|c| c.metadata.namespace == secret.metadata.namespace)
        .filter(|c| {
            Some(&c.spec.secret_name) == secret.metadata.name.as_ref()
                || c.metadata.uid.as_deref().is_some_and(|uid| owner_uids.contains(&uid))
        })
        .map(|c| ObjectRef::from_obj(c.as_ref()))
        .collect()
}

fn describe(certificate: &Certificate) -> String {
    format!(
        "{}/{}",
        certificate.metadata.namespace.as_deref().unwrap_or_default(),
        certificate.metadata.name.as_deref().unwrap_or_default()
    )
}

/// Whether `certificate` is the oldest Certificate of its namespace naming its Secret
/// (ties broken by name), so that two Certificates sharing a Secret do not fight over it.
fn owns_secret(certificates: &[Arc<Certificate>], certificate: &Certificate) -> bool {
    let key = |c: &Certificate| {
        (c.metadata.creation_timestamp.clone().map(|t| t.0), c.metadata.name.clone())
    };
    !certificates.iter().any(|other| {
        other.metadata.namespace == certificate.metadata.namespace
            && other.spec.secret_name == certificate.spec.secret_name
            && other.metadata.uid != certificate.metadata.uid
            && key(other) < key(certificate)
    })
}

fn api_error(
    action: &'static str,
    certificate: &Certificate,
) -> impl FnOnce(kube::Error) -> ReconcileError {
    let certificate = describe(certificate);
    move |source| ReconcileError::Api { action, certificate, source }
}

fn is_status(error: &kube::Error, code: u16) -> bool {
    matches!(error, kube::Error::Api(response) if response.code == code)
}

async fn reconcile(
    certificate: Arc<Certificate>,
    context: Arc<Context>,
) -> Result<Action, ReconcileError> {
    if certificate.metadata.deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let started = Instant::now();
    let namespace = certificate.metadata.namespace.clone().unwrap_or_default();
    let secrets: Api<Secret> = Api::namespaced(context.client.clone(), &namespace);
    let secret = secrets
        .get_opt(&certificate.spec.secret_name)
        .await
        .map_err(api_error("read the Secret", &certificate))?;
    let next_key = secrets
        .get_opt(&plan::next_key_name(&certificate))
        .await
        .map_err(api_error("read the next private key Secret", &certificate))?
        .filter(|s| owned_by(&s.metadata, &certificate));
    let requests = context.requests.state();
    let owned: Vec<&CertificateRequest> =
        requests.iter().map(Arc::as_ref).filter(|r| owned_by(&r.metadata, &certificate)).collect();
    let snapshot = Snapshot {
        certificate: &certificate,
        secret: secret.as_ref(),
        next_key: next_key.as_ref(),
        requests: &owned,
        owns_secret: owns_secret(&context.certificates.state(), &certificate),
        now: DateTime::<Utc>::from(context.clock.now()),
        backoff: backoff(),
    };
    let step = plan::plan(&snapshot);
    let action = perform(&certificate, step, &context).await?;
    context.metrics.reconciled(NAME, started.elapsed());
    Ok(action)
}

fn owned_by(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    certificate: &Certificate,
) -> bool {
    let uid = certificate.metadata.uid.as_deref();
    meta.namespace == certificate.metadata.namespace
        && meta
            .owner_references
            .iter()
            .flatten()
            .any(|o| o.kind == "Certificate" && Some(o.uid.as_str()) == uid)
}

async fn perform(
    certificate: &Certificate,
    step: Step,
    context: &Context,
) -> Result<Action, ReconcileError> {
    let namespace = certificate.metadata.namespace.clone().unwrap_or_default();
    let secrets: Api<Secret> = Api::namespaced(context.client.clone(), &namespace);
    let requests: Api<CertificateRequest> = Api::namespaced(context.client.clone(), &namespace);
    let certificates: Api<Certificate> = Api::namespaced(context.client.clone(), &namespace);
    let who = describe(certificate);
    let (result, events) = match step {
        Step::Wait { recheck_after, backing_off } => {
            if backing_off {
                context.metrics.decision(NAME, "backing-off");
            }
            return Ok(recheck_after.map_or_else(Action::await_change, Action::requeue));
        }
        Step::WriteStatus { status, events, result } => {
            write_status(&certificates, certificate, status).await?;
            if result != "status" {
                context.metrics.decision(NAME, result);
                tracing::info!(controller = NAME, certificate = %who, result, "synced");
            }
            ("status", events)
        }
        Step::CreateNextKey { name, key } => {
            let pem = match key {
                NewKey::Reuse(pem) => pem,
                NewKey::Generate(spec) => certgate_pki::generate::generate_private_key(&spec)
                    .map_err(|e| ReconcileError::Key {
                        certificate: who.clone(),
                        message: e.to_string(),
                    })?
                    .pem
                    .into_bytes(),
            };
            let mut secret = Secret::default();
            secret.metadata.name = Some(name);
            secret.metadata.namespace = Some(namespace.clone());
            secret.metadata.labels =
                Some([(labels::NEXT_PRIVATE_KEY.to_owned(), "true".to_owned())].into());
            secret.metadata.owner_references = Some(vec![plan::owner(certificate)]);
            secret.type_ = Some("Opaque".to_owned());
            secret.data = Some([("tls.key".to_owned(), ByteString(pem))].into());
            match secrets.create(&PostParams::default(), &secret).await {
                Ok(_) => {}
                Err(e) if is_status(&e, 409) => {}
                Err(e) => {
                    return Err(api_error("create the next private key Secret", certificate)(e));
                }
            }
            ("next-key", vec![])
        }
        Step::DeleteSecret { name } => {
            match secrets.delete(&name, &DeleteParams::default()).await {
                Ok(_) => {}
                Err(e) if is_status(&e, 404) => {}
                Err(e) => {
                    return Err(api_error("delete the next private key Secret", certificate)(e));
                }
            }
            ("delete-key", vec![])
        }
        Step::CreateRequest { mut request, csr } => {
            let key_name = plan::next_key_name(certificate);
            let key = secrets
                .get(&key_name)
                .await
                .map_err(api_error("read the next private key Secret", certificate))?;
            let pem = key
                .data
                .as_ref()
                .and_then(|d| d.get("tls.key"))
                .map(|v| v.0.clone())
                .unwrap_or_default();
            let pkcs8 = certgate_pki::generate::key_to_pkcs8(&pem).map_err(|e| {
                ReconcileError::Key { certificate: who.clone(), message: e.to_string() }
            })?;
            let csr = certgate_pki::generate::build_csr(&csr, &pkcs8).map_err(|e| {
                ReconcileError::Key { certificate: who.clone(), message: e.to_string() }
            })?;
            request.spec.request = csr.into_bytes();
            match requests.create(&PostParams::default(), &request).await {
                Ok(_) => {}
                Err(e) if is_status(&e, 409) => {}
                Err(e) => return Err(api_error("create the CertificateRequest", certificate)(e)),
            }
            let message = format!(
                "Created new CertificateRequest resource {}",
                certgate_gofmt::quote(request.metadata.name.as_deref().unwrap_or_default())
            );
            (
                "request",
                vec![certgate_issuance::Event {
                    warning: false,
                    reason: "Requested".to_owned(),
                    message,
                }],
            )
        }
        Step::DeleteRequest { name } => {
            match requests.delete(&name, &DeleteParams::default()).await {
                Ok(_) => {}
                Err(e) if is_status(&e, 404) => {}
                Err(e) => return Err(api_error("delete a CertificateRequest", certificate)(e)),
            }
            ("delete-request", vec![])
        }
        Step::WriteSecret { secret, status, events } => {
            let written = if secret.metadata.resource_version.is_some() {
                secrets
                    .replace(
                        secret.metadata.name.as_deref().unwrap_or_default(),
                        &PostParams::default(),
                        &secret,
                    )
                    .await
            } else {
                secrets.create(&PostParams::default(), &secret).await
            };
            written.map_err(api_error("write the Secret", certificate))?;
            write_status(&certificates, certificate, status).await?;
            context.metrics.decision(NAME, "issued");
            tracing::info!(controller = NAME, certificate = %who, "issued");
            ("issued", events)
        }
    };
    let regarding = reference(certificate);
    for event in &events {
        context.events.publish(&regarding, &kube_event(event, "Issue")).await;
    }
    tracing::debug!(controller = NAME, certificate = %who, step = result, "synced");
    // The write wakes the Certificate again through a watch; the requeue is a safety net.
    Ok(Action::requeue(Duration::from_secs(60)))
}

/// Replaces the Certificate's status with `status` (an update of the cached copy: a stale
/// one fails with a conflict, retried by [`error_policy`]).
async fn write_status(
    certificates: &Api<Certificate>,
    certificate: &Certificate,
    status: certgate_api::cert_manager::CertificateStatus,
) -> Result<(), ReconcileError> {
    let mut updated = certificate.clone();
    updated.status = Some(status);
    certificates
        .replace_status(
            certificate.metadata.name.as_deref().unwrap_or_default(),
            &PostParams::default(),
            &updated,
        )
        .await
        .map(|_| ())
        .map_err(api_error("write the status", certificate))
}

fn error_policy(
    certificate: Arc<Certificate>,
    error: &ReconcileError,
    context: Arc<Context>,
) -> Action {
    if error.is_conflict() {
        // The cached Certificate was older than the one stored (our own write's watch event
        // not seen yet): nothing is wrong, look again as soon as the cache catches up.
        tracing::debug!(controller = NAME, certificate = %describe(&certificate), "stale copy; retrying");
        return Action::requeue(CONFLICT_RETRY);
    }
    tracing::warn!(controller = NAME, certificate = %describe(&certificate), error = %error, "reconcile failed");
    context.metrics.error(NAME);
    Action::requeue(Duration::from_secs(5))
}

/// How soon a pass that lost a write to a newer copy runs again.
const CONFLICT_RETRY: Duration = Duration::from_millis(200);

impl ReconcileError {
    /// A write refused because the object changed since it was read (409).
    fn is_conflict(&self) -> bool {
        matches!(self, ReconcileError::Api { source, .. } if is_status(source, 409))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api_error(code: u16) -> ReconcileError {
        let status = kube::core::Status { code, ..Default::default() };
        ReconcileError::Api {
            action: "write the status",
            certificate: "payments/web".to_owned(),
            source: kube::Error::Api(Box::new(status)),
        }
    }

    #[test]
    fn only_a_lost_write_counts_as_a_conflict() {
        assert!(api_error(409).is_conflict());
        assert!(!api_error(403).is_conflict());
        assert!(!api_error(500).is_conflict());
        let key = ReconcileError::Key { certificate: "a/b".to_owned(), message: "x".to_owned() };
        assert!(!key.is_conflict());
    }
}
