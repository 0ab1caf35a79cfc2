//! How the policy propagator (`certgate controller --controllers=policy-propagator`) copes
//! with a large hub (issue #20): **1,000 managed clusters × 20 root policies = 20,000
//! replicas**, each policy with **10 hub templates** in default mode, every one a
//! `fromConfigMap` of one of four ConfigMaps in the policy namespace (two keyed by
//! `.ManagedClusterName`), so the 20,000 resolutions read four distinct objects. One
//! Placement decides every cluster (PlacementDecisions of 100 clusters each, as OCM splits
//! them); one PlacementBinding per policy.
//!
//! The hub is built in a sandbox API server of this process before any clock starts. The
//! controller is the real binary, a child process, so its memory and CPU are its own. It
//! reaches the sandbox through a plain-HTTP proxy in this process that counts its requests
//! (by verb and resource) and the distinct watch queries it opens. A watch of this process
//! on the replicas (straight to the sandbox, not counted) sees when each one is written.
//! Measured in the same run:
//!
//! 1. time from the controller's start until all replicas exist with their templates
//!    resolved, and until the controller is idle again (its replica queue empty, no
//!    replicated reconcile and under 20 ms of CPU in the last second);
//! 2. the requests the controller made, and its watches: `hub_templates_active_watches`
//!    from its `/metrics`, and the distinct ConfigMap watch queries the proxy saw;
//! 3. its peak memory (VmHWM of the child process) after propagation and at the end;
//! 4. 20 edits of a ConfigMap that one policy's replicas (1,000) read, each from an idle
//!    controller: time from the edit until every one of them carries the new value (p50,
//!    p99, max), and per replica; then one edit of a ConfigMap that all 20,000 replicas read;
//! 5. its CPU time (utime + stime) over 10 s with nothing changing, once it is idle;
//! 6. the physical limit: the same 20,000 replications as pure calls of
//!    `certgate_templates::offline::replicate` over the same objects in memory, per
//!    replica, beside the controller's time per replica.
//!
//! `CERTGATE_BENCH_CLUSTERS` (default 1000) scales the clusters down (the replicas are 20 per
//! cluster); `CERTGATE_BENCH_RUNS` (default 1) repeats the whole scenario on a fresh hub and
//! reports medians; `CERTGATE_BENCH_FULL_EDIT=0` skips the edit read by every replica;
//! `CERTGATE_BENCH_DIRECT=1` connects the controller to the sandbox without the proxy (to see
//! what the proxy costs; no request counts then).
//!
//! `CERTGATE_BENCH_RUNS=3 cargo bench -p certgate --bench propagator` (about 3 minutes per run
//! at full size on 2 cores; docs/performance.md has the figures)

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::body::Body as AxumBody;
use axum::extract::{Request, State};
use axum::http::{HeaderName, StatusCode, header};
use axum::response::{IntoResponse as _, Response};
use certgate_sandbox::{SandboxOptions, start};
use certgate_templates::offline::{World, replicate};
use certgate_templates::pipeline::{HubResolver, ResolverConfig};
use certgate_templates::replica::EncryptionSource;
use futures_util::StreamExt as _;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::ApiResource;
use kube::runtime::watcher;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const POLICIES: usize = 20;
const NAMESPACE: &str = "policies";
/// OCM's PlacementDecisions hold at most 100 clusters each.
const PER_DECISION: usize = 100;
const EDITS: usize = 20;
const IDLE: Duration = Duration::from_secs(10);
const PROPAGATION_DEADLINE: Duration = Duration::from_secs(1_800);
const EDIT_DEADLINE: Duration = Duration::from_secs(600);
const ROOT_LABEL: &str = "policy.open-cluster-management.io/root-policy";
const DATA: &str =
    "/spec/policy-templates/0/objectDefinition/spec/object-templates/0/objectDefinition/data";

struct Scale {
    clusters: usize,
    runs: usize,
    full_edit: bool,
    /// The controller talks to the sandbox directly: no proxy, no request counts.
    direct: bool,
}

impl Scale {
    fn from_env() -> Scale {
        let number = |name: &str, default: usize| {
            std::env::var(name).ok().map_or(default, |v| {
                v.parse().unwrap_or_else(|_| panic!("{name} must be a number, not {v:?}"))
            })
        };
        Scale {
            clusters: number("CERTGATE_BENCH_CLUSTERS", 1_000).max(1),
            runs: number("CERTGATE_BENCH_RUNS", 1).max(1),
            full_edit: std::env::var("CERTGATE_BENCH_FULL_EDIT").map_or(true, |v| v != "0"),
            direct: std::env::var("CERTGATE_BENCH_DIRECT").is_ok_and(|v| v == "1"),
        }
    }

    fn replicas(&self) -> usize {
        self.clusters * POLICIES
    }
}

fn cluster(index: usize) -> String {
    format!("cluster-{index:04}")
}

fn policy_name(index: usize) -> String {
    format!("fleet-{index:02}")
}

// ---------------------------------------------------------------------------------------
// The hub

