//! `certgate status certificate NAME`: reads the Certificate and what it depends on (its
//! events, issuer, Secret, CertificateRequests and the chosen request's events) — the thin
//! layer — then builds a [`snapshot::CertificateSnapshot`] and prints it ([`render`], or JSON
//! and YAML of the same document). Only the Certificate is required; anything else that
//! cannot be read is reported in its section.

pub mod render;
pub mod snapshot;

use std::io::Write;
use std::process::ExitCode;

use certgate_api::CertificateRequest;
use certgate_api::cert_manager::{Certificate, ClusterIssuer, Issuer};
use certgate_issuance::{BackoffConfig, GoDuration};
use chrono::Utc;
use clap::Args;
use k8s_openapi::api::core::v1::{Event, Secret};
use kube::api::{Api, ListParams};

use crate::shared::cmctl::CmctlLogArgs;
use crate::shared::kubeconfig::KubeconfigArgs;
use crate::shared::report::ReportFormat;
use snapshot::{EventFacts, Gathered, IssuerFacts, SecretFacts};

/// The long help of `certgate status certificate` (`--help`).
pub const CERTIFICATE_LONG_ABOUT: &str = "\
Get details about the current status of a cert-manager Certificate, as `cmctl status
certificate` does (same sections and wording), and further: the certificate in its Secret
(subject, issuer, serial, validity), its issuer's Ready condition, the CertificateRequest of
the current revision (of the next one while Issuing=True) with its Approved or Denied
condition — the reason and message say who decided and why, the policy's message when a
policy approver decided — and its Ready condition, and, after a failed issuance, when the next
attempt happens and how long remains (cert-manager's backoff: 1h doubling up to 32h unless
--certificate-request-{minimum,maximum}-backoff-duration say what the controller was given).

Examples:
  # The status of Certificate 'my-crt' in namespace 'my-namespace'.
  certgate status certificate my-crt --namespace my-namespace

  # The same facts as one JSON document.
  certgate status certificate my-crt -n my-namespace -o json

Needs get/list on certificates, certificaterequests, secrets, issuers (clusterissuers for a
ClusterIssuer) and events. Errors are printed on standard output as kubectl prints them and
exit with status 1.";

#[derive(Debug, Args)]
pub struct CertificateArgs {
    /// The Certificate's name (exactly one)
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,

    /// Namespace of the Certificate [default: the kubeconfig context's namespace, else
    /// "default"]
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Output format: text, json or yaml (json and yaml print one document with the same facts)
    #[arg(short = 'o', long, value_enum, default_value = "text", hide_possible_values = true)]
    pub output: ReportFormat,

    /// The certificates controller's first wait after a failed issuance, doubled after each
    /// further failure: give the value of its flag of this name (0 takes the default, 1h)
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = crate::shared::duration::parse_go_duration)]
    pub certificate_request_minimum_backoff_duration: GoDuration,

    /// The longest wait between the certificates controller's issuance attempts: give the
    /// value of its flag of this name (0 takes the default, 32h)
    #[arg(long, value_name = "DURATION", default_value = "32h", value_parser = crate::shared::duration::parse_go_duration)]
    pub certificate_request_maximum_backoff_duration: GoDuration,

    #[command(flatten)]
    pub cluster: KubeconfigArgs,

    #[command(flatten)]
    pub log: CmctlLogArgs,
}

/// What went wrong, printed as cmctl prints it (`error: ...`).
#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    #[error("error: {0}")]
    Usage(String),
    /// The API server could not be reached: the message of [`crate::shared::unreachable`].
    #[error("{0}")]
    Unreachable(String),
}

/// The name, checked as cmctl checks it, and the backoff settings.
pub fn validate(args: &CertificateArgs) -> Result<(String, BackoffConfig), StatusError> {
    let name = match args.names.as_slice() {
        [] => {
            return Err(StatusError::Usage(
                "the name of the Certificate has to be provided as argument".to_owned(),
            ));
        }
        [name] => name.clone(),
        _ => {
            return Err(StatusError::Usage(
                "only one argument can be passed in: the name of the Certificate".to_owned(),
            ));
        }
    };
    let backoff = BackoffConfig::from_settings(
        args.certificate_request_minimum_backoff_duration,
        args.certificate_request_maximum_backoff_duration,
    )
    .map_err(|e| StatusError::Usage(format!("invalid backoff: {e}")))?;
    Ok((name, backoff))
}

/// The snapshot in the chosen format.
pub fn format(
    snapshot: &snapshot::CertificateSnapshot,
    output: ReportFormat,
) -> Result<String, StatusError> {
    match output {
        ReportFormat::Text => Ok(render::text(snapshot)),
        ReportFormat::Json => serde_json::to_string_pretty(snapshot)
            .map(|text| text + "\n")
            .map_err(|e| StatusError::Usage(format!("cannot serialize the status as JSON: {e}"))),
        ReportFormat::Yaml => serde_saphyr::to_string(snapshot)
            .map_err(|e| StatusError::Usage(format!("cannot serialize the status as YAML: {e}"))),
    }
}

/// Runs the command; the status, or the error, goes to `out`.
pub fn run(args: &CertificateArgs, out: &mut dyn Write) -> ExitCode {
    let result = validate(args).and_then(|(name, backoff)| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StatusError::Usage(format!("cannot start the async runtime: {e}")))?;
        let gathered = runtime.block_on(gather(args, &name))?;
        format(&snapshot::snapshot(&gathered, &backoff, Utc::now()), args.output)
    });
    let (text, code) = match result {
        Ok(text) => (text, ExitCode::SUCCESS),
        Err(error) => (format!("{error}\n"), ExitCode::FAILURE),
    };
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    code
}

async fn gather(args: &CertificateArgs, name: &str) -> Result<Gathered, StatusError> {
    let connection = args.cluster.connect().await.map_err(|e| StatusError::Usage(e.to_string()))?;
    let namespace = args.namespace.clone().unwrap_or(connection.default_namespace);
    let client = connection.client;

    let certificates: Api<Certificate> = Api::namespaced(client.clone(), &namespace);
    let certificate = certificates.get(name).await.map_err(|e| {
        match crate::shared::unreachable::message(&connection.server, &e) {
            Some(message) => StatusError::Unreachable(message),
            None => {
                StatusError::Usage(format!("error when getting Certificate resource: {}", text(e)))
            }
        }
    })?;
    let uid = certificate.metadata.uid.clone().unwrap_or_default();
    let certificate_events = events(&client, &namespace, "Certificate", name, &uid).await;
    let issuer = issuer(&client, &namespace, &certificate).await;

    let secret_name = certificate.spec.secret_name.clone();
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &namespace);
    let secret = match secrets.get(&secret_name).await {
        // Only the certificate is kept; the private key is dropped here, never printed.
        Ok(secret) => Ok(SecretFacts {
            name: secret.metadata.name.unwrap_or(secret_name),
            tls_crt: secret.data.and_then(|mut data| data.remove("tls.crt")).map(|b| b.0),
        }),
        Err(e) => Err(format!(
            "error when finding Secret {}: {}",
            certgate_api::gofmt::quote(&secret_name),
            text(e)
        )),
    };

    let requests_api: Api<CertificateRequest> = Api::namespaced(client.clone(), &namespace);
    let requests = requests_api
        .list(&ListParams::default())
        .await
        .map(|l| l.items)
        .map_err(|e| format!("error when listing CertificateRequest resources: {}", text(e)));
    let chosen = requests.as_ref().ok().and_then(|all| {
        snapshot::select_request(&certificate, all).ok().flatten().map(|r| {
            (
                r.metadata.name.clone().unwrap_or_default(),
                r.metadata.uid.clone().unwrap_or_default(),
            )
        })
    });
    let request_events = match chosen {
        Some((request, uid)) => {
            events(&client, &namespace, "CertificateRequest", &request, &uid).await
        }
        None => Ok(Vec::new()),
    };
    Ok(Gathered { certificate, certificate_events, issuer, secret, requests, request_events })
}

/// The issuer named by the Certificate, as cmctl looks it up (an empty kind is `Issuer`,
/// other API groups are not read).
async fn issuer(
    client: &kube::Client,
    namespace: &str,
    certificate: &Certificate,
) -> Result<IssuerFacts, String> {
    let reference = &certificate.spec.issuer_ref;
    let kind = reference.kind.clone().filter(|k| !k.is_empty()).unwrap_or_else(|| "Issuer".into());
    let group = reference.group.as_deref().unwrap_or_default();
    if !group.is_empty() && group != certgate_api::cert_manager::GROUP {
        return Err(format!(
            "The {kind} {} is not of the group cert-manager.io, this command currently does not \
             support third party issuers. To get more information about {}, try 'kubectl describe'",
            certgate_api::gofmt::quote(&reference.name),
            certgate_api::gofmt::quote(&reference.name)
        ));
    }
    let name = reference.name.clone();
    let conditions = if kind == "ClusterIssuer" {
        let api: Api<ClusterIssuer> = Api::all(client.clone());
        api.get(&name)
            .await
            .map(|i| i.status.and_then(|s| s.conditions).unwrap_or_default())
            .map_err(|e| format!("error when getting ClusterIssuer: {}", text(e)))?
    } else {
        let api: Api<Issuer> = Api::namespaced(client.clone(), namespace);
        api.get(&name)
            .await
            .map(|i| i.status.and_then(|s| s.conditions).unwrap_or_default())
            .map_err(|e| format!("error when getting Issuer: {}", text(e)))?
    };
    Ok(IssuerFacts { kind, name, conditions })
}

/// The events about one object, oldest first, selected as kubectl describe selects them.
async fn events(
    client: &kube::Client,
    namespace: &str,
    kind: &str,
    name: &str,
    uid: &str,
) -> Result<Vec<EventFacts>, String> {
    let api: Api<Event> = Api::namespaced(client.clone(), namespace);
    let selector = format!(
        "involvedObject.kind={kind},involvedObject.name={name},involvedObject.namespace={namespace},involvedObject.uid={uid}"
    );
    let list = api.list(&ListParams::default().fields(&selector)).await.map_err(text)?;
    let mut items: Vec<(i64, EventFacts)> = list
        .items
        .into_iter()
        .map(|e| {
            let seen = e
                .last_timestamp
                .map(|t| t.0.as_second())
                .or_else(|| e.event_time.map(|t| t.0.as_second()))
                .or_else(|| e.metadata.creation_timestamp.map(|t| t.0.as_second()));
            let facts = EventFacts {
                type_: e.type_.unwrap_or_default(),
                reason: e.reason.unwrap_or_default(),
                message: e.message.unwrap_or_default(),
                count: e.count,
                last_seen: seen.map(snapshot::unix_time),
                from: e.source.and_then(|s| s.component).or(e.reporting_component),
            };
            (seen.unwrap_or_default(), facts)
        })
        .collect();
    items.sort_by_key(|(seen, _)| *seen);
    Ok(items.into_iter().map(|(_, facts)| facts).collect())
}

/// An API error as Go's `%v` prints it (its message), anything else as itself.
fn text(err: kube::Error) -> String {
    match err {
        kube::Error::Api(status) => status.message,
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
