//! What cert-manager's CertificateRequest controllers write through their reporter
//! (`pkg/controller/certificaterequests/util/reporter.go`): the `Ready` condition, the
//! event, and `status.failureTime`.

use chrono::{DateTime, Utc};

use crate::condition::{ConditionUpdate, Event, FALSE, TRUE, reasons, types};

/// The `Ready=False` message of a denied request (`Reporter.Denied`).
pub const DENIED_MESSAGE: &str = "The CertificateRequest was denied by an approval controller";
/// The `Ready=True` message and the `CertificateIssued` event's message (`Reporter.Ready`).
pub const READY_MESSAGE: &str = "Certificate fetched from issuer successfully";
/// The reason of the Normal event of a signed request (`Reporter.Ready`).
pub const ISSUED_EVENT_REASON: &str = "CertificateIssued";

/// The writes of one report on a CertificateRequest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The `Ready` condition to set.
    pub ready: ConditionUpdate,
    /// The event to record, if any.
    pub event: Option<Event>,
    /// The `status.failureTime` to write; `None` leaves the field as it is (upstream only
    /// sets it when it is unset).
    pub failure_time: Option<DateTime<Utc>>,
}

fn ready(status: &'static str, reason: &str, message: String) -> ConditionUpdate {
    ConditionUpdate { type_: types::READY, status, reason: reason.to_owned(), message }
}

/// `now` when `status.failureTime` is unset, else nothing to write.
fn stamp(failure_time: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    failure_time.is_none().then_some(now)
}

/// A denied request: `Ready=False`, reason `Denied`, [`DENIED_MESSAGE`], `failureTime` if
/// unset, no event (the approver records one).
pub fn denied(failure_time: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Report {
    Report {
        ready: ready(FALSE, reasons::DENIED, DENIED_MESSAGE.to_owned()),
        event: None,
        failure_time: stamp(failure_time, now),
    }
}

/// A request failed for good: message `<message>: <error>` (Go's `%s: %v`, so a nil error
/// reads `<nil>`) on a Warning event with `reason` and on `Ready=False` reason `Failed`;
/// `failureTime` if unset.
pub fn failed(
    reason: &str,
    message: &str,
    error: &str,
    failure_time: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> Report {
    let message = format!("{message}: {error}");
    Report {
        event: Some(Event::warning(reason, message.clone())),
        ready: ready(FALSE, reasons::FAILED, message),
        failure_time: stamp(failure_time, now),
    }
}

/// A request waiting for something: `Ready=False` reason `Pending` with `<message>` or
/// `<message>: <error>`, and a Normal event with `reason` unless the request's `Ready`
/// reason is already `Pending` (`current_ready_reason`, see
/// [`crate::condition::ready_reason`]), to spare the API server repeated events.
pub fn pending(
    reason: &str,
    message: &str,
    error: Option<&str>,
    current_ready_reason: Option<&str>,
) -> Report {
    let message = match error {
        Some(error) => format!("{message}: {error}"),
        None => message.to_owned(),
    };
    Report {
        event: (current_ready_reason != Some(reasons::PENDING))
            .then(|| Event::normal(reason, message.clone())),
        ready: ready(FALSE, reasons::PENDING, message),
        failure_time: None,
    }
}

/// A signed request: `Ready=True` reason `Issued` and a Normal `CertificateIssued` event,
/// both with [`READY_MESSAGE`].
pub fn issued() -> Report {
    Report {
        ready: ready(TRUE, reasons::ISSUED, READY_MESSAGE.to_owned()),
        event: Some(Event::normal(ISSUED_EVENT_REASON, READY_MESSAGE)),
        failure_time: None,
    }
}

#[cfg(test)]
mod tests;
