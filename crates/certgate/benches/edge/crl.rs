//! Scenario 3: a CRL of `entries` entries (1,000,000 by default) in one Secret.
//!
//! - `certgate crl inspect --ca` on that bundle as a file (the CLI as a child process, under
//!   `/usr/bin/time`: wall time and peak memory).
//! - The sandbox first: the Secret holding it is patched in (before any controller runs) and
//!   its answer recorded; then the largest CRL the sandbox accepts is found by bisection on
//!   the real Secret (each probe is a patch of it; the first CRL is put back afterwards), and
//!   the largest whose `crl.pem` fits a real API server's 1 MiB of Secret data is computed.
//! - Live, with the largest CRL the sandbox accepts: `certgate edge serve` and Envoy serve one
//!   HTTPProxy whose CRL revokes nothing in use; the Secret is patched to the large CRL, which
//!   also revokes the victim client; measured from the patch's answer until the controller
//!   published (its log) and until the victim's first refused request (tight loop), the
//!   rebuild time (`certgate_edge_rebuild_duration_seconds`), peak memory before and after.
//! - The full-size CRL through the controller's path in a child process of this benchmark
//!   (`CERTGATE_EDGE_BENCH_CHILD`): the same objects converted as the stores convert them,
//!   `decide`, the CRL checks, published into a `SnapshotCache` served by certgate's xDS
//!   server (`certgate_edge::serve`) to a real Envoy; measured from the switch to the large
//!   CRL until it is published, until Envoy ACKs it, and until the victim is refused (bounded
//!   by `CERTGATE_BENCH_ENVOY_TIMEOUT`); the child's and Envoy's peak memory. What it leaves
//!   out: the API server, the watch (decoding a 60 MiB JSON event) and the reflector's copy.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use certgate_edge::controller::Inputs;
use certgate_edge::{EdgeMetrics, SnapshotCache, TypeUrl};
use certgate_sandbox::{SandboxOptions, start};
use serde_json::Value;

use super::client::{Client, Polled};
use super::cluster::{
    BACKEND_BODY, client, create_all, endpoint_slice, httpproxy, install_crds, namespace, secret,
    service, set_crl, watch_statuses,
};
use super::pki::Ca;
use super::processes::{
    Backend, Envoy, HANG_GUARD, Ports, Timed, edge_serve, lock, proc_status_mib, timed, wait_for,
};
use super::pure::{Stored, rebuild, resource_options};
use super::rotation::UNUSED_SERIAL;

const NAMESPACE: &str = "edge";
const HOST: &str = "edge.bench.example.com";
const VICTIM_SERIAL: u64 = 0x3001;
const GOOD_SERIAL: u64 = 0x1001;
/// The CRL number of every large CRL (the probes and the one measured are the same lists).
const LARGE_NUMBER: u64 = 100;
/// What a real API server accepts as a Secret's data (`validation.ValidateSecret`).
const REAL_SECRET_DATA_LIMIT: usize = 1 << 20;
pub const CHILD_ENV: &str = "CERTGATE_EDGE_BENCH_CHILD";

#[derive(Debug, Default)]
pub struct LiveCrl {
    pub entries: usize,
    pub pem_bytes: usize,
    pub to_published: Option<Duration>,
    pub to_refused: Option<Duration>,
    pub attempts: usize,
    pub refusal: String,
    /// The refused request's duration and the slowest request's.
    pub requests: (Duration, Duration),
    pub rebuild_seconds: f64,
    pub good_served_after: bool,
    pub controller_peak_before_mib: f64,
    pub controller_peak_after_mib: f64,
    pub envoy_peak_before_mib: f64,
    pub envoy_peak_after_mib: f64,
}

#[derive(Debug, Default)]
pub struct InProcess {
    pub convert: Duration,
    pub decide: Duration,
    pub next_updates: Duration,
    pub warnings: Duration,
    pub to_published: Option<Duration>,
    /// Each ACK of the changed type after the switch (Secret with SDS delivery, Listener
    /// inline).
    pub acks: Vec<Duration>,
    pub to_refused: Option<Duration>,
    pub attempts: usize,
    pub refusal: String,
    /// The refused request's duration and the slowest request's.
    pub requests: (Duration, Duration),
    pub nacks: Vec<String>,
    pub good_served_after: Option<bool>,
    pub child_peak_before_mib: f64,
    pub child_peak_after_mib: f64,
    pub envoy_peak_before_mib: f64,
    pub envoy_peak_after_mib: f64,
    pub timed_out: bool,
}

