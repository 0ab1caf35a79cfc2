//! The Certificate controller's decision: from a snapshot of one Certificate and what
//! belongs to it, the one next write ([`Step`]). Pure except for key generation and the
//! request's signature, which the caller performs from what the step says.
//!
//! One pass does what cert-manager splits over five controllers, in their order:
//! readiness (`Ready`, `notBefore`, `notAfter`, `renewalTime`), trigger (`Issuing=True`,
//! with the backoff), key manager (the next private key Secret), request manager (the
//! CertificateRequest of the next revision) and issuing (the Secret, or the failure). A
//! write changes what the next pass sees, so each pass makes at most one write and the
//! watches bring the Certificate back.

use std::collections::BTreeMap;
use std::time::Duration;

use certgate_api::CertificateRequest;
use certgate_api::cert_manager::Condition as CertCondition;
use certgate_api::cert_manager::{Certificate, CertificateStatus};
use certgate_issuance::backoff::{BackoffConfig, FailureRecord, NextRequest};
use certgate_issuance::condition::{ConditionUpdate, Event, TRUE, types};
use certgate_issuance::issuing::{self, Failure, IssuedCertificate, RequestOutcome, RequestState};
use certgate_issuance::trigger::{
    self, CsrKey, CurrentRequestFacts, IssuerAnnotations, IssuerRef, PolicyInput, SecretFacts,
    TriggerDecision, TriggerState, Validity,
};
use certgate_pki::generate::KeySpec;
use chrono::{DateTime, SecondsFormat, Utc};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

use super::inspect::{self, CertificateInfo};
use super::wanted::{self, Names};
use super::{annotations, labels};

/// What the controller saw.
pub(crate) struct Snapshot<'a> {
    pub(crate) certificate: &'a Certificate,
    /// `spec.secretName`, when it exists.
    pub(crate) secret: Option<&'a Secret>,
    /// The next private key Secret ([`next_key_name`]), when it exists.
    pub(crate) next_key: Option<&'a Secret>,
    /// The CertificateRequests the Certificate owns.
    pub(crate) requests: &'a [&'a CertificateRequest],
    /// No older Certificate of the namespace names the same Secret.
    pub(crate) owns_secret: bool,
    pub(crate) now: DateTime<Utc>,
    pub(crate) backoff: BackoffConfig,
}

/// Where the next private key comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NewKey {
    Generate(KeySpec),
    /// `rotationPolicy: Never`: the Secret's key, which still matches the spec.
    Reuse(Vec<u8>),
}

/// The one write of this pass.
#[derive(Clone, Debug)]
pub(crate) enum Step {
    /// Replace the Certificate's status, then record the events; `result` is what the
    /// controller counts (`triggered`, `failed`, `denied`, or `status` for bookkeeping).
    WriteStatus { status: CertificateStatus, events: Vec<Event>, result: &'static str },
    /// Create the next private key Secret `name` (owned by the Certificate).
    CreateNextKey { name: String, key: NewKey },
    /// Delete a Secret the Certificate owns (a next private key no longer wanted).
    DeleteSecret { name: String },
    /// Create this CertificateRequest; its `spec.request` is signed by the caller with the
    /// next private key, from `csr`.
    CreateRequest { request: Box<CertificateRequest>, csr: Box<certgate_pki::generate::CsrSpec> },
    /// Delete a CertificateRequest the Certificate owns.
    DeleteRequest { name: String },
    /// Write the issued Secret, then the status, then the events.
    WriteSecret { secret: Box<Secret>, status: CertificateStatus, events: Vec<Event> },
    /// Nothing to write; look again after the duration, if any. `backing_off` when a
    /// failed issuance holds the next one back.
    Wait { recheck_after: Option<Duration>, backing_off: bool },
}

fn name(certificate: &Certificate) -> &str {
    certificate.metadata.name.as_deref().unwrap_or_default()
}

fn namespace(certificate: &Certificate) -> &str {
    certificate.metadata.namespace.as_deref().unwrap_or_default()
}

/// A name of at most 253 characters: `base` shortened to leave room for `suffix`.
fn derived_name(base: &str, suffix: &str) -> String {
    let room = 253usize.saturating_sub(suffix.len());
    let mut cut = base.len().min(room);
    while !base.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{suffix}", base[..cut].trim_end_matches(['-', '.']))
}

/// The next private key Secret's name: `status.nextPrivateKeySecretName`, else
/// `<certificate>-next-key`.
pub(crate) fn next_key_name(certificate: &Certificate) -> String {
    certificate
        .status
        .as_ref()
        .and_then(|s| s.next_private_key_secret_name.clone())
        .unwrap_or_else(|| derived_name(name(certificate), "-next-key"))
}

/// The CertificateRequest of `revision`: `<certificate>-<revision>`.
pub(crate) fn request_name(certificate: &Certificate, revision: i64) -> String {
    derived_name(name(certificate), &format!("-{revision}"))
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn parse_time(text: Option<&str>) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text?).ok().map(|t| t.with_timezone(&Utc))
}

