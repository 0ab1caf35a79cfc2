//! Scenario 2: `proxies` HTTPProxies with client validation, created before the controller
//! starts, in namespaces of ten (`team-000` …). Each proxy has its own fqdn
//! (`web-P.team-NNN.bench.example.com`) and its own serving Secret holding its own
//! certificate for that name (one serving CA); each namespace has one CA Secret and one CRL
//! Secret, which its ten proxies share (the same client CA and a one-entry CRL in every
//! namespace), one Service and one EndpointSlice (the loopback backend).
//!
//! From the spawn of `certgate edge serve` (Envoy started as soon as its xDS port is bound):
//! its caches filled and first snapshot published (its log), Envoy's ACK of the listeners
//! (`certgate_xds_acks_total` for the Listener type on its `/metrics`, polled every 10 ms),
//! Envoy's own log lines (stamped when read, `-l info`) for the HTTPS listener built from LDS
//! and for `starting workers` (every SDS secret and RDS route configuration of the initial
//! listeners in: they accept from then on; admin stats count initial listeners as active
//! before that, so they are not used), the last proxy's fqdn served to a client (every
//! 10 ms), and every status `valid` (a watch).
//! Then the filter chains Envoy holds (admin `config_dump`), peak memory of both processes,
//! and the pure rebuild of the same objects in this process.

use std::time::{Duration, Instant};

use certgate_sandbox::{SandboxOptions, start};
use serde_json::Value;

use super::client::Client;
use super::cluster::{
    BACKEND_BODY, client, create_all, endpoint_slice, httpproxy, install_crds, namespace, secret,
    service, watch_statuses,
};
use super::pki::Ca;
use super::processes::{
    Backend, Envoy, LISTENER_TYPE, Ports, edge_serve, lock, metric_value, wait_for,
};
use super::pure::{PureFigures, Stored, measure, resource_options};
use super::rotation::UNUSED_SERIAL;

const PER_NAMESPACE: usize = 10;
const PURE_PASSES: usize = 5;

#[derive(Debug, Default)]
pub struct ProxiesFigures {
    pub mode: String,
    pub proxies: usize,
    pub namespaces: usize,
    pub secrets: usize,
    /// Creating every object in the sandbox (not part of the measurement).
    pub created_in: Duration,
    pub caches_filled: Option<Duration>,
    pub first_published: Option<Duration>,
    pub envoy_started_at: Duration,
    pub listener_acked: Option<Duration>,
    pub https_listener_added: Option<Duration>,
    pub last_served: Option<Duration>,
    /// What the last proxy's client saw before it was served, by kind.
    pub before_served: std::collections::BTreeMap<String, usize>,
    pub first_valid: Option<Duration>,
    pub all_valid: Option<Duration>,
    pub filter_chains: usize,
    pub xds_streams: f64,
    pub sds_acks: f64,
    pub controller_cpu: f64,
    pub controller_peak_mib: f64,
    pub envoy_peak_mib: f64,
    pub controller_rss_mib: f64,
    pub envoy_rss_mib: f64,
    pub controller_rss_without_envoy_mib: f64,
    pub controller_rss_before_ack_mib: f64,
    pub workers_started: Option<Duration>,
    pub xds_streams_without_envoy: f64,
    pub pure: PureFigures,
}

fn fqdn(namespace: &str, proxy: usize) -> String {
    format!("web-{proxy}.{namespace}.bench.example.com")
}

