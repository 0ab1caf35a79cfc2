//! The workload kinds the installation manifests use (apps/v1 Deployment, v1 Service,
//! policy/v1 PodDisruptionBudget): served, discoverable by their short names, stored with a
//! status subresource, and dry-run applied without being stored. Nothing acts on them.

mod support;

use serde_json::Value;
use support::Harness;

const WORKLOADS: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: example.com/web:1
        ports:
        - {name: https, containerPort: 9443}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {name: https, port: 443, targetPort: https}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
";

#[test]
fn deployments_services_and_disruption_budgets_are_served_by_their_short_names() {
    let h = Harness::start();
    let resources = h.ok(&["api-resources", "-o", "name"]);
    for name in ["deployments.apps", "services", "poddisruptionbudgets.policy"] {
        assert!(resources.lines().any(|l| l == name), "{name} missing from:\n{resources}");
    }
    let applied = h.apply(WORKLOADS);
    assert_eq!(
        applied,
        "deployment.apps/web created\nservice/web created\npoddisruptionbudget.policy/web created\n"
    );
    assert_eq!(
        h.ok(&["get", "deploy,svc,pdb", "-o", "name"]),
        "deployment.apps/web\nservice/web\npoddisruptionbudget.policy/web\n"
    );
    // Changes by merge patch and by server-side apply. (Client-side `kubectl apply` of an
    // existing object sends a strategic merge patch, which certgate-patch has no schema for
    // with these kinds yet: 415, as for custom resources.)
    h.ok(&["patch", "deploy", "web", "--type=merge", "-p", r#"{"spec":{"replicas":3}}"#]);
    assert_eq!(h.ok(&["get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"]), "3");
    let output = h.kubectl_with_input(
        &["apply", "--server-side", "--force-conflicts", "-f", "-"],
        Some(&WORKLOADS.replace("minAvailable: 1", "minAvailable: 2")),
    );
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(h.ok(&["get", "pdb", "web", "-o", "jsonpath={.spec.minAvailable}"]), "2");
}

#[test]
fn status_is_a_subresource_of_each() {
    let h = Harness::start();
    h.apply(WORKLOADS);
    for (resource, status) in [
        ("deployment", r#"{"status":{"replicas":2,"readyReplicas":2}}"#),
        ("service", r#"{"status":{"loadBalancer":{}}}"#),
        ("pdb", r#"{"status":{"currentHealthy":2,"desiredHealthy":1}}"#),
    ] {
        h.ok(&["patch", resource, "web", "--subresource=status", "--type=merge", "-p", status]);
        // A write to the object keeps the stored status.
        h.ok(&["label", resource, "web", "tier=front"]);
        let object: Value =
            serde_json::from_str(&h.ok(&["get", resource, "web", "-o", "json"])).unwrap();
        let expected: Value = serde_json::from_str(status).unwrap();
        assert_eq!(object["status"], expected["status"], "{resource}");
        assert_eq!(object["metadata"]["labels"]["tier"], "front", "{resource}");
    }
}

#[test]
fn a_server_dry_run_of_workloads_stores_nothing() {
    let h = Harness::start();
    let output = h.kubectl_with_input(&["apply", "--dry-run=server", "-f", "-"], Some(WORKLOADS));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let out = String::from_utf8(output.stdout).unwrap();
    assert!(out.contains("deployment.apps/web created (server dry run)"), "{out}");
    let listed = h.ok(&["get", "deploy,svc,pdb", "-o", "name"]);
    assert_eq!(listed, "", "{listed}");
}
