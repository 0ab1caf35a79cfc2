use chrono::TimeZone;
use pretty_assertions::assert_eq;

use super::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 5, 6, 7, 8, 9).unwrap()
}

fn earlier() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap()
}

fn update(status: &'static str, reason: &str, message: &str) -> ConditionUpdate {
    ConditionUpdate {
        type_: "Ready",
        status,
        reason: reason.to_owned(),
        message: message.to_owned(),
    }
}

#[test]
fn denied_sets_ready_false_and_the_failure_time_once_without_an_event() {
    let expected = Report {
        ready: update(
            "False",
            "Denied",
            "The CertificateRequest was denied by an approval controller",
        ),
        event: None,
        failure_time: Some(now()),
    };
    assert_eq!(denied(None, now()), expected);
    assert_eq!(denied(Some(earlier()), now()), Report { failure_time: None, ..expected });
}

#[test]
fn failed_appends_the_error_to_condition_and_warning() {
    let message = "Failed to decode returned certificate: error decoding certificate PEM block";
    assert_eq!(
        failed(
            "DecodeError",
            "Failed to decode returned certificate",
            "error decoding certificate PEM block",
            None,
            now()
        ),
        Report {
            ready: update("False", "Failed", message),
            event: Some(Event {
                warning: true,
                reason: "DecodeError".into(),
                message: message.into()
            }),
            failure_time: Some(now()),
        }
    );
    assert_eq!(failed("R", "m", "<nil>", Some(earlier()), now()).failure_time, None);
    assert_eq!(failed("R", "m", "<nil>", None, now()).ready.message, "m: <nil>");
}

#[test]
fn pending_records_its_event_only_on_the_way_into_pending() {
    let with_error =
        pending("IssuerNotFound", "Referenced \"Issuer\" not found", Some("gone"), None);
    assert_eq!(
        with_error,
        Report {
            ready: update("False", "Pending", "Referenced \"Issuer\" not found: gone"),
            event: Some(Event {
                warning: false,
                reason: "IssuerNotFound".into(),
                message: "Referenced \"Issuer\" not found: gone".into(),
            }),
            failure_time: None,
        }
    );
    for current in [None, Some("Failed"), Some("Issued"), Some("Denied")] {
        assert!(pending("R", "m", None, current).event.is_some(), "{current:?}");
    }
    let again = pending("IssuerNotReady", "not ready", None, Some("Pending"));
    assert_eq!(again.event, None);
    assert_eq!(again.ready, update("False", "Pending", "not ready"));
}

#[test]
fn issued_sets_ready_true_with_a_normal_event() {
    assert_eq!(
        issued(),
        Report {
            ready: update("True", "Issued", "Certificate fetched from issuer successfully"),
            event: Some(Event {
                warning: false,
                reason: "CertificateIssued".into(),
                message: "Certificate fetched from issuer successfully".into(),
            }),
            failure_time: None,
        }
    );
}
