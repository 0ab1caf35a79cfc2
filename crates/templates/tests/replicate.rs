//! Replication of root policies for one cluster, end to end through the pipeline: access
//! modes, error annotations, typed values, encryption, and the objects read.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use certgate_templates::encryption::EncryptionKeys;
use certgate_templates::offline::{Replication, World, replicate};
use certgate_templates::pipeline::{HubResolver, ResolveErrorKind, ResolverConfig};
use certgate_templates::replica::EncryptionSource;

const KEY: [u8; 32] = [7; 32];
const IV: [u8; 16] = [9; 16];

/// Fixed key and IV: encrypted values are reproducible.
struct FixedKeys;

impl EncryptionSource for FixedKeys {
    fn key(&self, _cluster: &str) -> Result<[u8; 32], String> {
        Ok(KEY)
    }
    fn new_iv(&self) -> Result<[u8; 16], String> {
        Ok(IV)
    }
}

struct NoKeySecret;

impl EncryptionSource for NoKeySecret {
    fn key(&self, cluster: &str) -> Result<[u8; 32], String> {
        Err(format!("failed to get the Secret {cluster}/policy-encryption-key: timeout"))
    }
    fn new_iv(&self) -> Result<[u8; 16], String> {
        Ok(IV)
    }
}

fn policy(namespace: &str, name: &str, spec_extra: Value, definitions: Vec<Value>) -> Value {
    let mut spec = json!({
        "remediationAction": "inform",
        "policy-templates": definitions.into_iter().map(|d| json!({"objectDefinition": d})).collect::<Vec<_>>(),
    });
    if let (Some(spec), Some(extra)) = (spec.as_object_mut(), spec_extra.as_object()) {
        spec.extend(extra.clone());
    }
    json!({
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "Policy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec
    })
}

/// A ConfigurationPolicy whose one object is a ConfigMap with `data`.
fn config_policy(name: &str, data: Value) -> Value {
    json!({
        "apiVersion": "policy.open-cluster-management.io/v1",
        "kind": "ConfigurationPolicy",
        "metadata": {"name": name},
        "spec": {"object-templates": [{
            "complianceType": "musthave",
            "objectDefinition": {
                "apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "out", "namespace": "default"},
                "data": data
            }
        }]}
    })
}

fn config_map(namespace: &str, name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}, "data": data})
}

fn service_account(namespace: &str, name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": namespace}})
}

fn read_grant(namespace: &str, resource: &str, sa_namespace: &str, sa: &str) -> Vec<Value> {
    vec![
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
            "metadata": {"name": "read", "namespace": namespace},
            "rules": [{"apiGroups": [""], "resources": [resource], "verbs": ["get", "list", "watch"]}]
        }),
        json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "read", "namespace": namespace},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "read"},
            "subjects": [{"kind": "ServiceAccount", "name": sa, "namespace": sa_namespace}]
        }),
    ]
}

fn run(root: &Value, objects: Vec<Value>, keys: &dyn EncryptionSource) -> Replication {
    let world = World::new(&objects).expect("valid objects");
    let resolver = HubResolver::new(ResolverConfig::default()).expect("resolver");
    replicate(root, "cluster1", &world, &resolver, keys)
}

fn template(replication: &Replication, index: usize) -> &Value {
    replication
        .replica
        .pointer(&format!("/spec/policy-templates/{index}/objectDefinition"))
        .expect("template")
}

fn data(replication: &Replication, index: usize) -> &Value {
    template(replication, index)
        .pointer("/spec/object-templates/0/objectDefinition/data")
        .expect("data")
}

fn error_annotation(replication: &Replication, index: usize) -> Option<&str> {
    template(replication, index)
        .pointer("/metadata/annotations")
        .and_then(|a| a.get("policy.open-cluster-management.io/hub-templates-error"))
        .and_then(Value::as_str)
}

fn raw(definition: &Value) -> String {
    certgate_gofmt::json(definition)
}

const FROM_OTHER: &str = r#"{{hub fromConfigMap "other" "settings" "value" hub}}"#;

#[test]
fn a_service_account_with_rbac_reads_other_namespaces() {
    let root = policy(
        "policies",
        "p",
        json!({"hubTemplateOptions": {"serviceAccountName": "reader"}}),
        vec![config_policy("c", json!({"value": FROM_OTHER}))],
    );
    let mut objects = vec![
        root.clone(),
        service_account("policies", "reader"),
        config_map("other", "settings", json!({"value": "from-other"})),
    ];
    objects.extend(read_grant("other", "configmaps", "policies", "reader"));
    let replication = run(&root, objects, &FixedKeys);
    assert_eq!(data(&replication, 0), &json!({"value": "from-other"}));
    assert!(replication.outcome.error.is_none());
    let reads: Vec<String> = replication.outcome.reads.iter().map(ToString::to_string).collect();
    assert_eq!(reads, ["GroupVersion=v1, Kind=ConfigMap, Namespace=other, Name=settings"]);
}

