//! The Kubernetes-reading functions in default and ServiceAccount mode, called directly.

#[path = "functions_common.rs"]
mod common;

use certgate_templates::access::{Access, ErrorClass, ObjectIdentifier};
use certgate_templates::functions::{FunctionConfig, hub_functions};
use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;

const RESTRICTED: &str = "the namespace argument is restricted to policies";
const INVALID_3: &str = "the input is invalid: namespace, name, and key must be specified";
const INVALID_2: &str = "the input is invalid: namespace and name must be specified";

fn run(access: Access, name: &str, args: &[&str]) -> Result<serde_json::Value, String> {
    let map = hub_functions(&FunctionConfig::default());
    let args: Vec<_> = args.iter().map(|a| s(a)).collect();
    json_or_error(call_in(&map, session(access), name, &args).0)
}

#[test]
fn default_mode_table() {
    #[rustfmt::skip]
    let cases: Vec<(&str, &[&str], Result<serde_json::Value, String>)> = vec![
        ("fromSecret", &["policies", "s", "k"], Ok(json!("dmFsdWU="))),
        ("fromSecret", &["", "s", "k2"], Ok(json!("eA=="))),
        ("fromSecret", &["policies", "s", "missing"], Ok(json!(""))),
        ("fromSecret", &["policies", "nope", "k"], Err(r#"failed to get the secret nope from policies: secrets "nope" not found"#.into())),
        ("fromSecret", &["", "nope", "k"], Err(r#"failed to get the secret nope from : secrets "nope" not found"#.into())),
        ("fromSecret", &["other", "s2", "k"], Err(format!("failed to get the secret s2 from other: {RESTRICTED}"))),
        ("fromSecret", &["policies", "", "k"], Err(INVALID_3.into())),
        ("fromSecret", &["policies", "s", ""], Err(INVALID_3.into())),
        ("fromConfigMap", &["policies", "cm", "a"], Ok(json!("1"))),
        ("fromConfigMap", &["", "cm", "b"], Ok(json!("<x>&"))),
        ("fromConfigMap", &["policies", "cm", "zz"], Ok(json!(""))),
        ("fromConfigMap", &["policies", "cm-nodata", "a"], Ok(json!(""))),
        ("fromConfigMap", &["policies", "nope", "a"], Err(r#"failed getting the ConfigMap nope from policies: configmaps "nope" not found"#.into())),
        ("fromConfigMap", &["other", "cm2", "x"], Err(format!("failed getting the ConfigMap cm2 from other: {RESTRICTED}"))),
        ("fromConfigMap", &["policies", "", "a"], Err(INVALID_3.into())),
        ("copySecretData", &["policies", "s"], Ok(json!(r#"{"empty":"","k":"dmFsdWU=","k2":"eA=="}"#))),
        ("copySecretData", &["policies", ""], Err(INVALID_2.into())),
        ("copySecretData", &["policies", "nope"], Err(r#"failed to get the secret nope from policies: secrets "nope" not found"#.into())),
        ("copyConfigMapData", &["", "cm"], Ok(json!(r#"{"a":"1","b":"\u003cx\u003e\u0026"}"#))),
        ("copyConfigMapData", &["policies", "cm-nodata"], Ok(json!("null"))),
        ("copyConfigMapData", &["other", "cm2"], Err(format!("failed getting the ConfigMap cm2 from other: {RESTRICTED}"))),
        ("lookup", &["v1", "ConfigMap", "policies", "nope"], Ok(json!({}))),
        ("lookup", &["v1", "ConfigMap", "", "cm"], Ok(json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "policies", "labels": {"app": "web"}}, "data": {"a": "1", "b": "<x>&"}}))),
        ("lookup", &["v1", "ConfigMap", "policies", "", "app=web"], Ok(json!({"items": [{"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "policies", "labels": {"app": "web"}}, "data": {"a": "1", "b": "<x>&"}}]}))),
        ("lookup", &["v1", "ConfigMap", "policies", "", "app=db"], Ok(json!({"items": []}))),
        ("lookup", &["v1", "ConfigMap", "policies", "", "", "app=db"], Ok(json!({"items": [
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "policies", "labels": {"app": "web"}}, "data": {"a": "1", "b": "<x>&"}},
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm-nodata", "namespace": "policies"}}]}))),
        ("lookup", &["v1", "ConfigMap", "policies", "", "app in (web", "db)"], Ok(json!({"items": [{"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "policies", "labels": {"app": "web"}}, "data": {"a": "1", "b": "<x>&"}}]}))),
        ("lookup", &["", "ConfigMap", "policies", "cm"], Err("the apiVersion and kind are required".into())),
        ("lookup", &["v1", "", "policies", "cm"], Err("the apiVersion and kind are required".into())),
        ("lookup", &["v1", "ConfigMap", "other", "cm2"], Err(RESTRICTED.into())),
        ("lookup", &["a/b/c", "ConfigMap", "other", "cm2"], Err(RESTRICTED.into())),
        ("lookup", &["a/b/c", "ConfigMap", "", "cm"], Err("unexpected GroupVersion string: a/b/c".into())),
        ("lookup", &["v1", "ConfigMap", "", "", "app IN (web)"], Err("unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt".into())),
        ("lookup", &["v2", "ConfigMap", "", "cm"], Err("one or more API resources are not installed on the API server".into())),
        ("lookup", &["example.com/v1", "Widget", "", "w"], Err("one or more API resources are not installed on the API server".into())),
        ("lookup", &["v1", "Node", "", ""], Err("lookup of cluster-scoped resource 'Node/' is not allowed".into())),
        ("lookup", &["cluster.open-cluster-management.io/v1", "ManagedCluster", "", "c1"], Ok(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster", "metadata": {"name": "c1", "labels": {"env": "prod"}}}))),
        ("lookup", &["cluster.open-cluster-management.io/v1", "ManagedCluster", "policies", "c1"], Ok(json!({
            "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster", "metadata": {"name": "c1", "labels": {"env": "prod"}}}))),
        ("lookup", &["cluster.open-cluster-management.io/v1", "ManagedCluster", "", "c2"], Err("lookup of cluster-scoped resource 'ManagedCluster/c2' is not allowed".into())),
        ("lookup", &["cluster.open-cluster-management.io/v1", "ManagedCluster", "", ""], Err("lookup of cluster-scoped resource 'ManagedCluster/' is not allowed".into())),
        ("fromClusterClaim", &["id"], Err("lookup of cluster-scoped resource 'ClusterClaim/id' is not allowed".into())),
        ("fromClusterClaim", &[""], Err("a claim name must be provided".into())),
        ("lookupClusterClaim", &["id"], Err("lookup of cluster-scoped resource 'ClusterClaim/id' is not allowed".into())),
        ("getNodesWithExactRoles", &["master"], Err("lookup of cluster-scoped resource 'Node/' is not allowed".into())),
        ("hasNodesWithExactRoles", &["master"], Err("lookup of cluster-scoped resource 'Node/' is not allowed".into())),
        ("getNodesWithExactRoles", &[" ", ""], Err("the input is invalid: at least one name must be specified".into())),
    ];
    for (name, args, want) in cases {
        assert_eq!(run(default_access(), name, args), want, "{name} {args:?}");
    }
}

#[test]
fn unrestricted_mode_reads_cluster_scoped_objects() {
    let nodes = |names: &[&str]| -> Vec<String> { names.iter().map(|n| (*n).to_owned()).collect() };
    let node_names = |result: Result<serde_json::Value, String>| -> Vec<String> {
        let value = result.expect("nodes are listed");
        value["items"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|n| n["metadata"]["name"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let unrestricted = Access::unrestricted;
    assert_eq!(
        node_names(run(unrestricted(), "getNodesWithExactRoles", &["master"])),
        nodes(&["master1", "master2"])
    );
    assert_eq!(
        node_names(run(unrestricted(), "getNodesWithExactRoles", &["master", "infra"])),
        nodes(&["mixed"])
    );
    assert_eq!(
        node_names(run(unrestricted(), "getNodesWithExactRoles", &["infra", " "])),
        nodes(&["infra1"])
    );
    assert_eq!(
        node_names(run(unrestricted(), "getNodesWithExactRoles", &["worker"])),
        nodes(&["worker1"])
    );
    assert_eq!(run(unrestricted(), "hasNodesWithExactRoles", &["infra"]), Ok(json!(true)));
    assert_eq!(run(unrestricted(), "hasNodesWithExactRoles", &["gpu"]), Ok(json!(false)));
    assert_eq!(
        run(unrestricted(), "getNodesWithExactRoles", &["a b"]),
        Err("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt".into())
    );
    #[rustfmt::skip]
    let claims: Vec<(&str, &str, Result<serde_json::Value, String>)> = vec![
        ("fromClusterClaim", "id", Ok(json!("abc"))),
        ("fromClusterClaim", "novalue", Ok(json!(""))),
        ("fromClusterClaim", "nospec", Err("unexpected ClusterClaim format: nospec".into())),
        ("fromClusterClaim", "number", Err("interface conversion: interface {} is int64, not string".into())),
        ("fromClusterClaim", "gone", Err(r#"clusterclaims.cluster.open-cluster-management.io "gone" not found"#.into())),
        ("lookupClusterClaim", "id", Ok(json!("abc"))),
        ("lookupClusterClaim", "gone", Ok(json!(""))),
        ("lookupClusterClaim", "nospec", Err("unexpected ClusterClaim format: nospec".into())),
    ];
    for (name, claim, want) in claims {
        assert_eq!(run(unrestricted(), name, &[claim]), want, "{name} {claim}");
    }
    // Without a lookup namespace, an empty namespace is not defaulted.
    assert_eq!(run(unrestricted(), "fromSecret", &["", "s", "k"]), Err(INVALID_3.into()));
    assert_eq!(run(unrestricted(), "fromSecret", &["other", "s2", "k"]), Ok(json!("b3RoZXI=")));
}

#[test]
fn service_account_mode() {
    let sa = || sa_access(&["configmaps"], &["list", "watch"]);
    assert_eq!(run(sa(), "fromConfigMap", &["other", "cm2", "x"]), Ok(json!("y")));
    assert_eq!(run(sa(), "copyConfigMapData", &["other", "cm2"]), Ok(json!(r#"{"x":"y"}"#)));
    assert_eq!(
        run(sa(), "fromConfigMap", &["", "cm2", "x"]),
        Err(INVALID_3.into()),
        "no lookup namespace in ServiceAccount mode"
    );
    assert_eq!(run(sa(), "copyConfigMapData", &["", "cm2"]), Err(INVALID_2.into()));
    assert_eq!(
        run(sa(), "fromSecret", &["other", "s2", "k"]),
        Err(r#"failed to get the secret s2 from other: secrets "s2" is forbidden: User "system:serviceaccount:policies:sa" cannot list resource "secrets" in API group "" in the namespace "other": ensure the client has the list and watch permissions for the query: GroupVersion=v1, Kind=Secret, Namespace=other, Name=s2"#.into())
    );
    assert_eq!(
        run(sa(), "fromConfigMap", &["policies", "cm", "a"]),
        Err(r#"failed getting the ConfigMap cm from policies: configmaps "cm" is forbidden: User "system:serviceaccount:policies:sa" cannot list resource "configmaps" in API group "" in the namespace "policies": ensure the client has the list and watch permissions for the query: GroupVersion=v1, Kind=ConfigMap, Namespace=policies, Name=cm"#.into()),
        "the root namespace is not special"
    );
    assert_eq!(
        run(sa(), "lookup", &["v1", "ConfigMap", "", ""]),
        Err(r#"configmaps is forbidden: User "system:serviceaccount:policies:sa" cannot list resource "configmaps" in API group "" at the cluster scope: ensure the client has the list and watch permissions for the query: GroupVersion=v1, Kind=ConfigMap, Namespace=, Name="#.into())
    );
    assert_eq!(
        run(sa(), "lookup", &["cluster.open-cluster-management.io/v1", "ManagedCluster", "", "c2"]),
        Err(r#"managedclusters.cluster.open-cluster-management.io "c2" is forbidden: User "system:serviceaccount:policies:sa" cannot list resource "managedclusters" in API group "cluster.open-cluster-management.io" at the cluster scope: ensure the client has the list and watch permissions for the query: GroupVersion=cluster.open-cluster-management.io/v1, Kind=ManagedCluster, Namespace=, Name=c2"#.into()),
        "no cluster-scoped allowlist: RBAC decides"
    );
    assert_eq!(
        run(sa(), "lookup", &["v1", "ConfigMap", "other", "", "app=db"])
            .map(|v| v["items"].as_array().map(Vec::len)),
        Ok(Some(1))
    );
    assert_eq!(run(sa(), "lookup", &["v1", "ConfigMap", "other", "gone"]), Ok(json!({})));
    // list without watch: the watch is what fails.
    assert_eq!(
        run(sa_access(&["configmaps"], &["list"]), "fromConfigMap", &["other", "cm2", "x"]),
        Err(r#"failed getting the ConfigMap cm2 from other: configmaps "cm2" is forbidden: User "system:serviceaccount:policies:sa" cannot watch resource "configmaps" in API group "" in the namespace "other": ensure the client has the list and watch permissions for the query: GroupVersion=v1, Kind=ConfigMap, Namespace=other, Name=cm2"#.into())
    );
    // get is not enough: upstream reads through list+watch.
    assert!(
        run(sa_access(&["configmaps"], &["get"]), "fromConfigMap", &["other", "cm2", "x"]).is_err()
    );
}

#[test]
fn read_sets_record_misses_and_denials() {
    let map = hub_functions(&FunctionConfig::default());
    let id = |group: &str, version: &str, kind: &str, ns: &str, name: &str, selector: &str| {
        ObjectIdentifier {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
            namespace: ns.into(),
            name: name.into(),
            selector: selector.into(),
        }
    };
    let (result, outcome) =
        certgate_templates::session::run_in_session(session(default_access()), || {
            let call = |name: &str, args: &[&str]| {
                let args: Vec<_> = args.iter().map(|a| s(a)).collect();
                map.get(name).expect("defined")(&args)
            };
            [
                call("fromSecret", &["", "s", "k"]).is_ok(),
                call("fromConfigMap", &["policies", "gone", "k"]).is_err(),
                call("lookup", &["v1", "ConfigMap", "", "", "app=web", "x"]).is_ok(),
                call("lookup", &["v1", "ConfigMap", "policies", ""]).is_ok(),
                call(
                    "lookup",
                    &["cluster.open-cluster-management.io/v1", "ManagedCluster", "policies", "c1"],
                )
                .is_ok(),
                call("lookup", &["v1", "ConfigMap", "other", "x"]).is_err(),
                call("lookup", &["v1", "Node", "", ""]).is_err(),
            ]
        });
    assert_eq!(result, [true; 7]);
    let reads: Vec<_> = outcome.reads.iter().cloned().collect();
    assert_eq!(
        reads,
        vec![
            id("", "v1", "ConfigMap", "policies", "", ""),
            id("", "v1", "ConfigMap", "policies", "", "app=web,x"),
            id("", "v1", "ConfigMap", "policies", "gone", ""),
            id("", "v1", "Secret", "policies", "s", ""),
            id("cluster.open-cluster-management.io", "v1", "ManagedCluster", "", "c1", ""),
        ]
    );
    assert!(outcome.has_sensitive_data);
    assert_eq!(outcome.read_error, Some(ErrorClass::Other));

    let (result, outcome) =
        call_in(&map, session(sa_access(&[], &[])), "fromSecret", &[s("other"), s("s2"), s("k")]);
    assert!(result.is_err());
    assert_eq!(
        outcome.reads.iter().cloned().collect::<Vec<_>>(),
        vec![id("", "v1", "Secret", "other", "s2", "")]
    );
    assert_eq!(outcome.read_error, Some(ErrorClass::AccessDenied));
    assert!(!outcome.has_sensitive_data);

    let (_, outcome) = call_in(
        &map,
        session(default_access()),
        "lookup",
        &[s("v1"), s("ConfigMap"), s(""), s("gone")],
    );
    assert_eq!(outcome.read_error, None, "lookup tolerates a missing object");
    assert_eq!(outcome.reads.len(), 1);
}

#[test]
fn wrong_arguments_use_gos_texts() {
    let map = hub_functions(&FunctionConfig::default());
    let (result, _) = call_in(&map, session(default_access()), "fromSecret", &[s("a")]);
    let error = result.expect_err("too few arguments");
    assert_eq!(error.message(), "wrong number of args for fromSecret: want 3 got 1");
    assert!(!error.is_call_error());
    let (result, _) = call_in(&map, session(default_access()), "lookup", &[s("v1")]);
    assert_eq!(
        result.expect_err("too few").message(),
        "wrong number of args for lookup: want at least 4 got 1"
    );
    let (result, _) = call_in(
        &map,
        session(default_access()),
        "fromConfigMap",
        &[s("a"), certgate_gotemplate::Value::Int(1), s("c")],
    );
    assert_eq!(
        result.expect_err("wrong type").message(),
        "wrong type for value; expected string; got int"
    );
    let (result, _) = call_in(
        &map,
        session(default_access()),
        "fromConfigMap",
        &[s("a"), certgate_gotemplate::Value::Nil, s("c")],
    );
    assert_eq!(result.expect_err("nil").message(), "invalid value; expected string");
}

#[test]
fn list_size_is_bounded() {
    let map = hub_functions(&FunctionConfig::default());
    let mut session = session(Access::unrestricted());
    session.max_list_items = 2;
    let (result, _) = call_in(&map, session, "lookup", &[s("v1"), s("Node"), s(""), s("")]);
    assert_eq!(
        result.expect_err("too many").message(),
        "the query for GroupVersion=v1, Kind=Node, Namespace=, Name= returned more than 2 objects; narrow it with a namespace or a label selector"
    );
}

#[test]
fn unwatchable_kinds_are_refused() {
    use certgate_templates::access::{InMemoryObjects, ResourceInfo};
    use certgate_templates::session::Session;
    use std::sync::Arc;
    let reader = InMemoryObjects::default()
        .with_kind(
            ResourceInfo::new("", "v1", "ComponentStatus", "componentstatuses", false)
                .with_verbs(&["get", "list"]),
        )
        .with_kind(
            ResourceInfo::new("example.com", "v1", "Widget", "widgets", true)
                .with_verbs(&["get", "list"]),
        );
    let map = hub_functions(&FunctionConfig::default());
    for (api_version, kind, want) in [
        (
            "v1",
            "ComponentStatus",
            "/v1, Kind=ComponentStatus cannot be watched: watch not supported on this resource",
        ),
        (
            "example.com/v1",
            "Widget",
            "example.com/v1, Kind=Widget cannot be watched: watch not supported on this resource",
        ),
    ] {
        let session = Session::new(Arc::new(reader.clone()), Access::unrestricted());
        let (result, outcome) =
            call_in(&map, session, "lookup", &[s(api_version), s(kind), s("ns"), s("x")]);
        assert_eq!(result.expect_err("unwatchable").message(), want);
        assert!(outcome.reads.is_empty());
    }
}