fn data<'s>(secret: &'s Secret, key: &str) -> Option<&'s [u8]> {
    secret.data.as_ref()?.get(key).map(|v| v.0.as_slice()).filter(|v| !v.is_empty())
}

fn annotation<'s>(meta: &'s ObjectMeta, key: &str) -> Option<&'s str> {
    meta.annotations.as_ref()?.get(key).map(String::as_str)
}

fn cert_conditions(certificate: &Certificate) -> &[CertCondition] {
    certificate.status.as_ref().and_then(|s| s.conditions.as_deref()).unwrap_or_default()
}

fn issuing_condition(certificate: &Certificate) -> Option<&CertCondition> {
    cert_conditions(certificate).iter().find(|c| c.type_ == types::ISSUING)
}

fn revision_of(request: &CertificateRequest) -> Option<i64> {
    annotation(&request.metadata, annotations::REVISION)?.parse().ok()
}

/// Sets a condition as cert-manager's `SetCertificateCondition` does: the transition time
/// kept while the status stays, `observedGeneration` the Certificate's generation.
fn set_condition(
    status: &mut CertificateStatus,
    update: &ConditionUpdate,
    generation: Option<i64>,
    now: &str,
) {
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    let mut new = CertCondition {
        type_: update.type_.to_owned(),
        status: update.status.to_owned(),
        last_transition_time: Some(now.to_owned()),
        reason: Some(update.reason.clone()),
        message: Some(update.message.clone()),
        observed_generation: generation,
    };
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

fn remove_condition(status: &mut CertificateStatus, type_: &str) {
    if let Some(conditions) = status.conditions.as_mut() {
        conditions.retain(|c| c.type_ != type_);
    }
}

/// What the chains read of the output Secret and the current request, owned.
struct Inspected {
    secret: Option<SecretInspection>,
    current_request: Option<(CsrKeyOwned, Option<Vec<&'static str>>)>,
}

struct SecretInspection {
    has_data: bool,
    key: Option<Result<(Vec<u8>, String), String>>,
    certificate: Option<Result<CertificateInfo, String>>,
    key_violations: Vec<&'static str>,
    certificate_violations: Vec<&'static str>,
    annotations: BTreeMap<String, String>,
}

enum CsrKeyOwned {
    Undecodable(String),
    Differs,
    Matches,
}

/// How `request` differs from the Certificate's spec (`RequestMatchesSpec`); `None` when
/// its CSR does not decode.
fn request_violations(
    certificate: &Certificate,
    request: &CertificateRequest,
) -> Option<Vec<&'static str>> {
    let csr = inspect::csr(&request.spec.request).ok()?;
    let spec = &certificate.spec;
    let mut out = csr.names.violations(&Names::of_spec(&wanted::csr_spec(certificate)));
    if request.spec.is_ca.unwrap_or(false) != spec.is_ca.unwrap_or(false) {
        out.push("spec.isCA");
    }
    let set = |v: &Option<Vec<String>>| {
        let mut v = v.clone().unwrap_or_default();
        v.sort();
        v.dedup();
        v
    };
    if set(&request.spec.usages) != set(&spec.usages) {
        out.push("spec.usages");
    }
    let duration = |d: &Option<String>| {
        d.as_deref().map(|d| certgate_gofmt::GoDuration::parse(d).map_err(|_| d.to_owned()))
    };
    if duration(&request.spec.duration) != duration(&spec.duration) {
        out.push("spec.duration");
    }
    if wanted::issuer_ref(&request.spec.issuer_ref) != wanted::issuer_ref(&spec.issuer_ref) {
        out.push("spec.issuerRef");
    }
    Some(out)
}

fn inspect_secret(certificate: &Certificate, secret: &Secret) -> SecretInspection {
    let key = data(secret, "tls.key").map(inspect::private_key);
    let parsed = data(secret, "tls.crt").map(inspect::certificate);
    let key_violations = match (&key, wanted::key_spec(certificate)) {
        (Some(Ok((_, actual))), Ok(spec)) => inspect::key_violations(actual, &spec),
        _ => vec![],
    };
    let certificate_violations = match &parsed {
        Some(Ok(info)) => {
            let mut v = info.names.violations(&Names::of_spec(&wanted::csr_spec(certificate)));
            let organizations = certificate
                .spec
                .subject
                .as_ref()
                .and_then(|s| s.organizations.clone())
                .unwrap_or_default();
            if info.organizations != organizations {
                v.push("spec.subject.organizations");
            }
            v
        }
        _ => vec![],
    };
    SecretInspection {
        has_data: secret.data.is_some(),
        key,
        certificate: parsed,
        key_violations,
        certificate_violations,
        annotations: secret.metadata.annotations.clone().unwrap_or_default(),
    }
}

fn inspect_all(snapshot: &Snapshot<'_>) -> Inspected {
    let certificate = snapshot.certificate;
    let secret = snapshot.secret.map(|s| inspect_secret(certificate, s));
    let revision = certificate.status.as_ref().and_then(|s| s.revision);
    let current = revision
        .and_then(|r| snapshot.requests.iter().find(|cr| revision_of(cr) == Some(r)).copied());
    let current_request = current.map(|request| {
        let csr_key = match inspect::csr(&request.spec.request) {
            Err(error) => CsrKeyOwned::Undecodable(error),
            Ok(csr) => match secret.as_ref().and_then(|s| s.key.as_ref()) {
                Some(Ok((spki, _))) if *spki == csr.spki => CsrKeyOwned::Matches,
                _ => CsrKeyOwned::Differs,
            },
        };
        (csr_key, request_violations(certificate, request))
    });
    Inspected { secret, current_request }
}

fn policy_input<'a>(
    snapshot: &'a Snapshot<'a>,
    inspected: &'a Inspected,
    renewal_time: Option<DateTime<Utc>>,
) -> PolicyInput<'a> {
    let certificate = snapshot.certificate;
    let issuer = &certificate.spec.issuer_ref;
    let secret = inspected.secret.as_ref().map(|s| SecretFacts {
        has_data: s.has_data,
        private_key: s.key.as_ref().map(|k| k.as_ref().map(|_| ()).map_err(String::as_str)),
        certificate: s.certificate.as_ref().map(|c| {
            c.as_ref()
                .map(|info| Validity { not_before: info.not_before, not_after: info.not_after })
                .map_err(String::as_str)
        }),
        keys_match: match (&s.key, &s.certificate) {
            (Some(Ok((spki, _))), Some(Ok(info))) => Ok(*spki == info.spki),
            _ => Ok(true),
        },
        issuer_annotations: IssuerAnnotations {
            name: s.annotations.get(annotations::ISSUER_NAME).map(String::as_str),
            kind: s.annotations.get(annotations::ISSUER_KIND).map(String::as_str),
            group: s.annotations.get(annotations::ISSUER_GROUP).map(String::as_str),
        },
        certificate_name_annotation: s
            .annotations
            .get(annotations::CERTIFICATE_NAME)
            .map(String::as_str),
        private_key_violations: &s.key_violations,
        certificate_violations: &s.certificate_violations,
    });
    let current_request =
        inspected.current_request.as_ref().map(|(key, violations)| CurrentRequestFacts {
            csr_key: match key {
                CsrKeyOwned::Undecodable(e) => CsrKey::Undecodable(e),
                CsrKeyOwned::Differs => CsrKey::Differs,
                CsrKeyOwned::Matches => CsrKey::Matches,
            },
            spec_violations: violations.as_deref(),
        });
    PolicyInput {
        certificate_name: name(certificate),
        issuer_ref: IssuerRef {
            name: &issuer.name,
            kind: issuer.kind.as_deref().unwrap_or_default(),
            group: issuer.group.as_deref().unwrap_or_default(),
        },
        renewal: wanted::renewal_spec(certificate),
        renewal_time,
        secret,
        current_request,
        now: snapshot.now,
    }
}

