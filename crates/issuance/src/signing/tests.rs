use chrono::TimeZone;
use pretty_assertions::assert_eq;

use super::*;
use crate::condition::ConditionUpdate;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 5, 6, 7, 8, 9).unwrap()
}

fn gate(group: &str, conditions: &[Condition<'_>]) -> SigningGate {
    signing_gate(&SigningInput { issuer_group: group, conditions, failure_time: None, now: now() })
}

const fn c(type_: &'static str, status: &'static str, reason: &'static str) -> Condition<'static> {
    Condition::new(type_, status, reason, "")
}

const APPROVED: Condition<'static> = c("Approved", "True", "cert-manager.io");

#[test]
fn texts_are_upstreams() {
    assert_eq!(
        gate("", &[]),
        SigningGate::WaitingForApproval(Event {
            warning: false,
            reason: "WaitingForApproval".into(),
            message: "Not signing CertificateRequest until it is Approved".into(),
        })
    );
    let SigningGate::Denied(report) = gate("cert-manager.io", &[c("Denied", "True", "policy")])
    else {
        panic!("denied")
    };
    assert_eq!(
        report.ready,
        ConditionUpdate {
            type_: "Ready",
            status: "False",
            reason: "Denied".into(),
            message: "The CertificateRequest was denied by an approval controller".into(),
        }
    );
    assert_eq!((report.event, report.failure_time), (None, Some(now())));
}

#[test]
fn a_denied_request_keeps_its_failure_time() {
    let then = Utc.with_ymd_and_hms(2023, 1, 1, 0, 0, 0).unwrap();
    let conditions = [c("Denied", "True", "policy")];
    let input = SigningInput {
        issuer_group: "",
        conditions: &conditions,
        failure_time: Some(then),
        now: now(),
    };
    let SigningGate::Denied(report) = signing_gate(&input) else { panic!("denied") };
    assert_eq!(report.failure_time, None);
}

#[test]
fn the_order_is_upstreams() {
    let cases: &[(&str, &[Condition<'_>], SigningGate)] = &[
        // External issuers' requests are never touched, even denied ones.
        ("example.com", &[c("Denied", "True", "")], SigningGate::NotOurs),
        ("example.com", &[APPROVED], SigningGate::NotOurs),
        ("Cert-Manager.io", &[APPROVED], SigningGate::NotOurs),
        // Denied before InvalidRequest, before approval, before a finished Ready.
        (
            "",
            &[c("InvalidRequest", "True", ""), c("Denied", "True", "")],
            SigningGate::Denied(report::denied(None, now())),
        ),
        (
            "",
            &[APPROVED, c("Ready", "True", "Issued"), c("Denied", "True", "")],
            SigningGate::Denied(report::denied(None, now())),
        ),
        ("", &[c("InvalidRequest", "True", "")], SigningGate::InvalidRequest),
        (
            "",
            &[APPROVED, c("InvalidRequest", "True", ""), c("Ready", "False", "Pending")],
            SigningGate::InvalidRequest,
        ),
        // A Denied condition that is not True does not deny.
        ("", &[APPROVED, c("Denied", "False", "")], SigningGate::FetchIssuer),
        ("", &[c("Approved", "False", "")], gate("", &[])),
        // Not approved comes before the finished states.
        ("", &[c("Ready", "False", "Failed")], gate("", &[])),
        ("", &[APPROVED, c("Ready", "False", "Failed")], SigningGate::AlreadyFailed),
        ("", &[APPROVED, c("Ready", "True", "Failed")], SigningGate::AlreadyFailed),
        ("", &[APPROVED, c("Ready", "True", "Issued")], SigningGate::AlreadyIssued),
        ("", &[APPROVED, c("Ready", "False", "Issued")], SigningGate::AlreadyIssued),
        // Pending, a Ready reason Denied without a Denied condition, or anything else goes on.
        ("", &[APPROVED, c("Ready", "False", "Pending")], SigningGate::FetchIssuer),
        ("", &[APPROVED, c("Ready", "False", "Denied")], SigningGate::FetchIssuer),
        ("", &[APPROVED, c("Ready", "True", "Whatever")], SigningGate::FetchIssuer),
        ("cert-manager.io", &[APPROVED], SigningGate::FetchIssuer),
    ];
    for (group, conditions, expected) in cases {
        assert_eq!(&gate(group, conditions), expected, "{group:?} {conditions:?}");
    }
}

/// Every combination of group, Denied, InvalidRequest, Approved and Ready against the
/// spec's cascade written out with booleans.
#[test]
fn exhaustive_against_the_spec_cascade() {
    let optional = |type_: &'static str| {
        [
            None,
            Some(c(type_, "True", "")),
            Some(c(type_, "False", "")),
            Some(c(type_, "Unknown", "")),
        ]
    };
    let readies = [
        None,
        Some(c("Ready", "False", "Pending")),
        Some(c("Ready", "False", "Failed")),
        Some(c("Ready", "True", "Failed")),
        Some(c("Ready", "True", "Issued")),
        Some(c("Ready", "False", "Issued")),
        Some(c("Ready", "False", "Denied")),
        Some(c("Ready", "False", "Other")),
    ];
    let mut seen = 0;
    for group in ["", "cert-manager.io", "example.com", "cert-manager.io.evil"] {
        for denied in optional("Denied") {
            for invalid in optional("InvalidRequest") {
                for approved in optional("Approved") {
                    for ready in readies {
                        let conditions: Vec<_> =
                            [ready, approved, invalid, denied].into_iter().flatten().collect();
                        let is_true =
                            |c: Option<Condition<'_>>| c.is_some_and(|c| c.status == "True");
                        let reason = ready.map(|r| r.reason);
                        let expected = if !(group.is_empty() || group == "cert-manager.io") {
                            "not ours"
                        } else if is_true(denied) {
                            "denied"
                        } else if is_true(invalid) {
                            "invalid"
                        } else if !is_true(approved) {
                            "waiting"
                        } else if reason == Some("Failed") {
                            "failed"
                        } else if reason == Some("Issued") {
                            "issued"
                        } else {
                            "fetch"
                        };
                        let got = match gate(group, &conditions) {
                            SigningGate::NotOurs => "not ours",
                            SigningGate::Denied(_) => "denied",
                            SigningGate::InvalidRequest => "invalid",
                            SigningGate::WaitingForApproval(_) => "waiting",
                            SigningGate::AlreadyFailed => "failed",
                            SigningGate::AlreadyIssued => "issued",
                            SigningGate::FetchIssuer => "fetch",
                        };
                        assert_eq!(got, expected, "{group:?} {conditions:?}");
                        seen += 1;
                    }
                }
            }
        }
    }
    assert_eq!(seen, 4 * 4 * 4 * 4 * 8);
}

fn issuer(
    kind: &str,
    conditions: &[Condition<'_>],
    lookup: IssuerLookup<'_>,
    has_certificate: bool,
) -> IssuerGate {
    issuer_gate(&IssuerInput { issuer_kind: kind, conditions, lookup, has_certificate })
}

fn pending_report(reason: &str, message: &str, event: bool) -> IssuerGate {
    IssuerGate::Pending(crate::report::Report {
        ready: ConditionUpdate {
            type_: "Ready",
            status: "False",
            reason: "Pending".into(),
            message: message.into(),
        },
        event: event.then(|| Event {
            warning: false,
            reason: reason.into(),
            message: message.into(),
        }),
        failure_time: None,
    })
}

#[test]
fn issuer_stage_texts_and_order() {
    let not_found = IssuerLookup::NotFound { error: r#"issuers.cert-manager.io "ca" not found"# };
    assert_eq!(
        issuer("", &[APPROVED], not_found, false),
        pending_report(
            "IssuerNotFound",
            r#"Referenced "Issuer" not found: issuers.cert-manager.io "ca" not found"#,
            true
        )
    );
    assert_eq!(
        issuer("ClusterIssuer", &[APPROVED], IssuerLookup::NotFound { error: "e" }, false),
        pending_report("IssuerNotFound", r#"Referenced "ClusterIssuer" not found: e"#, true)
    );
    // Go's %q escapes what it must.
    assert_eq!(
        issuer("Is\"suer", &[], IssuerLookup::NotFound { error: "e" }, false),
        pending_report("IssuerNotFound", r#"Referenced "Is\"suer" not found: e"#, true)
    );
    assert_eq!(
        issuer("", &[], IssuerLookup::NoIssuerType { namespace: "team-a", name: "ca" }, false),
        pending_report(
            "IssuerTypeMissing",
            "Missing issuer type: no issuer specified for Issuer 'team-a/ca'",
            true
        )
    );
    assert_eq!(
        issuer(
            "ClusterIssuer",
            &[],
            IssuerLookup::NoIssuerType { namespace: "", name: "root" },
            false
        ),
        pending_report(
            "IssuerTypeMissing",
            "Missing issuer type: no issuer specified for Issuer '/root'",
            true
        )
    );
    let not_ready = IssuerLookup::Found { ours: true, ready: false };
    assert_eq!(
        issuer("", &[], not_ready, false),
        pending_report(
            "IssuerNotReady",
            "Referenced issuer does not have a Ready status condition",
            true
        )
    );
    // Already Pending: the condition is rewritten, the event is not repeated.
    assert_eq!(
        issuer("", &[c("Ready", "False", "Pending")], not_ready, false),
        pending_report(
            "IssuerNotReady",
            "Referenced issuer does not have a Ready status condition",
            false
        )
    );
    // Another type's request is left alone before readiness is looked at.
    assert_eq!(
        issuer("", &[], IssuerLookup::Found { ours: false, ready: false }, true),
        IssuerGate::NotOurs
    );
    // Readiness comes before the certificate check.
    assert!(matches!(issuer("", &[], not_ready, true), IssuerGate::Pending(_)));
    let ready = IssuerLookup::Found { ours: true, ready: true };
    assert_eq!(issuer("", &[], ready, true), IssuerGate::AlreadySigned);
    assert_eq!(issuer("", &[], ready, false), IssuerGate::Sign);
}

#[test]
fn after_signing_texts() {
    assert_eq!(after_signing(Ok(()), true, None, now()), report::issued());
    let failed = after_signing(Err("error decoding certificate PEM block"), false, None, now());
    assert_eq!(
        failed.ready.message,
        "Failed to decode returned certificate: error decoding certificate PEM block"
    );
    assert_eq!(failed.ready.reason, "Failed");
    assert_eq!(
        failed.event.as_ref().map(|e| (e.warning, e.reason.as_str())),
        Some((true, "DecodeError"))
    );
    assert_eq!(failed.failure_time, Some(now()));
    let ca = after_signing(Err("boom"), true, Some(now()), now());
    assert_eq!(
        ca.ready.message,
        "Failed to decode returned certificate: with CA issuers, ensure the Certificate's secretName is different from the CA issuer's secretName to avoid overwriting the CA secret: boom"
    );
    assert_eq!(ca.failure_time, None);
}
