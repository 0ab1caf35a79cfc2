//! Conditions as the decisions read them, and cert-manager's condition vocabulary.
//!
//! The lookups mirror `pkg/api/util/conditions.go` of cert-manager: `IsDenied`,
//! `HasInvalidRequest` and `IsApproved` look for any condition of the type with status
//! `True`; [`ready_reason`] looks at the reason of every `Ready` condition whatever its status,
//! in the order `Failed`, `Issued`, `Pending`, `Denied`; [`first`] is
//! `GetCertificateRequestCondition`, the first condition of a type whatever its status.

/// Condition types (`pkg/apis/certmanager/v1/types_certificaterequest.go`,
/// `types_certificate.go`).
pub mod types {
    /// The CertificateRequest's (and the Certificate's) readiness.
    pub const READY: &str = "Ready";
    /// Set by an approver; only ever `True`.
    pub const APPROVED: &str = "Approved";
    /// Set by an approver; only ever `True`.
    pub const DENIED: &str = "Denied";
    /// The request can never be signed as it is.
    pub const INVALID_REQUEST: &str = "InvalidRequest";
    /// The Certificate's issuance in progress.
    pub const ISSUING: &str = "Issuing";
}

/// The reasons of a CertificateRequest's `Ready` condition
/// (`pkg/apis/certmanager/v1/types_certificaterequest.go`).
pub mod reasons {
    /// Waiting for the issuer.
    pub const PENDING: &str = "Pending";
    /// Failed for good.
    pub const FAILED: &str = "Failed";
    /// Signed.
    pub const ISSUED: &str = "Issued";
    /// Denied by an approver.
    pub const DENIED: &str = "Denied";
}

/// `True`.
pub const TRUE: &str = "True";
/// `False`.
pub const FALSE: &str = "False";

/// One condition of a resource's status, borrowed from whatever type the caller holds. An
/// absent reason or message is the empty string, as in Go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Condition<'a> {
    pub type_: &'a str,
    pub status: &'a str,
    pub reason: &'a str,
    pub message: &'a str,
}

impl<'a> Condition<'a> {
    /// A condition with every field given.
    pub const fn new(type_: &'a str, status: &'a str, reason: &'a str, message: &'a str) -> Self {
        Condition { type_, status, reason, message }
    }
}

/// A condition to write: type, status, reason and message. Its `lastTransitionTime` is the
/// caller's: upstream keeps the old one when a condition of the type already has this status
/// and stamps `now` otherwise (`SetCertificateRequestCondition`, `SetCertificateCondition`);
/// a Certificate's conditions also carry `observedGeneration`, its `metadata.generation`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionUpdate {
    pub type_: &'static str,
    pub status: &'static str,
    pub reason: String,
    pub message: String,
}

/// A Kubernetes event to record on the object the decision was about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// `Warning` rather than `Normal`.
    pub warning: bool,
    pub reason: String,
    pub message: String,
}

impl Event {
    pub(crate) fn normal(reason: &str, message: impl Into<String>) -> Self {
        Event { warning: false, reason: reason.to_owned(), message: message.into() }
    }

    pub(crate) fn warning(reason: &str, message: impl Into<String>) -> Self {
        Event { warning: true, reason: reason.to_owned(), message: message.into() }
    }
}

fn has_true(conditions: &[Condition<'_>], type_: &str) -> bool {
    conditions.iter().any(|c| c.type_ == type_ && c.status == TRUE)
}

/// Some condition `Denied` has status `True` (`CertificateRequestIsDenied`).
pub fn is_denied(conditions: &[Condition<'_>]) -> bool {
    has_true(conditions, types::DENIED)
}

/// Some condition `InvalidRequest` has status `True` (`CertificateRequestHasInvalidRequest`).
pub fn has_invalid_request(conditions: &[Condition<'_>]) -> bool {
    has_true(conditions, types::INVALID_REQUEST)
}

/// Some condition `Approved` has status `True` (`CertificateRequestIsApproved`).
pub fn is_approved(conditions: &[Condition<'_>]) -> bool {
    has_true(conditions, types::APPROVED)
}

/// The reason of the `Ready` conditions that upstream ranks first among `Failed`, `Issued`,
/// `Pending` and `Denied`, whatever the condition's status; `None` for any other reason or
/// no `Ready` condition (`CertificateRequestReadyReason`, which returns `""`).
pub fn ready_reason(conditions: &[Condition<'_>]) -> Option<&'static str> {
    [reasons::FAILED, reasons::ISSUED, reasons::PENDING, reasons::DENIED]
        .into_iter()
        .find(|reason| conditions.iter().any(|c| c.type_ == types::READY && c.reason == *reason))
}

/// The first condition of the type, whatever its status (`GetCertificateRequestCondition`,
/// `GetCertificateCondition`).
pub fn first<'c, 'a>(conditions: &'c [Condition<'a>], type_: &str) -> Option<&'c Condition<'a>> {
    conditions.iter().find(|c| c.type_ == type_)
}

#[cfg(test)]
mod tests;
