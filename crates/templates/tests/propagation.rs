//! Placement decisions, root status and the replicated-policy plan, against the behaviour of
//! governance-policy-propagator's `common` package and replicated-policy reconcile.

use std::sync::Arc;

use certgate_api::ocm::{PlacementBinding, PlacementDecision, PolicySet};
use certgate_templates::propagation::{
    ReplicaPlan, Snapshot, WritePlan, cluster_statuses, plan_replica, plan_write, root_compliance,
    root_decisions, single_cluster,
};
use serde_json::{Value, json};

#[derive(Default)]
struct Objects {
    bindings: Vec<Arc<PlacementBinding>>,
    sets: Vec<Arc<PolicySet>>,
    placements: Vec<(String, String)>,
    decisions: Vec<Arc<PlacementDecision>>,
}

fn meta(object: &Value, field: &str) -> String {
    object["metadata"][field].as_str().unwrap_or_default().to_owned()
}

impl Objects {
    fn binding(mut self, value: Value) -> Self {
        self.bindings.push(Arc::new(serde_json::from_value(value).expect("binding")));
        self
    }

    fn set(mut self, value: Value) -> Self {
        self.sets.push(Arc::new(serde_json::from_value(value).expect("policy set")));
        self
    }

    /// A Placement `ns/name` and one PlacementDecision listing `clusters`.
    fn placement(mut self, ns: &str, name: &str, clusters: &[&str]) -> Self {
        self.placements.push((ns.to_owned(), name.to_owned()));
        let decisions: Vec<Value> =
            clusters.iter().map(|c| json!({"clusterName": c, "reason": ""})).collect();
        let decision = json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "PlacementDecision",
            "metadata": {
                "name": format!("{name}-decision-1"), "namespace": ns,
                "labels": {"cluster.open-cluster-management.io/placement": name}
            },
            "status": {"decisions": decisions}
        });
        self.decisions.push(Arc::new(serde_json::from_value(decision).expect("decision")));
        self
    }
}

impl Snapshot for Objects {
    fn bindings(&self, namespace: &str) -> Vec<Arc<PlacementBinding>> {
        let mut found: Vec<_> = self
            .bindings
            .iter()
            .filter(|b| b.metadata.namespace.as_deref() == Some(namespace))
            .cloned()
            .collect();
        found.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        found
    }

    fn policy_set(&self, namespace: &str, name: &str) -> Option<Arc<PolicySet>> {
        self.sets
            .iter()
            .find(|s| {
                s.metadata.namespace.as_deref() == Some(namespace)
                    && s.metadata.name.as_deref() == Some(name)
            })
            .cloned()
    }

    fn placement_exists(&self, namespace: &str, name: &str) -> bool {
        self.placements.iter().any(|(ns, n)| ns == namespace && n == name)
    }

    fn placement_decisions(&self, namespace: &str, placement: &str) -> Vec<Arc<PlacementDecision>> {
        self.decisions
            .iter()
            .filter(|d| {
                let value = serde_json::to_value(&***d).unwrap_or_default();
                meta(&value, "namespace") == namespace
                    && value["metadata"]["labels"]["cluster.open-cluster-management.io/placement"]
                        == placement
            })
            .cloned()
            .collect()
    }

    fn placement_rule(&self, _: &str, _: &str) -> Option<Vec<String>> {
        None
    }
}

fn binding(name: &str, placement: &str, subjects: Value) -> Value {
    json!({
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "PlacementBinding",
        "metadata": {"name": name, "namespace": "policies"},
        "placementRef": {
            "apiGroup": "cluster.open-cluster-management.io", "kind": "Placement", "name": placement
        },
        "subjects": subjects
    })
}

fn policy_subject(name: &str) -> Value {
    json!({"apiGroup": "policy.open-cluster-management.io", "kind": "Policy", "name": name})
}

fn set_subject(name: &str) -> Value {
    json!({"apiGroup": "policy.open-cluster-management.io", "kind": "PolicySet", "name": name})
}

fn clusters(decisions: &certgate_templates::propagation::DecisionSet) -> Vec<(&str, Vec<&str>)> {
    decisions.iter().map(|(c, b)| (c.as_str(), b.iter().map(String::as_str).collect())).collect()
}

