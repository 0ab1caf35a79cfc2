//! The built-in CertificateRequest controllers' sync, as three pure stages
//! (`pkg/controller/certificaterequests/sync.go` of cert-manager; spec §6.1):
//!
//! 1. [`signing_gate`], before anything is fetched: whose request it is, Denied,
//!    InvalidRequest, Approved, and whether it already ended (`Ready` reason `Failed` or
//!    `Issued`), in upstream's order;
//! 2. [`issuer_gate`], once the issuer was looked up: not found, no issuer type, another
//!    controller's type, not ready, certificate already in the status;
//! 3. [`after_signing`], once the issuer returned a certificate: decodable or not.

use chrono::{DateTime, Utc};

use crate::condition::{self, Condition, Event};
use crate::report::{self, Report};

/// The API group of cert-manager's own issuers.
pub const GROUP: &str = "cert-manager.io";
/// The Normal event of a request that is not approved yet: reason.
pub const WAITING_FOR_APPROVAL_REASON: &str = "WaitingForApproval";
/// The Normal event of a request that is not approved yet: message.
pub const WAITING_FOR_APPROVAL_MESSAGE: &str =
    "Not signing CertificateRequest until it is Approved";

/// What the first stage looks at.
#[derive(Clone, Copy, Debug)]
pub struct SigningInput<'a> {
    /// `spec.issuerRef.group`, empty when unset.
    pub issuer_group: &'a str,
    /// `status.conditions`.
    pub conditions: &'a [Condition<'a>],
    /// `status.failureTime`.
    pub failure_time: Option<DateTime<Utc>>,
    /// The time a denial is stamped with.
    pub now: DateTime<Utc>,
}

/// The first stage's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SigningGate {
    /// The issuer is not in `cert-manager.io` (nor the empty group): an external issuer's
    /// request, left alone without a status write.
    NotOurs,
    /// `Denied=True`: write the report (`Ready=False` reason `Denied`, `failureTime` if
    /// unset, no event); checked before everything else.
    Denied(Report),
    /// `InvalidRequest=True`: left alone.
    InvalidRequest,
    /// Not approved: record the Normal `WaitingForApproval` event and do nothing else.
    WaitingForApproval(Event),
    /// `Ready` reason `Failed`, whatever its status: finished, left alone.
    AlreadyFailed,
    /// `Ready` reason `Issued`, whatever its status: finished, left alone.
    AlreadyIssued,
    /// Look the issuer up, then call [`issuer_gate`].
    FetchIssuer,
}

/// The first stage of the sync, in upstream's order: group, Denied, InvalidRequest,
/// Approved, then the `Ready` reason. A `Ready` reason of `Pending` or `Denied` (without a
/// `Denied` condition) goes on to the issuer.
pub fn signing_gate(input: &SigningInput<'_>) -> SigningGate {
    if !(input.issuer_group.is_empty() || input.issuer_group == GROUP) {
        return SigningGate::NotOurs;
    }
    if condition::is_denied(input.conditions) {
        return SigningGate::Denied(report::denied(input.failure_time, input.now));
    }
    if condition::has_invalid_request(input.conditions) {
        return SigningGate::InvalidRequest;
    }
    if !condition::is_approved(input.conditions) {
        return SigningGate::WaitingForApproval(Event::normal(
            WAITING_FOR_APPROVAL_REASON,
            WAITING_FOR_APPROVAL_MESSAGE,
        ));
    }
    match condition::ready_reason(input.conditions) {
        Some(condition::reasons::FAILED) => SigningGate::AlreadyFailed,
        Some(condition::reasons::ISSUED) => SigningGate::AlreadyIssued,
        _ => SigningGate::FetchIssuer,
    }
}

/// The Pending reasons of the second stage.
pub mod pending {
    /// The issuer does not exist.
    pub const ISSUER_NOT_FOUND: &str = "IssuerNotFound";
    /// The issuer names no issuer type (ACME, CA, Vault, SelfSigned, Venafi).
    pub const ISSUER_TYPE_MISSING: &str = "IssuerTypeMissing";
    /// The issuer has no `Ready=True` condition.
    pub const ISSUER_NOT_READY: &str = "IssuerNotReady";
    /// The message of [`ISSUER_TYPE_MISSING`] (followed by `: <error>`).
    pub const ISSUER_TYPE_MISSING_MESSAGE: &str = "Missing issuer type";
    /// The message of [`ISSUER_NOT_READY`].
    pub const ISSUER_NOT_READY_MESSAGE: &str =
        "Referenced issuer does not have a Ready status condition";
}

