//! The Certificate issuing controller's decisions (`pkg/controller/certificates/issuing/
//! issuing_controller.go` of cert-manager; spec §6.2): whether the request ended, how a
//! failure is recorded on the Certificate, and what a success resets.
//!
//! They apply once the caller has found what upstream checks first: `Issuing=True`, the next
//! private key, exactly one CertificateRequest of the next revision ([`next_revision`])
//! owned by the Certificate, matching its spec, with that key's public key in its CSR.

use chrono::{DateTime, Utc};

use crate::condition::{self, Condition, ConditionUpdate, Event, FALSE, reasons, types};
use crate::gotime;

/// The prefix of the `Issuing=False` message and Warning event of a failed issuance, followed
/// by the CertificateRequest condition's message.
pub const FAILED_PREFIX: &str =
    "The certificate request has failed to complete and will be retried: ";
/// The reason of the issuing controller's own failures when the issued certificate is unusable.
pub const INVALID_CERTIFICATE_REASON: &str = "InvalidCertificate";
/// The message when the issuer's certificate carries another public key than the CSR.
pub const KEY_MISMATCH_MESSAGE: &str = "Issuer returned a certificate with a public key that does not match the CSR. This usually indicates a misconfigured issuer.";
/// The reason of the Normal event of a success (and of the `Issuing=False` condition written
/// in its place under server-side apply is [`ISSUED_REASON`]).
pub const ISSUING_EVENT_REASON: &str = "Issuing";
/// The reason of the `Issuing=False` condition server-side apply writes on success.
pub const ISSUED_REASON: &str = "Issued";
/// The message of a success (event, and the server-side apply condition).
pub const ISSUED_MESSAGE: &str = "The certificate has been successfully issued";

/// What the decision looks at: the next revision's CertificateRequest and the Certificate's
/// `Issuing` condition.
#[derive(Clone, Copy, Debug)]
pub struct RequestState<'a> {
    /// The request's `status.conditions`.
    pub conditions: &'a [Condition<'a>],
    /// The request's `status.failureTime`.
    pub failure_time: Option<DateTime<Utc>>,
    /// The `lastTransitionTime` of the Certificate's `Issuing` condition.
    pub issuing_since: Option<DateTime<Utc>>,
}

/// The reason and message a failed issuance is recorded with: those of a condition of the
/// request, or the issuing controller's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub reason: String,
    pub message: String,
}

impl Failure {
    fn of(condition: &Condition<'_>) -> Self {
        Failure { reason: condition.reason.to_owned(), message: condition.message.to_owned() }
    }

    fn invalid_certificate(message: String) -> Self {
        Failure { reason: INVALID_CERTIFICATE_REASON.to_owned(), message }
    }
}

/// Where the request stands for the issuing controller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestOutcome {
    /// The request failed before the current issuance began (its `failureTime` is before
    /// the `Issuing` condition's transition and its `Ready` reason is `Failed`): a leftover
    /// the request manager replaces. Wait.
    StaleFailure,
    /// The issuance failed: record it with [`record_failure`].
    Failed(Failure),
    /// `Ready` reason `Issued`: check the certificate, then call [`check_issued`].
    CheckCertificate,
    /// Not finished (no `Ready` condition, or another reason): wait (upstream writes a
    /// temporary certificate meanwhile when asked to).
    InProgress,
}

/// The request's outcome, in upstream's order: a stale failure first, then `Denied=True`
/// (even over `Ready=Issued`, so a non-compliant issuer cannot win), `InvalidRequest=True`,
/// then the `Ready` condition's reason (`Failed`, `Issued`). A failure carries the reason and
/// message of the first condition of the deciding type.
pub fn request_outcome(request: &RequestState<'_>) -> RequestOutcome {
    let ready = condition::first(request.conditions, types::READY);
    let stale = match (request.failure_time, request.issuing_since, ready) {
        (Some(failed), Some(since), Some(ready)) => {
            failed < since && ready.reason == reasons::FAILED
        }
        _ => false,
    };
    if stale {
        return RequestOutcome::StaleFailure;
    }
    // A condition of the type with status True exists, so the first of the type does too.
    let first = |type_| condition::first(request.conditions, type_).map(Failure::of);
    if condition::is_denied(request.conditions)
        && let Some(failure) = first(types::DENIED)
    {
        return RequestOutcome::Failed(failure);
    }
    if condition::has_invalid_request(request.conditions)
        && let Some(failure) = first(types::INVALID_REQUEST)
    {
        return RequestOutcome::Failed(failure);
    }
    match ready {
        Some(ready) if ready.reason == reasons::FAILED => {
            RequestOutcome::Failed(Failure::of(ready))
        }
        Some(ready) if ready.reason == reasons::ISSUED => RequestOutcome::CheckCertificate,
        _ => RequestOutcome::InProgress,
    }
}

