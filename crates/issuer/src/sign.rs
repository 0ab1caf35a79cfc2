//! One pass of the `certificaterequests-issuer-ca` and `certificaterequests-issuer-selfsigned`
//! controllers over a request, as pure functions of a snapshot (cert-manager's
//! `pkg/controller/certificaterequests/sync.go` with `ca/ca.go` and
//! `selfsigned/selfsigned.go` as its `Sign`):
//!
//! 1. [`gate`]: `certgate_issuance::signing_gate` then `issuer_gate` over the request and the
//!    issuer the stores hold; either finished ([`Step::Done`]) or the Secret to read;
//! 2. [`sign`]: with what reading that Secret found, the certificate signed by
//!    `certgate_pki::issue`, or the Pending or Failed report cert-manager writes.
//!
//! Both return the request's new status (only when it changed: upstream writes nothing
//! when the status is semantically equal) and the events to record.

use base64::Engine as _;
use certgate_api::CertificateRequest;
use certgate_api::cert_manager::IssuerConfig;
use certgate_api::certificate_request::{CertificateRequestCondition, CertificateRequestStatus};
use certgate_gofmt::GoDuration;
use certgate_issuance::signing::{
    self, IssuerGate, IssuerInput, IssuerLookup, SigningGate, SigningInput,
};
use certgate_issuance::{Condition, Event, Report};
use certgate_pki::issue::{
    CaKeyPair, EMPTY_ISSUER_DN_MESSAGE, IssueError, IssuerKind, IssuerUrls,
    PRIVATE_KEY_SECRET_ANNOTATION, RequestSpec, parse_private_key, sign_self_signed, sign_with_ca,
    template_from_request,
};
use chrono::{DateTime, Utc};

use crate::setup::{SecretLookup, secret_not_found};

/// Which issuer type a controller signs for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signer {
    Ca,
    SelfSigned,
}

impl Signer {
    /// The issuer type's name in an issuer spec (`NameForIssuer`).
    pub fn issuer_type(self) -> &'static str {
        match self {
            Signer::Ca => "ca",
            Signer::SelfSigned => "selfSigned",
        }
    }

    fn kind(self) -> IssuerKind {
        match self {
            Signer::Ca => IssuerKind::Ca,
            Signer::SelfSigned => IssuerKind::SelfSigned,
        }
    }
}

/// The issuer a request references, as the issuer stores hold it.
#[derive(Clone, Copy, Debug)]
pub enum IssuerFound<'a> {
    NotFound,
    Found {
        config: &'a IssuerConfig,
        /// It has a `Ready=True` condition.
        ready: bool,
        /// Where its Secrets live (the request's namespace for an Issuer, the cluster
        /// resource namespace for a ClusterIssuer).
        resource_namespace: &'a str,
    },
}

/// What a pass decided.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The request's new status, when it differs from the current one.
    pub status: Option<CertificateRequestStatus>,
    /// Events to record about the request, in order.
    pub events: Vec<Event>,
    /// The metrics result: `issued`, `failed`, `pending`, `denied`, `waiting`, `skipped`.
    pub result: &'static str,
    /// Retry with back-off after writing (upstream returns an error to its queue).
    pub retry: bool,
}

/// The first stage's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Done(Outcome),
    /// Read this Secret, then call [`sign`].
    ReadSecret {
        namespace: String,
        name: String,
    },
}

/// `spec.issuerRef.kind` as upstream reads it (`Issuer` when empty).
pub fn issuer_kind(cr: &CertificateRequest) -> &str {
    match cr.spec.issuer_ref.kind.as_deref() {
        None | Some("") => "Issuer",
        Some(kind) => kind,
    }
}

/// A request's `status.conditions` as the issuance decisions read them.
pub(crate) fn conditions(cr: &CertificateRequest) -> Vec<Condition<'_>> {
    cr.status
        .as_ref()
        .and_then(|s| s.conditions.as_deref())
        .unwrap_or_default()
        .iter()
        .map(|c| {
            Condition::new(
                &c.type_,
                &c.status,
                c.reason.as_deref().unwrap_or_default(),
                c.message.as_deref().unwrap_or_default(),
            )
        })
        .collect()
}

fn failure_time(cr: &CertificateRequest) -> Option<DateTime<Utc>> {
    let text = cr.status.as_ref()?.failure_time.as_deref()?;
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.with_timezone(&Utc))
}

