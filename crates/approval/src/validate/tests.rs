//! The policy admission checks (spec §8) with upstream's exact texts and order.

use serde_json::{Value, json};

use super::*;
use certgate_api::policy::CertificateRequestPolicySpec;

fn message(spec: Value) -> Option<String> {
    let spec: CertificateRequestPolicySpec = serde_json::from_value(spec).expect("valid spec");
    let policy = CertificateRequestPolicy::new("p", spec);
    validate(&PolicyCel::default(), &policy).message()
}

const SELECTOR: &str = "spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything";

#[test]
fn valid_policies() {
    for spec in [
        json!({"selector": {"issuerRef": {}}}),
        json!({"selector": {"namespace": {"matchLabels": {}}}}),
        json!({"selector": {"namespace": {"matchLabels": {"env": "prod", "example.com/team": "a"}}}}),
        json!({
            "selector": {"issuerRef": {"name": "*"}},
            "allowed": {
                "commonName": {"value": "", "required": true},
                "dnsNames": {"values": [], "required": true},
                "otherNames": [{"oid": "1.3.6.1.4.1.311.20.2.3", "values": ["*"]}],
                "subject": {"otherAttributes": [{"oid": "0.9.2342.19200300.100.1.25", "required": true, "values": ["*"]}]},
            },
            "constraints": {"minDuration": "1h", "maxDuration": "1h", "privateKey": {"algorithm": "RSA", "minSize": 0, "maxSize": 8192}},
        }),
    ] {
        assert_eq!(message(spec.clone()), None, "{spec}");
    }
}

#[test]
fn plugins_and_selector() {
    assert_eq!(
        message(json!({"selector": {}, "plugins": {"b": {}, "a": {"values": {"k": "v"}}}})),
        Some(format!(
            r#"[spec.plugins: Unsupported value: "a", spec.plugins: Unsupported value: "b", {SELECTOR}]"#
        ))
    );
    assert_eq!(message(json!({"selector": {}})), Some(SELECTOR.to_owned()));
}

#[test]
fn match_labels_must_be_a_valid_selector() {
    let got =
        message(json!({"selector": {"namespace": {"matchLabels": {"ok": "fine", "a/b/c": "v"}}}}));
    assert_eq!(
        got.as_deref(),
        Some(
            r#"spec.selector.namespace.matchLabels: Invalid value: {"a/b/c":"v","ok":"fine"}: key: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"#
        )
    );
    let got = message(json!({"selector": {"namespace": {"matchLabels": {"k": "<bad>"}}}}));
    assert_eq!(
        got.as_deref(),
        Some(
            r#"spec.selector.namespace.matchLabels: Invalid value: {"k":"\u003cbad\u003e"}: values[0][k]: Invalid value: "<bad>": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"#
        )
    );
}

#[test]
fn allowed_required_needs_values_or_validations() {
    let got = message(json!({
        "selector": {"issuerRef": {}},
        "allowed": {
            "commonName": {"required": true},
            "dnsNames": {"required": true},
            "subject": {"serialNumber": {"required": true}, "postalCodes": {"required": true, "values": null}},
            "otherNames": [{"oid": "1.2.3", "required": true}],
        },
    }));
    assert_eq!(
        got.as_deref(),
        Some(
            "[spec.allowed.dnsNames.values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required', \
spec.allowed.subject.postalCodes.values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required', \
spec.allowed.commonName.value: Required value: at least one of 'value' or 'validations' must be defined if field is 'required', \
spec.allowed.subject.serialNumber.value: Required value: at least one of 'value' or 'validations' must be defined if field is 'required', \
spec.allowed.otherNames[0].values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required']"
        )
    );
}

#[test]
fn allowed_oids_must_be_canonical_and_unnamed() {
    let got = message(json!({
        "selector": {"issuerRef": {}},
        "allowed": {
            "otherNames": [{"oid": "1.02.3"}, {"oid": "1.-2", "required": true}],
            "subject": {"otherAttributes": [{"oid": "2.5.4.3"}, {"oid": "x"}]},
        },
    }));
    let canonical = r#"must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#;
    assert_eq!(
        got,
        Some(format!(
            "[spec.allowed.otherNames[0].oid: Invalid value: \"1.02.3\": {canonical}, \
spec.allowed.otherNames[1].oid: Invalid value: \"1.-2\": OID arcs must be non-negative, \
spec.allowed.otherNames[1].values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required', \
spec.allowed.subject.otherAttributes[0].oid: Invalid value: \"2.5.4.3\": this OID is covered by a dedicated allowed.commonName / allowed.subject.* field; configure it there instead of otherAttributes, \
spec.allowed.subject.otherAttributes[1].oid: Invalid value: \"x\": {canonical}]"
        ))
    );
}

