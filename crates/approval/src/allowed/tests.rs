//! Table tests for every `allowed` rule and message of spec §4 and §9.

use serde_json::{Value, json};

use super::*;
use crate::test_support::{cr, csr, other_name, rdn, strings};
use certgate_api::CertificateRequest;
use certgate_cel::{BoundRequest, CrVariable, PolicyCel};
use certgate_pki::{DecodedCsr, UnsupportedSan};

/// Evaluates `allowed` (JSON, `null` for an absent block); `None` when not denied.
fn evaluate_with(allowed: Value, cr: &CertificateRequest, csr: &DecodedCsr) -> Option<String> {
    let allowed: Option<Allowed> = serde_json::from_value(allowed).expect("valid allowed block");
    let cel = PolicyCel::default();
    let variable = CrVariable {
        name: "req".into(),
        namespace: "team-a".into(),
        username: "alice".into(),
        groups: vec!["dev".into()],
    };
    let attrs = RequestAttributes::new(cr, csr);
    match evaluate(
        &Context { cel: &cel, cr: &BoundRequest::new(&variable) },
        &attrs,
        allowed.as_ref(),
        false,
    )
    .0
    {
        Verdict::NotDenied => None,
        Verdict::Denied(message) => Some(message),
    }
}

fn evaluate_csr(allowed: Value, csr: &DecodedCsr) -> Option<String> {
    evaluate_with(allowed, &cr(), csr)
}

fn with_dns(names: &[&str]) -> DecodedCsr {
    let mut csr = csr();
    csr.san.dns_names = strings(names);
    csr
}

fn with_subject(subject: Vec<certgate_pki::SubjectAttribute>) -> DecodedCsr {
    let mut csr = csr();
    csr.subject = subject;
    csr
}

#[test]
fn empty_request_passes_an_empty_policy() {
    assert_eq!(evaluate_csr(Value::Null, &csr()), None);
    assert_eq!(evaluate_csr(json!({}), &csr()), None);
}