fn to_std(d: certgate_gofmt::GoDuration) -> Duration {
    Duration::from_nanos(u64::try_from(d.0).unwrap_or(0))
}

/// The readiness controller's writes: `Ready`, `notBefore`, `notAfter`, `renewalTime`.
fn readiness(
    snapshot: &Snapshot<'_>,
    inspected: &Inspected,
    status: &mut CertificateStatus,
    now: &str,
) {
    let certificate = snapshot.certificate;
    let info = inspected
        .secret
        .as_ref()
        .and_then(|s| s.certificate.as_ref())
        .and_then(|c| c.as_ref().ok());
    let renewal_time = info.and_then(|info| {
        certgate_issuance::renewal_time(
            info.not_before,
            info.not_after,
            &wanted::renewal_spec(certificate),
        )
    });
    status.not_before = info.map(|i| rfc3339(i.not_before));
    status.not_after = info.map(|i| rfc3339(i.not_after));
    status.renewal_time = renewal_time.map(rfc3339);
    let input = policy_input(snapshot, inspected, renewal_time);
    let ready = trigger::ready_condition(&input);
    set_condition(status, &ready, certificate.metadata.generation, now);
}

/// The next revision's request against the spec, for the backoff.
pub(crate) fn next_request_state(
    certificate: &Certificate,
    next: Option<&CertificateRequest>,
) -> NextRequest {
    match next {
        None => NextRequest::Missing,
        Some(request) => match request_violations(certificate, request) {
            None => NextRequest::Undecodable,
            Some(v) if v.is_empty() => NextRequest::MatchesSpec,
            Some(_) => NextRequest::DiffersFromSpec,
        },
    }
}

