//! What the policy approver reads besides the request: CertificateRequestPolicies,
//! Namespaces and RBAC objects, each kept in a reflector store, and the changes to them that
//! re-queue pending requests (approver-policy spec §3.1).
//!
//! Changes to policies, ClusterRoles, ClusterRoleBindings and Namespaces re-queue every
//! pending request; a Role or RoleBinding only those in its namespace. Objects from a
//! watch's first list are not changes (the requests are reviewed anyway when their own watch
//! lists them); a later re-list, after the watch lost its place, re-queues everything
//! because changes may have been missed in between.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use certgate_api::CertificateRequestPolicy;
use certgate_approval::NamespaceLookup;
use certgate_rbac::{RbacAuthorizer, RbacObjects};
use futures_util::stream::{self, BoxStream, StreamExt as _};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use kube::api::Api;
use kube::runtime::reflector::store::Writer;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt as _, watcher};
use kube::{Client, Resource};
use serde::de::DeserializeOwned;

/// Which pending requests a change concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Every pending request.
    All,
    /// The pending requests in this namespace.
    Namespace(String),
}

/// The stores the approver reads, filled through [`Feeds`]: by watches in production
/// ([`World::start`]), by hand in tests ([`World::new`]).
#[derive(Clone)]
pub struct World {
    pub policies: Store<CertificateRequestPolicy>,
    pub namespaces: Store<Namespace>,
    roles: Store<Role>,
    cluster_roles: Store<ClusterRole>,
    role_bindings: Store<RoleBinding>,
    cluster_role_bindings: Store<ClusterRoleBinding>,
    /// Bumped on every RBAC change, so the local authorizer is rebuilt at its next use.
    rbac_generation: Arc<AtomicU64>,
    local: Arc<Mutex<Option<LocalAuthorizer>>>,
}

/// The local authorizer and the RBAC generation it was built from.
type LocalAuthorizer = (u64, Arc<RbacAuthorizer>);

/// One watched kind's way into the [`World`]: it writes each watch event into the kind's
/// store and says which pending requests the event concerns. Watches and tests drive the
/// same code.
pub struct Feed<K: Resource<DynamicType = ()> + Clone + 'static> {
    writer: Writer<K>,
    listed_once: bool,
    change: fn(&K) -> Change,
    /// Set for RBAC kinds: their changes invalidate the local authorizer.
    rbac_generation: Option<Arc<AtomicU64>>,
}

impl<K: Resource<DynamicType = ()> + Clone + 'static> Feed<K> {
    fn new(change: fn(&K) -> Change, rbac_generation: Option<Arc<AtomicU64>>) -> (Store<K>, Self) {
        let (reader, writer) = reflector::store();
        (reader, Feed { writer, listed_once: false, change, rbac_generation })
    }

    /// Applies one watch event; the change it stands for, if any. Applied and deleted
    /// objects are changes; the first list is not; a later list is, of everything.
    pub fn apply(&mut self, event: watcher::Event<K>) -> Option<Change> {
        self.writer.apply_watcher_event(&event);
        let change = change_of(&event, &mut self.listed_once, self.change);
        if change.is_some()
            && let Some(generation) = &self.rbac_generation
        {
            generation.fetch_add(1, Ordering::AcqRel);
        }
        change
    }

    /// Lists `objects` as a watch's first list does (no change).
    pub fn list(&mut self, objects: impl IntoIterator<Item = K>) {
        self.apply(watcher::Event::Init);
        for object in objects {
            self.apply(watcher::Event::InitApply(object));
        }
        self.apply(watcher::Event::InitDone);
    }
}

/// The feeds of every store of a [`World`].
pub struct Feeds {
    pub policies: Feed<CertificateRequestPolicy>,
    pub namespaces: Feed<Namespace>,
    pub roles: Feed<Role>,
    pub cluster_roles: Feed<ClusterRole>,
    pub role_bindings: Feed<RoleBinding>,
    pub cluster_role_bindings: Feed<ClusterRoleBinding>,
}

