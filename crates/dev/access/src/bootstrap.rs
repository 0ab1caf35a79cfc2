//! The RBAC objects kube-apiserver 1.33 creates at start (its `bootstrappolicy`), limited to
//! those that matter to the sandbox: the superuser, discovery and self-review roles with
//! their bindings, and the user-facing `admin`, `edit` and `view` roles.

use serde_json::{Map, Value, json};

const RBAC_API_VERSION: &str = "rbac.authorization.k8s.io/v1";
const RBAC_GROUP: &str = "rbac.authorization.k8s.io";
const TO_ADMIN: &str = "rbac.authorization.k8s.io/aggregate-to-admin";
const TO_EDIT: &str = "rbac.authorization.k8s.io/aggregate-to-edit";
const TO_VIEW: &str = "rbac.authorization.k8s.io/aggregate-to-view";

const READ: &[&str] = &["get", "list", "watch"];
const WRITE: &[&str] = &["create", "delete", "deletecollection", "patch", "update"];
const READ_WRITE: &[&str] =
    &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/// The ClusterRoles, then the ClusterRoleBindings, as `rbac.authorization.k8s.io/v1` objects.
/// Rule lists are sorted as upstream's rule builder sorts them; the aggregated roles carry
/// the rules the aggregation controller would write into them.
pub fn bootstrap_policy() -> Vec<Value> {
    let view_rules = aggregate_to_view();
    let edit_rules = union(&[aggregate_to_edit(), view_rules.clone()]);
    let admin_rules = union(&[edit_rules.clone(), aggregate_to_admin()]);
    vec![
        cluster_role(
            "cluster-admin",
            &[],
            vec![rule(&["*"], &["*"], &["*"]), json!({ "verbs": ["*"], "nonResourceURLs": ["*"] })],
        ),
        cluster_role(
            "system:discovery",
            &[],
            vec![urls(&[
                "/api",
                "/api/*",
                "/apis",
                "/apis/*",
                "/healthz",
                "/livez",
                "/openapi",
                "/openapi/*",
                "/readyz",
                "/version",
                "/version/",
            ])],
        ),
        cluster_role(
            "system:basic-user",
            &[],
            vec![
                rule(
                    &["create"],
                    &["authorization.k8s.io"],
                    &["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
                ),
                rule(&["create"], &["authentication.k8s.io"], &["selfsubjectreviews"]),
            ],
        ),
        cluster_role(
            "system:public-info-viewer",
            &[],
            vec![urls(&["/healthz", "/livez", "/readyz", "/version", "/version/"])],
        ),
        aggregated("admin", &[], TO_ADMIN, admin_rules),
        aggregated("edit", &[TO_ADMIN], TO_EDIT, edit_rules),
        aggregated("view", &[TO_EDIT], TO_VIEW, view_rules),
        cluster_role("system:aggregate-to-admin", &[TO_ADMIN], aggregate_to_admin()),
        cluster_role("system:aggregate-to-edit", &[TO_EDIT], aggregate_to_edit()),
        cluster_role("system:aggregate-to-view", &[TO_VIEW], aggregate_to_view()),
        binding("cluster-admin", &["system:masters"]),
        binding("system:basic-user", &["system:authenticated"]),
        binding("system:discovery", &["system:authenticated"]),
        binding("system:public-info-viewer", &["system:authenticated", "system:unauthenticated"]),
    ]
}

/// Namespace administration beyond `edit`: access reviews and granting roles.
fn aggregate_to_admin() -> Vec<Value> {
    vec![
        rule(&["create"], &["authorization.k8s.io"], &["localsubjectaccessreviews"]),
        rule(READ_WRITE, &[RBAC_GROUP], &["rolebindings", "roles"]),
    ]
}

/// Writing workloads and their configuration, reading secrets; no status, quota or limits.
fn aggregate_to_edit() -> Vec<Value> {
    vec![
        rule(
            READ,
            &[""],
            &[
                "pods/attach",
                "pods/exec",
                "pods/portforward",
                "pods/proxy",
                "secrets",
                "services/proxy",
            ],
        ),
        rule(&["impersonate"], &[""], &["serviceaccounts"]),
        rule(WRITE, &[""], &["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
        rule(&["create"], &[""], &["pods/eviction"]),
        rule(
            WRITE,
            &[""],
            &[
                "configmaps",
                "events",
                "persistentvolumeclaims",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "secrets",
                "serviceaccounts",
                "services",
                "services/proxy",
            ],
        ),
        rule(&["create"], &[""], &["serviceaccounts/token"]),
        rule(
            WRITE,
            &["apps"],
            &[
                "daemonsets",
                "deployments",
                "deployments/rollback",
                "deployments/scale",
                "replicasets",
                "replicasets/scale",
                "statefulsets",
                "statefulsets/scale",
            ],
        ),
        rule(WRITE, &["autoscaling"], &["horizontalpodautoscalers"]),
        rule(WRITE, &["batch"], &["cronjobs", "jobs"]),
        rule(
            WRITE,
            &["extensions"],
            &[
                "daemonsets",
                "deployments",
                "deployments/rollback",
                "deployments/scale",
                "ingresses",
                "networkpolicies",
                "replicasets",
                "replicasets/scale",
                "replicationcontrollers/scale",
            ],
        ),
        rule(WRITE, &["policy"], &["poddisruptionbudgets"]),
        rule(WRITE, &["networking.k8s.io"], &["ingresses", "networkpolicies"]),
    ]
}

/// Reading non-escalating resources; not secrets.
fn aggregate_to_view() -> Vec<Value> {
    vec![
        rule(
            READ,
            &[""],
            &[
                "configmaps",
                "endpoints",
                "persistentvolumeclaims",
                "persistentvolumeclaims/status",
                "pods",
                "replicationcontrollers",
                "replicationcontrollers/scale",
                "serviceaccounts",
                "services",
                "services/status",
            ],
        ),
        rule(
            READ,
            &[""],
            &[
                "bindings",
                "events",
                "limitranges",
                "namespaces/status",
                "pods/log",
                "pods/status",
                "replicationcontrollers/status",
                "resourcequotas",
                "resourcequotas/status",
            ],
        ),
        // Reading namespaces at namespace scope means reading *this* namespace.
        rule(READ, &[""], &["namespaces"]),
        rule(READ, &["discovery.k8s.io"], &["endpointslices"]),
        rule(
            READ,
            &["apps"],
            &[
                "controllerrevisions",
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "statefulsets",
                "statefulsets/scale",
                "statefulsets/status",
            ],
        ),
        rule(
            READ,
            &["autoscaling"],
            &["horizontalpodautoscalers", "horizontalpodautoscalers/status"],
        ),
        rule(READ, &["batch"], &["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
        rule(
            READ,
            &["extensions"],
            &[
                "daemonsets",
                "daemonsets/status",
                "deployments",
                "deployments/scale",
                "deployments/status",
                "ingresses",
                "ingresses/status",
                "networkpolicies",
                "replicasets",
                "replicasets/scale",
                "replicasets/status",
                "replicationcontrollers/scale",
            ],
        ),
        rule(READ, &["policy"], &["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(READ, &["networking.k8s.io"], &["ingresses", "ingresses/status", "networkpolicies"]),
    ]
}

fn rule(verbs: &[&str], groups: &[&str], resources: &[&str]) -> Value {
    json!({ "verbs": verbs, "apiGroups": groups, "resources": resources })
}

fn urls(paths: &[&str]) -> Value {
    json!({ "verbs": ["get"], "nonResourceURLs": paths })
}

/// The rule lists in order, each rule once: what the aggregation controller writes.
fn union(lists: &[Vec<Value>]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for rule in lists.iter().flatten() {
        if !out.contains(rule) {
            out.push(rule.clone());
        }
    }
    out
}

/// Labels `kubernetes.io/bootstrapping: rbac-defaults` (plus `extra_labels` set to `"true"`)
/// and the auto-update annotation, on every bootstrap object.
fn metadata(name: &str, extra_labels: &[&str]) -> Value {
    let mut labels = Map::new();
    labels.insert("kubernetes.io/bootstrapping".into(), "rbac-defaults".into());
    for label in extra_labels {
        labels.insert((*label).into(), "true".into());
    }
    json!({
        "name": name,
        "labels": Value::Object(labels),
        "annotations": { "rbac.authorization.kubernetes.io/autoupdate": "true" },
    })
}

fn cluster_role(name: &str, labels: &[&str], rules: Vec<Value>) -> Value {
    json!({
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRole",
        "metadata": metadata(name, labels),
        "rules": rules,
    })
}

fn aggregated(name: &str, labels: &[&str], selector_label: &str, rules: Vec<Value>) -> Value {
    json!({
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRole",
        "metadata": metadata(name, labels),
        "aggregationRule": { "clusterRoleSelectors": [{ "matchLabels": { selector_label: "true" } }] },
        "rules": rules,
    })
}

fn binding(role: &str, groups: &[&str]) -> Value {
    let subjects: Vec<Value> = groups
        .iter()
        .map(|group| json!({ "kind": "Group", "apiGroup": RBAC_GROUP, "name": group }))
        .collect();
    json!({
        "apiVersion": RBAC_API_VERSION,
        "kind": "ClusterRoleBinding",
        "metadata": metadata(role, &[]),
        "roleRef": { "apiGroup": RBAC_GROUP, "kind": "ClusterRole", "name": role },
        "subjects": subjects,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
        objects
            .iter()
            .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("{kind} {name} is bootstrapped"))
    }

    #[test]
    fn objects_carry_upstream_metadata() {
        let objects = bootstrap_policy();
        for object in &objects {
            assert_eq!(
                object["metadata"]["labels"]["kubernetes.io/bootstrapping"],
                "rbac-defaults"
            );
            assert_eq!(
                object["metadata"]["annotations"]["rbac.authorization.kubernetes.io/autoupdate"],
                "true"
            );
        }
        let edit = named(&objects, "ClusterRole", "edit");
        assert_eq!(edit["metadata"]["labels"][TO_ADMIN], "true");
        assert_eq!(
            edit["aggregationRule"]["clusterRoleSelectors"][0]["matchLabels"][TO_EDIT],
            "true"
        );
        let public = named(&objects, "ClusterRoleBinding", "system:public-info-viewer");
        assert_eq!(
            public["subjects"],
            json!([
                {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:authenticated"},
                {"kind": "Group", "apiGroup": "rbac.authorization.k8s.io", "name": "system:unauthenticated"},
            ])
        );
    }

    #[test]
    fn rule_lists_are_sorted_like_the_upstream_builder() {
        for object in bootstrap_policy() {
            for rule in object["rules"].as_array().into_iter().flatten() {
                for field in ["verbs", "apiGroups", "resources", "nonResourceURLs"] {
                    let Some(items) = rule[field].as_array() else { continue };
                    let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
                    let mut sorted = texts.clone();
                    sorted.sort_unstable();
                    assert_eq!(texts, sorted, "{} {field}", object["metadata"]["name"]);
                }
            }
        }
    }

    #[test]
    fn aggregated_rules_are_the_union_in_name_order() {
        let objects = bootstrap_policy();
        let rules = |name: &str| {
            named(&objects, "ClusterRole", name)["rules"].as_array().cloned().unwrap_or_default()
        };
        assert_eq!(rules("view"), aggregate_to_view());
        assert_eq!(rules("edit").len(), aggregate_to_edit().len() + aggregate_to_view().len());
        assert_eq!(rules("edit").first(), aggregate_to_edit().first());
        assert_eq!(rules("admin").len(), rules("edit").len() + aggregate_to_admin().len());
        assert_eq!(rules("admin").last(), aggregate_to_admin().last());
    }
}