fn placements_json(objects: &Objects, policy: &str, disabled: bool) -> Value {
    serde_json::to_value(root_decisions("policies", policy, disabled, objects).placements)
        .expect("placements")
}

#[test]
fn a_binding_places_a_policy_on_its_placements_clusters() {
    let objects = Objects::default()
        .placement("policies", "pl", &["cluster2", "cluster1"])
        .binding(binding("pb", "pl", json!([policy_subject("p")])));
    let decided = root_decisions("policies", "p", false, &objects);
    assert_eq!(clusters(&decided.decisions), [("cluster1", vec!["pb"]), ("cluster2", vec!["pb"])]);
    assert_eq!(
        placements_json(&objects, "p", false),
        json!([{"placementBinding": "pb", "placement": "pl"}])
    );
    assert_eq!(single_cluster("policies", "p", "cluster1", &objects), Some(Default::default()));
    assert_eq!(single_cluster("policies", "p", "cluster3", &objects), None);
    // Another policy of the namespace is not placed.
    assert!(root_decisions("policies", "other", false, &objects).decisions.is_empty());
}

#[test]
fn a_missing_placement_is_listed_without_its_name_and_decides_nothing() {
    let objects = Objects::default().binding(binding("pb", "gone", json!([policy_subject("p")])));
    let decided = root_decisions("policies", "p", false, &objects);
    assert!(decided.decisions.is_empty());
    assert_eq!(placements_json(&objects, "p", false), json!([{"placementBinding": "pb"}]));
}

#[test]
fn a_placement_ref_with_the_wrong_group_is_ignored() {
    let mut bad = binding("pb", "pl", json!([policy_subject("p")]));
    bad["placementRef"]["apiGroup"] = json!("apps.open-cluster-management.io");
    let objects = Objects::default().placement("policies", "pl", &["c1"]).binding(bad);
    assert_eq!(root_decisions("policies", "p", false, &objects), Default::default());
    assert_eq!(single_cluster("policies", "p", "c1", &objects), None);
}

#[test]
fn policy_sets_place_their_members_except_on_excluded_clusters() {
    let objects = Objects::default()
        .placement("policies", "pl", &["c1", "c2"])
        .binding(binding("pb", "pl", json!([set_subject("set"), set_subject("set")])))
        .set(json!({
            "apiVersion": "policy.open-cluster-management.io/v1beta1", "kind": "PolicySet",
            "metadata": {"name": "set", "namespace": "policies"},
            "spec": {
                "policies": ["p", "q"],
                "exclusions": [{"policyName": "p", "clusterNames": ["c2", "c2"]}]
            }
        }));
    assert_eq!(
        placements_json(&objects, "p", false),
        json!([{"placementBinding": "pb", "placement": "pl", "policySet": "set",
                "exclusions": [{"clusterName": "c2"}]}])
    );
    // The root's decisions keep the excluded cluster (as upstream's status does) ...
    let decided = root_decisions("policies", "p", false, &objects);
    assert_eq!(clusters(&decided.decisions), [("c1", vec!["pb"]), ("c2", vec!["pb"])]);
    // ... but its replica is refused.
    assert!(single_cluster("policies", "p", "c1", &objects).is_some());
    assert_eq!(single_cluster("policies", "p", "c2", &objects), None);
    assert!(single_cluster("policies", "q", "c2", &objects).is_some());
    assert_eq!(single_cluster("policies", "not-a-member", "c1", &objects), None);
}

#[test]
fn restricted_bindings_only_override_clusters_already_selected() {
    let mut restricted = binding("a-restricted", "pl-all", json!([policy_subject("p")]));
    restricted["subFilter"] = json!("restricted");
    restricted["bindingOverrides"] = json!({"remediationAction": "Enforce"});
    let objects = Objects::default()
        .placement("policies", "pl-all", &["c1", "c2"])
        .placement("policies", "pl-one", &["c1"])
        .binding(restricted)
        .binding(binding("b-plain", "pl-one", json!([policy_subject("p")])));
    let c1 = single_cluster("policies", "p", "c1", &objects).expect("selected");
    assert_eq!(c1.remediation_override.as_deref(), Some("Enforce"));
    // c2 is only in the restricted binding: no replica.
    assert_eq!(single_cluster("policies", "p", "c2", &objects), None);
    let decided = root_decisions("policies", "p", false, &objects);
    assert_eq!(
        clusters(&decided.decisions),
        [("c1", vec!["a-restricted", "b-plain"]), ("c2", vec!["a-restricted"])]
    );
    assert_eq!(
        placements_json(&objects, "p", false),
        json!([{"placementBinding": "a-restricted", "placement": "pl-all"},
               {"placementBinding": "b-plain", "placement": "pl-one"}])
    );
}