/// What the caller found in the request's `status.certificate` (decoded with
/// `certgate-pki`; error texts as Go's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssuedCertificate<'a> {
    /// It does not decode as X.509.
    Undecodable { error: &'a str },
    /// Its public key could not be compared with the CSR's.
    KeysIncomparable { error: &'a str },
    /// Its public key is not the CSR's.
    KeyMismatch,
    /// It carries the CSR's key and expires at `not_after`.
    Matches { not_after: DateTime<Utc> },
}

/// Whether a certificate the issuer returned may be stored: `Ok(())` to store it (then
/// [`record_success`]), or the failure to record. Expired means `now` after `notAfter`.
pub fn check_issued(certificate: IssuedCertificate<'_>, now: DateTime<Utc>) -> Result<(), Failure> {
    match certificate {
        IssuedCertificate::Undecodable { error } => Err(Failure::invalid_certificate(format!(
            "Issuer returned an invalid certificate: failed to decode: {error}"
        ))),
        IssuedCertificate::KeysIncomparable { error } => Err(Failure::invalid_certificate(
            format!("Failed to compare certificate and CSR public keys: {error}"),
        )),
        IssuedCertificate::KeyMismatch => {
            Err(Failure::invalid_certificate(KEY_MISMATCH_MESSAGE.to_owned()))
        }
        IssuedCertificate::Matches { not_after } if now > not_after => {
            Err(Failure::invalid_certificate(format!(
                "Issuer returned an already expired certificate (notAfter: {}). This usually indicates an expired CA certificate in the issuer.",
                gotime::rfc3339(not_after)
            )))
        }
        IssuedCertificate::Matches { .. } => Ok(()),
    }
}

/// The Certificate status writes of a failed issuance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureWrites {
    /// `status.lastFailureTime`.
    pub last_failure_time: DateTime<Utc>,
    /// `status.failedIssuanceAttempts`.
    pub failed_issuance_attempts: i64,
    /// `Issuing=False` with the failure's reason and the retry message.
    pub issuing: ConditionUpdate,
    /// The Warning event, same reason and message.
    pub event: Event,
}

/// Records a failed issuance: `lastFailureTime = now`, one more failed attempt (1 when
/// unset; Go's `int` addition, so it wraps at the `int64` limit), `Issuing=False` with the
/// failure's reason and `The certificate request has failed to complete and will be retried:
/// <message>`, and a Warning event with the same. The next issuance then waits for the
/// [`crate::backoff()`].
pub fn record_failure(
    failure: &Failure,
    failed_issuance_attempts: Option<i64>,
    now: DateTime<Utc>,
) -> FailureWrites {
    let message = format!("{FAILED_PREFIX}{}", failure.message);
    FailureWrites {
        last_failure_time: now,
        failed_issuance_attempts: failed_issuance_attempts.map_or(1, |n| n.wrapping_add(1)),
        issuing: ConditionUpdate {
            type_: types::ISSUING,
            status: FALSE,
            reason: failure.reason.clone(),
            message: message.clone(),
        },
        event: Event::warning(&failure.reason, message),
    }
}

/// The Certificate status writes of a successful issuance (after the Secret is written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuccessWrites {
    /// `status.revision`: the request's revision.
    pub revision: i64,
    /// Under server-side apply the `Issuing` condition becomes `False`, reason `Issued`,
    /// [`ISSUED_MESSAGE`]; under update it is removed.
    pub issuing_under_apply: ConditionUpdate,
    /// The Normal `Issuing` event with [`ISSUED_MESSAGE`].
    pub event: Event,
}

/// Records a successful issuance: the next revision (`status.revision + 1`, or 1 when unset;
/// Go's `int` addition), the `Issuing` condition removed (or `False`/`Issued` under
/// server-side apply), `failedIssuanceAttempts` and `lastFailureTime` cleared (the caller
/// removes both fields: success resets the backoff), and a Normal event.
pub fn record_success(revision: Option<i64>) -> SuccessWrites {
    SuccessWrites {
        revision: next_revision(revision),
        issuing_under_apply: ConditionUpdate {
            type_: types::ISSUING,
            status: FALSE,
            reason: ISSUED_REASON.to_owned(),
            message: ISSUED_MESSAGE.to_owned(),
        },
        event: Event::normal(ISSUING_EVENT_REASON, ISSUED_MESSAGE),
    }
}

/// The revision the next CertificateRequest carries: `status.revision + 1`, or 1 when unset.
pub fn next_revision(revision: Option<i64>) -> i64 {
    revision.map_or(1, |r| r.wrapping_add(1))
}

#[cfg(test)]
mod tests;
