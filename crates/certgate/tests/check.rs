//! `certgate check` end to end: the built binary against checked-in fixtures, compared with
//! golden files (`UPDATE_GOLDEN=1` rewrites them; see `support`).

mod support;

#[path = "real_cluster/mod.rs"]
mod real_cluster;

use std::collections::BTreeSet;

use certgate_api::validation::{self, Resource};
use serde_json::Value;
use support::{assert_golden, certgate, crate_dir, golden, workspace_dir};

#[test]
fn examples_text_matches_the_readme_story() {
    let args = ["check", "-f", "examples/"];
    let run = certgate(&workspace_dir(), &args, None);
    assert_golden("examples-text", &args, &run);
    assert_eq!(run.code, 1, "some examples are denied on purpose");
}

#[test]
fn examples_json() {
    let args = ["check", "-f", "examples/", "-o", "json"];
    let run = certgate(&workspace_dir(), &args, None);
    assert_golden("examples-json", &args, &run);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(report["rbacEvaluated"], true);
}

#[test]
fn examples_yaml_is_the_json_document() {
    let args = ["check", "-f", "examples/", "-o", "yaml"];
    let run = certgate(&workspace_dir(), &args, None);
    assert_golden("examples-yaml", &args, &run);
    let json = certgate(&workspace_dir(), &["check", "-f", "examples/", "-o", "json"], None);
    let from_yaml: serde_json::Value = serde_saphyr::from_str(&run.stdout).unwrap();
    let from_json: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(from_yaml, from_json);
}

#[test]
fn decisions_text() {
    let run = golden("decisions-text", &["check", "-f", "tests/fixtures/decisions"]);
    assert_eq!(run.code, 1);
}

#[test]
fn decisions_json() {
    let run = golden("decisions-json", &["check", "-f", "tests/fixtures/decisions", "-o", "json"]);
    assert_eq!(run.code, 1);
}

#[test]
fn decisions_yaml() {
    let run = golden("decisions-yaml", &["check", "-f", "tests/fixtures/decisions", "-o", "yaml"]);
    assert_eq!(run.code, 1);
}

#[test]
fn explain_text_covers_unselected_unbound_and_not_ready_policies() {
    let run = golden("explain-text", &["check", "-f", "tests/fixtures/explain", "--explain"]);
    // The one request is approved, but the not-ready policy is one the webhook rejects.
    assert_eq!(run.code, 2);
}