#[test]
fn allowed_rules_must_compile() {
    let validation = PolicyCel::default();
    let error = validation.compile("1 +").err().map(|e| e.to_string()).expect("does not compile");
    let not_bool = validation.compile("self").err().map(|e| e.to_string()).expect("not a bool");
    assert_eq!(not_bool, "got string, wanted bool result type");
    let got = message(json!({
        "selector": {"issuerRef": {}},
        "allowed": {
            "commonName": {"validations": [{"rule": "self"}]},
            "uris": {"validations": [{"rule": "self.startsWith('spiffe://')"}, {"rule": "1 +"}]},
        },
    }));
    assert_eq!(
        got,
        Some(format!(
            r#"[spec.allowed.uris.validations[1]: Invalid value: "1 +": {error}, spec.allowed.commonName.validations[0]: Invalid value: "self": {not_bool}]"#
        ))
    );
}

#[test]
fn constraints_table() {
    let cases = [
        (
            json!({"privateKey": {"maxSize": 9000}}),
            "spec.constraints.privateKey.maxSize: Invalid value: 9000: must be between 0 and 8192 inclusive",
        ),
        (
            json!({"privateKey": {"minSize": -1}}),
            "spec.constraints.privateKey.minSize: Invalid value: -1: must be between 0 and 8192 inclusive",
        ),
        (
            json!({"privateKey": {"algorithm": "Ed25519", "maxSize": 1, "minSize": 2}}),
            "[spec.constraints.privateKey.maxSize: Invalid value: 1: maxSize cannot be defined with algorithm constraint Ed25519, \
spec.constraints.privateKey.minSize: Invalid value: 2: minSize cannot be defined with algorithm constraint Ed25519, \
spec.constraints.privateKey.maxSize: Invalid value: 1: maxSize must be the same value as minSize or larger]",
        ),
        (
            json!({"maxDuration": "1h", "minDuration": "2h"}),
            r#"spec.constraints.maxDuration: Invalid value: "1h0m0s": maxDuration must be the same value as minDuration or larger"#,
        ),
        (
            json!({"maxDuration": "-1h", "minDuration": "-30m"}),
            r#"[spec.constraints.maxDuration: Invalid value: "-1h0m0s": maxDuration must be the same value as minDuration or larger, spec.constraints.maxDuration: Invalid value: "-1h0m0s": maxDuration must be a value greater or equal to 0, spec.constraints.minDuration: Invalid value: "-30m0s": minDuration must be a value greater or equal to 0]"#,
        ),
        (
            json!({"maxDuration": "one hour"}),
            r#"spec.constraints.maxDuration: Invalid value: "one hour": time: invalid duration "one hour""#,
        ),
    ];
    for (constraints, want) in cases {
        let got =
            message(json!({"selector": {"issuerRef": {}}, "constraints": constraints.clone()}));
        assert_eq!(got.as_deref(), Some(want), "{constraints}");
    }
}

#[test]
fn errors_of_all_checks_aggregate_in_order() {
    let got = message(json!({
        "selector": {},
        "plugins": {"x": {}},
        "allowed": {"dnsNames": {"required": true}},
        "constraints": {"privateKey": {"maxSize": 9000}},
    }));
    assert_eq!(
        got,
        Some(format!(
            "[spec.plugins: Unsupported value: \"x\", {SELECTOR}, \
spec.allowed.dnsNames.values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required', \
spec.constraints.privateKey.maxSize: Invalid value: 9000: must be between 0 and 8192 inclusive]"
        ))
    );
}

/// A policy whose `dnsNames` carry `rules`.
fn with_dns_rules(rules: impl IntoIterator<Item = String>) -> Value {
    let validations: Vec<Value> = rules.into_iter().map(|rule| json!({"rule": rule})).collect();
    json!({"selector": {"issuerRef": {}}, "allowed": {"dnsNames": {"validations": validations}}})
}

fn policy(spec: Value) -> CertificateRequestPolicy {
    CertificateRequestPolicy::new("p", serde_json::from_value(spec).expect("valid spec"))
}

/// `self != 'x' && self != 'x' ...`, exactly `len` bytes long.
fn rule_of_len(len: usize, tag: usize) -> String {
    let head = format!("self != '{tag}'");
    // ` && '` and `' != ''` are 12 bytes.
    format!("{head} && '{}' != ''", "a".repeat(len - head.len() - 12))
}

#[test]
fn policies_at_the_limits_are_admitted() {
    let rules = (0..MAX_RULES_PER_POLICY).map(|i| format!("self != '{i}'"));
    assert_eq!(message(with_dns_rules(rules)), None);
    let per_rule = MAX_RULE_BYTES_PER_POLICY / 8;
    let rules: Vec<String> = (0..8).map(|i| rule_of_len(per_rule, i)).collect();
    assert!(rules.iter().all(|r| r.len() == per_rule));
    assert_eq!(message(with_dns_rules(rules)), None);
}

#[test]
fn too_many_rules_are_denied_without_compiling_any() {
    // Rule 0 does not compile: no compile error is reported, nothing was compiled.
    let rules = std::iter::once("1 +".to_owned())
        .chain((1..=MAX_RULES_PER_POLICY).map(|i| format!("self != '{i}'")));
    let cel = PolicyCel::default();
    let got = validate(&cel, &policy(with_dns_rules(rules))).message();
    assert_eq!(
        got.as_deref(),
        Some(
            "spec.allowed: Too many: 129: must have at most 128 validation rules in one policy; \
             split the policy"
        )
    );
    assert!(cel.is_empty(), "no rule was compiled");
}

