//! The output classes once reported as differing from go-template-utils (issue #19), one test
//! each, with the answers recorded from the `hubtemplate` oracle (tools/oracles/hubtemplate);
//! the differential test in crates/dev/oracles/tests/hub_templates.rs checks them against it.

use std::collections::BTreeMap;
use std::sync::Arc;

use certgate_templates::access::{Access, InMemoryObjects};
use certgate_templates::pipeline::{
    HubContext, HubResolver, PolicyMetadata, ResolveRequest, ResolverConfig,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn resolve_with(raw: &str, labels: Option<BTreeMap<String, String>>) -> Result<Value, String> {
    let resolver = HubResolver::new(ResolverConfig::default()).expect("default config is valid");
    let request = ResolveRequest {
        context: HubContext {
            managed_cluster_name: "cluster-1".to_owned(),
            managed_cluster_labels: labels,
            policy_metadata: PolicyMetadata {
                name: "policy-a".to_owned(),
                namespace: "policies".to_owned(),
                ..PolicyMetadata::default()
            },
        },
        reader: Arc::new(InMemoryObjects::new([]).expect("no objects are valid")),
        access: Access::for_policy("policies", "cluster-1"),
        encryption: None,
    };
    resolver.resolve(raw, &request).result.map_err(|e| e.message)
}

fn resolve(raw: &str) -> Result<Value, String> {
    resolve_with(raw, None)
}

#[test]
fn indent_autoindent_and_to_yaml_keep_upstreams_trailing_line_breaks() {
    // `indent` trims its result; the block scalar's own final line break stays.
    assert_eq!(
        resolve(r#"{"data":{"v":"{{hub \"a\\nb\\n\" | indent 2 hub}}\n"}}"#),
        Ok(json!({"data": {"v": "a\n      b\n"}}))
    );
    assert_eq!(
        resolve(r#"{"data":{"v":"first\n{{hub \"a\\nb\\n\" | autoindent hub}}\nlast\n"}}"#),
        Ok(json!({"data": {"v": "first\na\nb\nlast\n"}}))
    );
    assert_eq!(
        resolve(
            r#"{"data":{"v":"{{hub dict \"a\" \"1\" \"b\" (list 1 2) | toYaml | autoindent hub}}\n","w":"x"}}"#
        ),
        Ok(json!({"data": {"v": "a: \"1\"\nb:\n  - 1\n  - 2\n", "w": "x"}}))
    );
    // A kept (`|+`) block scalar keeps every trailing line break.
    assert_eq!(
        resolve(r#"{"data":{"v":"x\n{{hub \"a\" hub}}\n\n"}}"#),
        Ok(json!({"data": {"v": "x\na\n\n"}}))
    );
}

#[test]
fn yaml_that_yaml_v3_accepts_is_accepted() {
    // The trimmed template leaves a double-quoted scalar spanning lines at the key's
    // indentation: yaml.v3 reads it (an empty line is a line break).
    assert_eq!(
        resolve(
            r#"{"data":{"grf":"{{hub- \"'\\n\\nb-'##-'9\" -hub}}","mwd":"{{hub \"7\" | toInt hub}}"}}"#
        ),
        Ok(json!({"data": {"grf": "'\nb-'##-'9", "mwd": 7}}))
    );
}

#[test]
fn to_int_results_are_typed_integers() {
    assert_eq!(
        resolve(r#"{"data":{"n":"{{hub \"42\" | toInt hub}}"}}"#),
        Ok(json!({"data": {"n": 42}}))
    );
    // In a block scalar the indicator goes too.
    assert_eq!(
        resolve(r#"{"data":{"n":"{{hub \"42\" | toInt hub}}\n"}}"#),
        Ok(json!({"data": {"n": 42}}))
    );
    // Inside object-templates-raw text the quotes are the user's; they go as well.
    assert_eq!(
        resolve(r#"{"raw":"spec:\n  replicas: '{{hub \"3\" | toInt hub}}'\n  name: x\n"}"#),
        Ok(json!({"raw": "spec:\n  replicas: 3\n  name: x\n"}))
    );
    // Without a `key:` before it the rewrite does not apply: a list item stays a string.
    assert_eq!(
        resolve(r#"{"data":{"l":["{{hub \"3\" | toInt hub}}"]}}"#),
        Ok(json!({"data": {"l": ["3"]}}))
    );
    assert_eq!(
        resolve(
            r#"{"data":{"b":"{{hub \"true\" | toBool hub}}","l":"{{hub \"[1, 2]\" | toLiteral hub}}"}}"#
        ),
        Ok(json!({"data": {"b": true, "l": [1, 2]}}))
    );
}

#[test]
fn multi_line_values_fold_exactly_where_upstream_folds() {
    // A single-quoted YAML scalar folds a line break into a space (upstream's known issue).
    assert_eq!(
        resolve(r#"{"data":{"v":"{{hub \"a\\nb\" hub}}"}}"#),
        Ok(json!({"data": {"v": "a b"}}))
    );
    // A chomped toYaml in a chomped block scalar: the value ends up folded as well.
    assert_eq!(
        resolve(
            r#"{"data":{"v":"{{hub dict \"a\" \"1\" \"b\" \"2\" | toYaml | autoindent hub}}","w":"x"}}"#
        ),
        Ok(json!({"data": {"v": "a: \"1\" b: \"2\"", "w": "x"}}))
    );
}

#[test]
fn a_chomped_to_yaml_result_ends_where_upstreams_does() {
    // toYaml trims its final line break; the template's own line break keeps the next key
    // on its line.
    assert_eq!(
        resolve(
            r#"{"raw":"config: |-\n  {{hub dict \"a\" \"1\" \"b\" \"2\" | toYaml | autoindent hub}}\nnext: y\n"}"#
        ),
        Ok(json!({"raw": "config: |-\n  a: \"1\"\n  b: \"2\"\nnext: y\n"}))
    );
    // Upstream's typed-value rewrite also takes the line break after an unquoted template
    // (its trailing `\s*`), so the next line runs into the value: reproduced, not fixed.
    assert_eq!(
        resolve(r#"{"raw":"spec:\n  replicas: {{hub \"3\" | toInt hub}}\n  name: x\n"}"#),
        Ok(json!({"raw": "spec:\n  replicas: 3name: x\n"}))
    );
}

#[test]
fn labels_not_read_behave_as_upstreams_nil_map() {
    assert_eq!(
        resolve(
            r#"{"n":"{{hub len .ManagedClusterLabels hub}}","v":"{{hub .ManagedClusterLabels hub}}","w":"{{hub if .ManagedClusterLabels hub}}yes{{hub else hub}}no{{hub end hub}}"}"#
        ),
        Ok(json!({"n": "0", "v": "map[]", "w": "no"}))
    );
    let labels = BTreeMap::from([("env".to_owned(), "prod".to_owned())]);
    assert_eq!(
        resolve_with(r#"{"v":"{{hub index .ManagedClusterLabels \"env\" hub}}"}"#, Some(labels)),
        Ok(json!({"v": "prod"}))
    );
}