#[test]
fn a_policy_the_webhook_rejects_fails_the_check() {
    let run = golden("rejected-policy", &["check", "-f", "tests/fixtures/rejected-policy"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("CertificateRequestPolicy \"broken\": admission webhook"),
        "{}",
        run.stderr
    );
}

#[test]
fn explain_json_carries_the_trace_per_result() {
    let args = ["check", "-f", "tests/fixtures/explain", "--explain", "-o", "json"];
    let run = golden("explain-json", &args);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(report["results"][0]["trace"].is_object());
}

#[test]
fn invalid_csr_is_reported_and_exits_2() {
    let run = golden("invalid-csr", &["check", "-f", "tests/fixtures/invalid-csr"]);
    assert_eq!(run.code, 2);
}

#[test]
fn namespace_selector_without_the_namespace_is_an_error_exit_2() {
    let run = golden("namespace-missing", &["check", "-f", "tests/fixtures/namespace-missing"]);
    assert_eq!(run.code, 2);
}

#[test]
fn a_refused_label_selector_selects_nothing_and_never_fails_a_review() {
    let args = ["check", "-f", "tests/fixtures/refused-label-selector", "--explain"];
    let run = golden("refused-label-selector", &args);
    assert_eq!(run.code, 2, "the refused policy fails the check; the request is approved");
    assert!(run.stdout.contains("Approved by CertificateRequestPolicy: \"team-a-services\""));
    assert!(!run.stdout.contains("failed to"), "{}", run.stdout);
}

#[test]
fn broken_yaml_names_file_line_and_column() {
    let run = golden("broken-yaml", &["check", "-f", "tests/fixtures/broken-yaml"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty(), "no report on input errors");
    assert!(
        run.stderr.contains("error: tests/fixtures/broken-yaml/b.yaml:10:11: invalid YAML: "),
        "{}",
        run.stderr
    );
}

#[test]
fn misspelt_fields_are_warned_with_the_nearest_field_and_their_line() {
    let run = golden("unknown-fields", &["check", "-f", "tests/fixtures/unknown-fields"]);
    let file = "tests/fixtures/unknown-fields/manifests.yaml";
    let warnings: Vec<&str> = run.stderr.lines().filter(|l| l.contains("unknown field")).collect();
    assert_eq!(
        warnings,
        [
            format!(
                "warning: {file}:9:5: CertificateRequestPolicy \"typo\": unknown field \
                 \"spec.allowed.dnsName\", did you mean \"dnsNames\"?"
            ),
            format!(
                "warning: {file}:23:3: Certificate \"team-a/web\": unknown field \
                 \"spec.dnsName\", did you mean \"dnsNames\"?"
            ),
        ],
        "{}",
        run.stderr
    );
    // Unknown fields are warnings: the policy is still checked and the exit status is that
    // of the decisions (no request here).
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn a_cel_rule_that_does_not_compile_gets_the_webhooks_text_with_a_caret() {
    use certgate_admission::review::{Admission, Endpoint};
    use certgate_rbac::NoCluster;

    let path = "tests/fixtures/explain/policies.yaml";
    let run = certgate(&crate_dir(), &["check", "-f", path], None);
    let text = std::fs::read_to_string(crate_dir().join(path)).unwrap();
    let documents: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let policy = documents.iter().find(|d| d["metadata"]["name"] == "not-ready").unwrap();
    // The same policy through the webhook, as the API server sends it.
    let review = serde_json::json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {
            "uid": "0d4b6f00-0000-4000-8000-000000000001",
            "kind": {"group": "policy.cert-manager.io", "version": "v1alpha1",
                     "kind": "CertificateRequestPolicy"},
            "resource": {"group": "policy.cert-manager.io", "version": "v1alpha1",
                         "resource": "certificaterequestpolicies"},
            "name": "not-ready", "operation": "CREATE",
            "userInfo": {"username": "alice"},
            "object": policy,
            "dryRun": false
        }
    });
    let cel = std::sync::Arc::new(certgate_cel::PolicyCel::default());
    let admission = Admission::new(cel, NoCluster, NoCluster);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let body = serde_json::to_vec(&review).unwrap();
    let handled = runtime.block_on(admission.handle(Endpoint::Validate, &body)).unwrap();
    let answer: Value = serde_json::from_slice(&handled.body).unwrap();
    assert_eq!(answer["response"]["allowed"], false, "{answer}");
    let message = answer["response"]["status"]["message"].as_str().unwrap();
    // The caret under the rule as written, in both.
    assert!(message.ends_with("\n | self.endsWith(\n | ..............^"), "{message}");
    let expected = format!(
        "error: {path}:50:11: CertificateRequestPolicy \"not-ready\": admission webhook \
         \"policy.cert-manager.io\" denied the request: {message}\n"
    );
    assert!(run.stderr.contains(&expected), "{expected}\nnot in\n{}", run.stderr);
}

#[test]
fn all_input_errors_are_reported_in_file_order() {
    let run = golden("input-errors", &["check", "-f", "tests/fixtures/input-errors"]);
    assert_eq!(run.code, 2);
}

#[test]
fn policies_only_exit_0_with_a_notice() {
    let run = golden("policies-only", &["check", "-f", "tests/fixtures/policies-only"]);
    assert_eq!(run.code, 0);
}

#[test]
fn missing_path_is_an_input_error() {
    let run = golden("missing-path", &["check", "-f", "tests/fixtures/does-not-exist.yaml"]);
    assert_eq!(run.code, 2);
}

#[test]
fn usage_errors_exit_2() {
    let run = certgate(&crate_dir(), &["check"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--filename <PATH>"), "{}", run.stderr);
    let run = certgate(&crate_dir(), &["check", "-f", "x", "-o", "xml"], None);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("invalid value 'xml'"), "{}", run.stderr);
}

#[test]
fn stdin_is_read_for_dash_and_named_in_messages() {
    let input = std::fs::read_to_string(crate_dir().join("tests/fixtures/explain/request.yaml"))
        .unwrap()
        + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n";
    let args = ["check", "-f", "-", "-f", "tests/fixtures/explain/policies.yaml", "-o", "json"];
    let run = certgate(&crate_dir(), &args, Some(&input));
    assert_golden("stdin", &args, &run);
    // explain/policies.yaml holds a policy the webhook rejects.
    assert_eq!(run.code, 2);
}

#[test]
fn the_same_file_twice_is_a_duplicate_error() {
    let path = "tests/fixtures/policies-only/policy.yaml";
    let run = certgate(&crate_dir(), &["check", "-f", path, "-f", path], None);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        format!(
            "error: {path}:1:1: duplicate CertificateRequestPolicy \"lonely\" (first given at \
             {path}:1:1); names are unique in a cluster, so remove or rename one\n"
        )
    );
}

#[cfg(unix)]
#[test]
fn symlink_loop_in_a_directory_exits_2_naming_the_loop() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("manifests");
    std::fs::create_dir_all(root.join("nested")).unwrap();
    std::fs::copy(
        crate_dir().join("tests/fixtures/policies-only/policy.yaml"),
        root.join("p.yaml"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&root, root.join("nested/loop")).unwrap();
    let run = certgate(dir.path(), &["check", "-f", "manifests"], None);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: cannot walk manifests: symbolic link loop: manifests/nested/loop points back to \
         its ancestor manifests\n"
    );
    assert!(run.stdout.is_empty());
}

