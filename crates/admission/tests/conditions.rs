//! `Approved` / `Denied` condition rules, alone and after spec errors on CREATE.

mod common;

use certgate_admission::certificate_request::validate_create;
use certgate_admission::conditions::validate_approval_conditions;
use certgate_api::CertificateRequestCondition;
use common::{cr, render, valid_spec, with_conditions};
use pretty_assertions::assert_eq;

fn conditions(list: &[(&str, &str)]) -> Vec<CertificateRequestCondition> {
    list.iter()
        .map(|(type_, status)| CertificateRequestCondition {
            type_: (*type_).to_owned(),
            status: (*status).to_owned(),
            ..Default::default()
        })
        .collect()
}

/// Case name, `(type, status)` conditions, the rendered errors.
type Case = (&'static str, &'static [(&'static str, &'static str)], Option<&'static str>);

#[test]
fn approval_condition_rules() {
    let cases: Vec<Case> = vec![
        ("no conditions", &[], None),
        ("Approved=True", &[("Approved", "True")], None),
        ("Denied=True", &[("Denied", "True")], None),
        ("other types are not checked", &[("Ready", "False"), ("InvalidRequest", "Unknown")], None),
        (
            "Approved=False",
            &[("Approved", "False")],
            Some(
                "status.conditions.Approved: Invalid value: \"False\": \"Approved\" condition may only be set to True",
            ),
        ),
        (
            "Denied=Unknown",
            &[("Ready", "True"), ("Denied", "Unknown")],
            Some(
                "status.conditions.Denied: Invalid value: \"Unknown\": \"Denied\" condition may only be set to True",
            ),
        ),
        (
            "status is case-sensitive",
            &[("Approved", "true")],
            Some(
                "status.conditions.Approved: Invalid value: \"true\": \"Approved\" condition may only be set to True",
            ),
        ),
        (
            "status renders as JSON",
            &[("Approved", "<no>")],
            Some(
                "status.conditions.Approved: Invalid value: \"\\u003cno\\u003e\": \"Approved\" condition may only be set to True",
            ),
        ),
        (
            "multiple Approved: status not checked",
            &[("Approved", "True"), ("Approved", "False")],
            Some("status.conditions: Forbidden: multiple \"Approved\" conditions present"),
        ),
        (
            "multiple Denied",
            &[("Denied", "True"), ("Denied", "False")],
            Some("status.conditions: Forbidden: multiple \"Denied\" conditions present"),
        ),
        (
            "both True",
            &[("Denied", "True"), ("Approved", "True")],
            Some(
                "status.conditions: Forbidden: both 'Denied' and 'Approved' conditions cannot coexist",
            ),
        ),
        (
            "both False: Approved, then Denied, then coexistence",
            &[("Denied", "False"), ("Approved", "False")],
            Some(
                "[status.conditions.Approved: Invalid value: \"False\": \"Approved\" condition may \
                 only be set to True, status.conditions.Denied: Invalid value: \"False\": \"Denied\" \
                 condition may only be set to True, status.conditions: Forbidden: both 'Denied' and \
                 'Approved' conditions cannot coexist]",
            ),
        ),
        (
            "multiple Approved and a bad Denied",
            &[("Approved", "True"), ("Denied", "False"), ("Approved", "True")],
            Some(
                "[status.conditions: Forbidden: multiple \"Approved\" conditions present, \
                 status.conditions.Denied: Invalid value: \"False\": \"Denied\" condition may only \
                 be set to True, status.conditions: Forbidden: both 'Denied' and 'Approved' \
                 conditions cannot coexist]",
            ),
        ),
    ];
    for (name, list, want) in cases {
        let errors = validate_approval_conditions(&conditions(list));
        assert_eq!(render(&errors).as_deref(), want, "case: {name}");
        // CREATE reports the same for an otherwise valid request.
        let on_create = validate_create(&with_conditions(cr(valid_spec()), list));
        assert_eq!(on_create, errors, "case: {name}");
    }
}

#[test]
fn condition_errors_follow_spec_errors() {
    let mut spec = valid_spec();
    spec.issuer_ref.name = String::new();
    spec.request = Vec::new();
    let request = with_conditions(cr(spec), &[("Approved", "False")]);
    assert_eq!(
        render(&validate_create(&request)).as_deref(),
        Some(
            "[spec.issuerRef.name: Required value: must be specified, spec.request: Required value: \
             must be specified, status.conditions.Approved: Invalid value: \"False\": \"Approved\" \
             condition may only be set to True]"
        )
    );
}
