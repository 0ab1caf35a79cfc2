use std::fmt::Debug;

use kube::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use super::*;

/// What `kube::Api<K>` and a reflector `Store<K>` ask of a type.
fn usable_with_kube<K>() -> (String, String)
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
    K: Send + Sync + 'static,
{
    (K::api_version(&()).into_owned(), K::url_path(&(), Some("ns")))
}

#[test]
fn kinds_without_spec_are_kube_resources() {
    assert_eq!(
        usable_with_kube::<PlacementBinding>(),
        (
            "policy.open-cluster-management.io/v1".to_owned(),
            "/apis/policy.open-cluster-management.io/v1/namespaces/ns/placementbindings".to_owned()
        )
    );
    assert_eq!(
        usable_with_kube::<PlacementDecision>(),
        (
            "cluster.open-cluster-management.io/v1beta1".to_owned(),
            "/apis/cluster.open-cluster-management.io/v1beta1/namespaces/ns/placementdecisions"
                .to_owned()
        )
    );
    assert_eq!(PlacementBinding::kind(&()), "PlacementBinding");
    assert_eq!(PlacementDecision::plural(&()), "placementdecisions");
    let mut binding = PlacementBinding::default();
    binding.meta_mut().name = Some("b".into());
    assert_eq!(binding.meta().name.as_deref(), Some("b"));
}

#[test]
fn derived_kinds_have_upstream_paths_and_scopes() {
    assert_eq!(
        usable_with_kube::<Policy>().1,
        "/apis/policy.open-cluster-management.io/v1/namespaces/ns/policies"
    );
    assert_eq!(
        usable_with_kube::<PolicySet>().1,
        "/apis/policy.open-cluster-management.io/v1beta1/namespaces/ns/policysets"
    );
    assert_eq!(
        usable_with_kube::<Placement>().1,
        "/apis/cluster.open-cluster-management.io/v1beta1/namespaces/ns/placements"
    );
    assert_eq!(
        ManagedCluster::url_path(&(), None),
        "/apis/cluster.open-cluster-management.io/v1/managedclusters"
    );
    assert_eq!(
        ClusterClaim::url_path(&(), None),
        "/apis/cluster.open-cluster-management.io/v1alpha1/clusterclaims"
    );
    fn cluster_scoped<K: Resource<Scope = k8s_openapi::ClusterResourceScope>>() {}
    fn namespaced<K: Resource<Scope = k8s_openapi::NamespaceResourceScope>>() {}
    cluster_scoped::<ManagedCluster>();
    cluster_scoped::<ClusterClaim>();
    namespaced::<Policy>();
    namespaced::<PlacementBinding>();
    namespaced::<PolicySet>();
    namespaced::<Placement>();
    namespaced::<PlacementDecision>();
}

#[test]
fn kinds_without_spec_encode_type_meta_and_only_what_is_set() {
    let binding = PlacementBinding {
        placement_ref: PlacementRef {
            name: "p".into(),
            kind: "Placement".into(),
            api_group: CLUSTER_GROUP.into(),
        },
        subjects: vec![Subject {
            name: "plc".into(),
            kind: "Policy".into(),
            api_group: POLICY_GROUP.into(),
        }],
        ..PlacementBinding::default()
    };
    let encoded = serde_json::to_value(&binding).unwrap();
    assert_eq!(
        encoded,
        json!({
            "apiVersion": "policy.open-cluster-management.io/v1",
            "kind": "PlacementBinding",
            "metadata": {},
            "placementRef": {"name": "p", "kind": "Placement", "apiGroup": CLUSTER_GROUP},
            "subjects": [{"name": "plc", "kind": "Policy", "apiGroup": POLICY_GROUP}],
        })
    );
    let keys: Vec<_> = encoded.as_object().unwrap().keys().take(2).cloned().collect();
    assert_eq!(keys, ["apiVersion", "kind"]);
    assert_eq!(serde_json::from_value::<PlacementBinding>(encoded).unwrap(), binding);

    let decision = PlacementDecision {
        status: Some(PlacementDecisionStatus {
            decisions: vec![ClusterDecision {
                cluster_name: "c1".into(),
                reason: String::new(),
                score: None,
            }],
        }),
        ..PlacementDecision::default()
    };
    assert_eq!(
        serde_json::to_value(&decision).unwrap(),
        json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta1",
            "kind": "PlacementDecision",
            "metadata": {},
            "status": {"decisions": [{"clusterName": "c1", "reason": ""}]},
        })
    );
}

#[test]
fn policy_encodes_upstream_names() {
    let policy = Policy::new(
        "p",
        PolicySpec {
            policy_templates: vec![PolicyTemplate {
                object_definition: json!({"kind": "ConfigurationPolicy"}),
                ..PolicyTemplate::default()
            }],
            hub_template_options: Some(HubTemplateOptions {
                service_account_name: Some("sa".into()),
            }),
            ..PolicySpec::default()
        },
    );
    assert_eq!(
        serde_json::to_value(&policy).unwrap()["spec"],
        json!({
            "disabled": false,
            "policy-templates": [{"objectDefinition": {"kind": "ConfigurationPolicy"}}],
            "hubTemplateOptions": {"serviceAccountName": "sa"},
        })
    );
    let status = CompliancePerClusterStatus {
        compliant: Some(compliance::COMPLIANT.into()),
        clustername: Some("c".into()),
        clusternamespace: Some("c".into()),
        remaining_bindings: None,
    };
    assert_eq!(
        serde_json::to_value(&status).unwrap(),
        json!({"compliant": "Compliant", "clustername": "c", "clusternamespace": "c"})
    );
}

#[test]
fn values_outside_upstream_enums_still_decode() {
    // A newer upstream may add values; the controller sees them instead of failing to decode.
    let policy: Policy = serde_json::from_value(json!({
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "Policy",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"disabled": false, "remediationAction": "InformOnly", "policy-templates": []},
        "status": {"compliant": "Terminating"},
    }))
    .unwrap();
    assert_eq!(policy.spec.remediation_action.as_deref(), Some("InformOnly"));
    assert_eq!(policy.status.unwrap().compliant.as_deref(), Some("Terminating"));
}

#[test]
fn required_fields_are_required_to_decode() {
    let missing_subjects = json!({
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "PlacementBinding",
        "metadata": {"name": "b"},
        "placementRef": {"name": "p", "kind": "Placement", "apiGroup": CLUSTER_GROUP},
    });
    let err = serde_json::from_value::<PlacementBinding>(missing_subjects).unwrap_err();
    assert_eq!(err.to_string(), "missing field `subjects`");
}
