//! One case per rule of upstream's `ValidateCertificateSpec`, with the texts upstream's
//! webhook answers (`field.Error.Error()`).

use certgate_api::cert_manager::CertificateSpec;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::validate;

/// A valid spec: the base every case changes one thing of.
fn base() -> Value {
    json!({
        "secretName": "web-tls",
        "issuerRef": {"name": "ca", "kind": "Issuer"},
        "dnsNames": ["web.example.com"],
    })
}

/// `base()` with `patch`'s top-level fields set (a `null` removes the field).
fn spec(patch: Value) -> CertificateSpec {
    let mut spec = base();
    for (key, value) in patch.as_object().expect("object patch") {
        if value.is_null() {
            spec.as_object_mut().expect("object").remove(key);
        } else {
            spec[key] = value.clone();
        }
    }
    serde_json::from_value(spec).expect("a CertificateSpec")
}

fn texts(patch: Value) -> Vec<String> {
    validate(&spec(patch)).iter().map(ToString::to_string).collect()
}

#[test]
fn the_base_and_upstreams_valid_shapes_pass() {
    let valid = [
        json!({}),
        json!({"commonName": "web", "dnsNames": null}),
        json!({"dnsNames": null, "ipAddresses": ["10.0.0.1", "::1", "::ffff:1.2.3.4"]}),
        json!({"dnsNames": null, "uris": ["spiffe://cluster.local/ns/a/sa/b"]}),
        json!({"dnsNames": null, "emailAddresses": ["alice@example.com"]}),
        json!({"dnsNames": null, "otherNames": [{"oid": "1.3.6.1.4.1.311.20.2.3", "utf8Value": "u@x"}]}),
        json!({"dnsNames": null, "literalSubject": "CN=web,O=Example,1.2.3.4=x"}),
        json!({"privateKey": {"algorithm": "RSA", "size": 4096}}),
        json!({"privateKey": {"algorithm": "RSA", "size": 8192}}),
        json!({"privateKey": {"algorithm": "ECDSA", "size": 521}}),
        json!({"privateKey": {"algorithm": "Ed25519", "size": 12}}),
        json!({"privateKey": {"algorithm": "ECDSA"}, "signatureAlgorithm": "ECDSAWithSHA384"}),
        json!({"signatureAlgorithm": "SHA512WithRSA"}),
        json!({"duration": "1h", "renewBefore": "5m"}),
        json!({"duration": "2160h", "renewBeforePercentage": 25}),
        json!({"usages": ["signing", "digital signature", "server auth", "s/mime", "any"]}),
        json!({"revisionHistoryLimit": 1}),
        json!({"secretTemplate": {"annotations": {"cert-manager.io/allow-direct-injection": "true", "a": "b"}}}),
        json!({"isCA": true, "nameConstraints": {"permitted": {"ipRanges": ["10.0.0.0/8", "fd00::/8"]}}}),
        json!({"additionalOutputFormats": [{"type": "DER"}, {"type": "CombinedPEM"}]}),
        json!({"keystores": {"jks": {"create": true, "password": "x"}, "pkcs12": {"create": true, "passwordSecretRef": {"name": "p"}}}}),
        json!({"renewal": {"policy": "RenewBefore", "windows": [{"cron": "0 2 * * *", "windowDuration": "2h"}]}}),
        json!({"renewal": {"policy": "Disabled"}}),
        json!({"issuerRef": {"name": "x", "group": "example.com", "kind": "AnyKind"}}),
    ];
    for patch in valid {
        assert_eq!(texts(patch.clone()), Vec::<String>::new(), "{patch}");
    }
}

