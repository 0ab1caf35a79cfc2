//! The Open Cluster Management kinds (`certgate_api::ocm`) against upstream's CRDs in
//! `shared/upstream-crds/`: the generated CRDs have upstream's API surface and a schema that
//! accepts what upstream's accepts, and an object setting every property upstream's schema
//! declares decodes into the types and encodes back unchanged, as do hand-written samples.

#[path = "support/instances.rs"]
mod instances;
#[path = "support/schema_compat.rs"]
mod schema_compat;

use instances::maximal;
use schema_compat::{surface, upstream};

use certgate_api::crd;
use certgate_api::ocm::{
    ClusterClaim, ManagedCluster, Placement, PlacementBinding, PlacementDecision, Policy, PolicySet,
};
use certgate_api::validation;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps,
    JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use pretty_assertions::assert_eq;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ocm");

const POLICIES: &str = "policy.open-cluster-management.io_policies.yaml";
const PLACEMENT_BINDINGS: &str = "policy.open-cluster-management.io_placementbindings.yaml";
const POLICY_SETS: &str = "policy.open-cluster-management.io_policysets.yaml";
const PLACEMENTS: &str = "cluster.open-cluster-management.io_placements.v1beta1.yaml";
const PLACEMENT_DECISIONS: &str =
    "cluster.open-cluster-management.io_placementdecisions.v1beta1.yaml";
const MANAGED_CLUSTERS: &str = "cluster.open-cluster-management.io_managedclusters.yaml";
const CLUSTER_CLAIMS: &str = "cluster.open-cluster-management.io_clusterclaims.yaml";

fn ours(name: &str) -> CustomResourceDefinition {
    crd::ocm()
        .into_iter()
        .find(|c| c.metadata.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("crd::ocm() has no {name}"))
}

fn schema(version: &CustomResourceDefinitionVersion) -> JSONSchemaProps {
    version.schema.as_ref().and_then(|s| s.open_api_v3_schema.clone()).expect("a schema")
}

fn upstream_schema(file: &str) -> JSONSchemaProps {
    schema(&upstream(file).spec.versions[0])
}

fn property<'a>(schema: &'a mut JSONSchemaProps, name: &str) -> &'a mut JSONSchemaProps {
    schema.properties.as_mut().and_then(|p| p.get_mut(name)).unwrap_or_else(|| panic!("{name}"))
}

// ---- CRDs ----

fn assert_compatible(file: &str) {
    let upstream = upstream(file);
    let name = upstream.metadata.name.clone().unwrap_or_default();
    let ours = ours(&name);

    assert_eq!(ours.spec.group, upstream.spec.group);
    assert_eq!(ours.spec.names, upstream.spec.names);
    assert_eq!(ours.spec.scope, upstream.spec.scope);
    assert_eq!(ours.spec.versions.len(), upstream.spec.versions.len());
    for (ours_v, upstream_v) in ours.spec.versions.iter().zip(&upstream.spec.versions) {
        assert_eq!(surface(ours_v), surface(upstream_v));
        let (ours_schema, upstream_schema) = (schema(ours_v), schema(upstream_v));
        let problems = schema_compat::compare(&ours_schema, &upstream_schema);
        assert!(problems.is_empty(), "{name} {} schema:\n{}", ours_v.name, problems.join("\n"));
        let extra = schema_compat::extra_properties("", &ours_schema, &upstream_schema);
        assert!(extra.is_empty(), "{name} {}: properties upstream lacks: {extra:?}", ours_v.name);
        let problems = schema_compat::structural_problems(&ours_schema);
        assert!(
            problems.is_empty(),
            "{name} {} not structural:\n{}",
            ours_v.name,
            problems.join("\n")
        );
    }
}

#[test]
fn policy_crd_matches_upstream() {
    assert_compatible(POLICIES);
}

#[test]
fn placement_binding_crd_matches_upstream() {
    assert_compatible(PLACEMENT_BINDINGS);
}

#[test]
fn policy_set_crd_matches_upstream() {
    assert_compatible(POLICY_SETS);
}

#[test]
fn placement_crd_matches_upstream() {
    assert_compatible(PLACEMENTS);
}

#[test]
fn placement_decision_crd_matches_upstream() {
    assert_compatible(PLACEMENT_DECISIONS);
}

#[test]
fn managed_cluster_crd_matches_upstream() {
    assert_compatible(MANAGED_CLUSTERS);
}

#[test]
fn cluster_claim_crd_matches_upstream() {
    assert_compatible(CLUSTER_CLAIMS);
}