#[test]
fn a_restricted_binding_without_overlap_adds_no_placement_entry() {
    let mut restricted = binding("r", "pl", json!([policy_subject("p")]));
    restricted["subFilter"] = json!("restricted");
    let objects = Objects::default().placement("policies", "pl", &["c1"]).binding(restricted);
    let decided = root_decisions("policies", "p", false, &objects);
    assert!(decided.placements.is_empty());
    assert_eq!(clusters(&decided.decisions), [("c1", vec!["r"])]);
    assert_eq!(single_cluster("policies", "p", "c1", &objects), None);
}

#[test]
fn the_first_enforcing_binding_wins_and_inform_overrides_are_ignored() {
    let mut inform = binding("a", "pl", json!([policy_subject("p")]));
    inform["bindingOverrides"] = json!({"remediationAction": "inform"});
    let mut enforce = binding("b", "pl", json!([policy_subject("p")]));
    enforce["bindingOverrides"] = json!({"remediationAction": "enforce"});
    let objects =
        Objects::default().placement("policies", "pl", &["c1"]).binding(inform).binding(enforce);
    let decision = single_cluster("policies", "p", "c1", &objects).expect("selected");
    assert_eq!(decision.remediation_override.as_deref(), Some("enforce"));
}

#[test]
fn a_disabled_policy_lists_its_placements_but_no_clusters() {
    let objects = Objects::default().placement("policies", "pl", &["c1"]).binding(binding(
        "pb",
        "pl",
        json!([policy_subject("p")]),
    ));
    let decided = root_decisions("policies", "p", true, &objects);
    assert!(decided.decisions.is_empty());
    assert_eq!(
        placements_json(&objects, "p", true),
        json!([{"placementBinding": "pb", "placement": "pl"}])
    );
    assert!(cluster_statuses(true, &decided.placements, &decided.decisions, &|_| None).is_empty());
}

#[test]
fn cluster_statuses_carry_replica_compliance_and_remaining_bindings() {
    let objects = Objects::default()
        .placement("policies", "pl", &["c1", "c2"])
        .binding(binding("direct", "pl", json!([policy_subject("p")])))
        .binding(binding("via-set", "pl", json!([set_subject("set")])))
        .set(json!({
            "apiVersion": "policy.open-cluster-management.io/v1beta1", "kind": "PolicySet",
            "metadata": {"name": "set", "namespace": "policies"},
            "spec": {"policies": ["p"], "exclusions": [{"policyName": "p", "clusterNames": ["c2"]}]}
        }));
    let decided = root_decisions("policies", "p", false, &objects);
    let compliance = |cluster: &str| (cluster == "c1").then(|| "Compliant".to_owned());
    let statuses = cluster_statuses(false, &decided.placements, &decided.decisions, &compliance);
    assert_eq!(
        serde_json::to_value(&statuses).expect("json"),
        json!([
            {"compliant": "Compliant", "clustername": "c1", "clusternamespace": "c1"},
            {"clustername": "c2", "clusternamespace": "c2",
             "remainingBindings": [{"placementBinding": "direct"}]}
        ])
    );
    // The direct binding still places it on c2.
    assert!(single_cluster("policies", "p", "c2", &objects).is_some());
}

#[test]
fn root_compliance_follows_upstreams_precedence() {
    let statuses = |states: &[Option<&str>]| -> Vec<certgate_api::ocm::CompliancePerClusterStatus> {
        states
            .iter()
            .map(|s| {
                serde_json::from_value(json!({"compliant": s, "clustername": "c"})).expect("status")
            })
            .collect()
    };
    let cases: &[(&[Option<&str>], Option<&str>)] = &[
        (&[], None),
        (&[Some("Compliant"), Some("Compliant")], Some("Compliant")),
        (&[Some("Compliant"), None], None),
        (&[None, Some("Pending")], Some("Pending")),
        (&[Some("Pending"), Some("NonCompliant")], Some("NonCompliant")),
    ];
    for (states, want) in cases {
        assert_eq!(root_compliance(&statuses(states)).as_deref(), *want, "{states:?}");
    }
}

