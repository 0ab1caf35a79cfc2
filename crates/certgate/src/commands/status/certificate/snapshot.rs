//! Where a Certificate stands, as one document built from the objects read from the cluster
//! ([`Gathered`]) and the time: no I/O here, so every fact and every wording is unit-tested.
//! `-o json|yaml` serialize [`CertificateSnapshot`] as is; `-o text` renders it
//! ([`super::render`]).

use certgate_api::CertificateRequest;
use certgate_api::cert_manager::{Certificate, Condition, condition_type};
use certgate_api::certificate_request::CertificateRequestCondition;
use certgate_issuance::backoff::{self, Backoff, BackoffConfig, FailureRecord, NextRequest};
use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serialize;

/// The annotation carrying a CertificateRequest's revision.
pub const REVISION_ANNOTATION: &str = "cert-manager.io/certificate-revision";

/// What the thin fetching layer read. Each related object is the object or the error text
/// that says why it could not be read; only the Certificate itself is required.
#[derive(Debug)]
pub struct Gathered {
    pub certificate: Certificate,
    pub certificate_events: Result<Vec<EventFacts>, String>,
    pub issuer: Result<IssuerFacts, String>,
    pub secret: Result<SecretFacts, String>,
    /// The CertificateRequests of the Certificate's namespace.
    pub requests: Result<Vec<CertificateRequest>, String>,
    /// The events of the request [`select_request`] chose.
    pub request_events: Result<Vec<EventFacts>, String>,
}

/// The issuer the Certificate names, as read.
#[derive(Debug, Clone, Default)]
pub struct IssuerFacts {
    pub kind: String,
    pub name: String,
    pub conditions: Vec<Condition>,
}

/// The Secret's public part: its name and `tls.crt` (never the private key).
#[derive(Debug, Clone, Default)]
pub struct SecretFacts {
    pub name: String,
    pub tls_crt: Option<Vec<u8>>,
}

/// One Event about an object.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventFacts {
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_seen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

/// The document `certgate status certificate` prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CertificateSnapshot {
    pub name: String,
    pub namespace: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
    pub conditions: Vec<ConditionView>,
    pub dns_names: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    /// `status.notBefore`, `status.notAfter`, `status.renewalTime`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_after: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renewal_time: Option<String>,
    pub events: EventsView,
    pub issuer: IssuerView,
    pub secret: SecretView,
    pub certificate_request: RequestView,
    /// Present when `status.lastFailureTime` is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<RetryView>,
}

/// A condition of the Certificate, its issuer or its request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConditionView {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