fn failures(status: &CertificateStatus) -> FailureRecord {
    FailureRecord {
        last_failure_time: parse_time(status.last_failure_time.as_deref()),
        failed_issuance_attempts: status.failed_issuance_attempts,
    }
}

fn issuance_event(event: Event) -> Vec<Event> {
    vec![event]
}

/// The pass's step.
pub(crate) fn plan(snapshot: &Snapshot<'_>) -> Step {
    let certificate = snapshot.certificate;
    let now = rfc3339(snapshot.now);
    let current = certificate.status.clone().unwrap_or_default();
    let mut status = current.clone();
    let inspected = inspect_all(snapshot);
    readiness(snapshot, &inspected, &mut status, &now);
    let issuing = issuing_condition(certificate).is_some_and(|c| c.status == TRUE);
    let next_revision = issuing::next_revision(current.revision);
    let next_requests: Vec<&CertificateRequest> = snapshot
        .requests
        .iter()
        .filter(|cr| revision_of(cr) == Some(next_revision))
        .copied()
        .collect();

    if !issuing {
        let renewal_time = parse_time(status.renewal_time.as_deref());
        let state = TriggerState {
            issuing,
            owns_secret: snapshot.owns_secret,
            failures: failures(&status),
            next_request: next_request_state(certificate, next_requests.first().copied()),
            policy: policy_input(snapshot, &inspected, renewal_time),
        };
        let mut events = Vec::new();
        let mut recheck_after = None;
        let mut backing_off = false;
        match trigger::trigger(&state, &snapshot.backoff) {
            TriggerDecision::Reissue { issuing, event, .. } => {
                set_condition(&mut status, &issuing, certificate.metadata.generation, &now);
                events.push(event);
            }
            TriggerDecision::BackingOff { remaining, .. } => {
                recheck_after = Some(to_std(remaining));
                backing_off = true;
            }
            TriggerDecision::NotSecretOwner => {
                recheck_after = Some(to_std(trigger::NOT_SECRET_OWNER_RECHECK));
            }
            TriggerDecision::UpToDate { recheck_after: at } => recheck_after = at.map(to_std),
            TriggerDecision::AlreadyIssuing => {}
        }
        // The key manager: no next private key outside an issuance.
        if events.is_empty() && status.next_private_key_secret_name.is_some() {
            status.next_private_key_secret_name = None;
        }
        if status != current {
            let result = if events.is_empty() { "status" } else { "triggered" };
            return Step::WriteStatus { status, events, result };
        }
        if snapshot.next_key.is_some() {
            return Step::DeleteSecret { name: next_key_name(certificate) };
        }
        return Step::Wait { recheck_after, backing_off };
    }

    if status != current {
        return Step::WriteStatus { status, events: vec![], result: "status" };
    }
    issue(snapshot, &inspected, status, &next_requests, next_revision, &now)
}

