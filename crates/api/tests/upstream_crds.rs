//! The generated CRDs against the upstream cert-manager and approver-policy CRDs in
//! `shared/upstream-crds/`: same API surface, and a schema that accepts everything the
//! upstream schema accepts.

#[path = "support/schema_compat.rs"]
mod schema_compat;

use schema_compat::{surface, upstream};

use certgate_api::crd;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion,
};
use pretty_assertions::assert_eq;

fn ours(name: &str) -> CustomResourceDefinition {
    crd::all()
        .into_iter()
        .find(|c| c.metadata.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("crd::all() has no {name}"))
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
    // The checker itself must catch a dropped list type, a changed enum, an extra and a
    // missing required field, or the tests above prove nothing.
    let upstream = upstream("cert-manager.io_certificaterequests.yaml");
    let mut schema = ours("certificaterequests.cert-manager.io").spec.versions[0]
        .schema
        .clone()
        .and_then(|s| s.open_api_v3_schema)
        .expect("schema");
    let spec = schema.properties.as_mut().and_then(|p| p.get_mut("spec")).expect("spec");
    let required = spec.required.get_or_insert_default();
    required.push("duration".into());
    required.retain(|name| name != "request");
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
            ".spec: does not require \"request\", upstream does",
            ".spec: requires \"duration\", upstream does not",
        ]
    );
}

// ---- every manifest of the repository that upstream accepts decodes ----

use certgate_api::validation::{self, Resource};
use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use serde_json::Value;

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The YAML and JSON files under `dir`, recursively, in name order.
fn manifest_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            manifest_files(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| ["yaml", "yml", "json"].contains(&e))
        {
            out.push(path);
        }
    }
}

/// Every CertificateRequest and CertificateRequestPolicy of a file, Lists flattened. Files
/// that are not plain YAML (templates, deliberately broken fixtures) hold none to check.
fn objects(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let documents: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap_or_default();
    let mut out = Vec::new();
    for document in documents {
        match document.get("items").and_then(Value::as_array) {
            Some(items) if document["kind"] == "List" => out.extend(items.iter().cloned()),
            _ => out.push(document),
        }
    }
    out
}

fn resource(object: &Value) -> Option<Resource> {
    match (object["apiVersion"].as_str()?, object["kind"].as_str()?) {
        ("cert-manager.io/v1", "CertificateRequest") => Some(Resource::CertificateRequest),
        ("policy.cert-manager.io/v1alpha1", "CertificateRequestPolicy") => {
            Some(Resource::CertificateRequestPolicy)
        }
        _ => None,
    }
}

fn upstream_schema(
    resource: Resource,
) -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps {
    let file = match resource {
        Resource::CertificateRequest => "cert-manager.io_certificaterequests.yaml",
        Resource::CertificateRequestPolicy => {
            "policy.cert-manager.io_certificaterequestpolicies.yaml"
        }
    };
    upstream(file).spec.versions[0]
        .schema
        .clone()
        .and_then(|s| s.open_api_v3_schema)
        .expect("upstream schema")
}

#[test]
fn every_manifest_upstream_accepts_decodes_and_ours_judge_alike() {
    let mut files = Vec::new();
    for dir in ["examples", "crates/certgate/tests/fixtures", "crates/api/tests/fixtures", "deploy"]
    {
        manifest_files(&std::path::Path::new(WORKSPACE).join(dir), &mut files);
    }
    let (mut accepted, mut rejected) = (0, 0);
    for path in &files {
        for object in objects(path) {
            let Some(resource) = resource(&object) else { continue };
            let at = format!("{} {}", path.display(), object["metadata"]["name"]);
            // The API server drops a policy's status on create; requests keep theirs here so
            // that dumped conditions are checked too.
            let mut ours = object.clone();
            let mut theirs = object.clone();
            if resource == Resource::CertificateRequestPolicy {
                validation::drop_status(&mut ours);
                validation::drop_status(&mut theirs);
            }
            let ours_errors = validation::validate(resource, &mut ours);
            let upstream_errors =
                validation::validate_against(&upstream_schema(resource), &mut theirs);
            assert_eq!(
                ours_errors, upstream_errors,
                "{at}: certgate's CRD judges unlike upstream's"
            );
            if !upstream_errors.is_empty() {
                rejected += 1;
                continue;
            }
            accepted += 1;
            let decoded = match resource {
                Resource::CertificateRequest => {
                    validation::zero_spec(&mut ours);
                    serde_json::from_value::<CertificateRequest>(ours).map(drop)
                }
                Resource::CertificateRequestPolicy => {
                    serde_json::from_value::<CertificateRequestPolicy>(ours).map(drop)
                }
            };
            if let Err(err) = decoded {
                panic!("{at}: accepted by the upstream CRD but does not decode: {err}");
            }
        }
    }
    // The invalid-objects fixture holds the rejected ones; the rest must be plenty.
    assert!(accepted >= 20 && rejected >= 2, "accepted {accepted}, rejected {rejected}");
}
