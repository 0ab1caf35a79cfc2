//! The lookup routine directly: check order, error classes and the ObjectReader contract.

#[path = "functions_common.rs"]
mod common;

use std::sync::Arc;

use certgate_templates::access::{
    Access, ErrorClass, Found, InMemoryObjects, LabelSelector, LookupError, ObjectReader, Query,
    ReadError, ReadSet, ResourceInfo, RetryReason, lookup,
};
use common::*;
use pretty_assertions::assert_eq;

fn query<'a>(
    api_version: &'a str,
    kind: &'a str,
    namespace: &'a str,
    name: &'a str,
    selector: &'a [&'a str],
) -> Query<'a> {
    Query { api_version, kind, namespace, name, selector }
}

fn run(access: &Access, q: Query<'_>) -> (Result<Found, LookupError>, ReadSet) {
    let reader = hub_objects();
    let mut reads = ReadSet::new();
    let result = lookup(&reader, access, &mut reads, &q, 10_000);
    (result, reads)
}

#[test]
fn checks_run_in_upstream_order() {
    let access = default_access();
    #[rustfmt::skip]
    let cases: Vec<(Query<'_>, &str)> = vec![
        // apiVersion/kind before the namespace restriction
        (query("", "ConfigMap", "other", "x", &[]), "the apiVersion and kind are required"),
        // restriction before apiVersion parsing and selector parsing
        (query("a/b/c", "ConfigMap", "other", "", &["a IN (b)"]), "the namespace argument is restricted to policies"),
        // apiVersion parsing before the selector
        (query("a/b/c", "ConfigMap", "", "", &["a IN (b)"]), "unexpected GroupVersion string: a/b/c"),
        // selector before discovery
        (query("example.com/v1", "Widget", "", "", &["a IN (b)"]), "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt"),
        // discovery before the cluster-scoped allowlist
        (query("cluster.open-cluster-management.io/v1beta1", "ClusterClaim", "", "x", &[]), "one or more API resources are not installed on the API server"),
        (query("v1", "Namespace", "", "policies", &[]), "lookup of cluster-scoped resource 'Namespace/policies' is not allowed"),
    ];
    for (q, want) in cases {
        let (result, reads) = run(&access, q);
        assert_eq!(result.map(|_| ()).map_err(|e| e.to_string()), Err(want.to_owned()), "{q:?}");
        assert!(reads.is_empty(), "failed checks read nothing: {q:?}");
    }
}

#[test]
fn selector_only_when_first_argument_is_set() {
    let (result, reads) =
        run(&default_access(), query("v1", "ConfigMap", "", "", &["", "app=nothing"]));
    match result {
        Ok(Found::List(items)) => assert_eq!(items.len(), 2),
        other => panic!("expected a list, got {other:?}"),
    }
    assert_eq!(reads.iter().next().map(|id| id.selector.as_str()), Some(""));
}

/// A reader whose reads fail, to check error classes and wrapping.
struct Failing(ReadError);

impl ObjectReader for Failing {
    fn resource(&self, api_version: &str, kind: &str) -> Option<ResourceInfo> {
        InMemoryObjects::default().resource(api_version, kind)
    }
    fn get(
        &self,
        _: &ResourceInfo,
        _: &str,
        _: &str,
    ) -> Result<Option<Arc<serde_json::Value>>, ReadError> {
        Err(self.0.clone())
    }
    fn list(
        &self,
        _: &ResourceInfo,
        _: &str,
        _: &LabelSelector,
    ) -> Result<Vec<Arc<serde_json::Value>>, ReadError> {
        Err(self.0.clone())
    }
}

#[test]
fn read_errors_keep_their_class() {
    let forbidden = r#"secrets "s" is forbidden: User "system:serviceaccount:ocm:propagator" cannot list resource "secrets" in API group "" in the namespace "policies""#;
    #[rustfmt::skip]
    let cases = [
        (ReadError::Forbidden(forbidden.into()), ErrorClass::AccessDenied,
            format!("{forbidden}: ensure the client has the list and watch permissions for the query: GroupVersion=v1, Kind=Secret, Namespace=policies, Name=s")),
        (ReadError::Unauthorized("Unauthorized".into()), ErrorClass::AccessDenied,
            "Unauthorized: ensure the client has the list and watch permissions for the query: GroupVersion=v1, Kind=Secret, Namespace=policies, Name=s".to_owned()),
        (ReadError::Transient { reason: RetryReason::ServiceUnavailable, message: "the server is currently unable to handle the request".into() },
            ErrorClass::Retryable, "the server is currently unable to handle the request".to_owned()),
        (ReadError::Transient { reason: RetryReason::WatchStopping, message: "the watched object has a watch being stopped".into() },
            ErrorClass::Retryable, "the watched object has a watch being stopped".to_owned()),
        (ReadError::MissingApiResource, ErrorClass::Retryable, "one or more API resources are not installed on the API server".to_owned()),
        (ReadError::Other("watch not supported on this resource".into()), ErrorClass::Other, "watch not supported on this resource".to_owned()),
    ];
    for (error, class, text) in cases {
        assert_eq!(error.is_retryable(), class == ErrorClass::Retryable);
        let reader = Failing(error);
        let mut reads = ReadSet::new();
        let result = lookup(
            &reader,
            &default_access(),
            &mut reads,
            &query("v1", "Secret", "", "s", &[]),
            10,
        );
        let error = result.expect_err("reads fail");
        assert_eq!((error.class(), error.to_string()), (class, text));
        assert_eq!(reads.len(), 1, "failed reads are still watched");
    }
}

#[test]
fn service_account_reads_are_authorized_for_list_and_watch() {
    let allowed = sa_access(&["secrets"], &["list", "watch"]);
    let (result, reads) = run(&allowed, query("v1", "Secret", "other", "s2", &[]));
    assert!(matches!(result, Ok(Found::Object(_))));
    assert_eq!(
        reads.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["GroupVersion=v1, Kind=Secret, Namespace=other, Name=s2"]
    );

    // A list of one namespace is allowed by the RoleBinding; all namespaces is not.
    assert!(matches!(run(&allowed, query("v1", "Secret", "other", "", &[])).0, Ok(Found::List(_))));
    let (result, reads) = run(&allowed, query("v1", "Secret", "", "", &["a=b"]));
    assert_eq!(
        result.map(|_| ()).map_err(|e| e.to_string()),
        Err(r#"secrets is forbidden: User "system:serviceaccount:policies:sa" cannot list resource "secrets" in API group "" at the cluster scope: ensure the client has the list and watch permissions for the query: GroupVersion=v1, Kind=Secret, Namespace=, Name=, Selector=a=b"#.to_owned())
    );
    assert_eq!(reads.len(), 1);

    // A RoleBinding naming a missing Role: RBAC's reason is appended to the 403 text.
    let objects = rbac(&[
        serde_json::json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "b", "namespace": "other"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "missing"},
        "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "policies"}]}),
    ]);
    let access = Access::ServiceAccount {
        namespace: "policies".into(),
        name: "sa".into(),
        authorizer: Arc::new(certgate_rbac::RbacAuthorizer::new(objects)),
    };
    let error = run(&access, query("v1", "Secret", "other", "s2", &[])).0.expect_err("denied");
    assert!(error.to_string().contains(r#"in the namespace "other": RBAC: role.rbac.authorization.k8s.io "missing" not found: ensure"#), "{error}");
}