fn root(disabled: bool) -> Value {
    json!({
        "apiVersion": "policy.open-cluster-management.io/v1", "kind": "Policy",
        "metadata": {"name": "p.x", "namespace": "policies"},
        "spec": {"disabled": disabled, "policy-templates": []}
    })
}

#[test]
fn the_replica_plan_follows_upstreams_order() {
    let objects = Objects::default().placement("policies", "pl", &["c1"]).binding(binding(
        "pb",
        "pl",
        json!([policy_subject("p.x")]),
    ));
    let yes = || true;
    let no = || false;
    let plan = |name: &str, exists: bool, root: Option<&Value>, cluster_ns: &dyn Fn() -> bool| {
        plan_replica("c1", name, exists, root, cluster_ns, &objects)
    };
    assert!(matches!(plan("nodot", true, None, &yes), ReplicaPlan::Delete(_)));
    assert_eq!(plan("nodot", false, None, &yes), ReplicaPlan::Nothing);
    assert!(matches!(plan("policies.p.x", true, None, &yes), ReplicaPlan::Delete(_)));
    assert!(matches!(plan("policies.p.x", true, None, &no), ReplicaPlan::Skip(_)));
    assert_eq!(plan("policies.p.x", false, None, &yes), ReplicaPlan::Nothing);
    assert!(matches!(plan("policies.p.x", true, Some(&root(true)), &no), ReplicaPlan::Delete(_)));
    match plan("policies.p.x", false, Some(&root(false)), &yes) {
        ReplicaPlan::Replicate { root_namespace, root_name, .. } => {
            assert_eq!((root_namespace.as_str(), root_name.as_str()), ("policies", "p.x"));
        }
        other => panic!("expected a replica, got {other:?}"),
    }
    // Not selected on c2: deleted in a cluster namespace, left alone elsewhere.
    let c2 = |exists, cluster_ns: &dyn Fn() -> bool| {
        plan_replica("c2", "policies.p.x", exists, Some(&root(false)), cluster_ns, &objects)
    };
    assert!(matches!(c2(true, &yes), ReplicaPlan::Delete(_)));
    assert!(matches!(c2(true, &no), ReplicaPlan::Skip(_)));
    assert_eq!(c2(false, &yes), ReplicaPlan::Nothing);
}

#[test]
fn writes_happen_only_for_semantic_differences() {
    let desired = json!({
        "apiVersion": "policy.open-cluster-management.io/v1", "kind": "Policy",
        "metadata": {"name": "policies.p", "namespace": "c1", "labels": {"a": "b"},
                     "annotations": {"x": "y"}},
        "spec": {"disabled": false, "remediationAction": "inform",
                 "policy-templates": [{"objectDefinition": {"kind": "K", "spec": {"n": []}}}]}
    });
    assert_eq!(plan_write(&desired, None), WritePlan::Create(desired.clone()));
    let mut existing = desired.clone();
    existing["metadata"]["resourceVersion"] = json!("7");
    existing["status"] = json!({"compliant": "Compliant"});
    existing["spec"].as_object_mut().expect("spec").remove("disabled");
    assert_eq!(plan_write(&desired, Some(&existing)), WritePlan::Unchanged);
    // Inside a template body nothing is normalized: `[]` differs from a missing field.
    let mut body = existing.clone();
    body["spec"]["policy-templates"][0]["objectDefinition"]["spec"] = json!({});
    assert!(matches!(plan_write(&desired, Some(&body)), WritePlan::Update(_)));
    let mut relabelled = existing.clone();
    relabelled["metadata"]["labels"] = json!({"a": "c"});
    let WritePlan::Update(updated) = plan_write(&desired, Some(&relabelled)) else {
        panic!("labels differ")
    };
    assert_eq!(updated["metadata"]["labels"], json!({"a": "b"}));
    assert_eq!(updated["metadata"]["resourceVersion"], "7");
    assert_eq!(updated["status"], json!({"compliant": "Compliant"}));
}