impl World {
    /// Empty stores, and the feeds that fill them. The world is ready once every feed has
    /// listed once.
    pub fn new() -> (World, Feeds) {
        let rbac_generation = Arc::new(AtomicU64::new(0));
        let rbac = Some(Arc::clone(&rbac_generation));
        let (policies, policy_feed) = Feed::new(|_| Change::All, None);
        let (namespaces, namespace_feed) = Feed::new(|_| Change::All, None);
        let (roles, role_feed) = Feed::new(namespaced, rbac.clone());
        let (cluster_roles, cluster_role_feed) = Feed::new(|_| Change::All, rbac.clone());
        let (role_bindings, role_binding_feed) = Feed::new(namespaced, rbac.clone());
        let (cluster_role_bindings, cluster_role_binding_feed) = Feed::new(|_| Change::All, rbac);
        let world = World {
            policies,
            namespaces,
            roles,
            cluster_roles,
            role_bindings,
            cluster_role_bindings,
            rbac_generation,
            local: Arc::default(),
        };
        let feeds = Feeds {
            policies: policy_feed,
            namespaces: namespace_feed,
            roles: role_feed,
            cluster_roles: cluster_role_feed,
            role_bindings: role_binding_feed,
            cluster_role_bindings: cluster_role_binding_feed,
        };
        (world, feeds)
    }

    /// The stores, and the stream of changes that drives their watches: it must be polled
    /// (the caller spawns it) for the stores to fill.
    pub fn start(client: &Client) -> (World, BoxStream<'static, Change>) {
        let (world, feeds) = World::new();
        let changes = stream::select_all([
            watch(client, feeds.policies),
            watch(client, feeds.namespaces),
            watch(client, feeds.roles),
            watch(client, feeds.cluster_roles),
            watch(client, feeds.role_bindings),
            watch(client, feeds.cluster_role_bindings),
        ])
        .boxed();
        (world, changes)
    }

    /// A ready world holding exactly these objects, without watches (for tests and
    /// benchmarks).
    pub fn with_objects(
        policies: Vec<CertificateRequestPolicy>,
        namespaces: Vec<Namespace>,
        rbac: RbacObjects,
    ) -> World {
        let (world, mut feeds) = World::new();
        feeds.policies.list(policies);
        feeds.namespaces.list(namespaces);
        feeds.roles.list(rbac.roles);
        feeds.cluster_roles.list(rbac.cluster_roles);
        feeds.role_bindings.list(rbac.role_bindings);
        feeds.cluster_role_bindings.list(rbac.cluster_role_bindings);
        world
    }

    /// Completes when every watch has listed its objects once.
    pub async fn ready(&self) -> Result<(), reflector::store::WriterDropped> {
        self.policies.wait_until_ready().await?;
        self.namespaces.wait_until_ready().await?;
        self.roles.wait_until_ready().await?;
        self.cluster_roles.wait_until_ready().await?;
        self.role_bindings.wait_until_ready().await?;
        self.cluster_role_bindings.wait_until_ready().await
    }

    /// An RBAC authorizer over the watched objects (`--authorizer=local`), rebuilt after a
    /// change. A build that races with a change is kept under the old generation and rebuilt
    /// at the next use.
    pub fn local_authorizer(&self) -> Arc<RbacAuthorizer> {
        let generation = self.rbac_generation.load(Ordering::Acquire);
        let mut cached = self.local.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((built, authorizer)) = &*cached
            && *built == generation
        {
            return Arc::clone(authorizer);
        }
        let objects = RbacObjects {
            roles: owned(&self.roles),
            cluster_roles: owned(&self.cluster_roles),
            role_bindings: owned(&self.role_bindings),
            cluster_role_bindings: owned(&self.cluster_role_bindings),
        };
        let authorizer = Arc::new(RbacAuthorizer::new(objects));
        *cached = Some((generation, Arc::clone(&authorizer)));
        authorizer
    }
}

impl NamespaceLookup for World {
    fn labels(&self, namespace: &str) -> Result<BTreeMap<String, String>, String> {
        match self.namespaces.get(&ObjectRef::new(namespace)) {
            Some(found) => Ok(found.metadata.labels.clone().unwrap_or_default()),
            // The review prefixes `failed to get request's namespace to determine namespace
            // selector: `; this is the API server's NotFound text.
            None => Err(format!("namespaces {} not found", certgate_gofmt::quote(namespace))),
        }
    }
}

fn owned<K: Clone + Resource<DynamicType = ()>>(store: &Store<K>) -> Vec<K> {
    store.state().iter().map(|object| K::clone(object)).collect()
}

fn namespaced<K: Resource>(object: &K) -> Change {
    Change::Namespace(object.meta().namespace.clone().unwrap_or_default())
}