/// Ten `fromConfigMap` reads of four ConfigMaps: two keyed by the cluster's name, seven
/// shared settings (one key per policy), and the rollout wave, which only `fleet-00` reads
/// from its own ConfigMap (`rollout`); the others read it from `fleet-settings`.
fn root_policy(index: usize) -> Value {
    let read = |map: &str, key: &str| format!("{{{{hub fromConfigMap \"\" \"{map}\" {key} hub}}}}");
    let quoted = |key: &str| format!("\"{key}\"");
    let wave_map = if index == 0 { "rollout" } else { "fleet-settings" };
    let data = json!({
        "size": read("cluster-sizes", ".ManagedClusterName"),
        "endpoint": read("cluster-endpoints", ".ManagedClusterName"),
        "version": read("fleet-settings", &quoted("version")),
        "owner": read("fleet-settings", &quoted("owner")),
        "tier": read("fleet-settings", &quoted("tier")),
        "region": read("fleet-settings", &quoted("region")),
        "channel": read("fleet-settings", &quoted("channel")),
        "zone": read("fleet-settings", &quoted("zone")),
        "team": read("fleet-settings", &quoted(&policy_name(index))),
        "wave": read(wave_map, &quoted("wave")),
    });
    let name = policy_name(index);
    json!({
        "apiVersion": "policy.open-cluster-management.io/v1", "kind": "Policy",
        "metadata": {"name": name, "namespace": NAMESPACE, "labels": {"team": "platform"}},
        "spec": {
            "disabled": false,
            "remediationAction": "inform",
            "policy-templates": [{"objectDefinition": {
                "apiVersion": "policy.open-cluster-management.io/v1",
                "kind": "ConfigurationPolicy",
                "metadata": {"name": name},
                "spec": {"remediationAction": "inform", "severity": "low", "object-templates": [{
                    "complianceType": "musthave",
                    "objectDefinition": {
                        "apiVersion": "v1", "kind": "ConfigMap",
                        "metadata": {"name": "fleet", "namespace": "default"},
                        "data": data,
                    },
                }]},
            }}],
        },
    })
}

fn config_map(name: &str, data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": NAMESPACE}, "data": data})
}

fn config_maps(clusters: usize) -> Vec<Value> {
    let mut settings: BTreeMap<String, String> = [
        ("version", "v1"),
        ("owner", "platform-team"),
        ("tier", "gold"),
        ("region", "eu-west"),
        ("channel", "stable"),
        ("zone", "b"),
        ("wave", "w-0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    for p in 0..POLICIES {
        settings.insert(policy_name(p), format!("team-{p:02}"));
    }
    let sizes: BTreeMap<String, String> =
        (0..clusters).map(|c| (cluster(c), (c % 5 + 1).to_string())).collect();
    let endpoints: BTreeMap<String, String> = (0..clusters)
        .map(|c| (cluster(c), format!("https://{}.example.com", cluster(c))))
        .collect();
    vec![
        config_map("fleet-settings", json!(settings)),
        config_map("cluster-sizes", json!(sizes)),
        config_map("cluster-endpoints", json!(endpoints)),
        config_map("rollout", json!({"wave": "w-0"})),
    ]
}

fn managed_cluster(index: usize) -> Value {
    json!({
        "apiVersion": "cluster.open-cluster-management.io/v1", "kind": "ManagedCluster",
        "metadata": {"name": cluster(index), "labels": {"env": if index.is_multiple_of(2) { "prod" } else { "dev" }}},
        "spec": {"hubAcceptsClient": true},
    })
}

fn resource(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk(group, version, kind),
        plural,
    )
}

fn policy_resource() -> ApiResource {
    resource("policy.open-cluster-management.io", "v1", "Policy", "policies")
}

async fn client(config_text: &str) -> kube::Client {
    let kubeconfig = Kubeconfig::from_yaml(config_text).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    kube::Client::try_from(config).unwrap()
}

async fn create(client: &kube::Client, resource: &ApiResource, object: Value) {
    let api: Api<DynamicObject> = match object["metadata"]["namespace"].as_str() {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, resource),
        None => Api::all_with(client.clone(), resource),
    };
    let object: DynamicObject = serde_json::from_value(object).unwrap();
    api.create(&PostParams::default(), &object).await.unwrap();
}

/// Creates `objects` of `resource`, 32 at a time.
async fn create_all(client: &kube::Client, resource: &ApiResource, objects: Vec<Value>) {
    futures_util::stream::iter(objects)
        .map(|object| create(client, resource, object))
        .buffer_unordered(32)
        .for_each(|()| async {})
        .await;
}