#[test]
fn each_rule_answers_with_upstreams_text() {
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric \
        characters, '-' or '.', and must start and end with an alphanumeric character (e.g. \
        'example.com', regex used for validation is \
        '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let cases: Vec<(Value, Vec<String>)> = vec![
        (json!({"secretName": ""}), vec!["spec.secretName: Required value: must be specified".into()]),
        (json!({"secretName": "testFoo"}), vec![format!("spec.secretName: Invalid value: \"testFoo\": {subdomain}")]),
        (json!({"issuerRef": {"name": ""}}), vec!["spec.issuerRef.name: Required value: must be specified".into()]),
        (
            json!({"issuerRef": {"name": "x", "kind": "AWSPCAClusterIssuer"}}),
            vec!["spec.issuerRef.kind: Invalid value: \"AWSPCAClusterIssuer\": must be one of Issuer or ClusterIssuer (did you forget to set spec.issuerRef.kind.group?)".into()],
        ),
        (
            json!({"dnsNames": null}),
            vec!["spec: Invalid value: \"\": at least one of commonName (from the commonName field or from a literalSubject), dnsNames, emailSANs, ipAddresses, otherNames, or uriSANs must be set".into()],
        ),
        (json!({"commonName": "a".repeat(65)}), vec!["spec.commonName: Too long: may not be more than 64 bytes".into()]),
        (
            json!({"literalSubject": "CN=web", "commonName": "web"}),
            vec!["spec.commonName: Invalid value: \"web\": When providing a `LiteralSubject` no `commonName` may be provided.".into()],
        ),
        (
            json!({"literalSubject": "CN=web", "subject": {"organizations": ["o"]}}),
            vec!["spec.subject: Invalid value: {\"Organizations\":[\"o\"],\"Countries\":null,\"OrganizationalUnits\":null,\"Localities\":null,\"Provinces\":null,\"StreetAddresses\":null,\"PostalCodes\":null,\"SerialNumber\":\"\"}: When providing a `LiteralSubject` no `Subject` properties may be provided.".into()],
        ),
        (
            json!({"literalSubject": "CN=web,FOO=bar"}),
            vec!["spec.literalSubject: Invalid value: \"CN=web,FOO=bar\": Literal subject contains unrecognized key with value [bar]".into()],
        ),
        (
            json!({"dnsNames": null, "literalSubject": format!("CN={}", "a".repeat(65))}),
            vec!["spec.commonName: Too long: may not be more than 64 bytes".into()],
        ),
        (json!({"ipAddresses": ["1.2.3"]}), vec!["spec.ipAddresses[0]: Invalid value: \"1.2.3\": invalid IP address".into()]),
        (
            json!({"emailAddresses": ["alice.example.com"]}),
            vec!["spec.emailAddresses[0]: Invalid value: \"alice.example.com\": invalid email address: mail: missing '@' or angle-addr".into()],
        ),
        (
            json!({"emailAddresses": ["Alice <alice@example.com>"]}),
            vec!["spec.emailAddresses[0]: Invalid value: \"Alice <alice@example.com>\": invalid email address: make sure the supplied value only contains the email address itself".into()],
        ),
        (
            json!({"otherNames": [{"utf8Value": ""}]}),
            vec![
                "spec.otherNames[0].oid: Required value: must be specified".into(),
                "spec.otherNames[0].oid: Invalid value: \"\": invalid oid syntax".into(),
                "spec.otherNames[0].utf8Value: Required value: must be set to a valid non-empty UTF8 string".into(),
            ],
        ),
        (
            json!({"otherNames": [{"oid": "1.2.x", "utf8Value": "v"}]}),
            vec!["spec.otherNames[0].oid: Invalid value: \"1.2.x\": invalid oid syntax".into()],
        ),
        (
            json!({"privateKey": {"size": 1024}}),
            vec!["spec.privateKey.size: Invalid value: 1024: must be between 2048 and 8192 for rsa keyAlgorithm".into()],
        ),
        (
            json!({"privateKey": {"algorithm": "RSA", "size": 8193}}),
            vec!["spec.privateKey.size: Invalid value: 8193: must be between 2048 and 8192 for rsa keyAlgorithm".into()],
        ),
        (
            json!({"privateKey": {"algorithm": "ECDSA", "size": 512}}),
            vec!["spec.privateKey.size: Unsupported value: 512: supported values: \"256\", \"384\", \"521\"".into()],
        ),
        (
            json!({"privateKey": {"algorithm": "DSA"}}),
            vec!["spec.privateKey.algorithm: Invalid value: \"DSA\": must be either empty or one of rsa, ecdsa or ed25519".into()],
        ),
        (
            json!({"signatureAlgorithm": "ECDSAWithSHA256"}),
            vec!["spec.signatureAlgorithm: Invalid value: \"ECDSAWithSHA256\": for key algorithm RSA the allowed signature algorithms are [SHA256WithRSA SHA384WithRSA SHA512WithRSA]".into()],
        ),
        (
            json!({"privateKey": {"algorithm": "Ed25519"}, "signatureAlgorithm": "SHA256WithRSA"}),
            vec!["spec.signatureAlgorithm: Invalid value: \"SHA256WithRSA\": for key algorithm Ed25519 the allowed signature algorithms are [PureEd25519]".into()],
        ),
        (
            json!({"duration": "30m"}),
            vec!["spec.duration: Invalid value: 1800000000000: certificate duration must be greater than 1h0m0s".into()],
        ),
        (
            json!({"renewBefore": "1m"}),
            vec!["spec.renewBefore: Invalid value: 60000000000: certificate renewBefore must be greater than 5m0s".into()],
        ),
        (
            json!({"duration": "1h", "renewBefore": "1h"}),
            vec!["spec.renewBefore: Invalid value: 3600000000000: certificate duration 1h0m0s must be greater than renewBefore 1h0m0s".into()],
        ),
        (
            json!({"duration": "2h", "renewBefore": "30m", "renewBeforePercentage": 50}),
            vec![
                "spec.renewBefore: Invalid value: 1800000000000: renewBefore and renewBeforePercentage are mutually exclusive and cannot both be set".into(),
                "spec.renewBeforePercentage: Invalid value: 50: renewBefore and renewBeforePercentage are mutually exclusive and cannot both be set".into(),
            ],
        ),
        (
            json!({"duration": "2h", "renewBeforePercentage": 100}),
            vec!["spec.renewBeforePercentage: Invalid value: 100: certificate renewBeforePercentage must result in a renewBefore greater than 5m0s".into()],
        ),
        (
            json!({"duration": "2h", "renewBeforePercentage": 0}),
            vec!["spec.renewBeforePercentage: Invalid value: 0: certificate renewBeforePercentage must result in a renewBefore less than duration".into()],
        ),
        (
            json!({"duration": "2h", "renewBeforePercentage": -2147483648}),
            vec!["spec.renewBeforePercentage: Invalid value: -2147483648: certificate renewBeforePercentage must result in a renewBefore greater than 5m0s".into()],
        ),
        (
            json!({"duration": "1 day"}),
            vec!["spec.duration: Invalid value: \"1 day\": time: unknown unit \" day\" in duration \"1 day\"".into()],
        ),
        (json!({"usages": ["server auth", "frobnicate"]}), vec!["spec.usages[1]: Invalid value: \"frobnicate\": unknown keyusage".into()]),
        // KeyUsage is a named string type: JSON, which escapes `<` and `>` (Go's `%q` does not).
        (json!({"usages": ["<x>"]}), vec!["spec.usages[0]: Invalid value: \"\\u003cx\\u003e\": unknown keyusage".into()]),
        (json!({"dnsNames": ["<x>"], "ipAddresses": ["<x>"]}), vec!["spec.ipAddresses[0]: Invalid value: \"<x>\": invalid IP address".into()]),
        (json!({"revisionHistoryLimit": 0}), vec!["spec.revisionHistoryLimit: Invalid value: 0: must not be less than 1".into()]),
        (
            json!({"secretTemplate": {"labels": {"app": "web server"}, "annotations": {"cert-manager.io/issuer-name": "x", "bad key": "v"}}}),
            vec![
                "spec.secretTemplate.labels: Invalid value: \"web server\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".into(),
                "spec.secretTemplate.annotations: Invalid value: \"cert-manager.io/issuer-name\": cert-manager.io/* annotations are not allowed".into(),
                "spec.secretTemplate.annotations: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".into(),
            ],
        ),
        (
            json!({"secretTemplate": {"annotations": {"cert-manager.io/issuer-name": "x"}}}),
            vec!["spec.secretTemplate.annotations: Invalid value: \"cert-manager.io/issuer-name\": cert-manager.io/* annotations are not allowed".into()],
        ),
        (
            json!({"nameConstraints": {"permitted": {"ipRanges": ["10.0.0.0/33"]}}}),
            vec![
                "spec.nameConstraints: Invalid value: {\"Critical\":false,\"Permitted\":{\"DNSDomains\":null,\"IPRanges\":[\"10.0.0.0/33\"],\"EmailAddresses\":null,\"URIDomains\":null},\"Excluded\":null}: isCA should be true when nameConstraints is set".into(),
                "spec.nameConstraints.permitted.ipRanges[0]: Invalid value: \"10.0.0.0/33\": invalid CIDR address".into(),
            ],
        ),
        (
            json!({"isCA": true, "nameConstraints": {"critical": true}}),
            vec!["spec.nameConstraints: Invalid value: {\"Critical\":true,\"Permitted\":null,\"Excluded\":null}: either permitted or excluded must be set".into()],
        ),
        (
            json!({"additionalOutputFormats": [{"type": "DER"}, {"type": "DER"}]}),
            vec!["spec.additionalOutputFormats[type]: Duplicate value: \"DER\"".into()],
        ),
        (
            json!({"keystores": {"jks": {"create": true, "password": "", "passwordSecretRef": {"name": "s"}}}}),
            vec![
                "spec.keystores.jks: Forbidden: exactly one of passwordSecretRef and password must be provided for JKS keystores; cannot set both".into(),
                "spec.keystores.jks.password: Forbidden: literal password cannot be empty if set on JKS keystores".into(),
            ],
        ),
        (
            json!({"keystores": {"pkcs12": {"create": true}}}),
            vec!["spec.keystores.pkcs12: Forbidden: must set exactly one of passwordSecretRef and password must for PKCS#12 keystores".into()],
        ),
        (
            json!({"renewal": {"policy": "Disabled", "windows": [{"cron": "0 2 * * *", "windowDuration": "2h"}]}}),
            vec!["spec.renewal.windows: Forbidden: windows cannot be set when `renewal.policy` is set to Disabled".into()],
        ),
        (
            json!({"renewal": {"policy": "RenewBefore", "windows": [{"cron": "0 2 * * *", "windowDuration": "1h"}, {"cron": "0 25 * * *", "windowDuration": "1h"}]}}),
            vec!["spec.renewal.windows[1].cron: Invalid value: \"0 25 * * *\": invalid cron syntax: failed to parse cron spec '0 25 * * *': end of range (25) above maximum (23): 25. cron needs to follow: cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow".into()],
        ),
        (
            json!({"renewal": {"windows": [{"cron": "daily", "windowDuration": "1h"}]}}),
            vec![
                "spec.renewal.policy: Unsupported value: \"\": supported values: \"Disabled\", \"RenewBefore\"".into(),
                "spec.renewal.windows[0].cron: Invalid value: \"daily\": invalid cron syntax: failed to parse cron spec 'daily': expected exactly 5 fields, found 1: [daily]. cron needs to follow: cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow".into(),
            ],
        ),
        (
            json!({"renewal": {}}),
            vec!["spec.renewal.policy: Unsupported value: \"\": supported values: \"Disabled\", \"RenewBefore\"".into()],
        ),
    ];
    for (patch, expected) in cases {
        assert_eq!(texts(patch.clone()), expected, "{patch}");
    }
}

