//! The selector predicates: issuerRef defaults and wildcards, namespace names and labels,
//! lazy single Namespace read, and the mismatch texts of the trace.

use std::cell::Cell;

use serde_json::json;

use super::*;
use crate::test_support::cr;

fn selector(value: serde_json::Value) -> Selector {
    serde_json::from_value(value).expect("valid selector")
}

/// Counts reads; answers with fixed labels or an error.
struct Namespaces {
    reads: Cell<usize>,
    answer: Result<BTreeMap<String, String>, String>,
}

impl Namespaces {
    fn with(labels: &[(&str, &str)]) -> Self {
        let labels = labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        Namespaces { reads: Cell::new(0), answer: Ok(labels) }
    }
}

impl NamespaceLookup for Namespaces {
    fn labels(&self, _namespace: &str) -> Result<BTreeMap<String, String>, String> {
        self.reads.set(self.reads.get() + 1);
        self.answer.clone()
    }
}

#[test]
fn issuer_ref_defaults_and_wildcards() {
    let request = cr();
    let issuer = RequestIssuer::of(&request);
    let cases = [
        (json!({}), None),
        (json!({"issuerRef": {}}), None),
        (json!({"issuerRef": {"name": "c*", "kind": "Issuer", "group": "cert-manager.io"}}), None),
        (
            json!({"issuerRef": {"name": "prod-*"}}),
            Some(r#"spec.selector.issuerRef.name: "prod-*" does not match "ca""#),
        ),
        (
            json!({"issuerRef": {"kind": "ClusterIssuer"}}),
            Some(
                r#"spec.selector.issuerRef.kind: "ClusterIssuer" does not match "Issuer" (the request leaves it empty, which cert-manager reads as this default)"#,
            ),
        ),
        (
            json!({"issuerRef": {"group": "example.com"}}),
            Some(
                r#"spec.selector.issuerRef.group: "example.com" does not match "cert-manager.io" (the request leaves it empty, which cert-manager reads as this default)"#,
            ),
        ),
        (
            json!({"issuerRef": {"name": ""}}),
            Some(r#"spec.selector.issuerRef.name: "" does not match "ca""#),
        ),
    ];
    for (sel, want) in cases {
        let got = issuer_ref(&selector(sel.clone()), &issuer).err().map(|m| m.message);
        assert_eq!(got.as_deref(), want, "{sel}");
    }

    let mut explicit = cr();
    explicit.spec.issuer_ref.kind = Some("ClusterIssuer".into());
    explicit.spec.issuer_ref.group = Some("example.com".into());
    let issuer = RequestIssuer::of(&explicit);
    let sel = selector(json!({"issuerRef": {"kind": "Issuer"}}));
    assert_eq!(
        issuer_ref(&sel, &issuer).err().map(|m| (m.field, m.message)),
        Some((
            "spec.selector.issuerRef.kind".to_owned(),
            r#"spec.selector.issuerRef.kind: "Issuer" does not match "ClusterIssuer""#.to_owned()
        ))
    );
    assert!(issuer_ref(&selector(json!({"issuerRef": {"group": "*.com"}})), &issuer).is_ok());
}

#[test]
fn namespace_names_and_labels() {
    let namespaces = Namespaces::with(&[("env", "prod"), ("team", "a")]);
    let cases = [
        (json!({"issuerRef": {}}), None),
        (json!({"namespace": {}}), None),
        (json!({"namespace": {"matchNames": []}}), None),
        (json!({"namespace": {"matchNames": ["other", "team-*"]}}), None),
        (
            json!({"namespace": {"matchNames": ["other", "team-b"]}}),
            Some(
                r#"spec.selector.namespace.matchNames: none of ["other","team-b"] matches "team-a""#,
            ),
        ),
        (json!({"namespace": {"matchLabels": {}}}), None),
        (json!({"namespace": {"matchLabels": {"env": "prod"}}}), None),
        (
            json!({"namespace": {"matchLabels": {"env": "dev"}}}),
            Some(
                r#"spec.selector.namespace.matchLabels: {"env":"dev"} does not match the labels {"env":"prod","team":"a"} of Namespace "team-a""#,
            ),
        ),
        (
            json!({"namespace": {"matchNames": ["team-a"], "matchLabels": {"missing": "x"}}}),
            Some(
                r#"spec.selector.namespace.matchLabels: {"missing":"x"} does not match the labels {"env":"prod","team":"a"} of Namespace "team-a""#,
            ),
        ),
    ];
    let mut labels = NamespaceLabels::new(&namespaces, "team-a");
    for (sel, want) in cases {
        let got =
            namespace(&selector(sel.clone()), "team-a", &mut labels).expect("no lookup error");
        assert_eq!(got.err().map(|m| m.message).as_deref(), want, "{sel}");
    }
    assert_eq!(namespaces.reads.get(), 1, "the Namespace is read once per review");
}

#[test]
fn namespace_is_read_only_when_match_labels_is_reached() {
    let namespaces = Namespaces::with(&[]);
    let mut labels = NamespaceLabels::new(&namespaces, "team-a");
    let not_reached =
        selector(json!({"namespace": {"matchNames": ["other"], "matchLabels": {"a": "b"}}}));
    assert!(namespace(&not_reached, "team-a", &mut labels).expect("no error").is_err());
    let names_only = selector(json!({"namespace": {"matchNames": ["team-a"]}}));
    assert!(namespace(&names_only, "team-a", &mut labels).expect("no error").is_ok());
    assert_eq!(namespaces.reads.get(), 0);
    // `{}` still reads the Namespace, then matches any labels.
    let empty = selector(json!({"namespace": {"matchLabels": {}}}));
    assert!(namespace(&empty, "team-a", &mut labels).expect("no error").is_ok());
    assert_eq!(namespaces.reads.get(), 1);
}

#[test]
fn namespace_read_failures_are_predicate_errors() {
    let namespaces =
        Namespaces { reads: Cell::new(0), answer: Err(r#"namespaces "team-a" not found"#.into()) };
    let mut labels = NamespaceLabels::new(&namespaces, "team-a");
    let sel = selector(json!({"namespace": {"matchLabels": {"env": "prod"}}}));
    assert_eq!(
        namespace(&sel, "team-a", &mut labels).err(),
        Some(PredicateError(
            r#"failed to get request's namespace to determine namespace selector: namespaces "team-a" not found"#.into()
        ))
    );
}

#[test]
fn invalid_match_labels_select_no_namespace_without_reading_it() {
    // Only a policy the webhook refuses has these; even a failing read cannot make it an error.
    let namespaces =
        Namespaces { reads: Cell::new(0), answer: Err(r#"namespaces "team-a" not found"#.into()) };
    let mut labels = NamespaceLabels::new(&namespaces, "team-a");
    let cases = [
        (
            json!({"namespace": {"matchLabels": {"bad key!": "v"}}}),
            r#"spec.selector.namespace.matchLabels: {"bad key!":"v"} is not a valid label selector, so it selects no Namespace (the policy webhook refuses it): key: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#,
        ),
        (
            json!({"namespace": {"matchNames": ["team-*"], "matchLabels": {"env": "prod", "tier": "-web"}}}),
            r#"spec.selector.namespace.matchLabels: {"env":"prod","tier":"-web"} is not a valid label selector, so it selects no Namespace (the policy webhook refuses it): values[0][tier]: Invalid value: "-web": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"#,
        ),
    ];
    for (sel, want) in cases {
        let got = namespace(&selector(sel.clone()), "team-a", &mut labels).expect("no error");
        let mismatch = got.expect_err("not selected");
        assert_eq!(mismatch.field, "spec.selector.namespace.matchLabels");
        assert_eq!(mismatch.message, want, "{sel}");
    }
    assert_eq!(namespaces.reads.get(), 0);
}