#[derive(Debug, Default)]
pub struct CrlFigures {
    pub mode: String,
    pub entries: usize,
    pub pem_bytes: usize,
    pub generated_in: Duration,
    pub inspect: Option<Timed>,
    pub inspect_fit: Option<Timed>,
    /// The sandbox's answer to the full-size CRL Secret.
    pub refusal: String,
    /// Its answer one entry over the largest accepted.
    pub refusal_over: String,
    pub probes: usize,
    /// Entries of the largest CRL the real API server's 1 MiB data limit allows (computed).
    pub real_api_entries: usize,
    pub live: LiveCrl,
    pub in_process: InProcess,
}

fn short(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => format!("HTTP {}: {}", status.code, status.message),
        other => other.to_string().chars().take(200).collect(),
    }
}

fn crl_for(ca: &Ca, entries: usize) -> String {
    // The unused serial and the victim, then random serials up to `entries`.
    ca.crl(&[UNUSED_SERIAL, VICTIM_SERIAL], entries.saturating_sub(2), LARGE_NUMBER)
}

pub async fn run(
    entries: usize,
    mode_flags: &[String],
    mode: &str,
    envoy_timeout: Duration,
) -> CrlFigures {
    let mut figures = CrlFigures { mode: mode.to_owned(), entries, ..CrlFigures::default() };
    let dir = tempfile::Builder::new().prefix("certgate-edge-bench-").tempdir().unwrap();
    let serving_ca = Ca::new("edge bench serving CA");
    let server = serving_ca.server(HOST, 0x5001);
    let client_ca = Ca::new("edge bench client CA");
    let victim = client_ca.client("client victim", VICTIM_SERIAL);
    let good = client_ca.client("client good", GOOD_SERIAL);

    let generated = Instant::now();
    let large = crl_for(&client_ca, entries);
    figures.generated_in = generated.elapsed();
    figures.pem_bytes = large.len();
    let crl_path = dir.path().join("crl-large.pem");
    let ca_path = dir.path().join("ca.crt");
    std::fs::write(&crl_path, &large).unwrap();
    std::fs::write(&ca_path, &client_ca.pem).unwrap();
    eprintln!(
        "  {entries}-entry CRL: {} bytes of PEM, generated in {:.1?}",
        large.len(),
        figures.generated_in
    );
    let certgate = Path::new(env!("CARGO_BIN_EXE_certgate"));
    let inspect = |path: &Path| {
        timed(
            certgate,
            &["crl", "inspect", path.to_str().unwrap(), "--ca", ca_path.to_str().unwrap()],
            dir.path(),
        )
    };
    let inspected = inspect(&crl_path);
    eprintln!("  certgate crl inspect: {inspected:?}");
    if inspected.code != Some(0) {
        eprintln!("{}", inspected.stdout.chars().take(2000).collect::<String>());
    }
    figures.inspect = Some(inspected);

    // The sandbox and its limit.
    let sandbox = start(SandboxOptions::default()).await.unwrap();
    let admin = client(&sandbox.kubeconfig()).await;
    install_crds(&admin).await;
    let small = client_ca.crl(&[UNUSED_SERIAL], 0, 1);
    let backend = Backend::start(BACKEND_BODY);
    let objects = vec![
        namespace(NAMESPACE),
        secret(
            NAMESPACE,
            "server",
            "kubernetes.io/tls",
            &[("tls.crt", &server.pem), ("tls.key", &server.key_pem)],
        ),
        secret(NAMESPACE, "client-ca", "Opaque", &[("ca.crt", &client_ca.pem)]),
        secret(NAMESPACE, "crl", "Opaque", &[("crl.pem", &small)]),
        service(NAMESPACE),
        endpoint_slice(NAMESPACE, backend.port),
        httpproxy(NAMESPACE, "edge", HOST, "server", "client-ca", "crl"),
    ];
    create_all(&admin, &objects).await;
    let fit = match set_crl(&admin, NAMESPACE, "crl", &large).await {
        Ok(()) => {
            figures.refusal = "accepted".to_owned();
            entries
        }
        Err(error) => {
            figures.refusal = short(&error);
            let (mut accepted, mut refused) = (2usize, entries);
            while refused - accepted > 1 {
                let middle = accepted + (refused - accepted) / 2;
                figures.probes += 1;
                match set_crl(&admin, NAMESPACE, "crl", &crl_for(&client_ca, middle)).await {
                    Ok(()) => accepted = middle,
                    Err(error) => {
                        refused = middle;
                        figures.refusal_over = short(&error);
                    }
                }
            }
            accepted
        }
    };
    set_crl(&admin, NAMESPACE, "crl", &small).await.unwrap();
    figures.real_api_entries =
        largest_fitting(&client_ca, REAL_SECRET_DATA_LIMIT, fit.min(entries));
    let fitting = crl_for(&client_ca, fit);
    figures.live.entries = fit;
    figures.live.pem_bytes = fitting.len();
    eprintln!(
        "  the sandbox takes at most a {fit}-entry CRL ({} bytes of PEM; {} probes); a real API server {} entries",
        fitting.len(),
        figures.probes,
        figures.real_api_entries
    );
    if fit < entries {
        let fit_path = dir.path().join("crl-fit.pem");
        std::fs::write(&fit_path, &fitting).unwrap();
        figures.inspect_fit = Some(inspect(&fit_path));
    }

    // Live, with the largest CRL the sandbox takes.
    let (statuses, watching) = watch_statuses(admin.clone()).await;
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, sandbox.kubeconfig()).unwrap();
    let ports = Ports::free();
    let edge = tokio::task::block_in_place(|| edge_serve(&kubeconfig, ports, mode_flags));
    let envoy_dir = dir.path().join("live");
    std::fs::create_dir(&envoy_dir).unwrap();
    let envoy = Envoy::start(&envoy_dir, ports.xds);
    let context = || format!("{}\n{}", edge.tail(), envoy.process.tail());
    let addr = ports.https();
    let victim_client = Client::new(&serving_ca.der, &victim, HOST);
    let good_client = Client::new(&serving_ca.der, &good, HOST);
    tokio::task::block_in_place(|| {
        wait_for(
            "the HTTPProxy to be valid",
            HANG_GUARD,
            Duration::from_millis(20),
            || (lock(&statuses).valid() == 1).then_some(()),
            context,
        );
        wait_for(
            "Envoy to serve the victim before its revocation",
            HANG_GUARD,
            Duration::from_millis(20),
            || victim_client.get(addr).is_ok_with(BACKEND_BODY).then_some(()),
            context,
        );
    });
    let live = &mut figures.live;
    live.controller_peak_before_mib = edge.memory_mib("VmHWM");
    live.envoy_peak_before_mib = envoy.process.memory_mib("VmHWM");
    let sum_before = edge.metric("certgate_edge_rebuild_duration_seconds_sum").unwrap_or(0.0);
    let before = Instant::now();
    set_crl(&admin, NAMESPACE, "crl", &fitting).await.unwrap();
    let answered = Instant::now();
    let refused = tokio::task::block_in_place(|| {
        victim_client.poll_until(addr, envoy_timeout, |o| o.is_refused())
    });
    if let Some(Polled { outcome, at, attempts, last, slowest }) = refused {
        live.to_refused = Some(at - answered);
        live.attempts = attempts;
        live.refusal = outcome.kind();
        live.requests = (last, slowest);
    }
    live.to_published =
        edge.published_after(before).map(|at| at.saturating_duration_since(answered));
    live.good_served_after =
        tokio::task::block_in_place(|| good_client.get(addr).is_ok_with(BACKEND_BODY));
    std::thread::sleep(Duration::from_secs(1));
    live.rebuild_seconds =
        edge.metric("certgate_edge_rebuild_duration_seconds_sum").unwrap_or(0.0) - sum_before;
    live.controller_peak_after_mib = edge.memory_mib("VmHWM");
    live.envoy_peak_after_mib = envoy.process.memory_mib("VmHWM");
    eprintln!("  live {fit}-entry CRL: {live:?}");
    drop(envoy);
    drop(edge);
    watching.abort();
    sandbox.shutdown();

    // The full-size CRL through the controller's path, in a child process.
    let objects_path = dir.path().join("objects.json");
    std::fs::write(&objects_path, serde_json::to_vec(&objects).unwrap()).unwrap();
    figures.in_process = tokio::task::block_in_place(|| {
        in_process(dir.path(), mode, envoy_timeout, &serving_ca, &victim, &good)
    });
    figures
}

