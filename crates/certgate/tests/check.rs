//! `certgate check` end to end: the built binary against checked-in fixtures, compared with
//! golden files (`UPDATE_GOLDEN=1` rewrites them; see `support`).

mod support;

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
fn broken_yaml_names_file_document_line_and_column() {
    let run = golden("broken-yaml", &["check", "-f", "tests/fixtures/broken-yaml"]);
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty(), "no report on input errors");
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
            "error: {path}#0: duplicate CertificateRequestPolicy \"lonely\" (first given at \
             {path}#0); names are unique in a cluster, so remove or rename one\n"
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