#[test]
fn errors_come_in_upstreams_order() {
    let got = texts(json!({
        "secretName": "",
        "issuerRef": {"name": ""},
        "dnsNames": null,
        "revisionHistoryLimit": 0,
    }));
    assert_eq!(
        got,
        [
            "spec.secretName: Required value: must be specified",
            "spec.issuerRef.name: Required value: must be specified",
            "spec: Invalid value: \"\": at least one of commonName (from the commonName field or from a literalSubject), dnsNames, emailSANs, ipAddresses, otherNames, or uriSANs must be set",
            "spec.revisionHistoryLimit: Invalid value: 0: must not be less than 1",
        ]
    );
}

#[test]
fn ip_addresses_parse_as_gos_net_parse_ip() {
    for bad in ["010.0.0.1", "1.2.3.4.5", "::1%eth0", "10.0.0.0/8", "", " 1.2.3.4"] {
        let got = texts(json!({"ipAddresses": [bad]}));
        let expected = format!("spec.ipAddresses[0]: Invalid value: {bad:?}: invalid IP address");
        assert_eq!(got, [expected], "{bad}");
    }
}

#[test]
fn an_overlong_secret_name_gets_both_messages() {
    let got = texts(json!({"secretName": "a".repeat(254)}));
    assert_eq!(got.len(), 1);
    assert!(got[0].ends_with("must be no more than 253 characters"), "{}", got[0]);
    let got = texts(json!({"secretName": format!("{}-", "a".repeat(253))}));
    assert_eq!(got.len(), 2, "{got:?}");
}

