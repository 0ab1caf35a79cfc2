//! Every example in the approver-policy and cert-manager-requests specs that is purely a
//! `field.Error` or aggregate rendering.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::{BadValue, ErrorType, FieldError, Path, aggregate, aggregate_texts};

fn p(path: &str) -> Path {
    let mut parts = path.split('.');
    let root = Path::new(parts.next().unwrap_or_default());
    parts.fold(root, |acc, part| acc.child(part))
}

fn s(v: &str) -> BadValue {
    BadValue::Str(v.to_owned())
}

const OID_DETAIL: &str =
    r#"must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#;
const REQUIRED_VALUES: &str =
    "at least one of 'values' or 'validations' must be defined if field is 'required'";

#[test]
fn approver_policy_admission_messages() {
    let allowed = p("spec.allowed");
    let cases = [
        (
            FieldError::not_supported(p("spec.plugins"), s("foo"), &["A", "B"]),
            r#"spec.plugins: Unsupported value: "foo": supported values: "A", "B""#,
        ),
        (
            FieldError::not_supported(p("spec.plugins"), s("foo"), &[]),
            r#"spec.plugins: Unsupported value: "foo""#,
        ),
        (
            FieldError::required(
                p("spec.selector"),
                "one of issuerRef or namespace must be defined, hint: `{}` on either matches everything",
            ),
            "spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything",
        ),
        (
            FieldError::invalid(
                p("spec.selector.namespace.matchLabels"),
                BadValue::Json(json!({"team": "a&b", "env": "<prod>"})),
                "invalid label value",
            ),
            r#"spec.selector.namespace.matchLabels: Invalid value: {"env":"\u003cprod\u003e","team":"a\u0026b"}: invalid label value"#,
        ),
        (
            FieldError::required(allowed.child("dnsNames").child("values"), REQUIRED_VALUES),
            "spec.allowed.dnsNames.values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required'",
        ),
        (
            FieldError::required(
                allowed.child("commonName").child("value"),
                "at least one of 'value' or 'validations' must be defined if field is 'required'",
            ),
            "spec.allowed.commonName.value: Required value: at least one of 'value' or 'validations' must be defined if field is 'required'",
        ),
        (
            FieldError::invalid(
                allowed.child("dnsNames").child("validations").index(0),
                s("self.endsWith('.svc'"),
                "Syntax error: missing ')'",
            ),
            r#"spec.allowed.dnsNames.validations[0]: Invalid value: "self.endsWith('.svc'": Syntax error: missing ')'"#,
        ),
        (
            FieldError::invalid(
                allowed.child("otherNames").index(1).child("oid"),
                s("1.02.3"),
                OID_DETAIL,
            ),
            r#"spec.allowed.otherNames[1].oid: Invalid value: "1.02.3": must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#,
        ),
        (
            FieldError::invalid(
                allowed.child("subject").child("otherAttributes").index(0).child("oid"),
                s("1.-2"),
                "OID arcs must be non-negative",
            ),
            r#"spec.allowed.subject.otherAttributes[0].oid: Invalid value: "1.-2": OID arcs must be non-negative"#,
        ),
        (
            FieldError::invalid(
                allowed.child("subject").child("otherAttributes").index(2).child("oid"),
                s("2.5.4.3"),
                "this OID is covered by a dedicated allowed.commonName / allowed.subject.* field; configure it there instead of otherAttributes",
            ),
            r#"spec.allowed.subject.otherAttributes[2].oid: Invalid value: "2.5.4.3": this OID is covered by a dedicated allowed.commonName / allowed.subject.* field; configure it there instead of otherAttributes"#,
        ),
    ];
    assert_renders(&cases);
}

