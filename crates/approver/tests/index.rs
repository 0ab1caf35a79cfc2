//! The approver's index on its own (linkerd's `k8s/index` pattern): given these objects and
//! these watch events, these pending requests are affected, and the local authorizer and
//! namespace lookups see the objects the events left.

use std::sync::Arc;

use certgate_api::{CertificateRequest, CertificateRequestPolicy};
use certgate_approval::NamespaceLookup as _;
use certgate_approver::world::{Change, World, affected};
use certgate_rbac::{AccessReview, Authorizer as _, RbacObjects, ResourceAttributes, UserInfo};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRole, Role, RoleBinding};
use kube::runtime::watcher::Event;
use serde_json::json;

fn object<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    serde_json::from_value(value).expect("fixture")
}

fn request(namespace: &str, name: &str, decided: bool) -> Arc<CertificateRequest> {
    let mut conditions = vec![];
    if decided {
        conditions.push(json!({"type": "Approved", "status": "True", "reason": "r"}));
    }
    Arc::new(object(json!({
        "apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"request": "", "issuerRef": {"name": "ca"}},
        "status": {"conditions": conditions},
    })))
}

fn pending(cr: &CertificateRequest) -> bool {
    cr.status.as_ref().and_then(|status| status.conditions.as_ref()).is_none_or(Vec::is_empty)
}

fn requests() -> Vec<Arc<CertificateRequest>> {
    vec![
        request("team-a", "one", false),
        request("team-a", "decided", true),
        request("team-b", "two", false),
        request("team-c", "three", false),
    ]
}

fn names(change: &Change) -> Vec<String> {
    affected(&requests(), change, pending)
        .into_iter()
        .map(|r| format!("{}/{}", r.namespace.unwrap_or_default(), r.name))
        .collect()
}

fn policy(name: &str) -> CertificateRequestPolicy {
    object(json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1", "kind": "CertificateRequestPolicy",
        "metadata": {"name": name},
        "spec": {"allowed": {"commonName": {"value": "*"}}, "selector": {"issuerRef": {}}},
    }))
}

fn namespace(name: &str, labels: serde_json::Value) -> Namespace {
    object(json!({"metadata": {"name": name, "labels": labels}}))
}

fn role(namespace: &str) -> Role {
    object(json!({"metadata": {"name": "use-policies", "namespace": namespace},
        "rules": [{"apiGroups": ["policy.cert-manager.io"],
            "resources": ["certificaterequestpolicies"], "verbs": ["use"]}]}))
}

fn binding(namespace: &str, user: &str) -> RoleBinding {
    object(json!({"metadata": {"name": "use-policies", "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "use-policies"},
        "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": user}]}))
}

fn may_use(world: &World, namespace: &str, user: &str) -> bool {
    let review = AccessReview {
        user: UserInfo { username: user.to_owned(), ..UserInfo::default() },
        resource: ResourceAttributes {
            namespace: namespace.to_owned(),
            verb: "use".to_owned(),
            group: "policy.cert-manager.io".to_owned(),
            resource: "certificaterequestpolicies".to_owned(),
            ..ResourceAttributes::default()
        },
    };
    world.local_authorizer().authorize(&review).expect("local RBAC answers").allowed
}

#[test]
fn the_first_list_changes_nothing_and_every_later_event_says_whom_it_concerns() {
    let (world, mut feeds) = World::new();
    feeds.policies.list([policy("dns")]);
    feeds.namespaces.list([namespace("team-a", json!({}))]);
    feeds.roles.list([role("team-a")]);
    feeds.cluster_roles.list([]);
    feeds.role_bindings.list([]);
    feeds.cluster_role_bindings.list([]);
    assert_eq!(world.policies.state().len(), 1);

    // Namespaced RBAC concerns the pending requests of its namespace only.
    let change = feeds.role_bindings.apply(Event::Apply(binding("team-b", "bob")));
    assert_eq!(change, Some(Change::Namespace("team-b".to_owned())));
    assert_eq!(names(&change.unwrap()), ["team-b/two"]);
    let change = feeds.roles.apply(Event::Delete(role("team-a")));
    assert_eq!(names(&change.unwrap()), ["team-a/one"]);

    // Policies, Namespaces and cluster-wide RBAC concern every pending request.
    let all = ["team-a/one", "team-b/two", "team-c/three"];
    let change = feeds.policies.apply(Event::Apply(policy("spiffe")));
    assert_eq!(names(&change.unwrap()), all);
    assert_eq!(world.policies.state().len(), 2);
    let change = feeds.policies.apply(Event::Delete(policy("dns")));
    assert_eq!(names(&change.unwrap()), all);
    assert_eq!(world.policies.state().len(), 1);
    let change = feeds.namespaces.apply(Event::Apply(namespace("team-c", json!({"x": "y"}))));
    assert_eq!(names(&change.unwrap()), all);
    let cluster_role: ClusterRole = object(json!({"metadata": {"name": "c"}}));
    assert_eq!(names(&feeds.cluster_roles.apply(Event::Apply(cluster_role)).unwrap()), all);

    // A re-list after a lost watch may hide changes: it concerns everything, and only its end.
    assert_eq!(feeds.roles.apply(Event::Init), None);
    assert_eq!(feeds.roles.apply(Event::InitApply(role("team-b"))), None);
    assert_eq!(feeds.roles.apply(Event::InitDone), Some(Change::All));
}

#[test]
fn the_local_authorizer_follows_rbac_events_and_is_reused_between_them() {
    let (world, mut feeds) = World::new();
    feeds.roles.list([role("team-a")]);
    feeds.role_bindings.list([]);
    feeds.cluster_roles.list([]);
    feeds.cluster_role_bindings.list([]);
    assert!(!may_use(&world, "team-a", "alice"));
    let before = world.local_authorizer();
    assert!(Arc::ptr_eq(&before, &world.local_authorizer()), "unchanged RBAC reuses the build");

    feeds.role_bindings.apply(Event::Apply(binding("team-a", "alice")));
    assert!(may_use(&world, "team-a", "alice"));
    assert!(!may_use(&world, "team-b", "alice"));
    // A policy or Namespace change leaves the RBAC build alone.
    let built = world.local_authorizer();
    feeds.policies.apply(Event::Apply(policy("dns")));
    assert!(Arc::ptr_eq(&built, &world.local_authorizer()));

    feeds.role_bindings.apply(Event::Delete(binding("team-a", "alice")));
    assert!(!may_use(&world, "team-a", "alice"));
}

#[test]
fn namespace_lookups_read_the_store_and_say_not_found_as_the_api_server() {
    let world = World::with_objects(
        vec![],
        vec![namespace("payments", json!({"spiffe.example.org/enabled": "true"}))],
        RbacObjects::default(),
    );
    assert_eq!(
        world.labels("payments"),
        Ok([("spiffe.example.org/enabled".to_owned(), "true".to_owned())].into())
    );
    assert_eq!(world.labels("nope"), Err(r#"namespaces "nope" not found"#.to_owned()));
}

#[tokio::test]
async fn a_world_is_ready_once_every_feed_has_listed() {
    let (world, mut feeds) = World::new();
    feeds.policies.list([]);
    feeds.namespaces.list([]);
    feeds.roles.list([]);
    feeds.cluster_roles.list([]);
    feeds.role_bindings.list([]);
    let waiting = tokio::spawn({
        let world = world.clone();
        async move { world.ready().await.is_ok() }
    });
    tokio::task::yield_now().await;
    assert!(!waiting.is_finished(), "ready before the last feed listed");
    feeds.cluster_role_bindings.list([]);
    assert!(waiting.await.unwrap());
}
