//! `certgate template resolve` against golden files (`UPDATE_GOLDEN=1` rewrites them; see
//! `support`), and the properties a golden file cannot show.

// Shared with the check golden tests; not every helper is used here.
#[allow(dead_code)]
mod support;

use support::{certgate, crate_dir, golden};

const DIR: &str = "tests/fixtures/templates";

/// `template resolve -f <fixture> --cluster cluster1 <extra...>` against its golden file.
fn resolve_golden(golden_name: &str, fixture: &str, extra: &[&str]) -> support::Run {
    let file = format!("{DIR}/{fixture}");
    let mut args = vec!["template", "resolve", "-f", &file, "--cluster", "cluster1"];
    args.extend_from_slice(extra);
    golden(golden_name, &args)
}

#[test]
fn the_design_example_resolves_with_the_service_accounts_permissions() {
    let run = resolve_golden("template-design-example", "design-example.yaml", &[]);
    assert_eq!(run.code, 0);
}

#[test]
fn default_mode_reads_the_policy_namespace_and_the_clusters_labels() {
    let extra = ["--cluster-label", "env=prod", "--show-reads"];
    let run = resolve_golden("template-default-mode", "default-mode.yaml", &extra);
    assert_eq!(run.code, 0);
}

#[test]
fn a_restricted_read_sets_the_error_annotation_and_exits_1() {
    let run = resolve_golden("template-restricted", "restricted.yaml", &["-o", "json"]);
    assert_eq!(run.code, 1);
    // Go names line 11 of the template as the propagator renders it; certgate names the
    // line the user wrote it on.
    assert!(
        run.stderr.contains(
            "tests/fixtures/templates/restricted.yaml:25:19: policy policies/reads-elsewhere: \
             the template that failed is spec.policy-templates[0].objectDefinition.spec\
             .object-templates[0].objectDefinition.data.value\n"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn an_unknown_cluster_is_an_error_naming_the_known_ones() {
    let input = "apiVersion: policy.open-cluster-management.io/v1\nkind: Policy\n\
                 metadata: {name: p, namespace: ns}\nspec: {policy-templates: []}\n---\n\
                 apiVersion: cluster.open-cluster-management.io/v1\nkind: ManagedCluster\n\
                 metadata: {name: cluster1}\n";
    let resolve = |cluster: &str| {
        let args = ["template", "resolve", "-f", "-", "--cluster", cluster];
        certgate(&crate_dir(), &args, Some(input))
    };
    let run = resolve("clustr1");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "error: unknown --cluster \"clustr1\": the ManagedClusters and PlacementDecisions of \
         the inputs name only cluster1; did you mean \"cluster1\"?\n"
    );
    assert!(run.stdout.is_empty());
    assert_eq!(resolve("cluster1").code, 0);
    // A cluster described with --cluster-label may be a new one.
    let args = ["template", "resolve", "-f", "-", "--cluster", "new", "--cluster-label", "a=b"];
    assert_eq!(certgate(&crate_dir(), &args, Some(input)).code, 0);
}

#[test]
fn unknown_fields_of_the_inputs_are_warned_with_their_line() {
    let input = "apiVersion: policy.open-cluster-management.io/v1\nkind: Policy\n\
                 metadata: {name: p, namespace: ns}\nspec:\n  policy-templates:\n  \
                 - objectDefinitoin: {kind: ConfigMap}\n    extraDependencies: []\n";
    let args = ["template", "resolve", "-f", "-", "--cluster", "c1"];
    let run = certgate(&crate_dir(), &args, Some(input));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        "warning: <stdin>:6:5: Policy \"ns/p\": unknown field \
         \"spec.policy-templates[0].objectDefinitoin\", did you mean \"objectDefinition\"?\n"
    );
}

#[test]
fn encrypted_values_use_the_clusters_key_and_the_existing_iv() {
    let run = resolve_golden("template-encrypted", "encrypted.yaml", &[]);
    assert_eq!(run.code, 0);
}

#[test]
fn denied_functions_fail_with_upstreams_text() {
    let policy = r#"
apiVersion: policy.open-cluster-management.io/v1
kind: Policy
metadata: {name: p, namespace: policies}
spec:
  policy-templates:
    - objectDefinition:
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: c}
        data:
          home: '{{hub env "HOME" hub}}'
          now: '{{hub now hub}}'
"#;
    // `template resolve` of `input` from standard input with `--template-function-denylist`.
    let resolve = |input: &str, denylist: &str| {
        let args = [
            "template",
            "resolve",
            "-f",
            "-",
            "--cluster",
            "c1",
            "--template-function-denylist",
            denylist,
        ];
        certgate(&crate_dir(), &args, Some(input))
    };
    let run = resolve(policy, "now");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "error calling env: use of denylisted template function: function 'env' is considered a security risk"
        ),
        "{}",
        run.stderr
    );
    let run = resolve(&policy.replace("env \"HOME\"", "\"x\""), "now,env");
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "error calling now: use of denylisted template function: function 'now' is not allowed"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn inputs_without_a_root_policy_are_an_input_error() {
    let run = certgate(
        &crate_dir(),
        &["template", "resolve", "-f", "-", "--cluster", "c1"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: y}\n"),
    );
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: no root Policy (policy.open-cluster-management.io/v1, without the root-policy label) in the inputs\n"
    );
}

#[test]
fn a_malformed_rbac_object_names_itself_and_exits_2() {
    let input = "apiVersion: policy.open-cluster-management.io/v1\nkind: Policy\nmetadata: {name: p, namespace: ns}\nspec: {policy-templates: []}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: rb, namespace: ns}\nroleRef: 7\n";
    let run =
        certgate(&crate_dir(), &["template", "resolve", "-f", "-", "--cluster", "c1"], Some(input));
    assert_eq!(run.code, 2);
    assert!(run.stderr.starts_with("error: <stdin>:6:1: RoleBinding ns/rb: "), "{}", run.stderr);
    assert!(run.stderr.ends_with("; fix or remove it\n"), "{}", run.stderr);
}