#[test]
fn ocm_lists_each_crd_once_in_a_stable_order_apart_from_all() {
    let names: Vec<_> = crd::ocm().into_iter().filter_map(|c| c.metadata.name).collect();
    assert_eq!(
        names,
        [
            "policies.policy.open-cluster-management.io",
            "placementbindings.policy.open-cluster-management.io",
            "policysets.policy.open-cluster-management.io",
            "placements.cluster.open-cluster-management.io",
            "placementdecisions.cluster.open-cluster-management.io",
            "managedclusters.cluster.open-cluster-management.io",
            "clusterclaims.cluster.open-cluster-management.io",
        ]
    );
    // certgate serves its own CRDs only; OCM clusters bring upstream's.
    assert!(crd::all().iter().all(|c| !c.spec.group.contains("open-cluster-management")));
}

#[test]
fn comparison_reports_junctor_and_nullable_divergence() {
    // The checker must catch a dropped `oneOf`, a changed `not` rule, a dropped `nullable` and
    // a dropped int-or-string `anyOf`, or the OCM tests above prove nothing about them.
    let binding = ours("placementbindings.policy.open-cluster-management.io");
    let mut binding_schema = schema(&binding.spec.versions[0]);
    property(&mut binding_schema, "placementRef").one_of = None;
    let problems = schema_compat::compare(&binding_schema, &upstream_schema(PLACEMENT_BINDINGS));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(".placementRef: oneOf: ours null, upstream [{"),
        "{problems:?}"
    );

    let policy = ours("policies.policy.open-cluster-management.io");
    let mut policy_schema = schema(&policy.spec.versions[0]);
    let dependencies = property(property(&mut policy_schema, "spec"), "dependencies");
    if let Some(JSONSchemaPropsOrArray::Schema(dependency)) = dependencies.items.as_mut() {
        let rule = dependency.one_of.as_mut().and_then(|rules| rules.get_mut(1));
        let kind = rule.and_then(|r| r.not.as_mut()).map(|not| property(not, "kind"));
        kind.expect("the not rule on kind").pattern = Some("^ConfigurationPolicy$".into());
    }
    let problems = schema_compat::compare(&policy_schema, &upstream_schema(POLICIES));
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with(".spec.dependencies[]: oneOf: ours [{"), "{problems:?}");

    let cluster = ours("managedclusters.cluster.open-cluster-management.io");
    let mut schema = schema(&cluster.spec.versions[0]);
    let capacity = property(property(&mut schema, "status"), "capacity");
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = capacity.additional_properties.as_mut() {
        values.any_of = None;
    }
    let taints = property(property(&mut schema, "spec"), "taints");
    if let Some(JSONSchemaPropsOrArray::Schema(taint)) = taints.items.as_mut() {
        property(taint, "timeAdded").nullable = None;
    }
    let mut problems = schema_compat::compare(&schema, &upstream_schema(MANAGED_CLUSTERS));
    problems.sort();
    assert_eq!(
        problems,
        [
            ".spec.taints[].timeAdded: nullable: ours None, upstream Some(true)",
            ".status.capacity{}: anyOf: ours null, upstream [{\"type\":\"integer\"},{\"type\":\"string\"}]",
        ]
    );
}

#[test]
fn structural_check_rejects_typed_junctors_and_undeclared_properties() {
    let mut schema = schema(&ours("policies.policy.open-cluster-management.io").spec.versions[0]);
    property(&mut schema, "spec").one_of = serde_json::from_value(json!([
        {"type": "object"},
        {"properties": {"undeclared": {"maxLength": 1}}},
    ]))
    .ok();
    let problems = schema_compat::structural_problems(&schema);
    assert_eq!(
        problems,
        [
            ".spec: oneOf: more than value validations",
            ".spec: oneOf: names property \"undeclared\" the schema does not declare",
        ]
    );
}

#[test]
fn policy_root_requires_metadata_and_spec_as_upstream() {
    let schema = schema(&ours("policies.policy.open-cluster-management.io").spec.versions[0]);
    assert_eq!(schema.required.as_deref(), Some(&["metadata".to_owned(), "spec".to_owned()][..]));
}

// ---- round trips ----

fn round_trip<T: Serialize + DeserializeOwned>(object: &Value) -> T {
    let typed: T = serde_json::from_value(object.clone())
        .unwrap_or_else(|e| panic!("does not decode: {e}\n{object:#}"));
    let back = serde_json::to_value(&typed).expect("encodes");
    assert_eq!(&back, object);
    typed
}