/// Namespaces, ManagedClusters, ConfigMaps, the Placement and its decisions, the root
/// policies and their bindings.
async fn build_hub(admin: &kube::Client, clusters: usize) {
    let namespaces = resource("", "v1", "Namespace", "namespaces");
    let namespace =
        |name: String| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}});
    let mut names: Vec<Value> = (0..clusters).map(|c| namespace(cluster(c))).collect();
    names.push(namespace(NAMESPACE.to_owned()));
    create_all(admin, &namespaces, names).await;
    let managed =
        resource("cluster.open-cluster-management.io", "v1", "ManagedCluster", "managedclusters");
    create_all(admin, &managed, (0..clusters).map(managed_cluster).collect()).await;
    create_all(admin, &resource("", "v1", "ConfigMap", "configmaps"), config_maps(clusters)).await;

    let placements =
        resource("cluster.open-cluster-management.io", "v1beta1", "Placement", "placements");
    create(
        admin,
        &placements,
        json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta1", "kind": "Placement",
            "metadata": {"name": "all", "namespace": NAMESPACE}, "spec": {},
        }),
    )
    .await;
    let decisions = resource(
        "cluster.open-cluster-management.io",
        "v1beta1",
        "PlacementDecision",
        "placementdecisions",
    );
    let decision_api: Api<DynamicObject> =
        Api::namespaced_with(admin.clone(), NAMESPACE, &decisions);
    for (k, start) in (0..clusters).step_by(PER_DECISION).enumerate() {
        let name = format!("all-decision-{}", k + 1);
        create(admin, &decisions, json!({
            "apiVersion": "cluster.open-cluster-management.io/v1beta1", "kind": "PlacementDecision",
            "metadata": {"name": name, "namespace": NAMESPACE,
                         "labels": {"cluster.open-cluster-management.io/placement": "all"}},
        }))
        .await;
        let chosen: Vec<Value> = (start..clusters.min(start + PER_DECISION))
            .map(|c| json!({"clusterName": cluster(c), "reason": ""}))
            .collect();
        decision_api
            .patch_status(
                &name,
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {"decisions": chosen}})),
            )
            .await
            .unwrap();
    }
    create_all(admin, &policy_resource(), (0..POLICIES).map(root_policy).collect()).await;
    let bindings = resource(
        "policy.open-cluster-management.io",
        "v1",
        "PlacementBinding",
        "placementbindings",
    );
    let binding = |p: usize| {
        json!({
            "apiVersion": "policy.open-cluster-management.io/v1", "kind": "PlacementBinding",
            "metadata": {"name": format!("bind-{p:02}"), "namespace": NAMESPACE},
            "placementRef": {"apiGroup": "cluster.open-cluster-management.io", "kind": "Placement", "name": "all"},
            "subjects": [{"apiGroup": "policy.open-cluster-management.io", "kind": "Policy", "name": policy_name(p)}],
        })
    };
    create_all(admin, &bindings, (0..POLICIES).map(binding).collect()).await;
}

async fn set_config(admin: &kube::Client, name: &str, key: &str, value: &str) {
    let api: Api<DynamicObject> = Api::namespaced_with(
        admin.clone(),
        NAMESPACE,
        &resource("", "v1", "ConfigMap", "configmaps"),
    );
    api.patch(name, &PatchParams::default(), &Patch::Merge(json!({"data": {key: value}})))
        .await
        .unwrap();
}

// ---------------------------------------------------------------------------------------
// The counting proxy

/// Requests by (verb, resource), and the distinct watch queries.
struct Proxy {
    upstream: kube::Client,
    counts: Mutex<BTreeMap<(String, String), u64>>,
    /// Watch queries (path and selectors, without resourceVersion or timeouts) → times opened.
    watches: Mutex<BTreeMap<String, u64>>,
}

type Counts = BTreeMap<(String, String), u64>;

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// (verb, resource) of a request as the API server's audit log would name them.
fn classify(method: &str, path: &str, query: &str) -> (String, String) {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let rest = match segments.as_slice() {
        ["api", _version, rest @ ..] => rest,
        ["apis", _group, _version, rest @ ..] => rest,
        _ => &[][..],
    };
    let rest = match rest {
        ["namespaces", _, tail @ ..] if !tail.is_empty() => tail,
        other => other,
    };
    let Some(resource) = rest.first() else {
        return ("discovery".to_owned(), path.to_owned());
    };
    let resource = match rest.get(2) {
        Some(sub) => format!("{resource}/{sub}"),
        None => (*resource).to_owned(),
    };
    let watching = query.split('&').any(|p| p == "watch=true" || p == "watch=1");
    let verb = match method {
        "GET" if watching => "watch",
        "GET" if rest.len() == 1 => "list",
        "GET" => "get",
        "POST" => "create",
        "PUT" => "update",
        "PATCH" => "patch",
        "DELETE" => "delete",
        other => other,
    };
    (verb.to_owned(), resource)
}

/// A watch's identity: its path and selectors.
fn watch_query(path: &str, query: &str) -> String {
    let selectors: Vec<&str> = query
        .split('&')
        .filter(|p| p.starts_with("fieldSelector=") || p.starts_with("labelSelector="))
        .collect();
    format!("{path}?{}", selectors.join("&"))
}

const HOP_BY_HOP: [HeaderName; 5] = [
    header::HOST,
    header::CONNECTION,
    header::CONTENT_LENGTH,
    header::TRANSFER_ENCODING,
    header::AUTHORIZATION,
];

async fn forward(State(proxy): State<Arc<Proxy>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let path = parts.uri.path().to_owned();
    let query = parts.uri.query().unwrap_or_default().to_owned();
    let key = classify(parts.method.as_str(), &path, &query);
    if key.0 == "watch" {
        *lock(&proxy.watches).entry(watch_query(&path, &query)).or_default() += 1;
    }
    *lock(&proxy.counts).entry(key).or_default() += 1;
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let target = parts.uri.path_and_query().map_or(path.clone(), |pq| pq.as_str().to_owned());
    let mut outgoing = axum::http::Request::builder().method(parts.method).uri(target);
    for (name, value) in &parts.headers {
        if !HOP_BY_HOP.contains(name) {
            outgoing = outgoing.header(name, value);
        }
    }
    let outgoing = outgoing.body(kube::client::Body::from(bytes)).unwrap();
    match proxy.upstream.send(outgoing).await {
        Ok(response) => {
            let (mut parts, body) = response.into_parts();
            for name in [header::CONNECTION, header::CONTENT_LENGTH, header::TRANSFER_ENCODING] {
                parts.headers.remove(name);
            }
            Response::from_parts(parts, AxumBody::new(body))
        }
        Err(error) => (StatusCode::BAD_GATEWAY, error.to_string()).into_response(),
    }
}