/// The watch of every `K`, feeding `feed`: the stream of the changes it reports.
fn watch<K>(client: &Client, mut feed: Feed<K>) -> BoxStream<'static, Change>
where
    K: Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    let api: Api<K> = Api::all(client.clone());
    watcher(api, watcher::Config::default())
        .default_backoff()
        .filter_map(move |event| {
            let change = match event {
                Ok(event) => feed.apply(event),
                Err(err) => {
                    tracing::warn!(kind = %K::kind(&()), error = %err, "watch failed; retrying");
                    None
                }
            };
            std::future::ready(change)
        })
        .boxed()
}

/// The change a watch event stands for: applied and deleted objects are changes; the first
/// list is not (`listed_once` becomes true at its end); a later list is, of everything.
fn change_of<K>(
    event: &watcher::Event<K>,
    listed_once: &mut bool,
    change: fn(&K) -> Change,
) -> Option<Change> {
    match event {
        watcher::Event::Apply(object) | watcher::Event::Delete(object) => Some(change(object)),
        watcher::Event::InitDone => {
            let relisted = *listed_once;
            *listed_once = true;
            relisted.then_some(Change::All)
        }
        watcher::Event::Init | watcher::Event::InitApply(_) => None,
    }
}

/// The pending requests among `requests` that `change` concerns.
pub fn affected<K>(
    requests: &[Arc<K>],
    change: &Change,
    pending: impl Fn(&K) -> bool,
) -> Vec<ObjectRef<K>>
where
    K: Resource<DynamicType = ()>,
{
    requests
        .iter()
        .filter(|request| match change {
            Change::All => true,
            Change::Namespace(namespace) => {
                request.meta().namespace.as_deref() == Some(namespace.as_str())
            }
        })
        .filter(|request| pending(request))
        .map(|request| ObjectRef::from_obj(request.as_ref()))
        .collect()
}

#[cfg(test)]
mod tests {
    use certgate_api::CertificateRequest;

    use super::*;

    fn request(namespace: &str, name: &str, decided: bool) -> Arc<CertificateRequest> {
        let mut cr = CertificateRequest::new("request", Default::default());
        cr.metadata.namespace = Some(namespace.to_owned());
        cr.metadata.name = Some(name.to_owned());
        cr.metadata.labels = decided.then(|| [("decided".to_owned(), String::new())].into());
        Arc::new(cr)
    }

    fn names(refs: Vec<ObjectRef<CertificateRequest>>) -> Vec<String> {
        refs.into_iter()
            .map(|r| format!("{}/{}", r.namespace.unwrap_or_default(), r.name))
            .collect()
    }

    #[test]
    fn cluster_wide_changes_requeue_every_pending_request_and_namespaced_ones_their_namespace() {
        let requests =
            [request("a", "one", false), request("a", "two", true), request("b", "three", false)];
        let pending = |cr: &CertificateRequest| cr.metadata.labels.is_none();
        assert_eq!(names(affected(&requests, &Change::All, pending)), ["a/one", "b/three"]);
        assert_eq!(
            names(affected(&requests, &Change::Namespace("b".to_owned()), pending)),
            ["b/three"]
        );
        assert!(affected(&requests, &Change::Namespace("c".to_owned()), pending).is_empty());
    }

    #[test]
    fn the_first_list_is_no_change_later_events_are_and_a_relist_concerns_everything() {
        let mut role = Role::default();
        role.metadata.namespace = Some("team-a".to_owned());
        let mut listed_once = false;
        let mut next =
            |event: watcher::Event<Role>| change_of(&event, &mut listed_once, namespaced);
        assert_eq!(next(watcher::Event::Init), None);
        assert_eq!(next(watcher::Event::InitApply(role.clone())), None);
        assert_eq!(next(watcher::Event::InitDone), None);
        assert_eq!(
            next(watcher::Event::Apply(role.clone())),
            Some(Change::Namespace("team-a".to_owned()))
        );
        assert_eq!(
            next(watcher::Event::Delete(role.clone())),
            Some(Change::Namespace("team-a".to_owned()))
        );
        assert_eq!(next(watcher::Event::Init), None);
        assert_eq!(next(watcher::Event::InitApply(role)), None);
        assert_eq!(next(watcher::Event::InitDone), Some(Change::All));
    }

    #[test]
    fn roles_and_bindings_concern_their_namespace_only() {
        let mut role = Role::default();
        role.metadata.namespace = Some("team-a".to_owned());
        assert_eq!(namespaced(&role), Change::Namespace("team-a".to_owned()));
    }
}
