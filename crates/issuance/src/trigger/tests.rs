use chrono::{TimeDelta, TimeZone};
use pretty_assertions::assert_eq;

use super::*;

const H: i64 = 3_600_000_000_000;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2024, 5, 6, 7, 8, 9).unwrap()
}

fn validity(days_ago: i64, days_left: i64) -> Validity {
    Validity {
        not_before: now() - TimeDelta::days(days_ago),
        not_after: now() + TimeDelta::days(days_left),
    }
}

fn healthy_secret() -> SecretFacts<'static> {
    SecretFacts {
        has_data: true,
        private_key: Some(Ok(())),
        certificate: Some(Ok(validity(10, 80))),
        keys_match: Ok(true),
        issuer_annotations: IssuerAnnotations {
            name: Some("ca"),
            kind: Some("Issuer"),
            group: Some("cert-manager.io"),
        },
        certificate_name_annotation: Some("web"),
        private_key_violations: &[],
        certificate_violations: &[],
    }
}

fn healthy() -> PolicyInput<'static> {
    PolicyInput {
        certificate_name: "web",
        issuer_ref: IssuerRef { name: "ca", kind: "", group: "" },
        renewal: RenewalSpec::default(),
        renewal_time: Some(now() + TimeDelta::days(50)),
        secret: Some(healthy_secret()),
        current_request: Some(CurrentRequestFacts {
            csr_key: CsrKey::Matches,
            spec_violations: Some(&[]),
        }),
        now: now(),
    }
}