impl Proxy {
    async fn start(upstream: kube::Client) -> (Arc<Proxy>, SocketAddr, tokio::task::AbortHandle) {
        let proxy =
            Arc::new(Proxy { upstream, counts: Mutex::default(), watches: Mutex::default() });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let router = axum::Router::new().fallback(forward).with_state(proxy.clone());
        let task = tokio::spawn(async move { axum::serve(listener, router).await });
        (proxy, address, task.abort_handle())
    }

    fn counts(&self) -> Counts {
        lock(&self.counts).clone()
    }
}

fn total(counts: &Counts) -> u64 {
    counts.values().sum()
}

fn difference(after: &Counts, before: &Counts) -> Counts {
    after
        .iter()
        .map(|(k, v)| (k.clone(), v - before.get(k).copied().unwrap_or(0)))
        .filter(|(_, v)| *v > 0)
        .collect()
}

fn summary(counts: &Counts) -> String {
    let mut parts: Vec<String> = counts
        .iter()
        .filter(|((verb, _), _)| verb != "discovery")
        .map(|((verb, resource), n)| format!("{verb} {resource} {n}"))
        .collect();
    let discovery: u64 =
        counts.iter().filter(|((verb, _), _)| verb == "discovery").map(|(_, n)| n).sum();
    if discovery > 0 {
        parts.push(format!("discovery {discovery}"));
    }
    format!("{} requests: {}", total(counts), parts.join(", "))
}

// ---------------------------------------------------------------------------------------
// The replicas as the API server has them

/// Arrival times of each (field, value) on replicas: the n-th entry is when the n-th replica
/// took that value.
#[derive(Default)]
struct Seen {
    /// Per replica: resolved?, and its `version` and `wave` values.
    replicas: HashMap<(String, String), (bool, String, String)>,
    arrivals: HashMap<(&'static str, String), Vec<Instant>>,
    unresolved_writes: usize,
}

fn text(value: Option<&Value>) -> String {
    value.and_then(Value::as_str).unwrap_or_default().to_owned()
}

impl Seen {
    fn apply(&mut self, object: &DynamicObject, now: Instant) {
        let key = (
            object.metadata.namespace.clone().unwrap_or_default(),
            object.metadata.name.clone().unwrap_or_default(),
        );
        let spec = object.data.get("spec").map(Value::to_string).unwrap_or_default();
        let resolved = !spec.contains("{{hub") && !spec.contains("hub-templates-error");
        let data = object.data.pointer(DATA);
        let version = text(data.and_then(|d| d.get("version")));
        let wave = text(data.and_then(|d| d.get("wave")));
        let previous = self.replicas.insert(key.clone(), (resolved, version.clone(), wave.clone()));
        let (was_resolved, old_version, old_wave) = previous.unwrap_or_default();
        if !resolved {
            self.unresolved_writes += 1;
            return;
        }
        let mut arrive = |field: &'static str, value: String| {
            self.arrivals.entry((field, value)).or_default().push(now);
        };
        if !was_resolved {
            arrive("resolved", String::new());
        }
        if !was_resolved || old_version != version {
            arrive("version", version);
        }
        if key.1 == format!("{NAMESPACE}.{}", policy_name(0)) && (!was_resolved || old_wave != wave)
        {
            arrive("wave", wave);
        }
    }
}

/// Watches every replica (label `root-policy`) straight from the sandbox.
async fn watch_replicas(admin: kube::Client) -> (Arc<Mutex<Seen>>, tokio::task::AbortHandle) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let api: Api<DynamicObject> = Api::all_with(admin, &policy_resource());
    let (ready, listed) = tokio::sync::oneshot::channel();
    let state = seen.clone();
    let task = tokio::spawn(async move {
        let mut ready = Some(ready);
        let mut stream = watcher(api, watcher::Config::default().labels(ROOT_LABEL)).boxed();
        while let Some(event) = stream.next().await {
            match event {
                Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object)) => {
                    lock(&state).apply(&object, Instant::now());
                }
                Ok(watcher::Event::InitDone) => {
                    if let Some(ready) = ready.take() {
                        let _ = ready.send(());
                    }
                }
                Ok(_) => {}
                Err(error) => eprintln!("replica watch: {error}"),
            }
        }
    });
    listed.await.unwrap();
    (seen, task.abort_handle())
}