#[test]
fn approver_policy_constraints_admission_messages() {
    let key = p("spec.constraints.privateKey");
    let cases = [
        (
            // `PrivateKeyAlgorithm` is a named string type upstream, so it renders as JSON.
            FieldError::not_supported(
                key.child("algorithm"),
                BadValue::Json(json!("DSA")),
                &["RSA", "ECDSA", "Ed25519"],
            ),
            r#"spec.constraints.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519""#,
        ),
        (
            FieldError::invalid(
                key.child("maxSize"),
                BadValue::Json(json!(256)),
                "maxSize cannot be defined with algorithm constraint Ed25519",
            ),
            "spec.constraints.privateKey.maxSize: Invalid value: 256: maxSize cannot be defined with algorithm constraint Ed25519",
        ),
        (
            FieldError::invalid(
                key.child("maxSize"),
                BadValue::Json(json!(9000)),
                "must be between 0 and 8192 inclusive",
            ),
            "spec.constraints.privateKey.maxSize: Invalid value: 9000: must be between 0 and 8192 inclusive",
        ),
        (
            FieldError::invalid(
                key.child("minSize"),
                BadValue::Json(json!(-1)),
                "must be between 0 and 8192 inclusive",
            ),
            "spec.constraints.privateKey.minSize: Invalid value: -1: must be between 0 and 8192 inclusive",
        ),
        (
            FieldError::invalid(
                key.child("maxSize"),
                BadValue::Json(json!(1024)),
                "maxSize must be the same value as minSize or larger",
            ),
            "spec.constraints.privateKey.maxSize: Invalid value: 1024: maxSize must be the same value as minSize or larger",
        ),
        (
            FieldError::invalid(
                p("spec.constraints.maxDuration"),
                s("-1h0m0s"),
                "maxDuration must be a value greater or equal to 0",
            ),
            r#"spec.constraints.maxDuration: Invalid value: "-1h0m0s": maxDuration must be a value greater or equal to 0"#,
        ),
        (
            FieldError::invalid(
                p("spec.constraints.maxDuration"),
                s("1h0m0s"),
                "maxDuration must be the same value as minDuration or larger",
            ),
            r#"spec.constraints.maxDuration: Invalid value: "1h0m0s": maxDuration must be the same value as minDuration or larger"#,
        ),
    ];
    assert_renders(&cases);
}

