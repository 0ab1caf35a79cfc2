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

#[test]
fn yaml_stream_parses_back_as_the_generated_crds() {
    let text = crds(&[]);
    assert!(text.starts_with("---\n"));
    let parsed: Vec<CustomResourceDefinition> = serde_saphyr::from_multiple(&text).unwrap();
    assert_eq!(parsed, certgate_api::crd::all());
    let names: Vec<_> = parsed.iter().filter_map(|c| c.metadata.name.as_deref()).collect();
    assert!(names.contains(&"certificaterequestpolicies.policy.cert-manager.io"), "{names:?}");
    assert!(names.contains(&"certificaterequests.cert-manager.io"), "{names:?}");
}

#[test]
fn json_is_a_v1_list_of_the_generated_crds() {
    let list: serde_json::Value = serde_json::from_str(&crds(&["-o", "json"])).unwrap();
    assert_eq!(list["apiVersion"], "v1");
    assert_eq!(list["kind"], "List");
    let items: Vec<CustomResourceDefinition> =
        serde_json::from_value(list["items"].clone()).unwrap();
    assert_eq!(items, certgate_api::crd::all());
}
