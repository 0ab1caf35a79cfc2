//! `certgate crds`: the output parses back into exactly the CRDs the api crate generates.

use std::process::Command;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

fn crds(args: &[&str]) -> String {
    let output =
        Command::new(env!("CARGO_BIN_EXE_certgate")).arg("crds").args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stderr.is_empty());
    String::from_utf8(output.stdout).unwrap()
}

/// What the api crate generates for the CRDs named, in `certgate crds`'s order.
fn generated(names: &[&str]) -> Vec<CustomResourceDefinition> {
    let every: Vec<_> = certgate_api::crd::all()
        .into_iter()
        .chain(certgate_api::crd::cert_manager())
        .chain(certgate_api::crd::ocm())
        .collect();
    names
        .iter()
        .map(|name| {
            every.iter().find(|c| c.metadata.name.as_deref() == Some(*name)).unwrap().clone()
        })
        .collect()
}

#[test]
fn yaml_stream_parses_back_as_the_crd_certgate_owns_and_nothing_of_cert_manager() {
    let text = crds(&[]);
    assert!(text.starts_with("---\n"));
    let parsed: Vec<CustomResourceDefinition> = serde_saphyr::from_multiple(&text).unwrap();
    assert_eq!(parsed, generated(&["certificaterequestpolicies.policy.cert-manager.io"]));
    // Applied next to a cert-manager install, it must not replace cert-manager's CRDs.
    assert!(parsed.iter().all(|c| c.spec.group != "cert-manager.io"));
}

#[test]
fn include_cert_manager_adds_its_kinds_for_clusters_without_it() {
    let text = crds(&["--include", "cert-manager"]);
    let parsed: Vec<CustomResourceDefinition> = serde_saphyr::from_multiple(&text).unwrap();
    assert_eq!(
        parsed,
        generated(&[
            "certificaterequestpolicies.policy.cert-manager.io",
            "certificaterequests.cert-manager.io",
            "certificates.cert-manager.io",
            "issuers.cert-manager.io",
            "clusterissuers.cert-manager.io",
        ])
    );
}

#[test]
fn include_takes_a_comma_list_and_refuses_unknown_sets() {
    let text = crds(&["--include=ocm,cert-manager", "-o", "json"]);
    let list: serde_json::Value = serde_json::from_str(&text).unwrap();
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 5 + certgate_api::crd::ocm().len());
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["crds", "--include", "istio"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("invalid value 'istio' for '--include <SET>'"), "{stderr}");
    assert!(stderr.contains("[possible values: cert-manager, ocm]"), "{stderr}");
}

#[test]
fn json_is_a_v1_list_of_the_generated_crds() {
    let list: serde_json::Value = serde_json::from_str(&crds(&["-o", "json"])).unwrap();
    assert_eq!(list["apiVersion"], "v1");
    assert_eq!(list["kind"], "List");
    let items: Vec<CustomResourceDefinition> =
        serde_json::from_value(list["items"].clone()).unwrap();
    assert_eq!(items, generated(&["certificaterequestpolicies.policy.cert-manager.io"]));
}