/// Kubernetes' time text: RFC 3339, UTC, whole seconds.
fn time_text(at: DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn skipped() -> Step {
    Step::Done(Outcome { status: None, events: Vec::new(), result: "skipped", retry: false })
}

/// The first stage: gates, issuer lookup, and which Secret signing needs.
pub fn gate(
    signer: Signer,
    cr: &CertificateRequest,
    issuer: IssuerFound<'_>,
    now: DateTime<Utc>,
) -> Step {
    let conditions = conditions(cr);
    let failure = failure_time(cr);
    let input = SigningInput {
        issuer_group: cr.spec.issuer_ref.group.as_deref().unwrap_or_default(),
        conditions: &conditions,
        failure_time: failure,
        now,
    };
    match signing::signing_gate(&input) {
        SigningGate::NotOurs
        | SigningGate::InvalidRequest
        | SigningGate::AlreadyFailed
        | SigningGate::AlreadyIssued => return skipped(),
        SigningGate::Denied(report) => {
            return Step::Done(reported(cr, &report, now, "denied", false));
        }
        SigningGate::WaitingForApproval(event) => {
            return Step::Done(Outcome {
                status: None,
                events: vec![event],
                result: "waiting",
                retry: false,
            });
        }
        SigningGate::FetchIssuer => {}
    }
    let kind = issuer_kind(cr);
    let name = cr.spec.issuer_ref.name.as_str();
    let not_found = format!("{}.cert-manager.io {name:?} not found", kind.to_ascii_lowercase());
    let namespace = if kind == "ClusterIssuer" {
        ""
    } else {
        cr.metadata.namespace.as_deref().unwrap_or_default()
    };
    let (lookup, found) = match issuer {
        IssuerFound::NotFound => (IssuerLookup::NotFound { error: &not_found }, None),
        IssuerFound::Found { config, ready, resource_namespace } => match config.issuer_type() {
            None => (IssuerLookup::NoIssuerType { namespace, name }, None),
            Some(type_) => (
                IssuerLookup::Found { ours: type_ == signer.issuer_type(), ready },
                Some((config, resource_namespace)),
            ),
        },
    };
    let input = IssuerInput {
        issuer_kind: cr.spec.issuer_ref.kind.as_deref().unwrap_or_default(),
        conditions: &conditions,
        lookup,
        has_certificate: cr
            .status
            .as_ref()
            .and_then(|s| s.certificate.as_deref())
            .is_some_and(|c| !c.is_empty()),
    };
    match signing::issuer_gate(&input) {
        IssuerGate::Pending(report) => Step::Done(reported(cr, &report, now, "pending", false)),
        IssuerGate::NotOurs | IssuerGate::AlreadySigned => skipped(),
        IssuerGate::Sign => {
            let Some((config, resource_namespace)) = found else { return skipped() };
            match signer {
                Signer::Ca => Step::ReadSecret {
                    namespace: resource_namespace.to_owned(),
                    name: config.ca.as_ref().map(|ca| ca.secret_name.clone()).unwrap_or_default(),
                },
                Signer::SelfSigned => {
                    let annotation = cr
                        .metadata
                        .annotations
                        .as_ref()
                        .and_then(|a| a.get(PRIVATE_KEY_SECRET_ANNOTATION))
                        .filter(|name| !name.is_empty());
                    match annotation {
                        Some(name) => Step::ReadSecret {
                            namespace: cr.metadata.namespace.clone().unwrap_or_default(),
                            name: name.clone(),
                        },
                        None => {
                            let message = format!(
                                "Annotation {PRIVATE_KEY_SECRET_ANNOTATION:?} missing or reference empty"
                            );
                            let report = certgate_issuance::report::failed(
                                "MissingAnnotation",
                                &message,
                                "secret name missing",
                                failure,
                                now,
                            );
                            Step::Done(reported(cr, &report, now, "failed", false))
                        }
                    }
                }
            }
        }
    }
}

/// The second stage: sign with what reading the Secret of [`Step::ReadSecret`] found.
/// `config` and `resource_namespace` are the issuer's, `serial_random` 20 bytes from a
/// cryptographic random source.
#[allow(clippy::too_many_arguments)]
pub fn sign(
    signer: Signer,
    cr: &CertificateRequest,
    config: &IssuerConfig,
    resource_namespace: &str,
    secret_name: &str,
    secret: SecretLookup<'_>,
    now: DateTime<Utc>,
    serial_random: &[u8; 20],
) -> Outcome {
    let failure = failure_time(cr);
    let pending = |reason: &str, message: String, error: &str, retry: bool| {
        let current = certgate_issuance::condition::ready_reason(&conditions(cr));
        let report = certgate_issuance::report::pending(reason, &message, Some(error), current);
        reported(cr, &report, now, "pending", retry)
    };
    let failed = |error: IssueError, retry: bool| {
        let (message, detail) = split(&error);
        let report = certgate_issuance::report::failed(
            error.reason(signer.kind()),
            message,
            &detail,
            failure,
            now,
        );
        reported(cr, &report, now, "failed", retry)
    };
    let cr_namespace = cr.metadata.namespace.as_deref().unwrap_or_default();
    let secret_namespace = match signer {
        Signer::Ca => resource_namespace,
        Signer::SelfSigned => cr_namespace,
    };
    let data = match secret {
        SecretLookup::Found(data) => data,
        SecretLookup::NotFound => {
            let reason = match signer {
                Signer::Ca => "SecretMissing",
                Signer::SelfSigned => "MissingSecret",
            };
            let message = format!("Referenced secret {secret_namespace}/{secret_name} not found");
            return pending(reason, message, &secret_not_found(secret_name), false);
        }
        SecretLookup::Error(error) => {
            let (reason, namespace) = match signer {
                Signer::Ca => ("SecretGetError", resource_namespace),
                Signer::SelfSigned => ("ErrorGettingSecret", resource_namespace),
            };
            let message =
                format!("Failed to get certificate key pair from secret {namespace}/{secret_name}");
            return pending(reason, message, error, true);
        }
    };
    let duration = match cr.spec.duration.as_deref().map(GoDuration::parse).transpose() {
        Ok(duration) => duration,
        Err(error) => {
            let report = certgate_issuance::report::failed(
                match signer {
                    Signer::Ca => "SigningError",
                    Signer::SelfSigned => "ErrorGenerating",
                },
                "Error generating certificate template",
                &error.to_string(),
                failure,
                now,
            );
            return reported(cr, &report, now, "failed", false);
        }
    };
    let spec = RequestSpec {
        request: &cr.spec.request,
        duration,
        usages: cr.spec.usages.as_deref().unwrap_or_default(),
        is_ca: cr.spec.is_ca.unwrap_or(false),
    };
    let mut events = Vec::new();
    let issued = match signer {
        Signer::Ca => {
            let invalid = |error: String| {
                let message = format!(
                    "Failed to parse signing CA keypair from secret {resource_namespace}/{secret_name}"
                );
                pending("SecretInvalidData", message, &error, false)
            };
            let Some(key) = data.get("tls.key") else {
                return invalid(format!(
                    "no private key data for \"tls.key\" in secret '{resource_namespace}/{secret_name}'"
                ));
            };
            let Some(certificate) = data.get("tls.crt") else {
                return invalid(format!(
                    "no certificate data for \"tls.crt\" in secret '{resource_namespace}/{secret_name}'"
                ));
            };
            let ca = match CaKeyPair::from_secret(
                certificate,
                key,
                data.get("ca.crt").map(Vec::as_slice),
            ) {
                Ok(ca) => ca,
                Err(error) => return invalid(error.to_string()),
            };
            let template = match template_from_request(&spec, now.into()) {
                Ok(template) => template,
                Err(error) => return failed(error.into(), false),
            };
            let ca_config = config.ca.as_ref();
            let urls = IssuerUrls {
                crl_distribution_points: ca_config
                    .and_then(|c| c.crl_distribution_points.clone())
                    .unwrap_or_default(),
                ocsp_servers: ca_config.and_then(|c| c.ocsp_servers.clone()).unwrap_or_default(),
                issuing_certificate_urls: ca_config
                    .and_then(|c| c.issuing_certificate_urls.clone())
                    .unwrap_or_default(),
            };
            match sign_with_ca(&template, &ca, &urls, serial_random) {
                Ok(issued) => issued,
                // Upstream returns the signing error to its queue (the request is Failed
                // by then, so the retry finds it finished).
                Err(error) => return failed(error, true),
            }
        }
        Signer::SelfSigned => {
            let invalid = |error: String| {
                let message = format!(
                    "Failed to get key {secret_name:?} referenced in annotation {PRIVATE_KEY_SECRET_ANNOTATION:?}"
                );
                pending("ErrorParsingKey", message, &error, false)
            };
            let Some(key) = data.get("tls.key") else {
                return invalid(format!(
                    "no data for \"tls.key\" in secret '{cr_namespace}/{secret_name}'"
                ));
            };
            let key = match parse_private_key(key) {
                Ok(key) => key,
                Err(error) => return invalid(error.to_string()),
            };
            let template = match template_from_request(&spec, now.into()) {
                Ok(template) => template,
                Err(error) => return failed(error.into(), false),
            };
            if template.subject_is_empty() {
                events.push(Event {
                    warning: true,
                    reason: "BadConfig".to_owned(),
                    message: EMPTY_ISSUER_DN_MESSAGE.to_owned(),
                });
            }
            let crl = config
                .self_signed
                .as_ref()
                .and_then(|s| s.crl_distribution_points.clone())
                .unwrap_or_default();
            match sign_self_signed(&template, &key, &crl, serial_random) {
                Ok(issued) => issued,
                Err(error) => {
                    let mut outcome = failed(error, false);
                    events.append(&mut outcome.events);
                    outcome.events = events;
                    return outcome;
                }
            }
        }
    };
    let decoded = match certgate_pki::pem::decode(issued.chain_pem.as_bytes()) {
        Some(_) => Ok(()),
        None => Err("error decoding certificate PEM block"),
    };
    let report = signing::after_signing(decoded, signer == Signer::Ca, failure, now);
    let mut status = cr.status.clone().unwrap_or_default();
    let engine = base64::engine::general_purpose::STANDARD;
    status.certificate = Some(engine.encode(issued.chain_pem.as_bytes()));
    status.ca = Some(engine.encode(issued.ca_pem.as_bytes()));
    let mut outcome = with_status(cr, status, &report, now, "issued", false);
    events.append(&mut outcome.events);
    outcome.events = events;
    outcome
}

/// cert-manager's `<message>` and `<error>` of an issuing failure.
fn split(error: &IssueError) -> (&'static str, String) {
    match error {
        IssueError::Template(error) => ("Error generating certificate template", error.to_string()),
        IssueError::KeyMismatch => (
            "Error generating certificate template",
            "CSR not signed by referenced private key".to_owned(),
        ),
        IssueError::Signing(error) => ("Error signing certificate", error.to_string()),
    }
}

fn reported(
    cr: &CertificateRequest,
    report: &Report,
    now: DateTime<Utc>,
    result: &'static str,
    retry: bool,
) -> Outcome {
    with_status(cr, cr.status.clone().unwrap_or_default(), report, now, result, retry)
}

/// Writes `report` into `status` and compares it with the request's.
fn with_status(
    cr: &CertificateRequest,
    mut status: CertificateRequestStatus,
    report: &Report,
    now: DateTime<Utc>,
    result: &'static str,
    retry: bool,
) -> Outcome {
    set_condition(&mut status, report, &time_text(now));
    if let Some(failure) = report.failure_time {
        status.failure_time = Some(time_text(failure));
    }
    let changed = cr.status.as_ref() != Some(&status);
    Outcome {
        status: changed.then_some(status),
        events: report.event.iter().cloned().collect(),
        result,
        retry,
    }
}

/// `SetCertificateRequestCondition`: the transition time is kept when a condition of the
/// type already has this status, else `now`; the condition is replaced in place or
/// appended.
fn set_condition(status: &mut CertificateRequestStatus, report: &Report, now: &str) {
    let update = &report.ready;
    let mut new = CertificateRequestCondition {
        type_: update.type_.to_owned(),
        status: update.status.to_owned(),
        reason: Some(update.reason.clone()),
        message: Some(update.message.clone()),
        last_transition_time: Some(now.to_owned()),
    };
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    match conditions.iter_mut().find(|c| c.type_ == update.type_) {
        Some(existing) => {
            if existing.status == update.status {
                new.last_transition_time = existing.last_transition_time.clone();
            }
            *existing = new;
        }
        None => conditions.push(new),
    }
}

#[cfg(test)]
mod tests;
