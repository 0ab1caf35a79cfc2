//! certgate's OCM policy propagation, live: the `policy-propagator` controller, API-compatible
//! with open-cluster-management's governance-policy-propagator (behaviour:
//! `../shared/spec/ocm-hub-templates.md` §2–§9).
//!
//! - [`index`]: every Policy (as JSON), PlacementBinding, PolicySet, Placement,
//!   PlacementDecision and ManagedCluster in watched stores, answering the pure placement
//!   decisions of `certgate_templates::propagation`;
//! - `root`: the root-policy reconcile: decisions → the root's `status` → the replicated
//!   reconciles they concern;
//! - `replica`: the replicated-policy reconcile: delete, leave alone or build the replica,
//!   resolve its hub templates, write it and record events on the root;
//! - [`reads`]: hub template reads from deduplicated watches that re-queue exactly the
//!   replicas reading a changed object;
//! - `accounts`: hub templates under a ServiceAccount: one reader per ServiceAccount in use,
//!   reading with tokens from the TokenRequest API, renewed before they expire;
//! - `encryption`: the per-cluster `policy-encryption-key` Secrets.
//!
//! Reconciles run on [`certgate_runtime::workqueue`] queues keyed by object name, because a
//! replica to create is not in any cache yet.
#![forbid(unsafe_code)]

mod accounts;
mod context;
mod effects;
mod encryption;
pub mod index;
mod keys;
mod own_writes;
mod policy_events;
pub mod reads;
mod replica;
mod root;
mod root_json;
mod stored;

use std::sync::Arc;
use std::time::Instant;

use certgate_api::ocm::{
    ManagedCluster, Placement, PlacementBinding, PlacementDecision, PolicySet,
};
use certgate_runtime::workqueue::{Backoff, WorkQueue, run_workers};
use certgate_runtime::{ControllerSpec, Launch};
use certgate_templates::pipeline::{HubResolver, ResolverConfig};
use futures_util::{FutureExt as _, StreamExt as _};
use k8s_openapi::api::core::v1::Secret;
use kube::Resource;
use kube::api::{Api, DynamicObject};
use kube::runtime::WatchStreamExt as _;
use kube::runtime::reflector::store::Writer;
use kube::runtime::watcher;
use serde::de::DeserializeOwned;

use context::{Context, Resolvers};
use effects::KubeEffects;
use encryption::LiveEncryption;
use index::{Index, policy_resource};
use policy_events::{PolicyEvents, Seen};
use reads::WatchCache;
use stored::StoredPolicy;

/// The controller's name, as `--controllers`, events and metrics name it.
pub const NAME: &str = "policy-propagator";

/// Upstream's concurrency defaults: replicated-policy reconciles 10, root reconciles 2.
const REPLICA_WORKERS: usize = 10;
const ROOT_WORKERS: usize = 2;

pub const SPEC: ControllerSpec = ControllerSpec {
    name: NAME,
    on_by_default: false,
    summary: "OCM's governance-policy-propagator: replicates root Policies into managed\n\
              cluster namespaces by their PlacementBindings and resolves their hub\n\
              templates; needs the OCM CRDs, so off by default\n\
              (--controllers=*,policy-propagator).",
    results: &[],
    run: |launch| run(launch).boxed(),
};

/// Feeds `writer` from a watch of `api`, calling `changed` for every object seen.
async fn feed<K>(
    api: Api<K>,
    config: watcher::Config,
    writer: Writer<K>,
    changed: impl Fn(&K, Seen) + Send + 'static,
) where
    K: Resource + Clone + DeserializeOwned + std::fmt::Debug + Send + Sync + 'static,
    K::DynamicType: Clone + Eq + std::hash::Hash,
{
    feed_as(api, config, writer, std::convert::identity, changed).await;
}

/// [`feed`], keeping each watched object in the form `keep` makes of it.
async fn feed_as<K, S>(
    api: Api<K>,
    config: watcher::Config,
    mut writer: Writer<S>,
    keep: impl Fn(K) -> S + Send + 'static,
    changed: impl Fn(&S, Seen) + Send + 'static,
) where
    K: Resource + Clone + DeserializeOwned + std::fmt::Debug + Send + Sync + 'static,
    K::DynamicType: Clone + Eq + std::hash::Hash,
    S: Resource + Clone + 'static,
    S::DynamicType: Clone + Eq + std::hash::Hash,
{
    let mut stream = watcher(api, config).default_backoff().boxed();
    while let Some(event) = stream.next().await {
        match event {
            Ok(event) => {
                let event = match event {
                    watcher::Event::Apply(object) => watcher::Event::Apply(keep(object)),
                    watcher::Event::Delete(object) => watcher::Event::Delete(keep(object)),
                    watcher::Event::InitApply(object) => watcher::Event::InitApply(keep(object)),
                    watcher::Event::Init => watcher::Event::Init,
                    watcher::Event::InitDone => watcher::Event::InitDone,
                };
                writer.apply_watcher_event(&event);
                match &event {
                    watcher::Event::Apply(object) => changed(object, Seen::Applied),
                    watcher::Event::Delete(object) => changed(object, Seen::Deleted),
                    watcher::Event::InitApply(object) => changed(object, Seen::Listed),
                    watcher::Event::Init | watcher::Event::InitDone => {}
                }
            }
            Err(error) => {
                tracing::warn!(controller = NAME, error = %error, "watch failed; retrying")
            }
        }
    }
}