#[test]
fn too_many_rule_bytes_are_denied() {
    let per_rule = MAX_RULE_BYTES_PER_POLICY / 8;
    let rules: Vec<String> = (0..9).map(|i| rule_of_len(per_rule, i)).collect();
    assert_eq!(
        message(with_dns_rules(rules)).as_deref(),
        Some(
            "spec.allowed: Too long: may not be more than 262144 bytes of validation rules in one \
             policy (these total 294912); shorten the rules or split the policy"
        )
    );
}

#[test]
fn the_limits_count_rules_of_every_field() {
    let ten = |offset: usize| -> Vec<Value> {
        (0..10).map(|i| json!({"rule": format!("self != '{}'", offset + i)})).collect()
    };
    let mut allowed = serde_json::Map::new();
    for (i, field) in
        ["dnsNames", "ipAddresses", "uris", "emailAddresses", "commonName"].into_iter().enumerate()
    {
        allowed.insert(field.to_owned(), json!({"validations": ten(i * 10)}));
    }
    let subject_fields = [
        "organizations",
        "countries",
        "organizationalUnits",
        "localities",
        "provinces",
        "streetAddresses",
        "postalCodes",
        "serialNumber",
    ];
    let mut subject = serde_json::Map::new();
    for (i, field) in subject_fields.into_iter().enumerate() {
        subject.insert(field.to_owned(), json!({"validations": ten(100 + i * 10)}));
    }
    let entry = |i: usize| json!({"oid": "1.2.3.4", "values": ["*"], "validations": ten(i)});
    subject.insert("otherAttributes".to_owned(), json!([entry(200)]));
    allowed.insert("otherNames".to_owned(), json!([entry(300)]));
    allowed.insert("subject".to_owned(), Value::Object(subject));
    // 5 + 8 + 2 fields of ten rules.
    let got = message(json!({"selector": {"issuerRef": {}}, "allowed": allowed}));
    assert_eq!(
        got.as_deref(),
        Some(
            "spec.allowed: Too many: 150: must have at most 128 validation rules in one policy; \
             split the policy"
        )
    );
}

#[test]
fn a_spent_time_budget_denies_at_the_first_rule_not_compiled() {
    let rules = ["self != 'a'".to_owned(), "self != 'b'".to_owned()];
    let budget = CompileBudget { cancelled: None, time: Some(std::time::Duration::ZERO) };
    let cel = PolicyCel::default();
    let validation = validate_within(&cel, &policy(with_dns_rules(rules)), &budget).unwrap();
    assert_eq!(
        validation.message().as_deref(),
        Some(
            "spec.allowed.dnsNames.validations[0]: Forbidden: compiling the validation rules of \
             this policy took more than the 0ms allowed per review; this and the following \
             rules were not compiled, use fewer or shorter rules"
        )
    );
    assert!(cel.is_empty());
}

#[test]
fn a_cancelled_review_stops_before_the_next_rule() {
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let budget = CompileBudget::new(flag, std::time::Duration::from_secs(60));
    let cel = PolicyCel::default();
    let rules = ["self != 'a'".to_owned(), "self != 'b'".to_owned()];
    let got = validate_within(&cel, &policy(with_dns_rules(rules)), &budget);
    assert_eq!(got, Err(Cancelled { left: 2 }));
    assert_eq!(
        Cancelled { left: 2 }.to_string(),
        "the policy review was cancelled with 2 validation rules not compiled"
    );
    assert!(cel.is_empty());
}

/// A rule whose worst-case cost is over the limit is admitted, as upstream admits it (it is
/// stopped at run time by the cost limit), with a warning naming the rule.
#[test]
fn rules_over_the_cost_estimate_are_admitted_with_a_warning() {
    let nested = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let rule = format!(
        "{nested}.all(a, {nested}.all(b, {nested}.all(c, {nested}.all(d, {nested}.all(e, {nested}.all(f, self != ''))))))"
    );
    let spec = json!({"selector": {"issuerRef": {}}, "allowed": {"commonName": {"validations": [{"rule": rule}]}}});
    let spec: CertificateRequestPolicySpec = serde_json::from_value(spec).expect("valid spec");
    let validation = validate(&PolicyCel::default(), &CertificateRequestPolicy::new("p", spec));
    assert_eq!(validation.message(), None);
    assert_eq!(validation.warnings.len(), 1, "{:?}", validation.warnings);
    assert!(
        validation.warnings[0]
            .starts_with("spec.allowed.commonName.validations[0]: estimated worst-case cost "),
        "{:?}",
        validation.warnings
    );
    let cheap = json!({"selector": {"issuerRef": {}}, "allowed": {"commonName": {"validations": [{"rule": "self.endsWith(cr.namespace + '.svc')"}]}}});
    let cheap: CertificateRequestPolicySpec = serde_json::from_value(cheap).expect("valid spec");
    assert!(
        validate(&PolicyCel::default(), &CertificateRequestPolicy::new("p", cheap))
            .warnings
            .is_empty()
    );
}
