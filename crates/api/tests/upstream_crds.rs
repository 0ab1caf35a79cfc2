//! The generated CRDs against the upstream cert-manager and approver-policy CRDs in
//! `shared/upstream-crds/`: same API surface, and a schema that accepts everything the
//! upstream schema accepts.

#[path = "support/schema_compat.rs"]
mod schema_compat;

use certgate_api::crd;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceColumnDefinition, CustomResourceDefinition, CustomResourceDefinitionVersion,
};
use pretty_assertions::assert_eq;

const UPSTREAM_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/upstream-crds");

fn upstream(file: &str) -> CustomResourceDefinition {
    let path = format!("{UPSTREAM_DIR}/{file}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("parse {path}: {e}"))
}

fn ours(name: &str) -> CustomResourceDefinition {
    crd::all()
        .into_iter()
        .find(|c| c.metadata.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("crd::all() has no {name}"))
}

/// Everything about a version except the schema and the printer columns' prose.
fn surface(v: &CustomResourceDefinitionVersion) -> CustomResourceDefinitionVersion {
    let columns = v.additional_printer_columns.as_ref().map(|cols| {
        cols.iter()
            .map(|c| CustomResourceColumnDefinition { description: None, ..c.clone() })
            .collect()
    });
    CustomResourceDefinitionVersion {
        additional_printer_columns: columns,
        schema: None,
        ..v.clone()
    }
}

fn assert_compatible(file: &str) {
    let upstream = upstream(file);
    let name = upstream.metadata.name.clone().unwrap_or_default();
    let ours = ours(&name);

    assert_eq!(ours.spec.group, upstream.spec.group);
    assert_eq!(ours.spec.names, upstream.spec.names);
    assert_eq!(ours.spec.scope, upstream.spec.scope);
    assert_eq!(ours.spec.versions.len(), upstream.spec.versions.len());
    for (ours_v, upstream_v) in ours.spec.versions.iter().zip(&upstream.spec.versions) {
        assert_eq!(surface(ours_v), surface(upstream_v));
        let schema = |v: &CustomResourceDefinitionVersion| {
            v.schema.as_ref().and_then(|s| s.open_api_v3_schema.clone())
        };
        let (Some(ours_schema), Some(upstream_schema)) = (schema(ours_v), schema(upstream_v))
        else {
            panic!("{name} {}: both CRDs must carry a schema", ours_v.name);
        };
        let problems = schema_compat::compare(&ours_schema, &upstream_schema);
        assert!(problems.is_empty(), "{name} {} schema:\n{}", ours_v.name, problems.join("\n"));
        let problems = schema_compat::structural_problems(&ours_schema);
        assert!(
            problems.is_empty(),
            "{name} {} not structural:\n{}",
            ours_v.name,
            problems.join("\n")
        );
    }
}

#[test]
fn certificate_request_crd_matches_upstream() {
    assert_compatible("cert-manager.io_certificaterequests.yaml");
}

#[test]
fn certificate_request_policy_crd_matches_upstream() {
    assert_compatible("policy.cert-manager.io_certificaterequestpolicies.yaml");
}

#[test]
fn all_lists_each_crd_once_in_a_stable_order() {
    let names: Vec<_> = crd::all().into_iter().filter_map(|c| c.metadata.name).collect();
    assert_eq!(
        names,
        [
            "certificaterequests.cert-manager.io",
            "certificaterequestpolicies.policy.cert-manager.io"
        ]
    );
}

#[test]
fn comparison_reports_divergence() {
    // The checker itself must catch a dropped list type, a changed enum and an extra
    // required field, or the tests above prove nothing.
    let upstream = upstream("cert-manager.io_certificaterequests.yaml");
    let mut schema = ours("certificaterequests.cert-manager.io").spec.versions[0]
        .schema
        .clone()
        .and_then(|s| s.open_api_v3_schema)
        .expect("schema");
    let spec = schema.properties.as_mut().and_then(|p| p.get_mut("spec")).expect("spec");
    spec.required.get_or_insert_default().push("duration".into());
    let props = spec.properties.as_mut().expect("spec properties");
    props.get_mut("groups").expect("groups").x_kubernetes_list_type = None;
    props.get_mut("isCA").expect("isCA").type_ = Some("string".into());
    props.remove("uid");
    let upstream_schema = upstream.spec.versions[0]
        .schema
        .clone()
        .and_then(|s| s.open_api_v3_schema)
        .expect("schema");
    let mut problems = schema_compat::compare(&schema, &upstream_schema);
    problems.sort();
    assert_eq!(
        problems,
        [
            ".spec.groups: x-kubernetes-list-type: ours None, upstream Some(\"atomic\")",
            ".spec.isCA: type: ours Some(\"string\"), upstream Some(\"boolean\")",
            ".spec.uid: missing",
            ".spec: requires \"duration\", upstream does not",
        ]
    );
}