fn fail(
    snapshot: &Snapshot<'_>,
    mut status: CertificateStatus,
    failure: &Failure,
    now: &str,
    result: &'static str,
) -> Step {
    let writes = issuing::record_failure(failure, status.failed_issuance_attempts, snapshot.now);
    status.last_failure_time = Some(rfc3339(writes.last_failure_time));
    status.failed_issuance_attempts = Some(writes.failed_issuance_attempts);
    set_condition(&mut status, &writes.issuing, snapshot.certificate.metadata.generation, now);
    Step::WriteStatus { status, events: issuance_event(writes.event), result }
}

/// A request that failed before this issuance began: the request manager replaces it.
fn failed_before(request: &CertificateRequest, issuing_since: Option<DateTime<Utc>>) -> bool {
    let conditions = crate::sign::conditions(request);
    let failed = certgate_issuance::condition::is_denied(&conditions)
        || certgate_issuance::condition::has_invalid_request(&conditions)
        || certgate_issuance::condition::ready_reason(&conditions)
            == Some(certgate_issuance::condition::reasons::FAILED);
    let created = request
        .metadata
        .creation_timestamp
        .as_ref()
        .and_then(|t| DateTime::from_timestamp(t.0.as_second(), 0));
    failed && matches!((created, issuing_since), (Some(c), Some(s)) if c < s)
}