/// The most entries whose PEM is at most `limit` bytes (bisection from `hint` or 100,000
/// entries, over 4 MB of PEM).
fn largest_fitting(ca: &Ca, limit: usize, hint: usize) -> usize {
    let (mut fits, mut over) = (2usize, hint.max(100_000));
    while over - fits > 1 {
        let middle = fits + (over - fits) / 2;
        if crl_for(ca, middle).len() <= limit {
            fits = middle;
        } else {
            over = middle;
        }
    }
    fits
}

/// The child's lines, stamped when read.
#[derive(Default)]
struct ChildLines {
    lines: Vec<(Instant, String)>,
}

impl ChildLines {
    fn find(&self, prefix: &str) -> Option<(Instant, String)> {
        self.lines.iter().find(|(_, l)| l.starts_with(prefix)).cloned()
    }
}

fn in_process(
    dir: &Path,
    mode: &str,
    envoy_timeout: Duration,
    serving_ca: &Ca,
    victim: &super::pki::Leaf,
    good: &super::pki::Leaf,
) -> InProcess {
    let mut figures = InProcess::default();
    let ports = Ports::free();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD_ENV, dir)
        .env("CERTGATE_EDGE_BENCH_PORTS", format!("{} {} {}", ports.xds, ports.http, ports.https))
        .env("CERTGATE_EDGE_BENCH_MODE", mode)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let lines = Arc::new(Mutex::new(ChildLines::default()));
    {
        let lines = lines.clone();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                lock(&lines).lines.push((Instant::now(), line));
            }
        });
    }
    let mut stdin = child.stdin.take().unwrap();
    let envoy_dir = dir.join("in-process");
    std::fs::create_dir(&envoy_dir).unwrap();
    let context = || format!("child lines: {:?}", lock(&lines).lines);
    wait_for(
        "the child to publish",
        HANG_GUARD,
        Duration::from_millis(10),
        || lock(&lines).find("ready"),
        context,
    );
    let envoy = Envoy::start(&envoy_dir, ports.xds);
    let addr = ports.https();
    let victim_client = Client::new(&serving_ca.der, victim, HOST);
    let good_client = Client::new(&serving_ca.der, good, HOST);
    wait_for(
        "Envoy to serve the victim (in-process server)",
        HANG_GUARD,
        Duration::from_millis(20),
        || victim_client.get(addr).is_ok_with(BACKEND_BODY).then_some(()),
        || format!("{}\n{}", context(), envoy.process.tail()),
    );
    figures.child_peak_before_mib = proc_status_mib(pid, "VmHWM");
    figures.envoy_peak_before_mib = envoy.process.memory_mib("VmHWM");
    writeln!(stdin, "go").unwrap();
    let go = Instant::now();
    let refused = victim_client.poll_until(addr, envoy_timeout, |o| o.is_refused());
    match refused {
        Some(Polled { outcome, at, attempts, last, slowest }) => {
            figures.to_refused = Some(at - go);
            figures.attempts = attempts;
            figures.refusal = outcome.kind();
            figures.requests = (last, slowest);
            figures.good_served_after = Some(good_client.get(addr).is_ok_with(BACKEND_BODY));
        }
        None => figures.timed_out = true,
    }
    std::thread::sleep(Duration::from_secs(1));
    figures.child_peak_after_mib = proc_status_mib(pid, "VmHWM");
    figures.envoy_peak_after_mib = envoy.process.memory_mib("VmHWM");
    {
        let lines = lock(&lines);
        if let Some((at, line)) = lines.find("published") {
            figures.to_published = Some(at - go);
            let numbers: Vec<f64> =
                line.split_whitespace().skip(1).filter_map(|n| n.parse().ok()).collect();
            if let [convert, decide, next_updates, warnings] = numbers[..] {
                figures.convert = Duration::from_secs_f64(convert);
                figures.decide = Duration::from_secs_f64(decide);
                figures.next_updates = Duration::from_secs_f64(next_updates);
                figures.warnings = Duration::from_secs_f64(warnings);
            }
        }
        // A new Secret type version is sent on every SDS stream (each names one secret), so
        // the small serving secret's ACK comes first; the large CRL's is the last one. With
        // the CRL inline, the listener's.
        let type_acked = if mode == "inline" { "ack listener" } else { "ack secret" };
        figures.acks = lines
            .lines
            .iter()
            .filter(|(at, l)| *at >= go && l.starts_with(type_acked))
            .map(|(at, _)| *at - go)
            .collect();
        figures.nacks = lines
            .lines
            .iter()
            .filter(|(_, l)| l.starts_with("nack"))
            .map(|(_, l)| l.clone())
            .collect();
    }
    if figures.timed_out {
        eprintln!(
            "Envoy did not refuse the victim within {envoy_timeout:?}\n{}",
            envoy.process.tail()
        );
    }
    drop(stdin);
    drop(envoy);
    let _ = child.kill();
    let _ = child.wait();
    figures
}