fn with_secret(change: impl FnOnce(&mut SecretFacts<'static>)) -> PolicyInput<'static> {
    let mut input = healthy();
    let mut secret = healthy_secret();
    change(&mut secret);
    input.secret = Some(secret);
    input
}

fn v(reason: &'static str, message: &str) -> Option<Violation> {
    Some(Violation { reason, message: message.to_owned() })
}

#[test]
fn a_healthy_certificate_passes_both_chains() {
    assert_eq!(evaluate(&TRIGGER_CHAIN, &healthy()), None);
    assert_eq!(evaluate(&READINESS_CHAIN, &healthy()), None);
    assert_eq!(
        ready_condition(&healthy()),
        ConditionUpdate {
            type_: "Ready",
            status: "True",
            reason: "Ready".into(),
            message: "Certificate is up to date and has not expired".into(),
        }
    );
}

#[test]
fn each_policy_with_upstreams_reason_and_message() {
    let no_current = |mut input: PolicyInput<'static>| {
        input.current_request = None;
        input
    };
    let current = |csr_key, spec_violations| {
        let mut input = healthy();
        input.current_request = Some(CurrentRequestFacts { csr_key, spec_violations });
        input
    };
    let cases: Vec<(PolicyInput<'static>, Option<Violation>)> = vec![
        (
            PolicyInput { secret: None, ..healthy() },
            v("DoesNotExist", "Issuing certificate as Secret does not exist"),
        ),
        (
            with_secret(|s| s.has_data = false),
            v("MissingData", "Issuing certificate as Secret does not contain any data"),
        ),
        (
            with_secret(|s| s.private_key = None),
            v("MissingData", "Issuing certificate as Secret does not contain a private key"),
        ),
        (
            with_secret(|s| s.certificate = None),
            v("MissingData", "Issuing certificate as Secret does not contain a certificate"),
        ),
        (
            with_secret(|s| s.private_key = Some(Err("error decoding private key PEM block"))),
            v(
                "InvalidKeyPair",
                "Issuing certificate as Secret contains invalid private key data: error decoding private key PEM block",
            ),
        ),
        (
            with_secret(|s| s.certificate = Some(Err("error decoding certificate PEM block"))),
            v(
                "InvalidCertificate",
                "Issuing certificate as Secret contains an invalid certificate: error decoding certificate PEM block",
            ),
        ),
        (
            with_secret(|s| s.keys_match = Err("unrecognised public key type")),
            v(
                "InvalidKeyPair",
                "Secret contains an invalid key-pair: unrecognised public key type",
            ),
        ),
        (
            with_secret(|s| s.keys_match = Ok(false)),
            v(
                "InvalidKeyPair",
                "Issuing certificate as Secret contains a private key that does not match the certificate",
            ),
        ),
        (
            with_secret(|s| s.issuer_annotations.name = Some("other")),
            v(
                "IncorrectIssuer",
                r#"Issuing certificate as Secret was previously issued by "Issuer.cert-manager.io/other""#,
            ),
        ),
        (
            with_secret(|s| {
                s.issuer_annotations =
                    IssuerAnnotations { name: Some("ca"), kind: Some("ClusterIssuer"), group: None }
            }),
            v(
                "IncorrectIssuer",
                r#"Issuing certificate as Secret was previously issued by "ClusterIssuer.cert-manager.io/ca""#,
            ),
        ),
        (
            with_secret(|s| {
                s.issuer_annotations =
                    IssuerAnnotations { name: None, kind: None, group: Some("example.com") }
            }),
            v(
                "IncorrectIssuer",
                r#"Issuing certificate as Secret was previously issued by "Issuer.example.com/""#,
            ),
        ),
        (
            with_secret(|s| s.certificate_name_annotation = Some("api")),
            v(
                "IncorrectCertificate",
                r#"Secret was issued for "api". If this message is not transient, you might have two conflicting Certificates pointing to the same secret."#,
            ),
        ),
        (
            with_secret(|s| {
                s.private_key_violations = &["spec.privateKey.algorithm", "spec.privateKey.size"]
            }),
            v(
                "SecretMismatch",
                "Existing private key is not up to date for spec: [spec.privateKey.algorithm spec.privateKey.size]",
            ),
        ),
        (
            current(CsrKey::Undecodable("error decoding certificate request PEM block"), Some(&[])),
            v(
                "InvalidCertificateRequest",
                "Failed to decode current CertificateRequest: error decoding certificate request PEM block",
            ),
        ),
        (
            current(CsrKey::Incomparable("unrecognised public key type"), Some(&[])),
            v(
                "InvalidCertificateRequest",
                "CertificateRequest's public key is invalid: unrecognised public key type",
            ),
        ),
        (
            current(CsrKey::Differs, Some(&[])),
            v(
                "SecretMismatch",
                "Secret contains a private key that does not match the current CertificateRequest",
            ),
        ),
        (
            current(CsrKey::Matches, Some(&["spec.dnsNames"])),
            v(
                "RequestChanged",
                "Fields on existing CertificateRequest resource not up to date: [spec.dnsNames]",
            ),
        ),
        // A request that cannot be parsed does not trigger by itself.
        (current(CsrKey::Matches, None), None),
        (
            no_current(with_secret(|s| {
                s.certificate_violations = &["spec.dnsNames", "spec.ipAddresses"]
            })),
            v(
                "SecretMismatch",
                "Issuing certificate as Existing issued Secret is not up to date for spec: [spec.dnsNames spec.ipAddresses]",
            ),
        ),
        (no_current(healthy()), None),
    ];
    for (input, expected) in &cases {
        assert_eq!(&evaluate(&TRIGGER_CHAIN, input), expected, "{input:?}");
        // Both chains share everything before expiry.
        assert_eq!(&evaluate(&READINESS_CHAIN, input), expected, "{input:?}");
    }
}

#[test]
fn issuer_annotations_default_kind_and_group() {
    let issuer = |name, kind, group| IssuerRef { name, kind, group };
    let ann = |name, kind, group| IssuerAnnotations { name, kind, group };
    let cases = [
        // No annotations: matches only the default kind and group, any name.
        (ann(None, None, None), issuer("anything", "", ""), true),
        (ann(None, None, None), issuer("ca", "Issuer", "cert-manager.io"), true),
        (ann(None, None, None), issuer("ca", "ClusterIssuer", ""), false),
        (ann(None, None, None), issuer("ca", "", "example.com"), false),
        // Any annotation makes the name count.
        (ann(None, Some("Issuer"), None), issuer("ca", "", ""), false),
        (ann(None, Some("Issuer"), None), issuer("", "", ""), true),
        (ann(Some("ca"), None, None), issuer("ca", "", ""), true),
        (ann(Some("ca"), Some(""), Some("")), issuer("ca", "Issuer", "cert-manager.io"), true),
        (ann(Some("ca"), Some("ClusterIssuer"), None), issuer("ca", "ClusterIssuer", ""), true),
        (
            ann(Some("ca"), Some("OriginIssuer"), Some("cert-manager.k8s.cloudflare.com")),
            issuer("ca", "OriginIssuer", "cert-manager.k8s.cloudflare.com"),
            true,
        ),
        (ann(Some("Ca"), None, None), issuer("ca", "", ""), false),
    ];
    for (annotations, issuer, expected) in cases {
        assert_eq!(
            issuer_annotations_match(&annotations, &issuer),
            expected,
            "{annotations:?} {issuer:?}"
        );
    }
}

#[test]
fn go_quoting_in_messages() {
    let input = with_secret(|s| s.certificate_name_annotation = Some("we\"b\n"));
    assert_eq!(
        evaluate(&TRIGGER_CHAIN, &input).unwrap().message,
        r#"Secret was issued for "we\"b\n". If this message is not transient, you might have two conflicting Certificates pointing to the same secret."#
    );
}

#[test]
fn renewal_is_due_at_the_renewal_time() {
    let at = |days_ago, days_left, renewal_time| PolicyInput {
        renewal_time,
        secret: Some(SecretFacts {
            certificate: Some(Ok(validity(days_ago, days_left))),
            ..healthy_secret()
        }),
        ..healthy()
    };
    // 90 days, 60 gone: renewal (at 2/3) is due now.
    let scheduled = Some(Utc.with_ymd_and_hms(2024, 5, 6, 7, 8, 9).unwrap());
    assert_eq!(
        evaluate(&TRIGGER_CHAIN, &at(60, 30, scheduled)),
        v(
            "Renewing",
            "Renewing certificate as renewal was scheduled at 2024-05-06 07:08:09 +0000 UTC"
        )
    );
    // One second before it: not yet.
    let mut early = at(60, 30, scheduled);
    early.now = now() - TimeDelta::seconds(1);
    assert_eq!(evaluate(&TRIGGER_CHAIN, &early), None);
    // Without status.renewalTime the message prints Go's nil pointer.
    assert_eq!(
        evaluate(&TRIGGER_CHAIN, &at(89, 1, None)),
        v("Renewing", "Renewing certificate as renewal was scheduled at <nil>")
    );
    // renewBefore moves it; Disabled turns it off (also for an expired certificate).
    let mut before = at(10, 80, None);
    before.renewal.renew_before = Some(GoDuration(81 * 24 * H));
    assert!(evaluate(&TRIGGER_CHAIN, &before).is_some());
    let mut disabled = at(100, -10, None);
    disabled.renewal.disabled = true;
    assert_eq!(evaluate(&TRIGGER_CHAIN, &disabled), None);
    // The readiness chain ignores renewal and looks at expiry.
    assert_eq!(evaluate(&READINESS_CHAIN, &at(60, 30, scheduled)), None);
}

#[test]
fn readiness_reports_expiry() {
    let expired = PolicyInput {
        secret: Some(SecretFacts {
            certificate: Some(Ok(Validity {
                not_before: Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, 0).unwrap(),
                not_after: Utc.with_ymd_and_hms(2024, 2, 29, 13, 4, 5).unwrap(),
            })),
            ..healthy_secret()
        }),
        ..healthy()
    };
    assert_eq!(
        evaluate(&READINESS_CHAIN, &expired),
        v("Expired", "Certificate expired on Thu, 29 Feb 2024 13:04:05 UTC")
    );
    assert_eq!(
        ready_condition(&expired),
        ConditionUpdate {
            type_: "Ready",
            status: "False",
            reason: "Expired".into(),
            message: "Certificate expired on Thu, 29 Feb 2024 13:04:05 UTC".into(),
        }
    );
    // Expiring exactly now is not expired.
    let mut edge = expired;
    edge.now = Utc.with_ymd_and_hms(2024, 2, 29, 13, 4, 5).unwrap();
    assert_eq!(evaluate(&READINESS_CHAIN, &edge), None);
}