/// The maximal instance of `file`'s schema: valid for upstream's schema and ours alike, and
/// unchanged through `T`.
fn maximal_round_trip<T: Serialize + DeserializeOwned>(file: &str, kind: &str) -> (Value, T) {
    let crd = upstream(file);
    let upstream_schema = schema(&crd.spec.versions[0]);
    let mut instance = maximal(&serde_json::to_value(&upstream_schema).unwrap(), "", 0);
    instance["apiVersion"] = json!(format!("{}/{}", crd.spec.group, crd.spec.versions[0].name));
    instance["kind"] = json!(kind);
    let ours = schema(&ours(crd.metadata.name.as_deref().unwrap_or_default()).spec.versions[0]);
    let (mut by_upstream, mut by_ours) = (instance.clone(), instance.clone());
    let upstream_errors = validation::validate_against(&upstream_schema, &mut by_upstream);
    assert!(upstream_errors.is_empty(), "upstream rejects the instance: {upstream_errors:?}");
    assert_eq!(validation::validate_against(&ours, &mut by_ours), upstream_errors);
    assert_eq!(by_ours, by_upstream, "the schemas prune differently");
    let typed = round_trip(&instance);
    (instance, typed)
}

#[test]
fn policy_maximal_instance_round_trips() {
    let (_, policy) = maximal_round_trip::<Policy>(POLICIES, "Policy");
    let template = &policy.spec.policy_templates[0];
    assert_eq!(template.object_definition["nested"]["list"][1], "two");
    let status = policy.status.expect("status");
    let per_cluster = &status.status.expect("status.status")[0];
    assert_eq!(per_cluster.clustername.as_deref(), Some("x"));
    assert_eq!(per_cluster.compliant.as_deref(), Some("Compliant"));
    assert_eq!(
        status.details.expect("details")[0].template_meta.as_ref().unwrap()["kind"],
        "Anything"
    );
}

#[test]
fn placement_binding_maximal_instance_round_trips() {
    let (_, binding) =
        maximal_round_trip::<PlacementBinding>(PLACEMENT_BINDINGS, "PlacementBinding");
    assert_eq!(binding.placement_ref.kind, "PlacementRule");
    assert_eq!(binding.subjects[0].api_group, "policy.open-cluster-management.io");
    assert_eq!(binding.sub_filter.as_deref(), Some("restricted"));
}

#[test]
fn policy_set_maximal_instance_round_trips() {
    let (_, set) = maximal_round_trip::<PolicySet>(POLICY_SETS, "PolicySet");
    assert_eq!(set.spec.exclusions.expect("exclusions")[0].cluster_names, ["x"]);
}

#[test]
fn placement_maximal_instance_round_trips() {
    let (_, placement) = maximal_round_trip::<Placement>(PLACEMENTS, "Placement");
    let spec = placement.spec;
    assert_eq!(spec.sort_by.as_deref(), Some("ClusterName"));
    let configuration = &spec
        .prioritizer_policy
        .expect("prioritizerPolicy")
        .configurations
        .expect("configurations")[0];
    assert_eq!(configuration.weight, Some(-10));
    assert_eq!(configuration.score_coordinate.type_, "BuiltIn");
}

#[test]
fn placement_decision_maximal_instance_round_trips() {
    let (_, decision) =
        maximal_round_trip::<PlacementDecision>(PLACEMENT_DECISIONS, "PlacementDecision");
    let decisions = decision.status.expect("status").decisions;
    assert_eq!((decisions[0].cluster_name.as_str(), decisions[0].score), ("x", Some(1)));
}

#[test]
fn managed_cluster_maximal_instance_round_trips() {
    let (_, cluster) = maximal_round_trip::<ManagedCluster>(MANAGED_CLUSTERS, "ManagedCluster");
    let status = cluster.status.expect("status");
    assert_eq!(status.capacity.expect("capacity")["key"].0, "1");
    assert_eq!(status.conditions.expect("conditions")[0].type_, "x");
}

#[test]
fn cluster_claim_maximal_instance_round_trips() {
    let (_, claim) = maximal_round_trip::<ClusterClaim>(CLUSTER_CLAIMS, "ClusterClaim");
    assert_eq!(claim.spec.value.as_deref(), Some("x"));
}

#[test]
fn int_or_string_fields_keep_integers_and_quantities_read_as_go_writes_them() {
    let placement = json!({
        "apiVersion": "cluster.open-cluster-management.io/v1beta1",
        "kind": "Placement",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"decisionStrategy": {"groupStrategy": {"clustersPerDecisionGroup": 25}}},
    });
    round_trip::<Placement>(&placement);
    // A quantity given as a number is a string once decoded, as Go's resource.Quantity does.
    let cluster: ManagedCluster = serde_json::from_value(json!({
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": "c"},
        "spec": {},
        "status": {"capacity": {"cpu": 4}},
    }))
    .expect("decodes");
    assert_eq!(cluster.status.unwrap().capacity.unwrap()["cpu"].0, "4");
}

