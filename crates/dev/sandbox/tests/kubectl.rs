//! End to end with the real `kubectl` binary against the sandbox (loopback only).

mod support;

use std::path::Path;

use serde_json::Value;
use support::{Harness, examples};

#[test]
fn examples_apply_and_read_back_in_every_output_format() {
    let h = Harness::start();
    let examples = examples();
    let applied = h.ok(&["apply", "-f", examples.join("namespaces.yaml").to_str().unwrap()]);
    assert!(applied.contains("created"), "{applied}");
    for file in [
        "rbac.yaml",
        "dns/policy.yaml",
        "dns/requests.yaml",
        "spiffe/policy.yaml",
        "spiffe/requests.yaml",
    ] {
        let out = h.ok(&["apply", "-f", examples.join(file).to_str().unwrap()]);
        assert!(out.contains("created"), "{file}: {out}");
    }
    // Applying again changes nothing.
    let again = h.ok(&["apply", "-f", examples.join("dns/policy.yaml").to_str().unwrap()]);
    assert!(again.contains("unchanged"), "{again}");

    let table = h.ok(&["get", "certificaterequestpolicies"]);
    assert!(table.starts_with("NAME"), "{table}");
    let json: Value = serde_json::from_str(&h.ok(&["get", "crp", "-o", "json"])).unwrap();
    assert_eq!(json["kind"], "List");
    assert!(!json["items"].as_array().unwrap().is_empty());
    let yaml = h.ok(&["get", "namespaces", "-o", "yaml"]);
    assert!(yaml.contains("kind: Namespace"), "{yaml}");
    let names = h.ok(&["get", "namespaces", "-o", "jsonpath={.items[*].metadata.name}"]);
    assert!(names.split(' ').any(|n| n == "default"), "{names}");
    let all = h.ok(&["get", "certificaterequests", "-A"]);
    assert!(all.starts_with("NAMESPACE"), "{all}");
}

