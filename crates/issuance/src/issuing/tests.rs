use chrono::{TimeDelta, TimeZone};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

use super::*;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 5, 6, 7, 8, 9).unwrap()
}

const fn c(
    type_: &'static str,
    status: &'static str,
    reason: &'static str,
    message: &'static str,
) -> Condition<'static> {
    Condition::new(type_, status, reason, message)
}

fn outcome(conditions: &[Condition<'_>]) -> RequestOutcome {
    request_outcome(&RequestState { conditions, failure_time: None, issuing_since: None })
}

fn failed(reason: &str, message: &str) -> RequestOutcome {
    RequestOutcome::Failed(Failure { reason: reason.into(), message: message.into() })
}

const DENIED: Condition<'static> =
    c("Denied", "True", "policy.cert-manager.io", "No policy approved this request");
const INVALID: Condition<'static> =
    c("InvalidRequest", "True", "BadConfig", "unsupported key usage");
const ISSUED: Condition<'static> =
    c("Ready", "True", "Issued", "Certificate fetched from issuer successfully");
const READY_FAILED: Condition<'static> = c("Ready", "False", "Failed", "Failed to sign: boom");

#[test]
fn denied_wins_even_over_issued_then_invalid_then_ready() {
    let denied = failed("policy.cert-manager.io", "No policy approved this request");
    let invalid = failed("BadConfig", "unsupported key usage");
    let cases: &[(&[Condition<'_>], RequestOutcome)] = &[
        (&[ISSUED, DENIED], denied.clone()),
        (&[INVALID, DENIED, READY_FAILED], denied.clone()),
        (&[ISSUED, INVALID], invalid.clone()),
        (&[READY_FAILED, INVALID], invalid),
        (&[READY_FAILED], failed("Failed", "Failed to sign: boom")),
        (&[ISSUED], RequestOutcome::CheckCertificate),
        (&[c("Ready", "False", "Issued", "")], RequestOutcome::CheckCertificate),
        (&[c("Ready", "True", "Failed", "odd")], failed("Failed", "odd")),
        (&[], RequestOutcome::InProgress),
        (&[c("Approved", "True", "cert-manager.io", "")], RequestOutcome::InProgress),
        (&[c("Ready", "False", "Pending", "waiting")], RequestOutcome::InProgress),
        (&[c("Ready", "False", "Denied", "x")], RequestOutcome::InProgress),
        // Only the first Ready condition is read.
        (&[c("Ready", "False", "Pending", ""), READY_FAILED], RequestOutcome::InProgress),
        // Denied/InvalidRequest not True do not fail the issuance.
        (
            &[c("Denied", "False", "r", "m"), c("InvalidRequest", "Unknown", "r", "m")],
            RequestOutcome::InProgress,
        ),
    ];
    for (conditions, expected) in cases {
        assert_eq!(&outcome(conditions), expected, "{conditions:?}");
    }
    // The failure carries the first condition of the type, as upstream reads it.
    assert_eq!(
        outcome(&[c("Denied", "False", "first", "one"), c("Denied", "True", "second", "two")]),
        failed("first", "one")
    );
}

#[test]
fn a_failure_from_before_this_issuance_is_waited_out() {
    let t0 = now();
    let state = |failure: Option<i64>, since: Option<i64>, conditions| RequestState {
        conditions,
        failure_time: failure.map(|s| t0 + TimeDelta::seconds(s)),
        issuing_since: since.map(|s| t0 + TimeDelta::seconds(s)),
    };
    let conditions = [READY_FAILED];
    assert_eq!(
        request_outcome(&state(Some(0), Some(1), &conditions)),
        RequestOutcome::StaleFailure
    );
    // Stale even when denied meanwhile: the check comes first.
    let denied_too = [READY_FAILED, DENIED];
    assert_eq!(
        request_outcome(&state(Some(0), Some(1), &denied_too)),
        RequestOutcome::StaleFailure
    );
    for (failure, since) in
        [(Some(1), Some(1)), (Some(2), Some(1)), (None, Some(1)), (Some(0), None)]
    {
        assert_eq!(
            request_outcome(&state(failure, since, &conditions)),
            failed("Failed", "Failed to sign: boom"),
            "{failure:?} {since:?}"
        );
    }
    // Earlier, but not Failed: not stale.
    let issued = [ISSUED];
    assert_eq!(
        request_outcome(&state(Some(0), Some(1), &issued)),
        RequestOutcome::CheckCertificate
    );
}

#[test]
fn issued_certificates_are_checked_with_upstreams_texts() {
    let invalid = |message: &str| {
        Err(Failure { reason: "InvalidCertificate".into(), message: message.into() })
    };
    assert_eq!(
        check_issued(
            IssuedCertificate::Undecodable { error: "error decoding certificate PEM block" },
            now()
        ),
        invalid(
            "Issuer returned an invalid certificate: failed to decode: error decoding certificate PEM block"
        )
    );
    assert_eq!(
        check_issued(
            IssuedCertificate::KeysIncomparable { error: "unrecognised public key type" },
            now()
        ),
        invalid("Failed to compare certificate and CSR public keys: unrecognised public key type")
    );
    assert_eq!(
        check_issued(IssuedCertificate::KeyMismatch, now()),
        invalid(
            "Issuer returned a certificate with a public key that does not match the CSR. This usually indicates a misconfigured issuer."
        )
    );
    let expired = now() - TimeDelta::nanoseconds(1);
    assert_eq!(
        check_issued(
            IssuedCertificate::Matches {
                not_after: Utc.with_ymd_and_hms(2024, 5, 1, 0, 0, 0).unwrap()
            },
            now()
        ),
        invalid(
            "Issuer returned an already expired certificate (notAfter: 2024-05-01T00:00:00Z). This usually indicates an expired CA certificate in the issuer."
        )
    );
    assert!(check_issued(IssuedCertificate::Matches { not_after: expired }, now()).is_err());
    // Expiring exactly now is not expired yet.
    assert_eq!(check_issued(IssuedCertificate::Matches { not_after: now() }, now()), Ok(()));
    assert_eq!(
        check_issued(IssuedCertificate::Matches { not_after: now() + TimeDelta::days(1) }, now()),
        Ok(())
    );
}

#[test]
fn failure_writes_bump_attempts_and_set_issuing_false() {
    let failure =
        Failure { reason: "Denied".into(), message: "No policy approved this request".into() };
    let message = "The certificate request has failed to complete and will be retried: No policy approved this request";
    assert_eq!(
        record_failure(&failure, None, now()),
        FailureWrites {
            last_failure_time: now(),
            failed_issuance_attempts: 1,
            issuing: ConditionUpdate {
                type_: "Issuing",
                status: "False",
                reason: "Denied".into(),
                message: message.into(),
            },
            event: Event { warning: true, reason: "Denied".into(), message: message.into() },
        }
    );
    assert_eq!(record_failure(&failure, Some(1), now()).failed_issuance_attempts, 2);
    assert_eq!(record_failure(&failure, Some(0), now()).failed_issuance_attempts, 1);
    assert_eq!(record_failure(&failure, Some(-3), now()).failed_issuance_attempts, -2);
    // Go's int addition wraps.
    assert_eq!(record_failure(&failure, Some(i64::MAX), now()).failed_issuance_attempts, i64::MIN);
    // An empty message still gets the prefix.
    let empty = Failure { reason: String::new(), message: String::new() };
    assert_eq!(
        record_failure(&empty, None, now()).issuing.message,
        "The certificate request has failed to complete and will be retried: "
    );
}

#[test]
fn success_moves_to_the_next_revision() {
    assert_eq!(
        record_success(None),
        SuccessWrites {
            revision: 1,
            issuing_under_apply: ConditionUpdate {
                type_: "Issuing",
                status: "False",
                reason: "Issued".into(),
                message: "The certificate has been successfully issued".into(),
            },
            event: Event {
                warning: false,
                reason: "Issuing".into(),
                message: "The certificate has been successfully issued".into(),
            },
        }
    );
    assert_eq!(record_success(Some(4)).revision, 5);
    assert_eq!(next_revision(Some(i64::MAX)), i64::MIN);
}

proptest! {
    #[test]
    fn failures_count_up_by_one(previous in any::<Option<i64>>()) {
        let failure = Failure { reason: "Failed".into(), message: "m".into() };
        let got = record_failure(&failure, previous, now()).failed_issuance_attempts;
        prop_assert_eq!(got, previous.unwrap_or(0).wrapping_add(1));
    }
}