#[test]
fn approver_policy_evaluation_messages() {
    let allowed = p("spec.allowed");
    let dns = allowed.child("dnsNames");
    let other_name = allowed.child("otherNames").key("1.3.6.1.4.1.311.20.2.3");
    let cases = [
        (
            FieldError::required(dns.child("required"), "true"),
            "spec.allowed.dnsNames.required: Required value: true",
        ),
        (
            FieldError::invalid(allowed.child("commonName"), s("example.com"), "no allowed value"),
            r#"spec.allowed.commonName: Invalid value: "example.com": no allowed value"#,
        ),
        (
            FieldError::invalid(
                dns.clone(),
                BadValue::Json(json!(["a", "b"])),
                "no allowed values",
            ),
            r#"spec.allowed.dnsNames: Invalid value: ["a","b"]: no allowed values"#,
        ),
        (
            FieldError::invalid(allowed.child("commonName").child("value"), s("bar"), "foo-*"),
            r#"spec.allowed.commonName.value: Invalid value: "bar": foo-*"#,
        ),
        (
            FieldError::invalid(dns.child("values"), BadValue::Json(json!(["a", "b"])), "p1, p2"),
            r#"spec.allowed.dnsNames.values: Invalid value: ["a","b"]: p1, p2"#,
        ),
        (
            FieldError::invalid(
                dns.child("validations").index(0),
                s("a.example.com"),
                "failed rule: self.endsWith('.svc')",
            ),
            r#"spec.allowed.dnsNames.validations[0]: Invalid value: "a.example.com": failed rule: self.endsWith('.svc')"#,
        ),
        (
            FieldError::invalid(dns.child("validations").index(1), s("a.example.com"), ""),
            r#"spec.allowed.dnsNames.validations[1]: Invalid value: "a.example.com""#,
        ),
        (
            FieldError::internal(
                dns.child("validations").index(0),
                "got string, wanted bool result type",
            ),
            "spec.allowed.dnsNames.validations[0]: Internal error: got string, wanted bool result type",
        ),
        (
            FieldError::invalid(allowed.child("isCA"), BadValue::Bool(true), "nil"),
            "spec.allowed.isCA: Invalid value: true: nil",
        ),
        (
            FieldError::invalid(allowed.child("isCA"), BadValue::Bool(true), "false"),
            "spec.allowed.isCA: Invalid value: true: false",
        ),
        (
            FieldError::invalid(
                allowed.child("usages"),
                BadValue::Json(json!(["server auth"])),
                "nil",
            ),
            r#"spec.allowed.usages: Invalid value: ["server auth"]: nil"#,
        ),
        (
            FieldError::invalid(
                allowed.child("usages"),
                BadValue::Json(json!(["server auth"])),
                "digital signature",
            ),
            r#"spec.allowed.usages: Invalid value: ["server auth"]: digital signature"#,
        ),
        (
            FieldError::invalid(
                allowed.child("usages"),
                BadValue::Json(json!(["server auth"])),
                "",
            ),
            r#"spec.allowed.usages: Invalid value: ["server auth"]"#,
        ),
        (
            FieldError::invalid(
                other_name.clone(),
                BadValue::Json(json!(["user@example.com"])),
                "no allowed values",
            ),
            r#"spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3]: Invalid value: ["user@example.com"]: no allowed values"#,
        ),
        (
            FieldError::required(other_name.child("required"), "true"),
            "spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3].required: Required value: true",
        ),
        (
            FieldError::invalid(
                allowed.child("subjectAltName").child("directoryName"),
                s("directoryName"),
                "directoryName SAN entries are not permitted",
            ),
            r#"spec.allowed.subjectAltName.directoryName: Invalid value: "directoryName": directoryName SAN entries are not permitted"#,
        ),
        (
            FieldError::invalid(allowed.child("commonName").index(1).child("value"), s("b"), "a"),
            r#"spec.allowed.commonName[1].value: Invalid value: "b": a"#,
        ),
        (
            FieldError::invalid(
                allowed.child("commonName"),
                s("<non-string value>"),
                "subject attribute 2.5.4.3 uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject",
            ),
            r#"spec.allowed.commonName: Invalid value: "<non-string value>": subject attribute 2.5.4.3 uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"#,
        ),
        (
            FieldError::invalid(p("spec.constraints.maxDuration"), s("48h0m0s"), "24h0m0s"),
            r#"spec.constraints.maxDuration: Invalid value: "48h0m0s": 24h0m0s"#,
        ),
        (
            FieldError::invalid(p("spec.constraints.maxDuration"), s("nil"), "24h0m0s"),
            r#"spec.constraints.maxDuration: Invalid value: "nil": 24h0m0s"#,
        ),
        (
            FieldError::invalid(p("spec.constraints.privateKey.algorithm"), s("RSA"), "ECDSA"),
            r#"spec.constraints.privateKey.algorithm: Invalid value: "RSA": ECDSA"#,
        ),
        (
            FieldError::invalid(p("spec.constraints.privateKey.minSize"), s("2048"), "4000"),
            r#"spec.constraints.privateKey.minSize: Invalid value: "2048": 4000"#,
        ),
    ];
    assert_renders(&cases);
}