/// When the `count`-th replica took `value` in `field` (waits for it, at most `deadline`).
async fn arrived(
    seen: &Mutex<Seen>,
    field: &'static str,
    value: &str,
    count: usize,
    deadline: Duration,
    controller: &Controller,
) -> Instant {
    let started = Instant::now();
    loop {
        {
            let seen = lock(seen);
            let arrivals = seen.arrivals.get(&(field, value.to_owned()));
            if let Some(at) = arrivals.and_then(|a| a.get(count - 1)) {
                return *at;
            }
            if started.elapsed() > deadline {
                let n = arrivals.map_or(0, Vec::len);
                panic!(
                    "timed out: {n} of {count} replicas with {field} {value:?} after {:?} ({} writes \
                     not resolved); controller warnings: {:?}",
                    started.elapsed(),
                    seen.unresolved_writes,
                    controller.warnings()
                );
            }
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

// ---------------------------------------------------------------------------------------
// The controller process

struct Controller {
    child: Child,
    metrics: String,
    log: Arc<Mutex<Log>>,
}

#[derive(Default)]
struct Log {
    caches_filled: Option<Instant>,
    warnings: usize,
    first_warnings: Vec<String>,
}

impl Controller {
    /// Starts `certgate controller` with `kubeconfig` and waits for its metrics address.
    fn start(kubeconfig: &Path) -> Controller {
        let mut child = Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(["controller", "--controllers=policy-propagator", "--leader-elect=false"])
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .args(["--listen", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let mut seen = String::new();
        let metrics = loop {
            let line =
                lines.next().unwrap_or_else(|| panic!("controller exited:\n{seen}")).unwrap();
            seen.push_str(&line);
            seen.push('\n');
            if let Some(at) = line.find("address=") {
                break line[at + "address=".len()..].split_whitespace().next().unwrap().to_owned();
            }
        };
        let log = Arc::new(Mutex::new(Log::default()));
        let writer = log.clone();
        std::thread::spawn(move || {
            for line in lines.map_while(Result::ok) {
                let mut log = lock(&writer);
                if line.contains("caches filled") {
                    log.caches_filled = Some(Instant::now());
                }
                if line.contains("WARN") || line.contains("ERROR") {
                    log.warnings += 1;
                    if log.first_warnings.len() < 5 {
                        log.first_warnings.push(line);
                    }
                }
            }
        });
        Controller { child, metrics, log }
    }

    fn warnings(&self) -> (usize, Vec<String>) {
        let log = lock(&self.log);
        (log.warnings, log.first_warnings.clone())
    }

    async fn scrape(&self) -> String {
        let mut stream = tokio::net::TcpStream::connect(&self.metrics).await.unwrap();
        stream.write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n").await.unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).await.unwrap();
        response
    }

    /// A sample of `name` (with its labels) from `/metrics`.
    async fn metric(&self, name: &str) -> Option<f64> {
        let metrics = self.scrape().await;
        metrics
            .lines()
            .find(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
            .and_then(|l| l.rsplit(' ').next()?.parse().ok())
    }

    /// Waits until the controller is idle: its replica queue empty
    /// (`certgate_controller_queue_depth` 0), no replicated reconcile and less than 20 ms of
    /// CPU in the last second. Returns how long that took, or `None` after `limit`.
    async fn settle(&self, limit: Duration) -> Option<Duration> {
        let started = Instant::now();
        let mut reconciles = self.reconciles().await;
        let mut cpu = self.cpu();
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let (now_reconciles, now_cpu) = (self.reconciles().await, self.cpu());
            let depth = self.metric("certgate_controller_queue_depth").await.unwrap_or(0.0);
            let idle = depth == 0.0 && now_reconciles == reconciles && now_cpu - cpu < 0.02;
            if idle {
                return Some(started.elapsed());
            }
            let waited = started.elapsed().as_secs();
            if waited.is_multiple_of(30) && waited > 0 {
                eprintln!(
                    "  waiting for the controller to be idle ({waited} s): queue depth {depth}, {} reconciles and {:.2} s CPU in the last second",
                    now_reconciles - reconciles,
                    now_cpu - cpu
                );
            }
            if started.elapsed() > limit {
                eprintln!(
                    "not idle after {limit:?}: queue depth {depth}, {} reconciles and {:.2} s CPU in the last second",
                    now_reconciles - reconciles,
                    now_cpu - cpu
                );
                return None;
            }
            (reconciles, cpu) = (now_reconciles, now_cpu);
        }
    }

    /// Replicated reconciles so far.
    async fn reconciles(&self) -> f64 {
        self.metric("certgate_controller_reconcile_duration_seconds_count").await.unwrap_or(0.0)
    }

    fn status(&self, field: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        kib_field(&status, field) / 1024.0
    }

    /// utime + stime, seconds.
    fn cpu(&self) -> f64 {
        cpu_seconds(&format!("/proc/{}/stat", self.child.id()))
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn kib_field(status: &str, field: &str) -> f64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .unwrap_or(0.0)
}

fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok())
        .unwrap_or(100.0)
}

fn cpu_seconds(stat_path: &str) -> f64 {
    let stat = std::fs::read_to_string(stat_path).unwrap_or_default();
    // Fields after the command name (which may hold spaces): state is the first; utime and
    // stime are fields 14 and 15 of the whole line.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<f64> = after.split_whitespace().map(|f| f.parse().unwrap_or(0.0)).collect();
    let ticks = fields.get(11).copied().unwrap_or(0.0) + fields.get(12).copied().unwrap_or(0.0);
    ticks / clock_ticks()
}

fn own_peak_mib() -> f64 {
    kib_field(&std::fs::read_to_string("/proc/self/status").unwrap_or_default(), "VmHWM") / 1024.0
}

// ---------------------------------------------------------------------------------------
// One run

#[derive(Debug, Default, Clone)]
struct RunFigures {
    hub_build: Duration,
    caches_filled: Option<Duration>,
    first_replica: Duration,
    full_propagation: Duration,
    /// From the controller's start until it was idle again (`None`: not within the limit).
    idle_after_propagation: Option<Duration>,
    propagation_requests: Counts,
    settle_requests: Counts,
    controller_cpu_propagation: f64,
    controller_cpu_settled: f64,
    bench_cpu_propagation: f64,
    peak_after_propagation: f64,
    reconciles_propagation: f64,
    reconciles_settled: f64,
    watches_gauge: Option<f64>,
    config_map_watch_queries: usize,
    config_map_watch_requests: u64,
    watch_queries: BTreeMap<String, u64>,
    reconcile_errors: Option<f64>,
    edits: Vec<Duration>,
    /// Edits that started before the controller was idle (it did not settle in time).
    edits_unsettled: usize,
    edit_replica_latencies: Vec<Duration>,
    edit_requests: Counts,
    edit_reconciles: f64,
    edit_cpu: f64,
    full_edit: Option<Duration>,
    full_edit_idle_after: Option<Duration>,
    full_edit_requests: Counts,
    full_edit_reconciles: f64,
    idle_settled: bool,
    idle_cpu: f64,
    idle_cpu_per_second: Vec<f64>,
    idle_requests: Counts,
    idle_reconciles: f64,
    peak_end: f64,
    rss_end: f64,
    warnings: (usize, Vec<String>),
    unresolved_writes: usize,
    pure_matches: bool,
}

/// How long the controller may take to become idle after propagation or the edit read by
/// every replica, and before each small edit.
const SETTLE_LIMIT: Duration = Duration::from_secs(900);
const EDIT_SETTLE_LIMIT: Duration = Duration::from_secs(120);

async fn run(scale: &Scale, pure_sample: &Value) -> RunFigures {
    let mut figures = RunFigures::default();
    let sandbox = start(SandboxOptions::default()).await.unwrap();
    let admin = client(&sandbox.kubeconfig()).await;
    let built = Instant::now();
    build_hub(&admin, scale.clusters).await;
    figures.hub_build = built.elapsed();
    let (seen, watching) = watch_replicas(admin.clone()).await;
    let (proxy, address, proxying) = Proxy::start(admin.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let token = sandbox.token.clone();
    let text = if scale.direct {
        sandbox.kubeconfig()
    } else {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: hub\n  cluster:\n    server: http://{address}\n\
             users:\n- name: admin\n  user:\n    token: {token}\ncontexts:\n- name: hub\n  context:\n    \
             cluster: hub\n    user: admin\n    namespace: default\ncurrent-context: hub\n"
        )
    };
    std::fs::write(&kubeconfig, text).unwrap();
    let replicas = scale.replicas();
    let before = proxy.counts();
    let bench_cpu = cpu_seconds("/proc/self/stat");

    // 1. Full propagation, then until the controller is idle.
    let started = Instant::now();
    let controller = tokio::task::block_in_place(|| Controller::start(&kubeconfig));
    let first = arrived(&seen, "resolved", "", 1, PROPAGATION_DEADLINE, &controller).await;
    let done = arrived(&seen, "resolved", "", replicas, PROPAGATION_DEADLINE, &controller).await;
    figures.first_replica = first - started;
    figures.full_propagation = done - started;
    figures.caches_filled = lock(&controller.log).caches_filled.map(|at| at - started);
    let propagated = proxy.counts();
    figures.propagation_requests = difference(&propagated, &before);
    figures.controller_cpu_propagation = controller.cpu();
    figures.bench_cpu_propagation = cpu_seconds("/proc/self/stat") - bench_cpu;
    figures.peak_after_propagation = controller.status("VmHWM");
    figures.reconciles_propagation = controller.reconciles().await;
    eprintln!(
        "[{replicas} replicas] propagated in {:.2?} (first after {:.2?}); controller CPU {:.1} s",
        figures.full_propagation, figures.first_replica, figures.controller_cpu_propagation
    );
    figures.idle_after_propagation =
        controller.settle(SETTLE_LIMIT).await.map(|_| started.elapsed());
    let settled = proxy.counts();
    figures.settle_requests = difference(&settled, &propagated);
    figures.controller_cpu_settled = controller.cpu();
    figures.reconciles_settled = controller.reconciles().await;
    eprintln!("[{replicas} replicas] idle after {:?}", figures.idle_after_propagation);

    // 2. Watches.
    figures.watches_gauge = controller.metric("hub_templates_active_watches").await;
    figures.watch_queries = lock(&proxy.watches).clone();
    let config_map_watches: Vec<u64> = figures
        .watch_queries
        .iter()
        .filter(|(q, _)| q.contains("/configmaps?"))
        .map(|(_, n)| *n)
        .collect();
    figures.config_map_watch_queries = config_map_watches.len();
    figures.config_map_watch_requests = config_map_watches.iter().sum();

    // The controller's replica against the pure one.
    {
        let api: Api<DynamicObject> =
            Api::namespaced_with(admin.clone(), &cluster(scale.clusters - 1), &policy_resource());
        let written = api.get(&format!("{NAMESPACE}.{}", policy_name(POLICIES - 1))).await.unwrap();
        let data = written.data.pointer(DATA);
        figures.pure_matches = data.is_some() && data == pure_sample.pointer(DATA);
    }

    // 4. Edits read by one policy's replicas, each from an idle controller.
    let (edit_reconciles, edit_cpu) = (controller.reconciles().await, controller.cpu());
    for edit in 1..=EDITS {
        let wave = format!("w-{edit}");
        let at = Instant::now();
        set_config(&admin, "rollout", "wave", &wave).await;
        let done = arrived(&seen, "wave", &wave, scale.clusters, EDIT_DEADLINE, &controller).await;
        figures.edits.push(done - at);
        let arrivals =
            lock(&seen).arrivals.get(&("wave", wave.clone())).cloned().unwrap_or_default();
        figures.edit_replica_latencies.extend(arrivals.iter().map(|t| *t - at));
        if controller.settle(EDIT_SETTLE_LIMIT).await.is_none() {
            figures.edits_unsettled += 1;
        }
    }
    let edited = proxy.counts();
    figures.edit_requests = difference(&edited, &settled);
    figures.edit_reconciles = controller.reconciles().await - edit_reconciles;
    figures.edit_cpu = controller.cpu() - edit_cpu;
    if scale.full_edit {
        let reconciles = controller.reconciles().await;
        let at = Instant::now();
        set_config(&admin, "fleet-settings", "version", "v2").await;
        let done =
            arrived(&seen, "version", "v2", replicas, PROPAGATION_DEADLINE, &controller).await;
        figures.full_edit = Some(done - at);
        eprintln!("[{replicas} replicas] full edit in {:.2?}", done - at);
        figures.full_edit_idle_after = controller.settle(SETTLE_LIMIT).await.map(|_| at.elapsed());
        let after = proxy.counts();
        figures.full_edit_requests = difference(&after, &edited);
        figures.full_edit_reconciles = controller.reconciles().await - reconciles;
    }

    // 5. Idle.
    figures.idle_settled = controller.settle(SETTLE_LIMIT).await.is_some();
    let last = proxy.counts();
    let idle_reconciles = controller.reconciles().await;
    let idle_from = controller.cpu();
    let mut previous = idle_from;
    for _ in 0..IDLE.as_secs() {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = controller.cpu();
        figures.idle_cpu_per_second.push(now - previous);
        previous = now;
    }
    figures.idle_cpu = previous - idle_from;
    figures.idle_requests = difference(&proxy.counts(), &last);
    figures.idle_reconciles = controller.reconciles().await - idle_reconciles;

    figures.reconcile_errors =
        controller.metric("certgate_controller_reconcile_errors_total").await;
    figures.peak_end = controller.status("VmHWM");
    figures.rss_end = controller.status("VmRSS");
    figures.warnings = controller.warnings();
    figures.unresolved_writes = lock(&seen).unresolved_writes;
    drop(controller);
    watching.abort();
    proxying.abort();
    sandbox.shutdown();
    figures
}

// ---------------------------------------------------------------------------------------
// The physical limit

struct NoEncryption;

impl EncryptionSource for NoEncryption {
    fn key(&self, _: &str) -> Result<[u8; 32], String> {
        Err("not used".to_owned())
    }
    fn new_iv(&self) -> Result<[u8; 16], String> {
        Err("not used".to_owned())
    }
}

/// Median time of the same replications as pure calls (all replicas, 5 passes), per
/// replica, and one replica as a sample to compare with the controller's.
fn pure_resolution(scale: &Scale) -> (Duration, Value) {
    let roots: Vec<Value> = (0..POLICIES).map(root_policy).collect();
    let mut objects: Vec<Value> = roots.clone();
    objects.extend((0..scale.clusters).map(managed_cluster));
    objects.extend(config_maps(scale.clusters));
    let world = World::new(&objects).unwrap();
    let resolver = HubResolver::new(ResolverConfig::default()).unwrap();
    let clusters: Vec<String> = (0..scale.clusters).map(cluster).collect();
    let sample = replicate(
        &roots[POLICIES - 1],
        &clusters[scale.clusters - 1],
        &world,
        &resolver,
        &NoEncryption,
    );
    assert!(sample.outcome.error.is_none(), "{:?}", sample.outcome.error);
    let mut passes: Vec<Duration> = (0..5)
        .map(|_| {
            let started = Instant::now();
            for root in &roots {
                for cluster in &clusters {
                    std::hint::black_box(replicate(
                        root,
                        cluster,
                        &world,
                        &resolver,
                        &NoEncryption,
                    ));
                }
            }
            started.elapsed()
        })
        .collect();
    passes.sort();
    let per_replica = passes[passes.len() / 2] / u32::try_from(scale.replicas()).unwrap();
    (per_replica, sample.replica)
}

// ---------------------------------------------------------------------------------------
// The report

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    // Nearest rank.
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn median_f64(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let scale = Scale::from_env();
    eprintln!(
        "policy propagator: {} clusters x {POLICIES} policies = {} replicas, {} run(s)",
        scale.clusters,
        scale.replicas(),
        scale.runs
    );
    let (pure, sample) = pure_resolution(&scale);
    eprintln!("pure replicate: {pure:.2?} per replica");
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let runs: Vec<RunFigures> =
        (0..scale.runs).map(|_| runtime.block_on(run(&scale, &sample))).collect();
    report(&scale, pure, &runs);
}

fn seconds(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn millis(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1e3)
}

fn optional(d: Option<Duration>) -> String {
    d.map_or_else(|| "not within the limit".to_owned(), seconds)
}

fn report(scale: &Scale, pure: Duration, runs: &[RunFigures]) {
    let replicas = scale.replicas();
    let median = |f: &dyn Fn(&RunFigures) -> f64| median_f64(runs.iter().map(f).collect());
    let full = median(&|r| r.full_propagation.as_secs_f64());
    let per_replica = full / replicas as f64;
    println!(
        "\n== policy propagator: {} clusters x {POLICIES} policies = {replicas} replicas, {} run(s){} ==",
        scale.clusters,
        runs.len(),
        if scale.direct { ", controller connected directly (requests not counted)" } else { "" }
    );
    for (i, r) in runs.iter().enumerate() {
        println!("-- run {}", i + 1);
        println!("hub built in {} (not timed)", seconds(r.hub_build));
        println!(
            "caches filled after {}, first replica after {}, all {replicas} resolved after {}, controller idle after {}",
            r.caches_filled.map_or("?".to_owned(), seconds),
            seconds(r.first_replica),
            seconds(r.full_propagation),
            optional(r.idle_after_propagation),
        );
        println!("requests until full propagation: {}", summary(&r.propagation_requests));
        println!("requests after it, until idle: {}", summary(&r.settle_requests));
        println!(
            "controller CPU until full propagation {:.1} s, until idle {:.1} s; bench process (sandbox, proxy, watch) until full propagation {:.1} s",
            r.controller_cpu_propagation, r.controller_cpu_settled, r.bench_cpu_propagation
        );
        println!(
            "replicated reconciles until full propagation {:.0}, until idle {:.0}",
            r.reconciles_propagation, r.reconciles_settled
        );
        println!(
            "hub_templates_active_watches {:?}; ConfigMap watch queries {} (opened {} times)",
            r.watches_gauge, r.config_map_watch_queries, r.config_map_watch_requests
        );
        for (query, n) in &r.watch_queries {
            println!("  watch {query} x{n}");
        }
        println!("controller's replica matches the pure one: {}", r.pure_matches);
        let mut edits = r.edits.clone();
        edits.sort();
        let mut each = r.edit_replica_latencies.clone();
        each.sort();
        println!(
            "{EDITS} edits read by {} replicas, all updated after: p50 {}, p99 {}, max {}; per replica p50 {}, p99 {}; {} edit(s) started before the controller was idle",
            scale.clusters,
            millis(percentile(&edits, 50.0)),
            millis(percentile(&edits, 99.0)),
            millis(edits.last().copied().unwrap_or_default()),
            millis(percentile(&each, 50.0)),
            millis(percentile(&each, 99.0)),
            r.edits_unsettled,
        );
        println!("  each edit: {:?}", r.edits.iter().map(|d| millis(*d)).collect::<Vec<_>>());
        println!(
            "requests for the {EDITS} edits: {}; replicated reconciles {:.0}, controller CPU {:.1} s",
            summary(&r.edit_requests),
            r.edit_reconciles,
            r.edit_cpu
        );
        if let Some(full_edit) = r.full_edit {
            println!(
                "edit read by all {replicas} replicas: all updated after {}, controller idle after {}",
                seconds(full_edit),
                optional(r.full_edit_idle_after)
            );
            println!(
                "requests for it: {}; replicated reconciles {:.0}",
                summary(&r.full_edit_requests),
                r.full_edit_reconciles
            );
        }
        println!(
            "idle {} s (controller idle before: {}): CPU {:.3} s (per second {:?}), replicated reconciles {:.0}, requests: {}",
            IDLE.as_secs(),
            r.idle_settled,
            r.idle_cpu,
            r.idle_cpu_per_second.iter().map(|c| format!("{c:.2}")).collect::<Vec<_>>(),
            r.idle_reconciles,
            summary(&r.idle_requests)
        );
        println!(
            "controller memory: VmHWM {:.0} MiB after propagation, {:.0} MiB at the end; VmRSS {:.0} MiB at the end",
            r.peak_after_propagation, r.peak_end, r.rss_end
        );
        println!(
            "reconcile errors {}, replica writes seen unresolved {}, warnings {} {:?}",
            r.reconcile_errors.unwrap_or(0.0),
            r.unresolved_writes,
            r.warnings.0,
            r.warnings.1
        );
    }
    println!("-- summary (medians over runs)");
    println!("full propagation: {full:.2} s = {:.1} µs per replica", per_replica * 1e6);
    println!(
        "pure replicate: {:.1} µs per replica; controller / pure = {:.1}",
        pure.as_secs_f64() * 1e6,
        per_replica / pure.as_secs_f64()
    );
    println!(
        "requests until full propagation: {:.0}; per replica {:.2}",
        median(&|r| total(&r.propagation_requests) as f64),
        median(&|r| total(&r.propagation_requests) as f64) / replicas as f64
    );
    println!("controller peak memory: {:.0} MiB", median(&|r| r.peak_end));
    println!("controller idle CPU over {} s: {:.3} s", IDLE.as_secs(), median(&|r| r.idle_cpu));
    println!("bench process peak memory (sandbox included): {:.0} MiB", own_peak_mib());
}
