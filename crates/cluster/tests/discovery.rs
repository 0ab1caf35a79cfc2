//! DiscoveryKindResolver against a fake API server: how it finds a kind, and which answers
//! it caches for how long.

mod support;

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use certgate_clock::ManualClock;
use certgate_cluster::{DEFAULT_FOUND_TTL, DEFAULT_NOT_FOUND_TTL, DiscoveryKindResolver};
use certgate_rbac::{KindResolver, ResolvedKind};
use http::Method;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{FakeApi, status_body};

const CM_V1: &str = "/apis/cert-manager.io/v1";

fn group(name: &str, versions: &[&str]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"groupVersion": format!("{name}/{v}"), "version": v}))
        .collect();
    json!({"name": name, "versions": versions, "preferredVersion": versions.last()})
}

fn groups(api: &FakeApi, groups: Vec<Value>) {
    api.respond(
        Method::GET,
        "/apis",
        200,
        json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}),
    );
}

/// `(name, kind, namespaced)` triples as an APIResourceList.
fn resources(api: &FakeApi, path: &str, group_version: &str, list: &[(&str, &str, bool)]) {
    let resources: Vec<Value> = list
        .iter()
        .map(|(name, kind, namespaced)| {
            json!({"name": name, "singularName": "", "namespaced": namespaced, "kind": kind, "verbs": ["get"]})
        })
        .collect();
    api.respond(
        Method::GET,
        path,
        200,
        json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}),
    );
}

/// A cluster with cert-manager installed; the status subresources come first so that a
/// resolver that did not skip subresources would return them.
fn cert_manager(api: &FakeApi) {
    groups(api, vec![group("apps", &["v1"]), group("cert-manager.io", &["v1"])]);
    resources(
        api,
        CM_V1,
        "cert-manager.io/v1",
        &[
            ("issuers/status", "Issuer", true),
            ("clusterissuers/status", "ClusterIssuer", false),
            ("certificaterequests", "CertificateRequest", true),
            ("issuers", "Issuer", true),
            ("clusterissuers", "ClusterIssuer", false),
        ],
    );
}

fn resolver(api: &Arc<FakeApi>) -> (DiscoveryKindResolver, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::default());
    let entries = NonZeroUsize::new(64).unwrap_or(NonZeroUsize::MIN);
    (DiscoveryKindResolver::new(api.client()).with_cache(entries, clock.clone()), clock)
}

fn kind(plural: &str, namespaced: bool) -> Option<ResolvedKind> {
    Some(ResolvedKind { plural: plural.to_owned(), namespaced })
}

#[tokio::test]
async fn resolves_namespaced_and_cluster_scoped_kinds_skipping_subresources() {
    let api = FakeApi::new();
    cert_manager(&api);
    let (resolver, _clock) = resolver(&api);

    assert_eq!(resolver.resolve("cert-manager.io", "Issuer").await, Ok(kind("issuers", true)));
    assert_eq!(
        resolver.resolve("cert-manager.io", "ClusterIssuer").await,
        Ok(kind("clusterissuers", false))
    );
    assert_eq!(
        api.calls(),
        vec![
            "GET /apis",
            "GET /apis/cert-manager.io/v1",
            "GET /apis",
            "GET /apis/cert-manager.io/v1"
        ]
    );
}

#[tokio::test]
async fn versions_are_scanned_in_listed_order_and_the_first_match_wins() {
    let api = FakeApi::new();
    groups(&api, vec![group("example.io", &["v1beta1", "v1", "v2"])]);
    resources(
        &api,
        "/apis/example.io/v1beta1",
        "example.io/v1beta1",
        &[("gadgets", "Gadget", true)],
    );
    resources(&api, "/apis/example.io/v1", "example.io/v1", &[("widgets", "Widget", false)]);
    resources(&api, "/apis/example.io/v2", "example.io/v2", &[("widgetsv2", "Widget", true)]);
    let (resolver, _clock) = resolver(&api);

    assert_eq!(resolver.resolve("example.io", "Widget").await, Ok(kind("widgets", false)));
    assert_eq!(
        api.calls(),
        vec!["GET /apis", "GET /apis/example.io/v1beta1", "GET /apis/example.io/v1"]
    );
}

#[tokio::test]
async fn kinds_match_exactly() {
    let api = FakeApi::new();
    cert_manager(&api);
    let (resolver, _clock) = resolver(&api);

    assert_eq!(resolver.resolve("cert-manager.io", "issuer").await, Ok(None));
}