#[test]
fn the_chains_stop_at_the_first_violation() {
    // Everything wrong at once: the Secret's existence is reported first, then data, ...
    let mut input = with_secret(|s| {
        s.keys_match = Ok(false);
        s.certificate_name_annotation = Some("api");
        s.private_key_violations = &["spec.privateKey.size"];
    });
    input.current_request = Some(CurrentRequestFacts {
        csr_key: CsrKey::Differs,
        spec_violations: Some(&["spec.dnsNames"]),
    });
    assert_eq!(evaluate(&TRIGGER_CHAIN, &input).unwrap().reason, "InvalidKeyPair");
    let secret = input.secret.as_mut().unwrap();
    secret.keys_match = Ok(true);
    assert_eq!(evaluate(&TRIGGER_CHAIN, &input).unwrap().reason, "IncorrectCertificate");
    input.secret.as_mut().unwrap().certificate_name_annotation = None;
    assert_eq!(evaluate(&TRIGGER_CHAIN, &input).unwrap().reason, "SecretMismatch");
    input.secret.as_mut().unwrap().private_key_violations = &[];
    assert_eq!(
        evaluate(&TRIGGER_CHAIN, &input).unwrap().message,
        "Secret contains a private key that does not match the current CertificateRequest"
    );
    input.current_request.as_mut().unwrap().csr_key = CsrKey::Matches;
    assert_eq!(evaluate(&TRIGGER_CHAIN, &input).unwrap().reason, "RequestChanged");
}