/// The child: serves the objects of `objects.json` over xDS on the given port, then, on a
/// `go` line, rebuilds with `crl-large.pem` in the CRL Secret as the controller would and
/// publishes; reports on standard output.
pub fn child_main(dir: &Path) {
    let ports: Vec<u16> = std::env::var("CERTGATE_EDGE_BENCH_PORTS")
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    let ports = Ports { xds: ports[0], http: ports[1], https: ports[2] };
    let mode = std::env::var("CERTGATE_EDGE_BENCH_MODE").unwrap_or_default();
    let options = resource_options(ports, &mode);
    let mut objects: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("objects.json")).unwrap()).unwrap();
    let now_unix = certgate_crl::Timestamp::from_system_time(std::time::SystemTime::now()).unix();
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let cache = SnapshotCache::new();
        let metrics = EdgeMetrics::default();
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", ports.xds)).await.unwrap();
        tokio::spawn(certgate_edge::serve(
            listener,
            cache.clone(),
            metrics.clone(),
            std::future::pending(),
        ));
        let inputs: Inputs = Stored::new(&objects).inputs();
        cache.set(rebuild(&inputs, &options, now_unix).decision.snapshot);
        drop(inputs);
        println!("ready");
        let go = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).unwrap();
        });
        go.await.unwrap();
        let acks = |m: &EdgeMetrics| {
            [
                m.acks(TypeUrl::Secret),
                m.acks(TypeUrl::Listener),
                m.nacks(TypeUrl::Secret),
                m.nacks(TypeUrl::Listener),
            ]
        };
        let mut seen = acks(&metrics);
        let large = std::fs::read(dir.join("crl-large.pem")).unwrap();
        let crl = objects
            .iter_mut()
            .find(|o| o["kind"] == "Secret" && o["metadata"]["name"] == "crl")
            .unwrap();
        crl["data"]["crl.pem"] = Value::String(super::cluster::b64(&large));
        drop(large);
        // From the Secret as JSON (what a watch event carries, parsed): decoded into the
        // typed object, then converted as the stores convert it.
        let started = Instant::now();
        let stored = Stored::new(&objects);
        let inputs = stored.inputs();
        drop(stored);
        let converted = started.elapsed();
        let rebuilt = tokio::task::spawn_blocking(move || rebuild(&inputs, &options, now_unix))
            .await
            .unwrap();
        cache.set(rebuilt.decision.snapshot);
        println!(
            "published {} {} {} {}",
            converted.as_secs_f64(),
            rebuilt.decide.as_secs_f64(),
            rebuilt.next_updates.as_secs_f64(),
            rebuilt.warnings.as_secs_f64()
        );
        loop {
            let now = acks(&metrics);
            for (i, name) in
                ["ack secret", "ack listener", "nack secret", "nack listener"].iter().enumerate()
            {
                if now[i] != seen[i] {
                    println!("{name} {}", now[i]);
                }
            }
            seen = now;
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    });
}