#[test]
fn configmaps_patch_label_annotate_and_delete() {
    let h = Harness::start();
    h.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\ndata:\n  a: \"1\"\n");
    h.ok(&["patch", "configmap", "demo", "--type", "merge", "-p", r#"{"data":{"b":"2"}}"#]);
    h.ok(&[
        "patch",
        "configmap",
        "demo",
        "--type",
        "json",
        "-p",
        r#"[{"op":"replace","path":"/data/a","value":"3"}]"#,
    ]);
    h.ok(&["patch", "configmap", "demo", "-p", r#"{"data":{"c":"4"}}"#]);
    h.ok(&["label", "configmap", "demo", "tier=front"]);
    h.ok(&["annotate", "configmap", "demo", "note=hello"]);
    let object: Value = serde_json::from_str(&h.ok(&["get", "cm", "demo", "-o", "json"])).unwrap();
    assert_eq!(object["data"], serde_json::json!({"a": "3", "b": "2", "c": "4"}));
    assert_eq!(object["metadata"]["labels"]["tier"], "front");
    assert_eq!(object["metadata"]["annotations"]["note"], "hello");
    let selected = h.ok(&["get", "cm", "-l", "tier=front", "-o", "name"]);
    assert_eq!(selected.trim(), "configmap/demo");
    h.ok(&["delete", "configmap", "demo"]);
    let missing = h.fails(&["get", "configmap", "demo"]);
    assert!(missing.contains(r#"configmaps "demo" not found"#), "{missing}");
}

#[test]
fn a_crd_applied_at_run_time_is_served_and_waitable() {
    let h = Harness::start();
    h.apply(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, shortNames: [wd]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    additionalPrinterColumns:
    - {name: Size, type: integer, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer}
          status:
            type: object
            properties:
              conditions:
                type: array
                items:
                  type: object
                  properties:
                    type: {type: string}
                    status: {type: string}
",
    );
    h.ok(&["wait", "--for=condition=established", "crd/widgets.example.com", "--timeout=10s"]);
    // kubectl's default fieldValidation=Strict refuses unknown fields; Ignore prunes them.
    let created = h.kubectl_with_input(
        &["create", "--validate=false", "-f", "-"],
        Some("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n  extra: dropped\n"),
    );
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let table = h.ok(&["get", "wd"]);
    assert!(table.contains("SIZE") && table.contains("w1"), "{table}");
    let object: Value =
        serde_json::from_str(&h.ok(&["get", "widget", "w1", "-o", "json"])).unwrap();
    assert_eq!(object["spec"], serde_json::json!({"size": 3}), "unknown fields are pruned");
    assert_eq!(object["metadata"]["generation"], 1);

    // A client sets the status condition; kubectl wait sees it.
    h.ok(&[
        "patch",
        "widget",
        "w1",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"conditions":[{"type":"Ready","status":"True"}]}}"#,
    ]);
    h.ok(&["wait", "--for=condition=Ready", "widget/w1", "--timeout=10s"]);

    let invalid = h.kubectl_with_input(
        &["apply", "-f", "-"],
        Some(
            "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  size: big\n",
        ),
    );
    assert!(!invalid.status.success());
    let message = String::from_utf8_lossy(&invalid.stderr);
    // kubectl words a 422 from its causes, as it does against a real API server.
    assert!(
        message.contains(
            r#"The Widget "w2" is invalid: spec.size: Invalid value: "string": spec.size in body must be of type integer: "string""#
        ),
        "{message}"
    );
}

#[test]
fn stale_updates_conflict() {
    let h = Harness::start();
    h.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cas\ndata:\n  a: \"1\"\n");
    let object: Value = serde_json::from_str(&h.ok(&["get", "cm", "cas", "-o", "json"])).unwrap();
    h.ok(&["patch", "cm", "cas", "--type", "merge", "-p", r#"{"data":{"a":"2"}}"#]);
    let stale = serde_json::to_string(&object).unwrap();
    let output = h.kubectl_with_input(&["replace", "-f", "-"], Some(&stale));
    assert!(!output.status.success());
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains(r#"Operation cannot be fulfilled on configmaps "cas": the object has been modified; please apply your changes to the latest version and try again"#),
        "{message}"
    );
    // Edit-style: read the current object, change it, replace it.
    let mut current: Value =
        serde_json::from_str(&h.ok(&["get", "cm", "cas", "-o", "json"])).unwrap();
    current["data"]["a"] = Value::from("3");
    let output = h.kubectl_with_input(&["replace", "-f", "-"], Some(&current.to_string()));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(h.ok(&["get", "cm", "cas", "-o", "jsonpath={.data.a}"]), "3");
}

#[test]
fn deleting_a_namespace_deletes_its_contents_first() {
    let h = Harness::start();
    h.apply(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: doomed\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: inside\n  namespace: doomed\n",
    );
    let described = h.ok(&["describe", "namespace", "doomed"]);
    assert!(described.contains("Status:       Active"), "{described}");
    // kubectl waits until the namespace is gone.
    h.ok(&["delete", "namespace", "doomed", "--timeout=20s"]);
    let missing = h.fails(&["get", "namespace", "doomed"]);
    assert!(missing.contains(r#"namespaces "doomed" not found"#), "{missing}");
    let creating = h.kubectl_with_input(
        &["apply", "-f", "-"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: late\n  namespace: doomed\n"),
    );
    assert!(!creating.status.success());
    assert!(String::from_utf8_lossy(&creating.stderr).contains(r#"namespaces "doomed" not found"#));
}

#[test]
fn imperative_creates_send_protobuf_and_work() {
    let h = Harness::start();
    // kubectl's generators send these built-in kinds as Kubernetes protobuf.
    h.ok(&["create", "namespace", "imperative"]);
    h.ok(&["create", "configmap", "settings", "-n", "imperative", "--from-literal=mode=strict"]);
    h.ok(&[
        "create",
        "secret",
        "generic",
        "creds",
        "-n",
        "imperative",
        "--from-literal=password=s3cret",
    ]);
    h.ok(&["create", "serviceaccount", "robot", "-n", "imperative"]);
    h.ok(&[
        "create",
        "role",
        "reader",
        "-n",
        "imperative",
        "--verb=get,list",
        "--resource=configmaps",
    ]);
    h.ok(&[
        "create",
        "rolebinding",
        "robot-reads",
        "-n",
        "imperative",
        "--role=reader",
        "--serviceaccount=imperative:robot",
    ]);
    assert_eq!(
        h.ok(&["get", "namespace", "imperative", "-o", "jsonpath={.metadata.labels}"]),
        r#"{"kubernetes.io/metadata.name":"imperative"}"#
    );
    assert_eq!(
        h.ok(&["get", "configmap", "settings", "-n", "imperative", "-o", "jsonpath={.data.mode}"]),
        "strict"
    );
    assert_eq!(
        h.ok(&["get", "secret", "creds", "-n", "imperative", "-o", "jsonpath={.data.password}"]),
        "czNjcmV0"
    );
    assert_eq!(
        h.ok(&[
            "get",
            "rolebinding",
            "robot-reads",
            "-n",
            "imperative",
            "-o",
            "jsonpath={.roleRef.name} {.subjects[0].kind} {.subjects[0].name}"
        ]),
        "reader ServiceAccount robot"
    );
}

#[test]
fn server_side_apply_creates_updates_and_records_the_manager() {
    let h = Harness::start();
    let manifest = |value: &str| {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: \"{value}\"\n"
        )
    };
    let created =
        h.kubectl_with_input(&["apply", "--server-side", "-f", "-"], Some(&manifest("1")));
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let updated =
        h.kubectl_with_input(&["apply", "--server-side", "-f", "-"], Some(&manifest("2")));
    assert!(updated.status.success(), "{}", String::from_utf8_lossy(&updated.stderr));
    let object: Value =
        serde_json::from_str(&h.ok(&["get", "cm", "ssa", "-o", "json", "--show-managed-fields"]))
            .unwrap();
    assert_eq!(object["data"]["a"], "2");
    let managers: Vec<&str> = object["metadata"]["managedFields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry["manager"].as_str())
        .collect();
    assert_eq!(managers, ["kubectl"], "{object}");
}

#[test]
fn server_dry_runs_of_every_write_answer_without_writing() {
    let h = Harness::start();
    let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry\ndata:\n  a: \"1\"\n";
    let dry = h.kubectl_with_input(&["apply", "--dry-run=server", "-f", "-"], Some(manifest));
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    assert_eq!(String::from_utf8_lossy(&dry.stdout), "configmap/dry created (server dry run)\n");
    h.fails(&["get", "cm", "dry"]);
    h.apply(manifest);
    let version = h.ok(&["get", "cm", "dry", "-o", "jsonpath={.metadata.resourceVersion}"]);

    // A dry-run apply of a change answers with the changed object and stores nothing.
    let changed = manifest.replace("\"1\"", "\"2\"");
    let preview = h.kubectl_with_input(
        &["apply", "--dry-run=server", "-o", "jsonpath={.data.a}", "-f", "-"],
        Some(&changed),
    );
    assert!(preview.status.success(), "{}", String::from_utf8_lossy(&preview.stderr));
    assert_eq!(String::from_utf8_lossy(&preview.stdout), "2");
    h.ok(&["label", "--dry-run=server", "cm", "dry", "tier=web"]);
    h.ok(&[
        "patch",
        "--dry-run=server",
        "cm",
        "dry",
        "--type=merge",
        "-p",
        r#"{"data":{"a":"3"}}"#,
    ]);
    let server_side = h.kubectl_with_input(
        &["apply", "--server-side", "--dry-run=server", "-f", "-"],
        Some(&changed),
    );
    assert!(server_side.status.success(), "{}", String::from_utf8_lossy(&server_side.stderr));
    let replaced = changed.replace("\"2\"", "\"4\"");
    let replace =
        h.kubectl_with_input(&["replace", "--dry-run=server", "-f", "-"], Some(&replaced));
    assert!(replace.status.success(), "{}", String::from_utf8_lossy(&replace.stderr));
    let delete = h.ok(&["delete", "--dry-run=server", "cm", "dry"]);
    assert_eq!(delete, "configmap \"dry\" deleted (server dry run)\n");

    assert_eq!(h.ok(&["get", "cm", "dry", "-o", "jsonpath={.data.a}"]), "1");
    assert_eq!(h.ok(&["get", "cm", "dry", "-o", "jsonpath={.metadata.labels}"]), "");
    assert_eq!(
        h.ok(&["get", "cm", "dry", "-o", "jsonpath={.metadata.resourceVersion}"]),
        version,
        "no dry run may write"
    );
}

#[test]
fn ocm_kinds_are_served_with_upstream_names_columns_defaults_and_validation() {
    let h = Harness::start();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../api/tests/fixtures/ocm");
    h.ok(&["create", "namespace", "team-a-policies"]);
    for file in [
        "policy-hub-templates-service-account.yaml",
        "placementbinding-restricted-overrides.yaml",
        "policyset-exclusions.yaml",
    ] {
        h.ok(&["apply", "-f", fixtures.join(file).to_str().unwrap()]);
    }
    // Upstream's short names and printer columns.
    let policies = h.ok(&["get", "plc", "-n", "team-a-policies"]);
    assert!(
        policies.contains("REMEDIATION ACTION") && policies.contains("copy-app-tls"),
        "{policies}"
    );
    assert!(h.ok(&["get", "pb", "-n", "team-a-policies"]).contains("enforce-on-prod"));
    assert!(h.ok(&["get", "plcset", "-n", "team-a-policies"]).contains("COMPLIANCE STATE"));
    let binding: Value = serde_json::from_str(&h.ok(&[
        "get",
        "placementbinding",
        "enforce-on-prod",
        "-n",
        "team-a-policies",
        "-o",
        "json",
    ]))
    .unwrap();
    assert_eq!(binding["subFilter"], "restricted");
    assert_eq!(binding["bindingOverrides"]["remediationAction"], "Enforce");

    // Only the matching kind and group pairs are valid placement references (oneOf).
    let refused = h.kubectl_with_input(
        &["apply", "-f", "-"],
        Some(
            "apiVersion: policy.open-cluster-management.io/v1
kind: PlacementBinding
metadata: {name: mixed, namespace: team-a-policies}
placementRef: {name: p, kind: Placement, apiGroup: apps.open-cluster-management.io}
subjects: [{name: copy-app-tls, kind: Policy, apiGroup: policy.open-cluster-management.io}]
",
        ),
    );
    assert!(!refused.status.success(), "a mismatched placementRef was accepted");
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("placementRef"), "{stderr}");

    // Upstream's defaults are applied.
    h.apply(
        "apiVersion: cluster.open-cluster-management.io/v1beta1
kind: Placement
metadata: {name: prod-clusters, namespace: team-a-policies}
spec:
  prioritizerPolicy:
    configurations: [{scoreCoordinate: {builtIn: Steady}}]
  spreadPolicy:
    spreadConstraints: [{topologyKey: region, topologyKeyType: Label}]
",
    );
    let placement: Value = serde_json::from_str(&h.ok(&[
        "get",
        "placement",
        "prod-clusters",
        "-n",
        "team-a-policies",
        "-o",
        "json",
    ]))
    .unwrap();
    let spec = &placement["spec"];
    assert_eq!((&spec["sortBy"], &spec["scoreRateLimit"]), (&"ClusterName".into(), &"1m".into()));
    let configuration = &spec["prioritizerPolicy"]["configurations"][0];
    assert_eq!(configuration["scoreCoordinate"]["type"], "BuiltIn");
    assert_eq!(configuration["weight"], 1);
    assert_eq!(spec["spreadPolicy"]["spreadConstraints"][0]["maxSkew"], 1);

    // Cluster-scoped kinds, with a Go zero time kept as null.
    // (`create` sends the object as written, the null included.)
    let created = h.kubectl_with_input(
        &["create", "-f", "-"],
        Some(
            "apiVersion: cluster.open-cluster-management.io/v1
kind: ManagedCluster
metadata: {name: edge-3}
spec:
  hubAcceptsClient: true
  taints: [{key: maintenance, effect: NoSelect, timeAdded: null}]
",
        ),
    );
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let clusters = h.ok(&["get", "mcl"]);
    assert!(clusters.contains("HUB ACCEPTED") && clusters.contains("edge-3"), "{clusters}");
    let cluster: Value =
        serde_json::from_str(&h.ok(&["get", "managedcluster", "edge-3", "-o", "json"])).unwrap();
    assert_eq!(cluster["spec"]["leaseDurationSeconds"], 60);
    let taint = cluster["spec"]["taints"][0].as_object().unwrap();
    assert_eq!(taint.get("timeAdded"), Some(&Value::Null), "{taint:?}");
    h.apply(
        "apiVersion: cluster.open-cluster-management.io/v1alpha1
kind: ClusterClaim
metadata: {name: id.k8s.io}
spec: {value: edge-3}
",
    );
    assert!(h.ok(&["get", "clusterclaims"]).contains("id.k8s.io"));
}