/// Events, or why they could not be listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventsView {
    pub items: Vec<EventFacts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The issuer: its reference, and its conditions when it could be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IssuerView {
    pub kind: String,
    pub name: String,
    pub group: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<ConditionView>,
    pub conditions: Vec<ConditionView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The Secret and the certificate in its `tls.crt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretView {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certificate: Option<X509View>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The leaf certificate of `tls.crt`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct X509View {
    pub subject: String,
    pub issuer: String,
    pub serial_number: String,
    pub not_before: String,
    pub not_after: String,
    #[serde(rename = "isCA")]
    pub is_ca: bool,
}

/// Which revision's request is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RequestRole {
    /// `status.revision + 1`: the issuance in progress (or the first one).
    Next,
    /// `status.revision`: the request of the certificate in the Secret.
    Current,
}

/// The CertificateRequest of the chosen revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestView {
    pub revision: i64,
    pub role: RequestRole,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `Approved` or `Denied`, with its reason and message (a policy approver's message says
    /// which policy decided); absent while nobody decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<ConditionView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<ConditionView>,
    pub conditions: Vec<ConditionView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events: Option<EventsView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where the retry of a failed issuance stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RetryView {
    pub last_failure_time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_issuance_attempts: Option<i64>,
    pub state: RetryState,
    /// The backoff after this many failures (a Go duration).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backoff: Option<String>,
    /// `lastFailureTime + backoff`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_attempt: Option<String>,
    /// From now until `nextAttempt` (a Go duration), while waiting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The retry's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RetryState {
    /// The backoff holds the next issuance until `nextAttempt`.
    Waiting,
    /// The backoff is over: the next issuance may start now.
    Due,
    /// `Issuing=True`: an issuance is under way (`certgate renew`, or the trigger
    /// controller); the backoff does not hold it.
    Issuing,
    /// `lastFailureTime` does not parse.
    Unknown,
}

/// Which request a Certificate's status is about: the next revision (`status.revision + 1`,
/// or 1 before the first issuance) while `Issuing=True` or before any revision, else the
/// current one.
pub fn wanted_revision(certificate: &Certificate) -> (i64, RequestRole) {
    let status = certificate.status.clone().unwrap_or_default();
    let issuing = status.condition(condition_type::ISSUING).is_some_and(Condition::is_true);
    match status.revision {
        Some(revision) if !issuing => (revision, RequestRole::Current),
        Some(revision) => (revision.saturating_add(1), RequestRole::Next),
        None => (1, RequestRole::Next),
    }
}

/// The request of [`wanted_revision`] among `requests`: owned by the Certificate (an owner
/// reference with its UID) and annotated with that revision. None found is `Ok(None)`; more
/// than one is an error, as cmctl reports it.
pub fn select_request<'a>(
    certificate: &Certificate,
    requests: &'a [CertificateRequest],
) -> Result<Option<&'a CertificateRequest>, String> {
    let (revision, _) = wanted_revision(certificate);
    let uid = certificate.metadata.uid.as_deref().unwrap_or_default();
    let wanted = revision.to_string();
    let mut matching = requests.iter().filter(|request| {
        let owned = request
            .metadata
            .owner_references
            .iter()
            .flatten()
            .any(|owner| !uid.is_empty() && owner.uid == uid);
        let annotated = request
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(REVISION_ANNOTATION))
            .is_some_and(|r| *r == wanted);
        owned && annotated
    });
    let first = matching.next();
    if matching.next().is_some() {
        return Err(
            "found multiple certificate requests with expected revision and owner".to_owned()
        );
    }
    Ok(first)
}

/// The snapshot of `gathered` at `now`, the retry computed with `backoff` (the
/// certificates controller's settings).
pub fn snapshot(
    gathered: &Gathered,
    backoff: &BackoffConfig,
    now: DateTime<Utc>,
) -> CertificateSnapshot {
    let certificate = &gathered.certificate;
    let status = certificate.status.clone().unwrap_or_default();
    let conditions: Vec<ConditionView> =
        status.conditions.iter().flatten().map(certificate_condition).collect();
    CertificateSnapshot {
        name: certificate.metadata.name.clone().unwrap_or_default(),
        namespace: certificate.metadata.namespace.clone().unwrap_or_default(),
        created_at: certificate
            .metadata
            .creation_timestamp
            .as_ref()
            .map(|t| unix_time(t.0.as_second())),
        conditions,
        dns_names: certificate.spec.dns_names.clone().unwrap_or_default(),
        revision: status.revision,
        not_before: status.not_before.clone(),
        not_after: status.not_after.clone(),
        renewal_time: status.renewal_time.clone(),
        events: events(&gathered.certificate_events),
        issuer: issuer(certificate, &gathered.issuer),
        secret: secret(certificate, &gathered.secret),
        certificate_request: request(certificate, gathered),
        retry: retry(certificate, next_request(certificate, gathered), backoff, now),
    }
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn certificate_condition(c: &Condition) -> ConditionView {
    ConditionView {
        type_: c.type_.clone(),
        status: c.status.clone(),
        reason: c.reason.clone(),
        message: c.message.clone(),
        last_transition_time: c.last_transition_time.clone(),
    }
}

fn request_condition(c: &CertificateRequestCondition) -> ConditionView {
    ConditionView {
        type_: c.type_.clone(),
        status: c.status.clone(),
        reason: c.reason.clone(),
        message: c.message.clone(),
        last_transition_time: c.last_transition_time.clone(),
    }
}

fn events(read: &Result<Vec<EventFacts>, String>) -> EventsView {
    match read {
        Ok(items) => EventsView { items: items.clone(), error: None },
        Err(error) => EventsView { items: Vec::new(), error: Some(error.clone()) },
    }
}

fn issuer(certificate: &Certificate, read: &Result<IssuerFacts, String>) -> IssuerView {
    let reference = &certificate.spec.issuer_ref;
    let mut view = IssuerView {
        kind: reference.kind.clone().filter(|k| !k.is_empty()).unwrap_or_else(|| "Issuer".into()),
        name: reference.name.clone(),
        group: reference
            .group
            .clone()
            .filter(|g| !g.is_empty())
            .unwrap_or_else(|| certgate_api::cert_manager::GROUP.to_owned()),
        ready: None,
        conditions: Vec::new(),
        error: None,
    };
    match read {
        Ok(facts) => {
            view.conditions = facts.conditions.iter().map(certificate_condition).collect();
            view.ready = view.conditions.iter().find(|c| c.type_ == "Ready").cloned();
        }
        Err(error) => view.error = Some(error.clone()),
    }
    view
}

fn secret(certificate: &Certificate, read: &Result<SecretFacts, String>) -> SecretView {
    let name = certificate.spec.secret_name.clone();
    let facts = match read {
        Ok(facts) => facts,
        Err(error) => return SecretView { name, certificate: None, error: Some(error.clone()) },
    };
    let Some(pem) = facts.tls_crt.as_deref().filter(|pem| !pem.is_empty()) else {
        return SecretView {
            name,
            certificate: None,
            error: Some(format!(
                "'tls.crt' of Secret {} is not set",
                certgate_api::gofmt::quote(&facts.name)
            )),
        };
    };
    let parse_error = |detail: String| SecretView {
        name: facts.name.clone(),
        certificate: None,
        error: Some(format!(
            "cannot parse 'tls.crt' of Secret {}: {detail}",
            certgate_api::gofmt::quote(&facts.name)
        )),
    };
    let chain = match certgate_crl::parse_chain_pem(pem, &certgate_crl::Limits::default()) {
        Ok(chain) => chain,
        Err(error) => return parse_error(error.to_string()),
    };
    match chain.into_iter().next() {
        Some(Ok(leaf)) => SecretView {
            name: facts.name.clone(),
            certificate: Some(X509View {
                subject: leaf.subject.clone(),
                issuer: leaf.issuer.clone(),
                serial_number: leaf.serial.clone(),
                not_before: unix_time(leaf.not_before.unix()),
                not_after: unix_time(leaf.not_after.unix()),
                is_ca: leaf.is_ca,
            }),
            error: None,
        },
        Some(Err(error)) => parse_error(error.to_string()),
        None => parse_error("no CERTIFICATE block".to_owned()),
    }
}

pub(super) fn unix_time(secs: i64) -> String {
    DateTime::<Utc>::from_timestamp(secs, 0).map_or_else(|| secs.to_string(), time)
}

fn request(certificate: &Certificate, gathered: &Gathered) -> RequestView {
    let (revision, role) = wanted_revision(certificate);
    let mut view = RequestView {
        revision,
        role,
        name: None,
        approval: None,
        ready: None,
        conditions: Vec::new(),
        events: None,
        error: None,
    };
    let requests = match &gathered.requests {
        Ok(requests) => requests,
        Err(error) => {
            view.error = Some(error.clone());
            return view;
        }
    };
    match select_request(certificate, requests) {
        Err(error) => view.error = Some(error),
        Ok(None) => {
            view.error = Some("No CertificateRequest found for this Certificate".to_owned());
        }
        Ok(Some(found)) => {
            view.name = found.metadata.name.clone();
            view.conditions = found
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .into_iter()
                .flatten()
                .map(request_condition)
                .collect();
            let decided = |type_: &str| {
                view.conditions.iter().find(|c| c.type_ == type_ && c.status == "True").cloned()
            };
            view.approval = decided("Denied").or_else(|| decided("Approved"));
            view.ready = view.conditions.iter().find(|c| c.type_ == "Ready").cloned();
            view.events = Some(events(&gathered.request_events));
        }
    }
    view
}

/// The request of the next revision (`status.revision + 1`) against the spec, as the
/// certificates controller's backoff compares them.
fn next_request(certificate: &Certificate, gathered: &Gathered) -> NextRequest {
    let next = certificate.status.as_ref().and_then(|s| s.revision).unwrap_or(0).saturating_add(1);
    let uid = certificate.metadata.uid.as_deref().unwrap_or_default();
    let request = gathered.requests.as_ref().ok().and_then(|requests| {
        requests.iter().find(|request| {
            let owned = request
                .metadata
                .owner_references
                .iter()
                .flatten()
                .any(|o| !uid.is_empty() && o.uid == uid);
            let revision =
                request.metadata.annotations.as_ref().and_then(|a| a.get(REVISION_ANNOTATION));
            owned && revision.is_some_and(|r| *r == next.to_string())
        })
    });
    certgate_issuer::certificates::next_request(certificate, request)
}

fn retry(
    certificate: &Certificate,
    next_request: NextRequest,
    config: &BackoffConfig,
    now: DateTime<Utc>,
) -> Option<RetryView> {
    let status = certificate.status.as_ref()?;
    let last_failure_time = status.last_failure_time.clone()?;
    let mut view = RetryView {
        last_failure_time: last_failure_time.clone(),
        failed_issuance_attempts: status.failed_issuance_attempts,
        state: RetryState::Unknown,
        backoff: None,
        next_attempt: None,
        remaining: None,
        error: None,
    };
    let last_failure = match DateTime::parse_from_rfc3339(&last_failure_time) {
        Ok(at) => at.with_timezone(&Utc),
        Err(error) => {
            view.error = Some(format!(
                "status.lastFailureTime {} is not an RFC 3339 time: {error}",
                certgate_api::gofmt::quote(&last_failure_time)
            ));
            return Some(view);
        }
    };
    let delay = config.delay(status.failed_issuance_attempts);
    view.backoff = Some(delay.to_string());
    view.next_attempt = Some(time(crate_add(last_failure, delay.0)));
    if status.condition(condition_type::ISSUING).is_some_and(Condition::is_true) {
        view.state = RetryState::Issuing;
        return Some(view);
    }
    let record = FailureRecord {
        last_failure_time: Some(last_failure),
        failed_issuance_attempts: status.failed_issuance_attempts,
    };
    // A spec changed since the failed request is issued at once, as the controller does.
    match backoff::backoff(config, &record, next_request, now) {
        Backoff::Until { until, remaining, .. } => {
            view.state = RetryState::Waiting;
            view.next_attempt = Some(time(until));
            view.remaining = Some(remaining.to_string());
        }
        Backoff::None(_) => view.state = RetryState::Due,
    }
    Some(view)
}

/// `at + nanos`, saturating at chrono's range.
fn crate_add(at: DateTime<Utc>, nanos: i64) -> DateTime<Utc> {
    at.checked_add_signed(chrono::Duration::nanoseconds(nanos)).unwrap_or(DateTime::<Utc>::MAX_UTC)
}