fn issue(
    snapshot: &Snapshot<'_>,
    inspected: &Inspected,
    mut status: CertificateStatus,
    next_requests: &[&CertificateRequest],
    next_revision: i64,
    now: &str,
) -> Step {
    let certificate = snapshot.certificate;
    let key_name = next_key_name(certificate);
    let key_spec = match wanted::key_spec(certificate) {
        Ok(spec) => spec,
        Err(error) => {
            let failure =
                Failure { reason: "InvalidPrivateKeySpec".to_owned(), message: error.to_string() };
            return fail(snapshot, status, &failure, now, "failed");
        }
    };
    // The key manager.
    let Some(next_key) = snapshot.next_key else {
        // `rotationPolicy: Never`: the Secret's key, while it is readable and fits the spec.
        let keep = wanted::keeps_key(certificate)
            && inspected
                .secret
                .as_ref()
                .is_some_and(|s| matches!(s.key, Some(Ok(_))) && s.key_violations.is_empty());
        let reusable = snapshot.secret.filter(|_| keep).and_then(|s| data(s, "tls.key"));
        let key = match reusable {
            Some(pem) => NewKey::Reuse(pem.to_vec()),
            None => NewKey::Generate(key_spec),
        };
        return Step::CreateNextKey { name: key_name, key };
    };
    let Some(key_pem) = data(next_key, "tls.key") else {
        return Step::DeleteSecret { name: key_name };
    };
    let key = match inspect::private_key(key_pem) {
        Ok((spki, actual)) if inspect::key_violations(&actual, &key_spec).is_empty() => spki,
        _ => return Step::DeleteSecret { name: key_name },
    };
    if status.next_private_key_secret_name.as_deref() != Some(key_name.as_str()) {
        status.next_private_key_secret_name = Some(key_name);
        return Step::WriteStatus { status, events: vec![], result: "status" };
    }

    // The request manager.
    let issuing_since =
        issuing_condition(certificate).and_then(|c| parse_time(c.last_transition_time.as_deref()));
    let wanted_name = request_name(certificate, next_revision);
    for request in next_requests {
        let request_name = request.metadata.name.clone().unwrap_or_default();
        let matches = request_name == wanted_name
            && request_violations(certificate, request).is_some_and(|v| v.is_empty())
            && inspect::csr(&request.spec.request).is_ok_and(|csr| csr.spki == key)
            && !failed_before(request, issuing_since);
        if !matches {
            return Step::DeleteRequest { name: request_name };
        }
    }
    let Some(request) = next_requests.first() else {
        return Step::CreateRequest {
            request: Box::new(new_request(
                certificate,
                wanted_name,
                next_revision,
                &key_name_of(&status),
            )),
            csr: Box::new(wanted::csr_spec(certificate)),
        };
    };

    // The issuing controller.
    let conditions = crate::sign::conditions(request);
    let state = RequestState {
        conditions: &conditions,
        failure_time: request.status.as_ref().and_then(|s| parse_time(s.failure_time.as_deref())),
        issuing_since,
    };
    match issuing::request_outcome(&state) {
        RequestOutcome::StaleFailure | RequestOutcome::InProgress => {
            Step::Wait { recheck_after: None, backing_off: false }
        }
        RequestOutcome::Failed(failure) => {
            let denied = certgate_issuance::condition::is_denied(&conditions);
            fail(snapshot, status, &failure, now, if denied { "denied" } else { "failed" })
        }
        RequestOutcome::CheckCertificate => {
            let chain =
                stored_bytes(request.status.as_ref().and_then(|s| s.certificate.as_deref()));
            let checked = match inspect::certificate(&chain) {
                Err(error) => issuing::check_issued(
                    IssuedCertificate::Undecodable { error: &error },
                    snapshot.now,
                ),
                Ok(info) if info.spki != key => {
                    issuing::check_issued(IssuedCertificate::KeyMismatch, snapshot.now)
                }
                Ok(info) => issuing::check_issued(
                    IssuedCertificate::Matches { not_after: info.not_after },
                    snapshot.now,
                ),
            };
            match checked {
                Err(failure) => fail(snapshot, status, &failure, now, "failed"),
                Ok(()) => {
                    let secret = output_secret(snapshot, request, key_pem);
                    let writes = issuing::record_success(status.revision);
                    status.revision = Some(writes.revision);
                    remove_condition(&mut status, types::ISSUING);
                    status.last_failure_time = None;
                    status.failed_issuance_attempts = None;
                    Step::WriteSecret {
                        secret: Box::new(secret),
                        status,
                        events: issuance_event(writes.event),
                    }
                }
            }
        }
    }
}

/// A `format: byte` status field's bytes (empty when unset or not base64).
fn stored_bytes(field: Option<&str>) -> Vec<u8> {
    use base64::Engine as _;
    field
        .and_then(|text| base64::engine::general_purpose::STANDARD.decode(text).ok())
        .unwrap_or_default()
}

fn key_name_of(status: &CertificateStatus) -> String {
    status.next_private_key_secret_name.clone().unwrap_or_default()
}