fn state(policy: PolicyInput<'static>) -> TriggerState<'static> {
    TriggerState {
        issuing: false,
        owns_secret: true,
        failures: FailureRecord::default(),
        next_request: NextRequest::MatchesSpec,
        policy,
    }
}

#[test]
fn trigger_decisions_in_upstreams_order() {
    let config = BackoffConfig::default();
    let broken = PolicyInput { secret: None, ..healthy() };
    assert_eq!(
        trigger(&TriggerState { issuing: true, owns_secret: false, ..state(broken) }, &config),
        TriggerDecision::AlreadyIssuing
    );
    assert_eq!(
        trigger(&TriggerState { owns_secret: false, ..state(broken) }, &config),
        TriggerDecision::NotSecretOwner
    );
    assert_eq!(NOT_SECRET_OWNER_RECHECK.to_string(), "3m0s");
    let failed = FailureRecord {
        last_failure_time: Some(now() - TimeDelta::minutes(10)),
        failed_issuance_attempts: Some(2),
    };
    assert_eq!(
        trigger(&TriggerState { failures: failed, ..state(broken) }, &config),
        TriggerDecision::BackingOff {
            until: now() + TimeDelta::minutes(110),
            remaining: GoDuration(110 * 60_000_000_000)
        }
    );
    // A changed spec skips the backoff.
    let message = "Issuing certificate as Secret does not exist";
    let reissue = TriggerDecision::Reissue {
        issuing: ConditionUpdate {
            type_: "Issuing",
            status: "True",
            reason: "DoesNotExist".into(),
            message: message.into(),
        },
        event: Event { warning: false, reason: "Issuing".into(), message: message.into() },
        recheck_after: Some(GoDuration(50 * 24 * H)),
    };
    assert_eq!(
        trigger(
            &TriggerState {
                failures: failed,
                next_request: NextRequest::DiffersFromSpec,
                ..state(broken)
            },
            &config
        ),
        reissue
    );
    assert_eq!(trigger(&state(broken), &config), reissue);
    assert_eq!(
        trigger(&state(healthy()), &config),
        TriggerDecision::UpToDate { recheck_after: Some(GoDuration(50 * 24 * H)) }
    );
    // A past renewal time schedules nothing; an exact one schedules now.
    let past = PolicyInput { renewal_time: Some(now() - TimeDelta::seconds(1)), ..healthy() };
    assert_eq!(trigger(&state(past), &config), TriggerDecision::UpToDate { recheck_after: None });
    let exact = PolicyInput { renewal_time: Some(now()), ..healthy() };
    assert_eq!(
        trigger(&state(exact), &config),
        TriggerDecision::UpToDate { recheck_after: Some(GoDuration(0)) }
    );
}

#[test]
fn manual_trigger_is_cmctls() {
    assert_eq!(
        manual_trigger(),
        ConditionUpdate {
            type_: "Issuing",
            status: "True",
            reason: "ManuallyTriggered".into(),
            message: "Certificate re-issuance manually triggered".into(),
        }
    );
}