pub async fn run(
    proxies: usize,
    mode_flags: &[String],
    mode: &str,
    limit: Duration,
) -> ProxiesFigures {
    let namespaces = proxies.div_ceil(PER_NAMESPACE);
    let mut figures =
        ProxiesFigures { mode: mode.to_owned(), proxies, namespaces, ..Default::default() };
    let sandbox = start(SandboxOptions::default()).await.unwrap();
    let admin = client(&sandbox.kubeconfig()).await;
    install_crds(&admin).await;

    let serving_ca = Ca::new("edge bench serving CA");
    let client_ca = Ca::new("edge bench client CA");
    let good = client_ca.client("client good", 0x1001);
    let crl = client_ca.crl(&[UNUSED_SERIAL], 0, 1);
    let backend = Backend::start(BACKEND_BODY);
    let mut objects: Vec<Value> = Vec::new();
    let mut last_host = String::new();
    for n in 0..namespaces {
        let ns = format!("team-{n:03}");
        objects.push(namespace(&ns));
        objects.push(secret(&ns, "client-ca", "Opaque", &[("ca.crt", &client_ca.pem)]));
        objects.push(secret(&ns, "client-crl", "Opaque", &[("crl.pem", &crl)]));
        objects.push(service(&ns));
        objects.push(endpoint_slice(&ns, backend.port));
        for p in 0..PER_NAMESPACE.min(proxies - n * PER_NAMESPACE) {
            let host = fqdn(&ns, p);
            let serving = format!("serving-{p}");
            let leaf = serving_ca.server(&host, 0x10_0000 + (n * PER_NAMESPACE + p) as u64);
            objects.push(secret(
                &ns,
                &serving,
                "kubernetes.io/tls",
                &[("tls.crt", &leaf.pem), ("tls.key", &leaf.key_pem)],
            ));
            objects.push(httpproxy(
                &ns,
                &format!("web-{p}"),
                &host,
                &serving,
                "client-ca",
                "client-crl",
            ));
            last_host = host;
        }
    }
    figures.secrets = objects.iter().filter(|o| o["kind"] == "Secret").count();
    let created = Instant::now();
    create_all(&admin, &objects).await;
    figures.created_in = created.elapsed();
    eprintln!(
        "  [{mode}] {proxies} HTTPProxies and {} Secrets created in {:.1?}",
        figures.secrets, figures.created_in
    );
    let (statuses, watching) = watch_statuses(admin.clone()).await;

    let dir = tempfile::Builder::new().prefix("certgate-edge-bench-").tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, sandbox.kubeconfig()).unwrap();
    let ports = Ports::free();
    let edge = tokio::task::block_in_place(|| edge_serve(&kubeconfig, ports, mode_flags));
    let t0 = edge.started;
    let envoy = Envoy::start(dir.path(), ports.xds);
    figures.envoy_started_at = envoy.process.started - t0;
    let last_client = Client::new(&serving_ca.der, &good, &last_host);
    let addr = ports.https();
    let context = || format!("{}\n{}", edge.tail(), envoy.process.tail());
    let ack_metric = format!("certgate_xds_acks_total{{type_url=\"{LISTENER_TYPE}\"}}");

    // Until everything is there: the ACK and the client every 10 ms.
    tokio::task::block_in_place(|| {
        let started = Instant::now();
        loop {
            let now = Instant::now();
            if figures.listener_acked.is_none() {
                if edge.metric(&ack_metric).unwrap_or(0.0) >= 1.0 {
                    figures.listener_acked = Some(now - t0);
                } else if figures.first_published.is_some() || !lock(&edge.log).published.is_empty()
                {
                    // Built and published, Envoy's listeners not yet in: no SDS or RDS stream
                    // open yet.
                    figures.controller_rss_before_ack_mib = edge.memory_mib("VmRSS");
                }
            }
            if figures.last_served.is_none() {
                let outcome = last_client.get(addr);
                if outcome.is_ok_with(BACKEND_BODY) {
                    figures.last_served = Some(Instant::now() - t0);
                } else {
                    // What the client saw before: the refusal or the HTTP status line.
                    let seen: String = outcome.kind().chars().take(60).collect();
                    *figures.before_served.entry(seen).or_default() += 1;
                }
            }
            let valid = lock(&statuses).valid_at.get(proxies - 1).copied();
            if let Some(at) = valid {
                figures.all_valid = Some(at - t0);
            }
            if figures.last_served.is_some() && valid.is_some() {
                break;
            }
            if started.elapsed() > limit {
                eprintln!("[{mode}] not everything within {limit:?}: {figures:?}\n{}", context());
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    });
    figures.first_valid = lock(&statuses).valid_at.first().map(|at| *at - t0);
    {
        let log = lock(&edge.log);
        figures.caches_filled = log.caches_filled.map(|at| at - t0);
        figures.first_published = log.published.first().map(|at| *at - t0);
    }
    {
        let log = lock(&envoy.process.log);
        figures.workers_started = log.workers_started.map(|at| at - t0);
        figures.https_listener_added = log.https_listener_added.map(|at| at - t0);
    }
    if let Some(path) = std::env::var_os("CERTGATE_BENCH_ENVOY_LOG") {
        std::fs::write(path, &lock(&envoy.process.log).text).unwrap();
    }
    // Settle, then what the processes hold.
    std::thread::sleep(Duration::from_secs(2));
    let dump = tokio::task::block_in_place(|| {
        wait_for(
            "Envoy's config_dump",
            Duration::from_secs(60),
            Duration::from_millis(100),
            || envoy.admin("/config_dump?resource=dynamic_listeners"),
            context,
        )
    });
    figures.filter_chains = https_filter_chains(&dump);
    let metrics = edge.http_get("/metrics").unwrap_or_default();
    figures.xds_streams = metric_value(&metrics, "certgate_xds_streams").unwrap_or(0.0);
    figures.sds_acks = metric_value(
        &metrics,
        &format!("certgate_xds_acks_total{{type_url=\"{}\"}}", super::processes::SECRET_TYPE),
    )
    .unwrap_or(0.0);
    figures.controller_cpu = edge.cpu();
    figures.controller_peak_mib = edge.memory_mib("VmHWM");
    figures.controller_rss_mib = edge.memory_mib("VmRSS");
    figures.envoy_peak_mib = envoy.process.memory_mib("VmHWM");
    figures.envoy_rss_mib = envoy.process.memory_mib("VmRSS");
    let warnings = lock(&edge.log).warnings.clone();
    if !warnings.is_empty() {
        eprintln!("controller warnings: {warnings:#?}");
    }
    // What the controller holds for Envoy's streams: its resident memory once they are gone.
    drop(envoy);
    std::thread::sleep(Duration::from_secs(2));
    figures.controller_rss_without_envoy_mib = edge.memory_mib("VmRSS");
    figures.xds_streams_without_envoy = edge.metric("certgate_xds_streams").unwrap_or(-1.0);
    drop(edge);
    watching.abort();
    sandbox.shutdown();

    let stored = Stored::new(&objects);
    figures.pure = measure(&stored, &resource_options(ports, mode), PURE_PASSES);
    figures
}

/// Filter chains of the active listener with the most (the HTTPS one), from a
/// `config_dump?resource=dynamic_listeners` (one `DynamicListener` per config).
fn https_filter_chains(dump: &str) -> usize {
    let Ok(dump) = serde_json::from_str::<Value>(dump) else { return 0 };
    let listeners = dump.pointer("/configs").and_then(Value::as_array);
    listeners
        .into_iter()
        .flatten()
        .filter_map(|l| l.pointer("/active_state/listener/filter_chains")?.as_array())
        .map(Vec::len)
        .max()
        .unwrap_or(0)
}