#[test]
fn a_null_taint_time_is_kept_as_upstream_keeps_it_and_decodes_as_unset() {
    let mut cluster = json!({
        "apiVersion": "cluster.open-cluster-management.io/v1",
        "kind": "ManagedCluster",
        "metadata": {"name": "c"},
        "spec": {"taints": [{"key": "k", "effect": "NoSelect", "timeAdded": null}]},
    });
    let ours = schema(&ours("managedclusters.cluster.open-cluster-management.io").spec.versions[0]);
    assert!(validation::validate_against(&ours, &mut cluster).is_empty());
    assert_eq!(cluster["spec"]["taints"][0]["timeAdded"], Value::Null);
    let decoded: ManagedCluster = serde_json::from_value(cluster).expect("decodes");
    assert_eq!(decoded.spec.taints.unwrap()[0].time_added, None);
}

// ---- samples ----

fn fixture(name: &str) -> Value {
    let path = format!("{FIXTURES}/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"));
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("parse {path}: {e}"))
}

/// A sample both schemas accept, unchanged through `T`.
fn sample<T: Serialize + DeserializeOwned>(name: &str, file: &str) -> T {
    let object = fixture(name);
    let ours_crd = ours(upstream(file).metadata.name.as_deref().unwrap_or_default());
    for schema in [upstream_schema(file), schema(&ours_crd.spec.versions[0])] {
        let errors = validation::validate_against(&schema, &mut object.clone());
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
    round_trip(&object)
}

#[test]
fn policy_with_a_configuration_policy_and_a_template_service_account() {
    let policy: Policy = sample("policy-hub-templates-service-account.yaml", POLICIES);
    let spec = &policy.spec;
    assert!(!spec.disabled);
    assert_eq!(spec.remediation_action.as_deref(), Some("enforce"));
    let options = spec.hub_template_options.as_ref().expect("hubTemplateOptions");
    assert_eq!(options.service_account_name.as_deref(), Some("team-a-template-reader"));
    let template = &spec.policy_templates[0];
    assert_eq!(template.object_definition["kind"], "ConfigurationPolicy");
    let secret = &template.object_definition["spec"]["object-templates"][0]["objectDefinition"];
    assert_eq!(
        secret["data"]["tls.crt"],
        r#"{{hub fromSecret "team-a-certs" "app-tls" "tls.crt" hub}}"#
    );
    let extra = &template.extra_dependencies.as_ref().expect("extraDependencies")[0];
    assert_eq!((extra.kind.as_str(), extra.namespace.as_deref()), ("ConfigurationPolicy", None));
    assert_eq!(template.ignore_pending, Some(false));
    let status = policy.status.as_ref().expect("status");
    let placements = status.placement.as_ref().expect("placement");
    assert_eq!(placements[1].policy_set.as_deref(), Some("baseline"));
    let excluded = placements[1].exclusions.as_ref().expect("exclusions");
    assert_eq!(excluded[0].cluster_name.as_deref(), Some("edge-3"));
    let edge = &status.status.as_ref().expect("status.status")[1];
    let remaining = edge.remaining_bindings.as_ref().expect("remainingBindings");
    assert_eq!(remaining[0].placement_binding.as_deref(), Some("team-a-prod"));
}

#[test]
fn placement_binding_restricted_with_overrides() {
    let binding: PlacementBinding =
        sample("placementbinding-restricted-overrides.yaml", PLACEMENT_BINDINGS);
    assert_eq!(binding.sub_filter.as_deref(), Some(PlacementBinding::SUB_FILTER_RESTRICTED));
    let overrides = binding.binding_overrides.as_ref().expect("bindingOverrides");
    assert_eq!(overrides.remediation_action.as_deref(), Some("Enforce"));
    assert_eq!(binding.placement_ref.api_group, "cluster.open-cluster-management.io");
    let kinds: Vec<_> = binding.subjects.iter().map(|s| s.kind.as_str()).collect();
    assert_eq!(kinds, ["Policy", "PolicySet"]);
    assert!(binding.status.is_some());
    assert_eq!(binding.metadata.namespace.as_deref(), Some("team-a-policies"));
}

#[test]
fn policy_set_with_exclusions() {
    let set: PolicySet = sample("policyset-exclusions.yaml", POLICY_SETS);
    assert_eq!(set.spec.policies, ["copy-app-tls", "audit-logging"]);
    let exclusion = &set.spec.exclusions.as_ref().expect("exclusions")[0];
    assert_eq!(exclusion.policy_name, "audit-logging");
    assert_eq!(exclusion.cluster_names, ["edge-3", "edge-4"]);
    assert!(exclusion.reason.is_some());
    let status = set.status.as_ref().expect("status");
    assert_eq!(status.exclusions.as_ref().expect("status.exclusions")[0].clusters.len(), 2);
}