#[test]
fn string_and_slice_rules_without_cel() {
    let cn = |v: &str| with_subject(vec![rdn("2.5.4.3", Some(v))]);
    let cases: Vec<(&str, Value, DecodedCsr, Option<&str>)> = vec![
        (
            "CN present, nothing allowed",
            Value::Null,
            cn("x"),
            Some(r#"spec.allowed.commonName: Invalid value: "x": no allowed value"#),
        ),
        (
            "dnsNames present, nothing allowed",
            Value::Null,
            with_dns(&["a", "b"]),
            Some(r#"spec.allowed.dnsNames: Invalid value: ["a","b"]: no allowed values"#),
        ),
        (
            "an entry with neither values nor validations allows nothing",
            json!({"dnsNames": {"required": false}}),
            with_dns(&["a"]),
            Some(r#"spec.allowed.dnsNames: Invalid value: ["a"]: no allowed values"#),
        ),
        (
            "empty values list is set, and matches nothing",
            json!({"dnsNames": {"values": []}}),
            with_dns(&["a"]),
            Some(r#"spec.allowed.dnsNames.values: Invalid value: ["a"]"#),
        ),
        (
            "value matches",
            json!({"commonName": {"value": "*.example.com"}}),
            cn("www.example.com"),
            None,
        ),
        (
            "value mismatch",
            json!({"commonName": {"value": "*.example.com"}}),
            cn("example.org"),
            Some(r#"spec.allowed.commonName.value: Invalid value: "example.org": *.example.com"#),
        ),
        (
            "values subset",
            json!({"dnsNames": {"values": ["*.a.com", "b.com"]}}),
            with_dns(&["x.a.com", "b.com"]),
            None,
        ),
        (
            "values mismatch lists all patterns",
            json!({"dnsNames": {"values": ["p1", "p2"]}}),
            with_dns(&["a", "p1"]),
            Some(r#"spec.allowed.dnsNames.values: Invalid value: ["a","p1"]: p1, p2"#),
        ),
        (
            "required CN missing",
            json!({"commonName": {"required": true, "value": "*"}}),
            csr(),
            Some("spec.allowed.commonName.required: Required value: true"),
        ),
        (
            "required dnsNames missing",
            json!({"dnsNames": {"required": true, "values": ["*"]}}),
            csr(),
            Some("spec.allowed.dnsNames.required: Required value: true"),
        ),
        (
            "an empty CN counts as absent",
            json!({"commonName": {"required": true, "value": "*"}}),
            cn(""),
            Some("spec.allowed.commonName.required: Required value: true"),
        ),
        (
            "not required and absent passes",
            json!({"commonName": {"value": "x"}, "dnsNames": {"values": ["y"]}}),
            csr(),
            None,
        ),
    ];
    for (name, allowed, csr, want) in cases {
        assert_eq!(evaluate_csr(allowed, &csr).as_deref(), want, "{name}");
    }
}

#[test]
fn required_on_an_empty_attribute_does_not_run_validations() {
    // The rule does not compile: had it run, an internal error would appear.
    let allowed = json!({"dnsNames": {"required": true, "validations": [{"rule": "1 +"}]}});
    assert_eq!(
        evaluate_csr(allowed, &csr()).as_deref(),
        Some("spec.allowed.dnsNames.required: Required value: true")
    );
}

#[test]
fn values_and_validations_are_both_reported_value_by_value() {
    let allowed = json!({"dnsNames": {
        "values": ["*.svc"],
        "validations": [
            {"rule": "self.endsWith('.svc')", "message": "must end in .svc"},
            {"rule": "self.size() < 6"},
        ],
    }});
    assert_eq!(
        evaluate_csr(allowed, &with_dns(&["a.svc", "bb.com"])).as_deref(),
        Some(
            r#"[spec.allowed.dnsNames.values: Invalid value: ["a.svc","bb.com"]: *.svc, spec.allowed.dnsNames.validations[0]: Invalid value: "bb.com": must end in .svc, spec.allowed.dnsNames.validations[1]: Invalid value: "bb.com": failed rule: self.size() < 6]"#
        )
    );
}

#[test]
fn validation_errors_come_value_by_value_then_rule_by_rule() {
    let allowed = json!({"dnsNames": {"validations": [
        {"rule": "self.startsWith('ok')", "message": "m0"},
        {"rule": "self.endsWith('ok')", "message": "m1"},
    ]}});
    assert_eq!(
        evaluate_csr(allowed, &with_dns(&["x", "y"])).as_deref(),
        Some(
            r#"[spec.allowed.dnsNames.validations[0]: Invalid value: "x": m0, spec.allowed.dnsNames.validations[1]: Invalid value: "x": m1, spec.allowed.dnsNames.validations[0]: Invalid value: "y": m0, spec.allowed.dnsNames.validations[1]: Invalid value: "y": m1]"#
        )
    );
}

#[test]
fn validation_messages_default_and_empty() {
    let cases = [
        (
            json!({"rule": "self == 'b'"}),
            r#"spec.allowed.commonName.validations[0]: Invalid value: "a": failed rule: self == 'b'"#,
        ),
        (
            json!({"rule": "self == 'b'", "message": "only b"}),
            r#"spec.allowed.commonName.validations[0]: Invalid value: "a": only b"#,
        ),
        (
            json!({"rule": "self == 'b'", "message": ""}),
            r#"spec.allowed.commonName.validations[0]: Invalid value: "a""#,
        ),
        (
            json!({"rule": "self == 'b'", "message": null}),
            r#"spec.allowed.commonName.validations[0]: Invalid value: "a": failed rule: self == 'b'"#,
        ),
    ];
    for (rule, want) in cases {
        let allowed = json!({"commonName": {"validations": [rule]}});
        let csr = with_subject(vec![rdn("2.5.4.3", Some("a"))]);
        assert_eq!(evaluate_csr(allowed, &csr).as_deref(), Some(want));
    }
}

#[test]
fn validations_see_the_cr_variable() {
    let allowed = json!({"dnsNames": {"validations": [
        {"rule": "self.endsWith('.' + cr.namespace + '.svc')"},
        {"rule": "cr.username == 'alice' && cr.name == 'req' && 'dev' in cr.groups"},
    ]}});
    assert_eq!(evaluate_csr(allowed.clone(), &with_dns(&["web.team-a.svc"])), None);
    assert_eq!(
        evaluate_csr(allowed, &with_dns(&["web.team-b.svc"])).as_deref(),
        Some(
            r#"spec.allowed.dnsNames.validations[0]: Invalid value: "web.team-b.svc": failed rule: self.endsWith('.' + cr.namespace + '.svc')"#
        )
    );
}

#[test]
fn compile_and_runtime_errors_deny_as_internal_errors_and_collapse() {
    let allowed = json!({"dnsNames": {"validations": [{"rule": "1 +"}]}});
    let message = evaluate_csr(allowed, &with_dns(&["a", "b"])).expect("denied");
    assert!(
        message.starts_with("spec.allowed.dnsNames.validations[0]: Internal error: "),
        "{message}"
    );
    assert!(!message.starts_with('['), "identical texts collapse: {message}");

    let allowed = json!({"uris": {"validations": [{"rule": "serviceAccount(cr.username).getName() == 'x'"}]}});
    let mut request = csr();
    request.san.uris = strings(&["spiffe://x"]);
    let message = evaluate_csr(allowed, &request).expect("denied");
    assert!(message.starts_with("spec.allowed.uris.validations[0]: Internal error: "), "{message}");
}

/// A rule that would run for minutes is stopped by the cost limit and denies, with
/// the text users script against (`cost limit exceeded`).
#[test]
fn a_runaway_rule_denies_with_cost_limit_exceeded() {
    let ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let rule = format!(
        "size({ten}.map(a, {ten}.map(b, {ten}.map(c, {ten}.map(d, {ten}.map(e, {ten}.map(f, 0))))))) > 0"
    );
    let allowed = json!({"dnsNames": {"validations": [{"rule": rule}]}});
    let message = evaluate_csr(allowed, &with_dns(&["a"])).expect("denied");
    assert_eq!(
        message,
        "spec.allowed.dnsNames.validations[0]: Internal error: \
         operation cancelled: actual cost limit exceeded"
    );
}

#[test]
fn repeated_cn_and_serial_number_are_checked_at_indices() {
    let csr = with_subject(vec![
        rdn("2.5.4.3", Some("good.example.com")),
        rdn("2.5.4.5", Some("1")),
        rdn("2.5.4.3", Some("evil.com")),
        rdn("2.5.4.5", Some("")),
    ]);
    let allowed = json!({
        "commonName": {"value": "*.example.com"},
        "subject": {"serialNumber": {"value": "*", "required": true}},
    });
    assert_eq!(
        evaluate_csr(allowed, &csr).as_deref(),
        Some(
            r#"[spec.allowed.commonName[1].value: Invalid value: "evil.com": *.example.com, spec.allowed.subject.serialNumber[1].required: Required value: true]"#
        )
    );
}

#[test]
fn non_string_subject_values_are_denied_where_they_belong() {
    let detail = "uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject";
    let csr = with_subject(vec![
        rdn("2.5.4.3", Some("fine")),
        rdn("2.5.4.3", None),
        rdn("2.5.4.10", None),
        rdn("1.2.3.4", None),
        rdn("2.5.4.5", None),
        rdn("2.5.4.11", None),
    ]);
    let allowed =
        json!({"commonName": {"value": "*"}, "subject": {"serialNumber": {"value": "*"}}});
    assert_eq!(
        evaluate_csr(allowed, &csr),
        Some(format!(
            "[spec.allowed.commonName: Invalid value: \"<non-string value>\": subject attribute 2.5.4.3 {detail}, \
spec.allowed.subject.serialNumber: Invalid value: \"<non-string value>\": subject attribute 2.5.4.5 {detail}, \
spec.allowed.subject.organizations: Invalid value: \"<non-string value>\": subject attribute {detail}, \
spec.allowed.subject.otherAttributes[1.2.3.4]: Invalid value: \"<non-string value>\": subject attribute {detail}, \
spec.allowed.subject.organizationalUnits: Invalid value: \"<non-string value>\": subject attribute {detail}]"
        ))
    );
}

#[test]
fn is_ca_and_usages() {
    let mut ca = cr();
    ca.spec.is_ca = Some(true);
    let cases = [
        (Value::Null, Some("spec.allowed.isCA: Invalid value: true: nil")),
        (json!({"isCA": false}), Some("spec.allowed.isCA: Invalid value: true: false")),
        (json!({"isCA": true}), None),
    ];
    for (allowed, want) in cases {
        assert_eq!(evaluate_with(allowed, &ca, &csr()).as_deref(), want);
    }
    // isCA false on the request passes whatever the policy says.
    assert_eq!(evaluate_with(json!({"isCA": false}), &cr(), &csr()), None);

    let mut server = cr();
    server.spec.usages = Some(strings(&["server auth", "digital signature"]));
    let cases = [
        (
            Value::Null,
            Some(r#"spec.allowed.usages: Invalid value: ["server auth","digital signature"]: nil"#),
        ),
        (
            json!({"usages": []}),
            Some(r#"spec.allowed.usages: Invalid value: ["server auth","digital signature"]"#),
        ),
        (
            json!({"usages": ["server auth"]}),
            Some(
                r#"spec.allowed.usages: Invalid value: ["server auth","digital signature"]: server auth"#,
            ),
        ),
        (json!({"usages": ["digital signature", "server auth", "client auth"]}), None),
    ];
    for (allowed, want) in cases {
        assert_eq!(evaluate_with(allowed, &server, &csr()).as_deref(), want);
    }
    assert_eq!(evaluate_with(Value::Null, &cr(), &csr()), None, "no usages requested");
}

#[test]
fn non_standard_sans_are_always_denied_in_fixed_order_before_other_names() {
    let mut request = csr();
    request.san.unsupported = vec![
        UnsupportedSan::RegisteredId,
        UnsupportedSan::EdiPartyName,
        UnsupportedSan::X400Address,
        UnsupportedSan::DirectoryName,
    ];
    request.san.other_names = vec![other_name("1.2.3", "v")];
    assert_eq!(
        evaluate_csr(Value::Null, &request).as_deref(),
        Some(
            r#"[spec.allowed.subjectAltName.directoryName: Invalid value: "directoryName": directoryName SAN entries are not permitted, spec.allowed.subjectAltName.x400Address: Invalid value: "x400Address": x400Address SAN entries are not permitted, spec.allowed.subjectAltName.ediPartyName: Invalid value: "ediPartyName": ediPartyName SAN entries are not permitted, spec.allowed.subjectAltName.registeredID: Invalid value: "registeredID": registeredID SAN entries are not permitted, spec.allowed.otherNames[1.2.3]: Invalid value: ["v"]: no allowed values]"#
        )
    );
}

#[test]
fn other_names_by_oid() {
    const UPN: &str = "1.3.6.1.4.1.311.20.2.3";
    let mut request = csr();
    request.san.other_names =
        vec![other_name(UPN, "alice@corp"), other_name("1.2.3", "x"), other_name(UPN, "bob@evil")];
    let allowed = json!({"otherNames": [
        {"oid": UPN, "values": ["*@corp"]},
        {"oid": "1.2.3", "values": ["*"]},
        {"oid": "1.2.4", "required": true, "values": ["*"]},
        {"oid": "1.2.5", "required": false},
    ]});
    assert_eq!(
        evaluate_csr(allowed, &request).as_deref(),
        Some(
            r#"[spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3].values: Invalid value: ["alice@corp","bob@evil"]: *@corp, spec.allowed.otherNames[1.2.4].required: Required value: true]"#
        )
    );
    let allowed =
        json!({"otherNames": [{"oid": UPN, "validations": [{"rule": "self.endsWith('@corp')"}]}]});
    assert_eq!(
        evaluate_csr(allowed, &request).as_deref(),
        Some(
            r#"[spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3].validations[0]: Invalid value: "bob@evil": failed rule: self.endsWith('@corp'), spec.allowed.otherNames[1.2.3]: Invalid value: ["x"]: no allowed values]"#
        )
    );
}

#[test]
fn other_attributes_by_oid() {
    const DC: &str = "0.9.2342.19200300.100.1.25";
    const EMAIL: &str = "1.2.840.113549.1.9.1";
    let request = with_subject(vec![
        rdn(DC, Some("example")),
        rdn(EMAIL, None),
        rdn(DC, Some("com")),
        rdn("1.2.3", Some("z")),
    ]);
    let allowed = json!({"subject": {"otherAttributes": [
        {"oid": DC, "values": ["example", "com"]},
        {"oid": EMAIL, "required": true, "values": ["*"]},
        {"oid": "2.5.4.42", "required": true, "values": ["*"]},
    ]}});
    assert_eq!(
        evaluate_csr(allowed, &request).as_deref(),
        Some(
            r#"[spec.allowed.subject.otherAttributes[1.2.840.113549.1.9.1]: Invalid value: "<non-string value>": subject attribute uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject, spec.allowed.subject.otherAttributes[1.2.3]: Invalid value: ["z"]: no allowed values, spec.allowed.subject.otherAttributes[2.5.4.42].required: Required value: true]"#
        )
    );
}

#[test]
fn subject_slices_keep_only_string_values_and_use_their_own_paths() {
    let request = with_subject(vec![
        rdn("2.5.4.10", Some("Org")),
        rdn("2.5.4.6", Some("GB")),
        rdn("2.5.4.11", Some("Unit")),
        rdn("2.5.4.7", Some("London")),
        rdn("2.5.4.8", Some("England")),
        rdn("2.5.4.9", Some("1 Street")),
        rdn("2.5.4.17", Some("N1")),
    ]);
    assert_eq!(
        evaluate_csr(Value::Null, &request).as_deref(),
        Some(
            r#"[spec.allowed.subject.organizations: Invalid value: ["Org"]: no allowed values, spec.allowed.subject.countries: Invalid value: ["GB"]: no allowed values, spec.allowed.subject.organizationalUnits: Invalid value: ["Unit"]: no allowed values, spec.allowed.subject.localities: Invalid value: ["London"]: no allowed values, spec.allowed.subject.provinces: Invalid value: ["England"]: no allowed values, spec.allowed.subject.streetAddresses: Invalid value: ["1 Street"]: no allowed values, spec.allowed.subject.postalCodes: Invalid value: ["N1"]: no allowed values]"#
        )
    );
    let allowed = json!({"subject": {
        "organizations": {"values": ["Org"]}, "countries": {"values": ["GB"]},
        "organizationalUnits": {"values": ["*"]}, "localities": {"values": ["*"]},
        "provinces": {"values": ["*"]}, "streetAddresses": {"values": ["*"]},
        "postalCodes": {"values": ["*"]},
    }});
    assert_eq!(evaluate_csr(allowed, &request), None);
}

#[test]
fn attributes_are_reported_in_upstream_order() {
    let mut request = with_subject(vec![
        rdn("1.2.3", Some("other")),
        rdn("2.5.4.5", Some("serial")),
        rdn("2.5.4.17", Some("postal")),
        rdn("2.5.4.10", Some("org")),
        rdn("2.5.4.3", Some("cn")),
    ]);
    request.san.dns_names = strings(&["dns"]);
    request.san.ip_addresses = strings(&["10.0.0.1", "::1"]);
    request.san.uris = strings(&["spiffe://td/x"]);
    request.san.email_addresses = strings(&["a@b"]);
    request.san.other_names = vec![other_name("1.2.9", "on")];
    let mut ca = cr();
    ca.spec.is_ca = Some(true);
    ca.spec.usages = Some(strings(&["server auth"]));
    assert_eq!(
        evaluate_with(Value::Null, &ca, &request).as_deref(),
        Some(
            r#"[spec.allowed.commonName: Invalid value: "cn": no allowed value, spec.allowed.dnsNames: Invalid value: ["dns"]: no allowed values, spec.allowed.ipAddresses: Invalid value: ["10.0.0.1","::1"]: no allowed values, spec.allowed.uris: Invalid value: ["spiffe://td/x"]: no allowed values, spec.allowed.emailAddresses: Invalid value: ["a@b"]: no allowed values, spec.allowed.isCA: Invalid value: true: nil, spec.allowed.usages: Invalid value: ["server auth"]: nil, spec.allowed.otherNames[1.2.9]: Invalid value: ["on"]: no allowed values, spec.allowed.subject.organizations: Invalid value: ["org"]: no allowed values, spec.allowed.subject.postalCodes: Invalid value: ["postal"]: no allowed values, spec.allowed.subject.serialNumber: Invalid value: "serial": no allowed value, spec.allowed.subject.otherAttributes[1.2.3]: Invalid value: ["other"]: no allowed values]"#
        )
    );
}

#[test]
fn san_extension_problems_deny_with_their_own_message() {
    let mut request = with_dns(&["a"]);
    request.san_extension_count = 2;
    assert_eq!(
        evaluate_csr(json!({"dnsNames": {"values": ["*"]}}), &request).as_deref(),
        Some("CSR contains multiple SAN extensions; at most one is permitted")
    );
    let mut request = csr();
    request.san_extension_count = 1;
    request.san_decode_error = Some("x509: invalid SAN".into());
    assert_eq!(
        evaluate_csr(Value::Null, &request).as_deref(),
        Some("subjectAltName (SAN) extension could not be decoded: x509: invalid SAN")
    );
}

#[test]
fn explain_records_every_attribute_in_order() {
    let cel = PolicyCel::default();
    let variable = CrVariable::default();
    let csr = with_dns(&["a.example.com", "b.other"]);
    let request = cr();
    let attrs = RequestAttributes::new(&request, &csr);
    let allowed: Allowed =
        serde_json::from_value(json!({"dnsNames": {"values": ["*.example.com"]}})).expect("valid");
    let (verdict, checks) = evaluate(
        &Context { cel: &cel, cr: &BoundRequest::new(&variable) },
        &attrs,
        Some(&allowed),
        true,
    );
    assert!(matches!(verdict, Verdict::Denied(_)));
    let names: Vec<&str> = checks.iter().map(|c| c.attribute.as_str()).collect();
    assert_eq!(
        names,
        vec![
            "spec.allowed.commonName",
            "spec.allowed.dnsNames",
            "spec.allowed.ipAddresses",
            "spec.allowed.uris",
            "spec.allowed.emailAddresses",
            "spec.allowed.isCA",
            "spec.allowed.usages",
            "spec.allowed.otherNames",
            "spec.allowed.subject.organizations",
            "spec.allowed.subject.countries",
            "spec.allowed.subject.organizationalUnits",
            "spec.allowed.subject.localities",
            "spec.allowed.subject.provinces",
            "spec.allowed.subject.streetAddresses",
            "spec.allowed.subject.postalCodes",
            "spec.allowed.subject.serialNumber",
            "spec.allowed.subject.otherAttributes",
        ]
    );
    let dns = checks.get(1).expect("dnsNames check");
    assert_eq!(dns.values, strings(&["a.example.com", "b.other"]));
    assert!(!dns.passed);
    assert_eq!(
        dns.errors,
        strings(&[
            r#"spec.allowed.dnsNames.values: Invalid value: ["a.example.com","b.other"]: *.example.com"#
        ])
    );
    assert!(checks.iter().filter(|c| c.attribute != "spec.allowed.dnsNames").all(|c| c.passed));
}