#[test]
fn a_service_account_without_rbac_gets_upstreams_forbidden_text() {
    let definition = config_policy("c", json!({"value": FROM_OTHER}));
    let root = policy(
        "policies",
        "p",
        json!({"hubTemplateOptions": {"serviceAccountName": "reader"}}),
        vec![definition.clone()],
    );
    let objects = vec![
        root.clone(),
        service_account("policies", "reader"),
        config_map("other", "settings", json!({"value": "from-other"})),
    ];
    let replication = run(&root, objects, &FixedKeys);
    let expected = format!(
        "failed to resolve the template {}: template: tmpl:11:24: executing \"tmpl\" at \
         <fromConfigMap \"other\" \"settings\" \"value\">: error calling fromConfigMap: failed \
         getting the ConfigMap settings from other: configmaps \"settings\" is forbidden: User \
         \"system:serviceaccount:policies:reader\" cannot list resource \"configmaps\" in API \
         group \"\" in the namespace \"other\": ensure the client has the list and watch \
         permissions for the query: GroupVersion=v1, Kind=ConfigMap, Namespace=other, \
         Name=settings",
        raw(&definition)
    );
    assert_eq!(error_annotation(&replication, 0), Some(expected.as_str()));
    let error = replication.outcome.error.as_ref().expect("error");
    assert_eq!(error.kind, ResolveErrorKind::Forbidden);
    assert_eq!(
        replication.outcome.warnings,
        [format!("Failed to resolve templates for cluster cluster1: {expected}")]
    );
    // Denied reads are recorded too: a controller watches them to notice a grant.
    assert_eq!(replication.outcome.reads.len(), 1);
    // The template stays as written.
    assert_eq!(data(&replication, 0), &json!({"value": FROM_OTHER}));
}

#[test]
fn a_missing_service_account_annotates_every_hub_template() {
    let root = policy(
        "policies",
        "p",
        json!({"hubTemplateOptions": {"serviceAccountName": "ghost"}}),
        vec![
            config_policy("a", json!({"value": FROM_OTHER})),
            config_policy("b", json!({"value": "{{ managed-cluster-only }}"})),
        ],
    );
    let replication = run(&root, vec![root.clone()], &FixedKeys);
    assert_eq!(
        error_annotation(&replication, 0),
        Some(
            "the service account in hubTemplateOptions.serviceAccountName (policies/ghost) does not exist"
        )
    );
    assert_eq!(error_annotation(&replication, 1), None);
}

#[test]
fn default_mode_is_restricted_to_the_policy_namespace_and_stops_at_the_first_error() {
    let first = config_policy("a", json!({"value": FROM_OTHER}));
    let second = config_policy("b", json!({"value": "{{hub .ManagedClusterName hub}}"}));
    let root = policy("policies", "p", json!({}), vec![first.clone(), second]);
    let objects = vec![root.clone(), config_map("other", "settings", json!({"value": "x"}))];
    let replication = run(&root, objects, &FixedKeys);
    let expected = format!(
        "failed to resolve the template {}: template: tmpl:11:24: executing \"tmpl\" at \
         <fromConfigMap \"other\" \"settings\" \"value\">: error calling fromConfigMap: failed \
         getting the ConfigMap settings from other: the namespace argument is restricted to \
         policies",
        raw(&first)
    );
    assert_eq!(error_annotation(&replication, 0), Some(expected.as_str()));
    assert_eq!(
        replication.outcome.error.as_ref().map(|e| e.kind),
        Some(ResolveErrorKind::Permanent)
    );
    assert!(replication.outcome.retry.is_none());
    // Later templates are left unresolved and unannotated, as upstream.
    assert_eq!(error_annotation(&replication, 1), None);
    assert_eq!(data(&replication, 1), &json!({"value": "{{hub .ManagedClusterName hub}}"}));
}

#[test]
fn undefined_functions_are_parse_errors_with_the_yaml_line() {
    let definition = config_policy("a", json!({"value": "{{hub nope 1 hub}}"}));
    let root = policy("policies", "p", json!({}), vec![definition.clone()]);
    let replication = run(&root, vec![root.clone()], &FixedKeys);
    let expected = format!(
        "failed to parse the template JSON string {}: template: tmpl:11: function \"nope\" not defined",
        raw(&definition)
    );
    assert_eq!(error_annotation(&replication, 0), Some(expected.as_str()));
}

