//! Sandbox throughput: creates per second through the HTTPS API (kube-rs client, 8
//! concurrent requests), watch fan-out latency with 10 watchers, and memory for 100,000
//! small objects. The store alone is measured in the same run as the comparison: the
//! API's overhead is the ratio between the two.
//!
//! `cargo bench -p certgate-sandbox --bench api` (SANDBOX_OBJECTS overrides the 100,000).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use certgate_sandbox::{SandboxOptions, start};
use certgate_store::{Key, Store, StoreOptions};
use futures_util::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams, WatchEvent, WatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};

const CONCURRENCY: usize = 8;
const CREATES: usize = 4_000;
const WATCHERS: usize = 10;
const FAN_OUT_WRITES: usize = 200;

fn rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn config_map(name: String) -> ConfigMap {
    ConfigMap {
        metadata: kube::api::ObjectMeta { name: Some(name), ..Default::default() },
        data: Some(BTreeMap::from([("key".to_owned(), "value".to_owned())])),
        ..Default::default()
    }
}

/// Creates `count` ConfigMaps named `<prefix>-<i>` with CONCURRENCY requests in flight.
async fn create_many(api: &Api<ConfigMap>, prefix: &'static str, count: usize) {
    let tasks: Vec<_> = (0..CONCURRENCY)
        .map(|worker| {
            let api = api.clone();
            tokio::spawn(async move {
                for i in (worker..count).step_by(CONCURRENCY) {
                    api.create(&PostParams::default(), &config_map(format!("{prefix}-{i}")))
                        .await
                        .unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort_unstable();
    values[values.len() / 2]
}

fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let objects: usize =
        std::env::var("SANDBOX_OBJECTS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let sandbox = start(SandboxOptions::default()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("kubeconfig");
        std::fs::write(&path, sandbox.kubeconfig()).unwrap();
        let config = kube::Config::from_custom_kubeconfig(Kubeconfig::read_from(&path).unwrap(), &KubeConfigOptions::default())
            .await
            .unwrap();
        let client = kube::Client::try_from(config).unwrap();
        let api: Api<ConfigMap> = Api::namespaced(client, "default");

        // Creates through the API.
        let started = Instant::now();
        create_many(&api, "create", CREATES).await;
        let api_rate = CREATES as f64 / started.elapsed().as_secs_f64();

        // The store alone, same objects, same process.
        let store = Store::open(StoreOptions::default()).unwrap();
        let object = serde_json::to_value(config_map("x".to_owned())).unwrap();
        let started = Instant::now();
        for i in 0..CREATES {
            let key = Key { group: String::new(), resource: "configmaps".into(), namespace: "default".into(), name: format!("c-{i}") };
            store.create(key, object.clone()).unwrap();
        }
        let store_rate = CREATES as f64 / started.elapsed().as_secs_f64();
        println!("creates/s through the API ({CONCURRENCY} concurrent): {api_rate:.0}; store alone: {store_rate:.0}; API / store: {:.3}", api_rate / store_rate);

        // Watch fan-out: time from a create's answer until all 10 watchers saw it.
        let revision = api.list(&Default::default()).await.unwrap().metadata.resource_version.unwrap();
        let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel::<(usize, String, Instant)>();
        for w in 0..WATCHERS {
            let api = api.clone();
            let revision = revision.clone();
            let seen = seen_tx.clone();
            tokio::spawn(async move {
                let mut stream = api.watch(&WatchParams::default(), &revision).await.unwrap().boxed();
                while let Some(Ok(event)) = stream.next().await {
                    if let WatchEvent::Added(cm) = event {
                        let _ = seen.send((w, cm.metadata.name.unwrap_or_default(), Instant::now()));
                    }
                }
            });
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        let (mut round_trips, mut fan_out) = (Vec::new(), Vec::new());
        for i in 0..FAN_OUT_WRITES {
            let name = format!("fan-{i}");
            let sent = Instant::now();
            api.create(&PostParams::default(), &config_map(name.clone())).await.unwrap();
            round_trips.push(sent.elapsed());
            let mut watchers = std::collections::BTreeSet::new();
            let mut last = sent;
            while watchers.len() < WATCHERS {
                let (w, seen, at) = seen_rx.recv().await.unwrap();
                if seen == name {
                    watchers.insert(w);
                    last = last.max(at);
                }
            }
            fan_out.push(last.duration_since(sent));
        }
        println!(
            "watch fan-out, {WATCHERS} watchers: median {:.0} µs from sending a create until every watcher saw it; \
             the create's own round trip: median {:.0} µs",
            median(fan_out).as_secs_f64() * 1e6,
            median(round_trips).as_secs_f64() * 1e6
        );

        // Memory for many small objects, written through the API.
        let before = rss_bytes();
        let started = Instant::now();
        create_many(&api, "mem", objects).await;
        let after = rss_bytes();
        let per_object = after.saturating_sub(before) as f64 / objects as f64;
        println!(
            "{objects} small ConfigMaps in {:.1} s: resident memory +{:.0} MiB ({per_object:.0} bytes per object, incl. watch history of 10,000 changes)",
            started.elapsed().as_secs_f64(),
            after.saturating_sub(before) as f64 / (1024.0 * 1024.0)
        );
        sandbox.shutdown();
    });
}
