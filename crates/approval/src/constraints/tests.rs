//! Table tests for the `constraints` evaluator (spec §5).

use serde_json::{Value, json};

use super::*;
use crate::test_support::csr;
use certgate_pki::PublicKeyInfo;

fn run(
    constraints: Value,
    duration: Option<&str>,
    key: Option<(KeyAlgorithm, i64)>,
) -> Result<Option<String>, String> {
    let constraints: Option<Constraints> =
        serde_json::from_value(constraints).expect("valid constraints");
    let mut decoded = csr();
    let too_large = CsrError::TooLarge { size: 70_000, limit: 65_536 };
    let csr = match key {
        Some((algorithm, size)) => {
            decoded.public_key = PublicKeyInfo { algorithm, size };
            Ok(&decoded)
        }
        None => Err(&too_large),
    };
    match evaluate(constraints.as_ref(), duration, csr, false) {
        Ok((Verdict::NotDenied, _)) => Ok(None),
        Ok((Verdict::Denied(message), _)) => Ok(Some(message)),
        Err(err) => Err(err.0),
    }
}

#[test]
fn durations() {
    let cases: &[(Value, Option<&str>, Option<&str>)] = &[
        (Value::Null, Some("1000h"), None),
        (json!({}), None, None),
        (json!({"maxDuration": "24h"}), Some("24h"), None),
        (
            json!({"maxDuration": "24h"}),
            Some("48h"),
            Some(r#"spec.constraints.maxDuration: Invalid value: "48h0m0s": 24h0m0s"#),
        ),
        (
            json!({"maxDuration": "24h"}),
            None,
            Some(r#"spec.constraints.maxDuration: Invalid value: "nil": 24h0m0s"#),
        ),
        (json!({"minDuration": "1m"}), Some("60s"), None),
        (
            json!({"minDuration": "1h"}),
            Some("90s"),
            Some(r#"spec.constraints.minDuration: Invalid value: "1m30s": 1h0m0s"#),
        ),
        (
            json!({"minDuration": "1h", "maxDuration": "2h"}),
            None,
            Some(
                r#"[spec.constraints.maxDuration: Invalid value: "nil": 2h0m0s, spec.constraints.minDuration: Invalid value: "nil": 1h0m0s]"#,
            ),
        ),
    ];
    for (constraints, duration, want) in cases {
        // No privateKey: the CSR (here undecodable) is never looked at.
        assert_eq!(
            run(constraints.clone(), *duration, None),
            Ok(want.map(str::to_owned)),
            "{constraints} {duration:?}"
        );
    }
}

#[test]
fn private_keys() {
    let cases: &[(Value, (KeyAlgorithm, i64), Option<&str>)] = &[
        (
            json!({"algorithm": "RSA", "minSize": 2048, "maxSize": 4096}),
            (KeyAlgorithm::Rsa, 2048),
            None,
        ),
        (
            json!({"algorithm": "ECDSA"}),
            (KeyAlgorithm::Rsa, 2048),
            Some(r#"spec.constraints.privateKey.algorithm: Invalid value: "RSA": ECDSA"#),
        ),
        (
            json!({"minSize": 4000}),
            (KeyAlgorithm::Rsa, 2048),
            Some(r#"spec.constraints.privateKey.minSize: Invalid value: "2048": 4000"#),
        ),
        (
            json!({"maxSize": 256}),
            (KeyAlgorithm::Ecdsa, 384),
            Some(r#"spec.constraints.privateKey.maxSize: Invalid value: "384": 256"#),
        ),
        (
            json!({"minSize": 256}),
            (KeyAlgorithm::Ed25519, -1),
            Some(r#"spec.constraints.privateKey.minSize: Invalid value: "-1": 256"#),
        ),
        (json!({"algorithm": "Ed25519"}), (KeyAlgorithm::Ed25519, -1), None),
        (
            json!({"algorithm": "Ed25519", "maxSize": 100, "minSize": 521}),
            (KeyAlgorithm::Ecdsa, 521),
            Some(
                r#"[spec.constraints.privateKey.algorithm: Invalid value: "ECDSA": Ed25519, spec.constraints.privateKey.maxSize: Invalid value: "521": 100]"#,
            ),
        ),
    ];
    for (key, (algorithm, size), want) in cases {
        let constraints = json!({"privateKey": key});
        assert_eq!(
            run(constraints, None, Some((algorithm.clone(), *size))),
            Ok(want.map(str::to_owned)),
            "{key}"
        );
    }
}

#[test]
fn checks_run_in_order_and_aggregate() {
    let constraints = json!({"maxDuration": "1h", "minDuration": "2h", "privateKey": {"algorithm": "RSA", "maxSize": 1024, "minSize": 4096}});
    assert_eq!(
        run(constraints, Some("90m"), Some((KeyAlgorithm::Rsa, 2048))),
        Ok(Some(
            r#"[spec.constraints.maxDuration: Invalid value: "1h30m0s": 1h0m0s, spec.constraints.minDuration: Invalid value: "1h30m0s": 2h0m0s, spec.constraints.privateKey.maxSize: Invalid value: "2048": 1024, spec.constraints.privateKey.minSize: Invalid value: "2048": 4096]"#
                .to_owned()
        ))
    );
}

#[test]
fn evaluator_errors() {
    assert_eq!(
        run(json!({"privateKey": {}}), None, None),
        Err(CsrError::TooLarge { size: 70_000, limit: 65_536 }.to_string()),
        "the CSR error is passed through unchanged"
    );
    assert_eq!(
        run(json!({"privateKey": {}}), None, Some((KeyAlgorithm::Other("1.3.101.110".into()), 0))),
        Err("unrecognised public key type <nil>".to_owned())
    );
    assert_eq!(
        run(json!({"privateKey": {}}), None, Some((KeyAlgorithm::Other(OID_DSA.into()), 2048))),
        Err("unrecognised public key type *dsa.PublicKey".to_owned())
    );
    assert_eq!(
        run(json!({"maxDuration": "1h"}), Some("forever"), None),
        Err(r#"cannot compare the CertificateRequest's spec.duration: time: invalid duration "forever""#.to_owned())
    );
    assert_eq!(
        run(json!({"maxDuration": "1 hour"}), Some("1h"), None),
        Err(r#"cannot compare the policy's spec.constraints.maxDuration: time: unknown unit " hour" in duration "1 hour""#.to_owned())
    );
    // A request duration nobody constrains is never parsed.
    assert_eq!(run(json!({}), Some("forever"), None), Ok(None));
}

#[test]
fn explain_records_duration_and_key_checks() {
    let constraints: Constraints =
        serde_json::from_value(json!({"maxDuration": "1h", "privateKey": {"minSize": 3072}}))
            .expect("valid");
    let decoded = csr();
    let (verdict, checks) =
        evaluate(Some(&constraints), Some("30m"), Ok(&decoded), true).expect("evaluates");
    assert!(matches!(verdict, Verdict::Denied(_)));
    let summary: Vec<(&str, bool, &[String])> =
        checks.iter().map(|c| (c.attribute.as_str(), c.passed, c.values.as_slice())).collect();
    assert_eq!(
        summary,
        vec![
            ("spec.constraints.maxDuration", true, &["30m0s".to_owned()][..]),
            ("spec.constraints.privateKey", false, &["ECDSA 256".to_owned()][..]),
        ]
    );
}