/// The owner reference a Certificate's requests and next private key Secrets carry.
pub(crate) fn owner(certificate: &Certificate) -> OwnerReference {
    OwnerReference {
        api_version: "cert-manager.io/v1".to_owned(),
        kind: "Certificate".to_owned(),
        name: name(certificate).to_owned(),
        uid: certificate.metadata.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

fn new_request(
    certificate: &Certificate,
    name: String,
    revision: i64,
    key_name: &str,
) -> CertificateRequest {
    let spec = &certificate.spec;
    let annotations = BTreeMap::from([
        (annotations::CERTIFICATE_NAME.to_owned(), self::name(certificate).to_owned()),
        (annotations::REVISION.to_owned(), revision.to_string()),
        (annotations::PRIVATE_KEY_SECRET.to_owned(), key_name.to_owned()),
    ]);
    let mut request = CertificateRequest::new(&name, Default::default());
    request.metadata.namespace = Some(namespace(certificate).to_owned());
    request.metadata.annotations = Some(annotations);
    request.metadata.owner_references = Some(vec![owner(certificate)]);
    request.spec.issuer_ref = spec.issuer_ref.clone();
    request.spec.duration = spec.duration.clone();
    request.spec.usages = spec.usages.clone().filter(|u| !u.is_empty());
    request.spec.is_ca = spec.is_ca;
    request
}

/// The Secret holding the issued certificate: `tls.crt` (the chain), `tls.key`, `ca.crt`,
/// cert-manager's annotations and `spec.secretTemplate`; other keys, labels and annotations
/// already there are kept.
fn output_secret(snapshot: &Snapshot<'_>, request: &CertificateRequest, key_pem: &[u8]) -> Secret {
    let certificate = snapshot.certificate;
    let mut secret = snapshot.secret.cloned().unwrap_or_else(|| Secret {
        metadata: ObjectMeta {
            name: Some(certificate.spec.secret_name.clone()),
            namespace: Some(namespace(certificate).to_owned()),
            ..Default::default()
        },
        type_: Some("kubernetes.io/tls".to_owned()),
        ..Default::default()
    });
    let status = request.status.clone().unwrap_or_default();
    let chain = stored_bytes(status.certificate.as_deref());
    let ca = stored_bytes(status.ca.as_deref());
    let data = secret.data.get_or_insert_with(BTreeMap::new);
    data.insert("tls.crt".to_owned(), ByteString(chain.clone()));
    data.insert("tls.key".to_owned(), ByteString(key_pem.to_vec()));
    match ca {
        ca if !ca.is_empty() => {
            data.insert("ca.crt".to_owned(), ByteString(ca));
        }
        _ => {
            data.remove("ca.crt");
        }
    }
    let meta = &mut secret.metadata;
    let mut annotations_out = meta.annotations.take().unwrap_or_default();
    let mut labels_out = meta.labels.take().unwrap_or_default();
    if let Some(template) = &certificate.spec.secret_template {
        annotations_out.extend(template.annotations.clone().unwrap_or_default());
        labels_out.extend(template.labels.clone().unwrap_or_default());
    }
    let (issuer_name, issuer_kind, issuer_group) = wanted::issuer_ref(&certificate.spec.issuer_ref);
    annotations_out.insert(annotations::CERTIFICATE_NAME.to_owned(), name(certificate).to_owned());
    annotations_out.insert(annotations::ISSUER_NAME.to_owned(), issuer_name);
    annotations_out.insert(annotations::ISSUER_KIND.to_owned(), issuer_kind);
    annotations_out.insert(annotations::ISSUER_GROUP.to_owned(), issuer_group);
    if let Ok(info) = inspect::certificate(&chain) {
        let names = &info.names;
        for (key, values) in [
            (annotations::ALT_NAMES, &names.dns_names),
            (annotations::IP_SANS, &names.ip_addresses),
            (annotations::URI_SANS, &names.uris),
            (annotations::EMAIL_SANS, &names.email_addresses),
        ] {
            annotations_out.insert(key.to_owned(), values.join(","));
        }
        annotations_out.insert(annotations::COMMON_NAME.to_owned(), names.common_name.clone());
        if !info.organizations.is_empty() {
            annotations_out.insert(
                annotations::SUBJECT_ORGANIZATIONS.to_owned(),
                info.organizations.join(","),
            );
        }
    }
    labels_out.insert(labels::FAO.to_owned(), "true".to_owned());
    meta.annotations = Some(annotations_out);
    meta.labels = Some(labels_out);
    secret
}

#[cfg(test)]
mod tests;