#[test]
fn typed_values_keep_their_types_and_copy_functions_give_maps() {
    let definition = config_policy(
        "a",
        json!({
            "replicas": "{{hub fromConfigMap \"\" \"settings\" \"replicas\" | toInt hub}}",
            "enabled": "{{hub fromConfigMap \"policies\" \"settings\" \"enabled\" | toBool hub}}",
            "literal": "{{hub \"[1, 2]\" | toLiteral hub}}",
            "copy": "{{hub copyConfigMapData \"policies\" \"settings\" hub}}",
            "name": "{{hub .ManagedClusterName hub}}-{{hub .PolicyMetadata.name hub}}",
            "missing": "{{hub fromConfigMap \"policies\" \"settings\" \"nope\" hub}}",
            "plain": "{{ .Values.x }}",
        }),
    );
    let root = policy("policies", "p", json!({}), vec![definition]);
    let settings = config_map("policies", "settings", json!({"replicas": "3", "enabled": "true"}));
    let replication = run(&root, vec![root.clone(), settings], &FixedKeys);
    assert_eq!(replication.outcome.error, None);
    assert_eq!(
        data(&replication, 0),
        &json!({
            "replicas": 3,
            "enabled": true,
            "literal": [1, 2],
            "copy": {"enabled": "true", "replicas": "3"},
            "name": "cluster1-p",
            "missing": "",
            "plain": "{{ .Values.x }}",
        })
    );
}

#[test]
fn secrets_are_encrypted_with_the_replica_iv_and_decrypt_to_the_secret_value() {
    let definition = config_policy(
        "a",
        json!({"password": "{{hub fromSecret \"policies\" \"db\" \"password\" hub}}"}),
    );
    let root = policy("policies", "p", json!({}), vec![definition]);
    let secret = json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "db", "namespace": "policies"},
        "data": {"password": STANDARD.encode("s3cret")}
    });
    let replication = run(&root, vec![root.clone(), secret], &FixedKeys);
    let iv = STANDARD.encode(IV);
    let annotations = replication.replica.pointer("/metadata/annotations").expect("annotations");
    assert_eq!(annotations["policy.open-cluster-management.io/encryption-iv"], json!(iv));
    assert_eq!(
        template(&replication, 0)
            .pointer("/metadata/annotations/policy.open-cluster-management.io~1encryption-iv"),
        Some(&json!(iv))
    );
    let encrypted = data(&replication, 0)["password"].as_str().expect("string").to_owned();
    assert!(encrypted.starts_with("$ocm_encrypted:"), "{encrypted}");
    let keys = EncryptionKeys { key: KEY, iv: IV };
    // fromSecret returns the Secret's value still base64-encoded, and encrypts that.
    assert_eq!(keys.decrypt(&encrypted).expect("decrypts"), STANDARD.encode("s3cret"));
}

#[test]
fn an_unavailable_encryption_key_is_retried_and_writes_no_annotation() {
    let definition =
        config_policy("a", json!({"password": "{{hub fromSecret \"policies\" \"db\" \"p\" hub}}"}));
    let root = policy("policies", "p", json!({}), vec![definition]);
    let replication = run(&root, vec![root.clone()], &NoKeySecret);
    assert_eq!(
        replication.outcome.retry.as_deref(),
        Some("failed to get the Secret cluster1/policy-encryption-key: timeout")
    );
    assert_eq!(error_annotation(&replication, 0), None);
}

#[test]
fn disable_templates_skips_resolution_and_keeps_trigger_update() {
    let mut root = policy(
        "policies",
        "p",
        json!({}),
        vec![config_policy("a", json!({"v": "{{hub .ManagedClusterName hub}}"}))],
    );
    root["metadata"]["annotations"] = json!({
        "policy.open-cluster-management.io/disable-templates": "true",
        "policy.open-cluster-management.io/trigger-update": "1"
    });
    let replication = run(&root, vec![root.clone()], &FixedKeys);
    assert_eq!(data(&replication, 0), &json!({"v": "{{hub .ManagedClusterName hub}}"}));
    let annotations = replication.replica.pointer("/metadata/annotations").expect("annotations");
    assert!(annotations.get("policy.open-cluster-management.io/trigger-update").is_some());

    root["metadata"]["annotations"] =
        json!({"policy.open-cluster-management.io/trigger-update": "1"});
    let replication = run(&root, vec![root.clone()], &FixedKeys);
    assert_eq!(data(&replication, 0), &json!({"v": "cluster1"}));
    let annotations = replication.replica.pointer("/metadata/annotations").expect("annotations");
    assert!(annotations.get("policy.open-cluster-management.io/trigger-update").is_none());
}