#[test]
fn hostile_literal_subjects_are_refused_not_panicked_on() {
    for literal in ["=", "CN", "CN=a\\", "CN=a\\4", "+CN=a", ",", &"O=x,".repeat(300)] {
        let got = texts(json!({"literalSubject": literal}));
        assert!(
            got.iter().any(|t| t.starts_with("spec.literalSubject: Invalid value")),
            "{literal}: {got:?}"
        );
    }
}

proptest::proptest! {
    /// Whatever the strings and numbers, validation answers (errors or none), never panics.
    #[test]
    fn arbitrary_values_never_panic(
        text in "\\PC{0,40}",
        duration in "[0-9.hms -]{0,12}",
        pct in proptest::num::i32::ANY,
        size in proptest::num::i64::ANY,
        limit in proptest::num::i32::ANY,
    ) {
        let spec: CertificateSpec = serde_json::from_value(json!({
            "secretName": text,
            "issuerRef": {"name": text, "kind": text},
            "commonName": text,
            "literalSubject": text,
            "emailAddresses": [text],
            "ipAddresses": [text],
            "otherNames": [{"oid": text, "utf8Value": text}],
            "duration": duration,
            "renewBefore": duration,
            "renewBeforePercentage": pct,
            "privateKey": {"algorithm": text, "size": size},
            "signatureAlgorithm": text,
            "usages": [text],
            "revisionHistoryLimit": limit,
            "isCA": true,
            "nameConstraints": {"excluded": {"ipRanges": [text]}},
            "renewal": {"policy": "RenewBefore", "windows": [{"cron": text, "windowDuration": "1h"}, {"cron": duration, "windowDuration": "1h", "timezone": "UTC"}]},
            "secretTemplate": {"annotations": {text.clone(): text}, "labels": {text.clone(): text}},
        })).expect("a CertificateSpec");
        let _ = validate(&spec);
    }
}