/// What the issuer lookup found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssuerLookup<'a> {
    /// The API answered NotFound; `error` is its text (`issuers.cert-manager.io "ca" not
    /// found`). Other lookup errors are the caller's to retry.
    NotFound { error: &'a str },
    /// The issuer's spec names no issuer type. `namespace` is empty for a ClusterIssuer.
    NoIssuerType { namespace: &'a str, name: &'a str },
    /// The issuer exists with a type.
    Found {
        /// Its type is the one this controller signs for.
        ours: bool,
        /// It has a `Ready=True` condition.
        ready: bool,
    },
}

/// What the second stage looks at.
#[derive(Clone, Copy, Debug)]
pub struct IssuerInput<'a> {
    /// `spec.issuerRef.kind`, empty when unset (read as `Issuer`).
    pub issuer_kind: &'a str,
    /// `status.conditions` (for the `Ready` reason: no repeated Pending events).
    pub conditions: &'a [Condition<'a>],
    pub lookup: IssuerLookup<'a>,
    /// `status.certificate` is not empty.
    pub has_certificate: bool,
}

/// The second stage's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IssuerGate {
    /// Write the Pending report (its event only when the request was not Pending already).
    Pending(Report),
    /// Another issuer type's request: left alone.
    NotOurs,
    /// The certificate is already in the status: nothing to do.
    AlreadySigned,
    /// Call the issuer's sign, then [`after_signing`] with what it returned.
    Sign,
}

/// The second stage of the sync, in upstream's order.
pub fn issuer_gate(input: &IssuerInput<'_>) -> IssuerGate {
    let current = condition::ready_reason(input.conditions);
    match input.lookup {
        IssuerLookup::NotFound { error } => {
            let kind = if input.issuer_kind.is_empty() { "Issuer" } else { input.issuer_kind };
            let message = format!("Referenced {} not found", certgate_gofmt::quote(kind));
            IssuerGate::Pending(report::pending(
                pending::ISSUER_NOT_FOUND,
                &message,
                Some(error),
                current,
            ))
        }
        IssuerLookup::NoIssuerType { namespace, name } => {
            let error = format!("no issuer specified for Issuer '{namespace}/{name}'");
            IssuerGate::Pending(report::pending(
                pending::ISSUER_TYPE_MISSING,
                pending::ISSUER_TYPE_MISSING_MESSAGE,
                Some(&error),
                current,
            ))
        }
        IssuerLookup::Found { ours: false, .. } => IssuerGate::NotOurs,
        IssuerLookup::Found { ready: false, .. } => IssuerGate::Pending(report::pending(
            pending::ISSUER_NOT_READY,
            pending::ISSUER_NOT_READY_MESSAGE,
            None,
            current,
        )),
        IssuerLookup::Found { .. } if input.has_certificate => IssuerGate::AlreadySigned,
        IssuerLookup::Found { .. } => IssuerGate::Sign,
    }
}

/// The reason of the failure when the issuer's certificate does not decode.
pub const DECODE_ERROR_REASON: &str = "DecodeError";
/// Its message (followed by `: <error>`).
pub const DECODE_ERROR_MESSAGE: &str = "Failed to decode returned certificate";
/// Its message for CA issuers (followed by `: <error>`).
pub const DECODE_ERROR_MESSAGE_CA: &str = "Failed to decode returned certificate: with CA issuers, ensure the Certificate's secretName is different from the CA issuer's secretName to avoid overwriting the CA secret";

/// The third stage, once the issuer returned a certificate (an issuer that returns nothing
/// has written its own Pending or Failed condition; a sign error is retried): `decoded` is
/// the result of decoding it as X.509 (`Err` with Go's error text), `ca_issuer` whether the
/// issuer is a CA issuer. `Ready=True` when it decodes, else failed with `DecodeError`.
pub fn after_signing(
    decoded: Result<(), &str>,
    ca_issuer: bool,
    failure_time: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Report {
    match decoded {
        Ok(()) => report::issued(),
        Err(error) => {
            let message = if ca_issuer { DECODE_ERROR_MESSAGE_CA } else { DECODE_ERROR_MESSAGE };
            report::failed(DECODE_ERROR_REASON, message, error, failure_time, now)
        }
    }
}

#[cfg(test)]
mod tests;