#[tokio::test]
async fn the_core_group_is_discovered_under_api() {
    let api = FakeApi::new();
    api.respond(
        Method::GET,
        "/api",
        200,
        json!({"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}),
    );
    resources(&api, "/api/v1", "v1", &[("pods", "Pod", true), ("pods/status", "Pod", true)]);
    let (resolver, _clock) = resolver(&api);

    assert_eq!(resolver.resolve("", "Pod").await, Ok(kind("pods", true)));
    assert_eq!(api.calls(), vec!["GET /api", "GET /api/v1"]);
}

#[tokio::test]
async fn found_kinds_are_cached_until_their_ttl_ends() {
    let api = FakeApi::new();
    cert_manager(&api);
    let (resolver, clock) = resolver(&api);

    assert_eq!(resolver.resolve("cert-manager.io", "Issuer").await, Ok(kind("issuers", true)));
    // The CRD is recreated cluster-scoped; the cached answer stands until the TTL ends.
    resources(&api, CM_V1, "cert-manager.io/v1", &[("issuers", "Issuer", false)]);
    clock.advance(DEFAULT_FOUND_TTL - Duration::from_millis(1));
    assert_eq!(resolver.resolve("cert-manager.io", "Issuer").await, Ok(kind("issuers", true)));
    assert_eq!(api.requests().len(), 2);

    clock.advance(Duration::from_millis(1));
    assert_eq!(resolver.resolve("cert-manager.io", "Issuer").await, Ok(kind("issuers", false)));
    assert_eq!(api.requests().len(), 4);
}

#[tokio::test]
async fn an_unknown_kind_in_an_existing_group_is_cached_for_thirty_seconds() {
    let api = FakeApi::new();
    cert_manager(&api);
    let (resolver, clock) = resolver(&api);
    assert_eq!(DEFAULT_NOT_FOUND_TTL, Duration::from_secs(30));

    assert_eq!(resolver.resolve("cert-manager.io", "VaultIssuer").await, Ok(None));
    resources(&api, CM_V1, "cert-manager.io/v1", &[("vaultissuers", "VaultIssuer", true)]);
    clock.advance(Duration::from_millis(29_999));
    assert_eq!(resolver.resolve("cert-manager.io", "VaultIssuer").await, Ok(None));
    assert_eq!(api.requests().len(), 2);

    clock.advance(Duration::from_millis(1));
    assert_eq!(
        resolver.resolve("cert-manager.io", "VaultIssuer").await,
        Ok(kind("vaultissuers", true))
    );
    assert_eq!(api.requests().len(), 4);
}

#[tokio::test]
async fn a_missing_group_is_asked_again_on_every_call() {
    let api = FakeApi::new();
    cert_manager(&api);
    let (resolver, _clock) = resolver(&api);

    assert_eq!(resolver.resolve("example.io", "MyIssuer").await, Ok(None));
    assert_eq!(resolver.resolve("example.io", "MyIssuer").await, Ok(None));
    assert_eq!(api.calls(), vec!["GET /apis", "GET /apis"]);

    // The CRD has now propagated: the very next call finds it.
    groups(&api, vec![group("cert-manager.io", &["v1"]), group("example.io", &["v1"])]);
    resources(&api, "/apis/example.io/v1", "example.io/v1", &[("myissuers", "MyIssuer", true)]);
    assert_eq!(resolver.resolve("example.io", "MyIssuer").await, Ok(kind("myissuers", true)));
}

#[tokio::test]
async fn group_listing_errors_are_reported_and_not_cached() {
    let api = FakeApi::new();
    api.respond(
        Method::GET,
        "/apis",
        503,
        status_body(503, "ServiceUnavailable", "the server is shutting down"),
    );
    let (resolver, _clock) = resolver(&api);

    let err = resolver.resolve("cert-manager.io", "Issuer").await;

    assert_eq!(
        err.map_err(|e| e.message),
        Err("resolving kind \"Issuer\" in API group \"cert-manager.io\": API discovery failed \
             listing API groups (GET /apis): the API server answered HTTP 503 \
             (ServiceUnavailable): the server is shutting down; denying. Check that the API \
             server is reachable and that certgate may read discovery"
            .to_owned())
    );
    cert_manager(&api);
    assert_eq!(resolver.resolve("cert-manager.io", "Issuer").await, Ok(kind("issuers", true)));
}

#[tokio::test]
async fn resource_listing_errors_are_reported_and_not_cached() {
    let api = FakeApi::new();
    cert_manager(&api);
    api.forget(Method::GET, CM_V1);
    let (resolver, _clock) = resolver(&api);

    let err = resolver.resolve("cert-manager.io", "Issuer").await;

    assert_eq!(
        err.map_err(|e| e.message),
        Err("resolving kind \"Issuer\" in API group \"cert-manager.io\": API discovery failed \
             listing resources (GET /apis/cert-manager.io/v1): the API server answered HTTP 404 \
             (NotFound): the server could not find the requested resource; denying. Check that \
             the API server and any aggregated API serving this group are available"
            .to_owned())
    );
    cert_manager(&api);
    assert_eq!(resolver.resolve("cert-manager.io", "Issuer").await, Ok(kind("issuers", true)));
}

#[tokio::test]
async fn an_undecodable_answer_is_an_error() {
    let api = FakeApi::new();
    api.respond(Method::GET, "/apis", 200, json!({"groups": "not a list"}));
    let (resolver, _clock) = resolver(&api);

    let err = resolver.resolve("cert-manager.io", "Issuer").await.map_err(|e| e.message);

    let message = err.err().unwrap_or_default();
    assert!(
        message.starts_with(
            "resolving kind \"Issuer\" in API group \"cert-manager.io\": API discovery failed \
             listing API groups (GET /apis): Error deserializing response: "
        ),
        "{message}"
    );
}

#[tokio::test]
async fn zero_ttls_disable_both_caches() {
    let api = FakeApi::new();
    cert_manager(&api);
    let (resolver, _clock) = resolver(&api);
    let resolver = resolver.with_ttls(Duration::ZERO, Duration::ZERO);

    assert_eq!(resolver.resolve("cert-manager.io", "Issuer").await, Ok(kind("issuers", true)));
    assert_eq!(resolver.resolve("cert-manager.io", "Issuer").await, Ok(kind("issuers", true)));
    assert_eq!(resolver.resolve("cert-manager.io", "Nope").await, Ok(None));
    assert_eq!(resolver.resolve("cert-manager.io", "Nope").await, Ok(None));

    assert_eq!(api.requests().len(), 8);
}