#[test]
fn managed_cluster_labels_come_from_the_managed_cluster_and_are_watched() {
    let root = policy(
        "policies",
        "p",
        json!({}),
        vec![config_policy("a", json!({"env": "{{hub .ManagedClusterLabels.env hub}}"}))],
    );
    let cluster = json!({
        "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
        "metadata": {"name": "cluster1", "labels": {"env": "prod"}}
    });
    let replication = run(&root, vec![root.clone(), cluster], &FixedKeys);
    assert_eq!(data(&replication, 0), &json!({"env": "prod"}));
    let reads: Vec<String> = replication.outcome.reads.iter().map(ToString::to_string).collect();
    assert_eq!(
        reads,
        [
            "GroupVersion=cluster.open-cluster-management.io/v1, Kind=ManagedCluster, Namespace=, Name=cluster1"
        ]
    );
}

#[test]
fn autoindent_indents_a_block_scalar_by_its_position() {
    let definition = config_policy(
        "a",
        json!({"config": "{{hub fromConfigMap \"\" \"settings\" \"block\" | autoindent hub}}\n"}),
    );
    let root = policy("policies", "p", json!({}), vec![definition]);
    let settings = config_map("policies", "settings", json!({"block": "a: 1\nb: 2"}));
    let replication = run(&root, vec![root.clone(), settings], &FixedKeys);
    assert_eq!(replication.outcome.error, None);
    assert_eq!(data(&replication, 0), &json!({"config": "a: 1\nb: 2\n"}));
}

#[test]
fn kinds_present_in_the_inputs_are_served_and_policy_sets_expand() {
    let definition = config_policy(
        "a",
        json!({"image": "{{hub (lookup \"apps/v1\" \"Deployment\" \"policies\" \"web\").spec.image hub}}"}),
    );
    let mut root = policy("policies", "p", json!({}), vec![definition]);
    root["spec"]["dependencies"] = json!([
        {"apiVersion": "policy.open-cluster-management.io/v1beta1", "kind": "PolicySet", "name": "base", "compliance": "Compliant"}
    ]);
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "policies"}, "spec": {"image": "nginx:1"}
    });
    let policy_set = json!({
        "apiVersion": "policy.open-cluster-management.io/v1beta1", "kind": "PolicySet",
        "metadata": {"name": "base", "namespace": "policies"}, "spec": {"policies": ["a", "b"]}
    });
    let replication = run(&root, vec![root.clone(), deployment, policy_set], &FixedKeys);
    assert_eq!(replication.outcome.error, None);
    assert_eq!(data(&replication, 0), &json!({"image": "nginx:1"}));
    assert_eq!(
        replication.replica.pointer("/spec/dependencies"),
        Some(&json!([
            {"apiVersion": "policy.open-cluster-management.io/v1", "kind": "Policy", "name": "policies.a", "compliance": "Compliant"},
            {"apiVersion": "policy.open-cluster-management.io/v1", "kind": "Policy", "name": "policies.b", "compliance": "Compliant"}
        ]))
    );
}

#[test]
fn a_malformed_rbac_object_is_an_input_error_not_a_missing_grant() {
    let binding = json!({
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "read", "namespace": "other"},
        "roleRef": "not-an-object"
    });
    let error = World::new(&[binding]).err().expect("refused");
    assert_eq!(error.index, 0);
    assert!(
        error.reason.contains("roleRef") || error.reason.contains("invalid type"),
        "{}",
        error.reason
    );
}

struct NoRandom;

impl EncryptionSource for NoRandom {
    fn key(&self, _cluster: &str) -> Result<[u8; 32], String> {
        Ok(KEY)
    }
    fn new_iv(&self) -> Result<[u8; 16], String> {
        Err("no randomness".to_owned())
    }
}

#[test]
fn an_iv_that_cannot_be_generated_stops_processing_without_an_annotation() {
    let definition =
        config_policy("a", json!({"password": "{{hub fromSecret \"policies\" \"db\" \"p\" hub}}"}));
    let root = policy("policies", "p", json!({}), vec![definition]);
    let replication = run(&root, vec![root.clone()], &NoRandom);
    assert_eq!(replication.outcome.failed.as_deref(), Some("no randomness"));
    assert_eq!(replication.outcome.retry, None);
    assert_eq!(error_annotation(&replication, 0), None);
}