#[test]
fn invalid_objects_are_reported_alone_and_the_rest_is_decided() {
    let run = golden("invalid-objects", &["check", "-f", "tests/fixtures/invalid-objects"]);
    assert_eq!(run.code, 2, "an object the API server would refuse fails the check");
    // The policy with values outside the enums, reported with the API server's message.
    assert!(
        run.stderr.contains(
            "manifests.yaml:9:27: CertificateRequestPolicy.policy.cert-manager.io \"broken-enums\" \
             is invalid: [spec.allowed.usages[1]: Unsupported value: \"flying\": supported \
             values: \"signing\", "
        ),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(
            "spec.constraints.privateKey.algorithm: Unsupported value: \"DSA\": supported \
             values: \"RSA\", \"ECDSA\", \"Ed25519\"]"
        ),
        "{}",
        run.stderr
    );
    // The valid policy decides the valid requests, including the one whose status condition
    // has no lastTransitionTime and the one whose invalid status was ignored.
    for line in [
        "team-a      app          Approved",
        "team-a      public       Denied",
        "team-a      odd-status   Approved",
    ] {
        assert!(run.stdout.contains(line), "{line:?} in\n{}", run.stdout);
    }
    assert!(!run.stdout.contains("broken-enums") && !run.stdout.contains("typo"));
}

/// The CertificateRequests and CertificateRequestPolicies of a fixture file, Lists flattened.
fn crd_objects(path: &str) -> Vec<(Resource, Value)> {
    let text = std::fs::read_to_string(crate_dir().join(path)).unwrap();
    let documents: Vec<Value> = serde_saphyr::from_multiple(&text).unwrap();
    let mut objects = Vec::new();
    for document in documents {
        let items = match document.get("items").and_then(Value::as_array) {
            Some(items) if document["kind"] == "List" => items.clone(),
            _ => vec![document],
        };
        for item in items {
            let resource = match item["kind"].as_str() {
                Some("CertificateRequest") => Resource::CertificateRequest,
                Some("CertificateRequestPolicy") => Resource::CertificateRequestPolicy,
                _ => continue,
            };
            objects.push((resource, item));
        }
    }
    objects
}

/// The field errors of kubectl's report of a 422: one line, or one `* ` line per error.
fn kubectl_errors(stderr: &str) -> BTreeSet<String> {
    let Some((_, tail)) = stderr.split_once(" is invalid: ") else {
        panic!("not a 422 from the API server: {stderr}");
    };
    match tail.strip_prefix('\n') {
        Some(list) => {
            list.lines().filter_map(|line| line.strip_prefix("* ")).map(str::to_owned).collect()
        }
        None => BTreeSet::from([tail.trim_end().to_owned()]),
    }
}

/// certgate's schema validation against a real kube-apiserver with the upstream CRDs, on
/// every object of the fixtures: the same error texts for each object (as sets: the API
/// server's order varies from run to run). `status` is left out on both sides: the API server
/// drops it on create, and `check` only warns about it.
#[test]
fn one_error_set_per_object_as_the_real_api_server_reports() {
    let cluster = real_cluster::RealCluster::start(&real_cluster::Options {
        webhook: false,
        controllers: None,
    });
    let crds = workspace_dir().join("../shared/upstream-crds");
    for (file, name) in [
        ("cert-manager.io_certificaterequests.yaml", "certificaterequests.cert-manager.io"),
        (
            "policy.cert-manager.io_certificaterequestpolicies.yaml",
            "certificaterequestpolicies.policy.cert-manager.io",
        ),
    ] {
        let path = crds.join(file);
        let args = ["apply", "--server-side", "--force-conflicts", "-f", path.to_str().unwrap()];
        let applied = cluster.kubectl(&args, None);
        assert!(applied.status.success(), "{}", String::from_utf8_lossy(&applied.stderr));
        let crd = format!("crd/{name}");
        let args = ["wait", "--for=condition=Established", "--timeout=60s", crd.as_str()];
        assert!(cluster.kubectl(&args, None).status.success());
    }
    assert!(cluster.kubectl(&["create", "namespace", "team-a"], None).status.success());
    let mut compared = 0;
    for fixture in [
        "tests/fixtures/schema-errors/objects.yaml",
        "tests/fixtures/invalid-objects/manifests.yaml",
    ] {
        for (resource, mut object) in crd_objects(fixture) {
            validation::drop_status(&mut object);
            let json = serde_json::to_string(&object).unwrap();
            let mut ours = object.clone();
            let ours: BTreeSet<String> =
                validation::validate(resource, &mut ours).iter().map(ToString::to_string).collect();
            let run = cluster.kubectl(&["create", "--dry-run=server", "-f", "-"], Some(&json));
            let upstream = if run.status.success() {
                BTreeSet::new()
            } else {
                kubectl_errors(&String::from_utf8_lossy(&run.stderr))
            };
            assert_eq!(ours, upstream, "{fixture}: {}", object["metadata"]["name"]);
            compared += 1;
        }
    }
    assert!(compared >= 10, "{compared} objects compared");
}