#[test]
fn cert_manager_request_admission_messages() {
    let conditions = p("status.conditions");
    let cases = [
        (
            FieldError::forbidden(conditions.clone(), r#"multiple "Approved" conditions present"#),
            r#"status.conditions: Forbidden: multiple "Approved" conditions present"#,
        ),
        (
            // `ConditionStatus` is a named string type upstream, so it renders as JSON.
            FieldError::invalid(
                conditions.child("Approved"),
                BadValue::Json(json!("False")),
                r#""Approved" condition may only be set to True"#,
            ),
            r#"status.conditions.Approved: Invalid value: "False": "Approved" condition may only be set to True"#,
        ),
        (
            FieldError::forbidden(
                conditions.clone(),
                "both 'Denied' and 'Approved' conditions cannot coexist",
            ),
            "status.conditions: Forbidden: both 'Denied' and 'Approved' conditions cannot coexist",
        ),
        (
            FieldError::forbidden(
                conditions.clone(),
                "'Denied' condition may not be modified once set",
            ),
            "status.conditions: Forbidden: 'Denied' condition may not be modified once set",
        ),
        (
            FieldError::forbidden(
                p("metadata.annotations").child("cert-manager.io/issuer-name"),
                "cannot change cert-manager annotation after creation",
            ),
            "metadata.annotations.cert-manager.io/issuer-name: Forbidden: cannot change cert-manager annotation after creation",
        ),
        (
            FieldError::forbidden(p("spec"), "cannot change spec after creation"),
            "spec: Forbidden: cannot change spec after creation",
        ),
        (
            FieldError::required(p("spec.issuerRef.name"), "must be specified"),
            "spec.issuerRef.name: Required value: must be specified",
        ),
        (
            FieldError::invalid(
                p("spec.issuerRef.kind"),
                s("Foo"),
                "must be one of Issuer or ClusterIssuer (did you forget to set spec.issuerRef.kind.group?)",
            ),
            r#"spec.issuerRef.kind: Invalid value: "Foo": must be one of Issuer or ClusterIssuer (did you forget to set spec.issuerRef.kind.group?)"#,
        ),
        (
            FieldError::required(p("spec.request"), "must be specified"),
            "spec.request: Required value: must be specified",
        ),
        (
            FieldError::invalid(
                p("spec.request"),
                s("-----BEGIN CERTIFICATE REQUEST-----\nMIIB..."),
                "encoded CSR error: the KeyUsages [] do not match the expected KeyUsages [ 'digital signature' ]",
            ),
            r#"spec.request: Invalid value: "-----BEGIN CERTIFICATE REQUEST-----\nMIIB...": encoded CSR error: the KeyUsages [] do not match the expected KeyUsages [ 'digital signature' ]"#,
        ),
        (
            FieldError::forbidden(
                p("spec.issuerRef"),
                "referenced signer resource does not exist: {my-issuer Issuer cert-manager.io}",
            ),
            "spec.issuerRef: Forbidden: referenced signer resource does not exist: {my-issuer Issuer cert-manager.io}",
        ),
        (
            FieldError::forbidden(
                conditions,
                r#"user "alice" does not have permissions to set approved/denied conditions for issuer {ca Issuer cert-manager.io}"#,
            ),
            r#"status.conditions: Forbidden: user "alice" does not have permissions to set approved/denied conditions for issuer {ca Issuer cert-manager.io}"#,
        ),
    ];
    assert_renders(&cases);
}

#[test]
fn identity_errors_aggregate_in_order() {
    let errors: Vec<FieldError> = ["uid", "username", "groups", "extra"]
        .iter()
        .map(|f| {
            FieldError::forbidden(
                p("spec").child(f),
                format!("{f} identity must be that of the requester"),
            )
        })
        .collect();
    assert_eq!(
        aggregate(&errors).as_deref(),
        Some(
            "[spec.uid: Forbidden: uid identity must be that of the requester, \
             spec.username: Forbidden: username identity must be that of the requester, \
             spec.groups: Forbidden: groups identity must be that of the requester, \
             spec.extra: Forbidden: extra identity must be that of the requester]"
        )
    );
}

#[test]
fn aggregate_drops_repeated_texts() {
    let annotation = FieldError::forbidden(
        p("metadata.annotations").child("cert-manager.io/x"),
        "cannot change cert-manager annotation after creation",
    );
    // Found by both the old->new and new->old passes: shown once, without brackets.
    assert_eq!(
        aggregate(&[annotation.clone(), annotation.clone()]).as_deref(),
        Some(
            "metadata.annotations.cert-manager.io/x: Forbidden: cannot change cert-manager annotation after creation"
        )
    );
    assert_eq!(aggregate(&[]), None);
    assert_eq!(aggregate_texts(["a".to_owned()]).as_deref(), Some("a"));
    let texts = ["b", "a", "b", "c", "a"].map(str::to_owned);
    assert_eq!(aggregate_texts(texts).as_deref(), Some("[b, a, c]"));
}

#[test]
fn value_visibility_follows_the_error_type() {
    let path = p("spec.x");
    let with =
        |kind| FieldError { kind, path: path.clone(), value: Some(s("v")), detail: "d".into() };
    let cases = [
        (ErrorType::Invalid, r#"spec.x: Invalid value: "v": d"#),
        (ErrorType::NotSupported, r#"spec.x: Unsupported value: "v": d"#),
        (ErrorType::Duplicate, r#"spec.x: Duplicate value: "v": d"#),
        (ErrorType::NotFound, r#"spec.x: Not found: "v": d"#),
        (ErrorType::TooMany, r#"spec.x: Too many: "v": d"#),
        (ErrorType::Required, "spec.x: Required value: d"),
        (ErrorType::Forbidden, "spec.x: Forbidden: d"),
        (ErrorType::Internal, "spec.x: Internal error: d"),
        (ErrorType::TooLong, "spec.x: Too long: d"),
    ];
    for (kind, want) in cases {
        assert_eq!(with(kind).to_string(), want, "{kind:?}");
    }
    let no_value =
        FieldError { kind: ErrorType::Duplicate, path, value: None, detail: String::new() };
    assert_eq!(no_value.to_string(), "spec.x: Duplicate value");
}

#[test]
fn bad_values_render_by_go_type() {
    let cases = [
        (s("a\tb\u{200b}é"), r#""a\tb\u200bé""#),
        (s("<&>"), r#""<&>""#),
        (BadValue::Json(json!("<&>")), r#""\u003c\u0026\u003e""#),
        (BadValue::Bool(false), "false"),
        (BadValue::Int(-5), "-5"),
        (BadValue::Json(json!(null)), "null"),
        (BadValue::Json(json!({"b": 1, "a": [true]})), r#"{"a":[true],"b":1}"#),
    ];
    for (value, want) in cases {
        assert_eq!(value.to_string(), want);
    }
}

#[test]
fn paths_compose() {
    let path = Path::new("spec")
        .child("allowed")
        .child("otherNames")
        .key("1.2.3")
        .child("validations")
        .index(4);
    assert_eq!(path.as_str(), "spec.allowed.otherNames[1.2.3].validations[4]");
    assert_eq!(path.to_string(), path.as_str());
}

fn assert_renders(cases: &[(FieldError, &str)]) {
    for (error, want) in cases {
        assert_eq!(error.to_string(), *want);
    }
}

/// Classes the differential test against apimachinery found (crates/dev/oracles/tests/
/// field_errors.rs): Go renders an empty path element as an empty subscript, prints a
/// `float64` with `%v`, and words a TooLong without a bound differently.
#[test]
fn go_rendering_of_empty_names_floats_and_unbounded_too_long() {
    assert_eq!(Path::new("").index(2).to_string(), "[][2]");
    assert_eq!(Path::new("spec").child("").child("x").to_string(), "spec[].x");
    let float = FieldError::invalid(Path::new("x"), BadValue::float(1e6), "d");
    assert_eq!(float.to_string(), "x: Invalid value: 1e+06: d");
    assert_eq!(
        FieldError::too_long(Path::new("x"), None).to_string(),
        "x: Too long: value is too long"
    );
    assert_eq!(
        FieldError::too_long(Path::new("x"), Some(1)).to_string(),
        "x: Too long: may not be more than 1 byte"
    );
    assert_eq!(
        FieldError::not_found(Path::new("x"), BadValue::Int(3)).to_string(),
        "x: Not found: 3"
    );
}