/// Feeds a store of a kind whose changes concern the root policies of its namespace
/// (bindings, Placements, PlacementDecisions).
fn namespace_feed<K>(
    client: &kube::Client,
    writer: Writer<K>,
    roots: &WorkQueue<(String, String)>,
    index: &Index,
) -> tokio::task::JoinHandle<()>
where
    K: Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    let (roots, index) = (roots.clone(), index.clone());
    tokio::spawn(feed(
        Api::<K>::all(client.clone()),
        watcher::Config::default(),
        writer,
        move |object: &K, _| {
            if let Some(namespace) = &object.meta().namespace {
                for key in index.roots_in(namespace) {
                    roots.add(key);
                }
            }
        },
    ))
}

/// Runs until the launch's shutdown completes.
pub async fn run(launch: Launch) {
    let Launch { client, config, settings, metrics, clock, shutdown } = launch;
    let roots: WorkQueue<(String, String)> = WorkQueue::new(Backoff::default());
    let replicas: WorkQueue<reads::ReplicaKey> = WorkQueue::new(Backoff::default());

    let (policies, policy_writer) = kube::runtime::reflector::store::<StoredPolicy>();
    let (bindings, binding_writer) = kube::runtime::reflector::store::<PlacementBinding>();
    let (policy_sets, set_writer) = kube::runtime::reflector::store::<PolicySet>();
    let (placements, placement_writer) = kube::runtime::reflector::store::<Placement>();
    let (decisions, decision_writer) = kube::runtime::reflector::store::<PlacementDecision>();
    let (clusters, cluster_writer) = kube::runtime::reflector::store::<ManagedCluster>();
    // As upstream, PlacementRules are read only when their CRD is installed at start.
    let rules_served = client
        .list_api_group_resources("apps.open-cluster-management.io/v1")
        .await
        .is_ok_and(|list| list.resources.iter().any(|r| r.name == "placementrules"));
    if !rules_served {
        tracing::info!(
            controller = NAME,
            "PlacementRule CRD not found. Disabling PlacementRule watches. Restart the controller if the CRD is installed later."
        );
    }
    let rule_writer =
        rules_served.then(|| Writer::<DynamicObject>::new(index::placement_rule_resource()));
    let index = Index {
        policies,
        bindings,
        policy_sets,
        placements,
        decisions,
        clusters,
        placement_rules: rule_writer.as_ref().map(Writer::as_reader),
    };

    let written = Arc::new(own_writes::Written::default());
    let mut feeds = Vec::new();
    {
        let (roots, replicas) = (roots.clone(), replicas.clone());
        let events = PolicyEvents::new(written.clone());
        let api = Api::<DynamicObject>::all_with(client.clone(), &policy_resource());
        feeds.push(tokio::spawn(feed_as(
            api,
            watcher::Config::default(),
            policy_writer,
            StoredPolicy::from_watched,
            move |policy: &StoredPolicy, seen| {
                let concerned = events.concern(policy, seen);
                if let Some(key) = concerned.replica {
                    replicas.add(key);
                }
                if let Some(key) = concerned.root {
                    roots.add(key);
                }
            },
        )));
    }
    feeds.push(namespace_feed(&client, binding_writer, &roots, &index));
    {
        // A PolicySet concerns the roots of its namespace (bindings may name it) and the roots
        // anywhere whose dependencies name it.
        let (roots, index) = (roots.clone(), index.clone());
        let api = Api::<PolicySet>::all(client.clone());
        feeds.push(tokio::spawn(feed(
            api,
            watcher::Config::default(),
            set_writer,
            move |set: &PolicySet, _| {
                let (Some(namespace), Some(name)) = (&set.metadata.namespace, &set.metadata.name)
                else {
                    return;
                };
                for key in index.roots_in(namespace) {
                    roots.add(key);
                }
                for key in index.roots_depending_on(namespace, name) {
                    roots.add(key);
                }
            },
        )));
    }
    feeds.push(namespace_feed(&client, placement_writer, &roots, &index));
    feeds.push(namespace_feed(&client, decision_writer, &roots, &index));
    {
        let api = Api::<ManagedCluster>::all(client.clone());
        feeds.push(tokio::spawn(feed(
            api,
            watcher::Config::default(),
            cluster_writer,
            |_: &ManagedCluster, _| {},
        )));
    }
    if let Some(writer) = rule_writer {
        let (roots, index) = (roots.clone(), index.clone());
        let api = Api::<DynamicObject>::all_with(client.clone(), &index::placement_rule_resource());
        feeds.push(tokio::spawn(feed(
            api,
            watcher::Config::default(),
            writer,
            move |rule: &DynamicObject, _| {
                if let Some(namespace) = &rule.metadata.namespace {
                    for key in index.roots_in(namespace) {
                        roots.add(key);
                    }
                }
            },
        )));
    }
    let keys_queue: WorkQueue<String> = WorkQueue::new(Backoff::default());
    let (secrets, secret_writer) = kube::runtime::reflector::store::<Secret>();
    {
        let keys_queue = keys_queue.clone();
        let api = Api::<Secret>::all(client.clone());
        let only_keys =
            watcher::Config::default().fields(&format!("metadata.name={}", encryption::KEY_SECRET));
        feeds.push(tokio::spawn(feed(api, only_keys, secret_writer, move |secret: &Secret, _| {
            if let Some(namespace) = &secret.metadata.namespace {
                keys_queue.add(namespace.clone());
            }
        })));
    }

    let handle = tokio::runtime::Handle::current();
    let resolver = match HubResolver::new(ResolverConfig::default()) {
        Ok(resolver) => resolver,
        Err(error) => {
            tracing::error!(controller = NAME, error = %error, "cannot set up the hub template resolver");
            return;
        }
    };
    let context = Arc::new(Context {
        index: index.clone(),
        effects: KubeEffects::new(client.clone(), settings.instance.clone()),
        replicas: replicas.clone(),
        resolver,
        resolvers: Resolvers::new(
            WatchCache::new(client.clone(), handle.clone(), replicas.clone()),
            config.map(|base| accounts::AccountSource {
                client: client.clone(),
                tokens: Arc::new(accounts::TokenRequests(client.clone())),
                base,
                handle: handle.clone(),
                requeue: replicas.clone(),
                ttl: settings.service_account_token_ttl,
                on_failure: {
                    let replicas = replicas.clone();
                    Arc::new(move |account: &accounts::Account| {
                        // Marked broken: the next reconcile of each user opens a fresh one.
                        account.stop();
                        for key in account.users() {
                            replicas.add(key);
                        }
                    })
                },
            }),
        ),
        encryption: LiveEncryption::new(client.clone(), handle, clock.clone()),
        metrics: metrics.clone(),
        fan_out: root::FanOut::default(),
        deleted: own_writes::Deleted::default(),
        written,
        root_json: root_json::RootJson::default(),
    });

    // No decision before every store holds its first list: a half-filled cache would
    // delete replicas whose bindings it has not seen yet.
    tokio::select! {
        ready = async { index.ready().await && secrets.wait_until_ready().await.is_ok() } => {
            if !ready { return; }
        }
        () = shutdown.clone() => return,
    }
    tracing::info!(controller = NAME, "caches filled; propagating");

    let root_workers = {
        let context = context.clone();
        run_workers(
            roots,
            ROOT_WORKERS,
            move |key| {
                let context = context.clone();
                async move { timed(&context, "root", root::reconcile(&context, &key).await, &key) }
            },
            shutdown.clone(),
        )
    };
    let replica_workers = {
        let context = context.clone();
        run_workers(
            replicas,
            REPLICA_WORKERS,
            move |key| {
                let context = context.clone();
                async move {
                    let started = Instant::now();
                    let result = replica::reconcile(&context, &key).await;
                    context.metrics.reconciled(NAME, started.elapsed());
                    // After every replicated reconcile, deletions included, as upstream.
                    context.metrics.set_hub_template_watches(context.resolvers.watches());
                    context.metrics.set_queue_depth(NAME, context.replicas.len());
                    timed(&context, "replicated", result, &key)
                }
            },
            shutdown.clone(),
        )
    };
    let keys = Arc::new(keys::Keys {
        secrets,
        client: client.clone(),
        context: context.clone(),
        clock,
        period: settings.encryption_key_rotation,
    });
    let key_workers = run_workers(
        keys_queue,
        1,
        move |cluster: String| {
            let keys = keys.clone();
            async move {
                keys.reconcile(&cluster).await.map_err(|error| {
                    tracing::warn!(controller = NAME, cluster = %cluster, error = %error,
                        "encryption key reconcile failed; retrying with back-off");
                })
            }
        },
        shutdown.clone(),
    );
    tokio::join!(root_workers, replica_workers, key_workers);
    context.resolvers.stop();
    for feed in feeds {
        feed.abort();
    }
}

fn timed<E>(
    context: &Context<E>,
    kind: &str,
    result: Result<(), context::ReconcileError>,
    key: &(String, String),
) -> Result<Option<std::time::Duration>, ()> {
    match result {
        Ok(()) => Ok(None),
        Err(error) => {
            context.metrics.error(NAME);
            tracing::warn!(
                controller = NAME,
                policy = %format!("{}/{}", key.0, key.1),
                kind,
                error = %error,
                "reconcile failed; retrying with back-off"
            );
            Err(())
        }
    }
}
