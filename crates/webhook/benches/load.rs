//! Load benchmark: 32 kept-alive TLS connections over loopback against (1) a minimal
//! axum + rustls endpoint returning a fixed response, (2) the webhook server with a handler
//! that returns a fixed answer, (3) `/mutate` with a CertificateRequest CREATE (identity
//! mutation) and (4) `/validate` with a CertificateRequestPolicy CREATE (policy validation
//! with CEL rules), (3) and (4) through the real `Admission`, all in one run.
//!
//! `cargo bench -p certgate-webhook --bench load`. The scenarios take turns for LOAD_ROUNDS
//! rounds (default 3) of LOAD_SECONDS measured seconds each (default 3), each after 1 s of
//! warm-up; the medians over the rounds are printed, then the handler's own cost.

#[path = "../tests/support/tls_client.rs"]
mod tls_client;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use certgate_admission::review::{Admission, Endpoint, Handled, HeavyReviewOptions, Rejection};
use certgate_cel::PolicyCel;
use certgate_rbac::NoCluster;
use certgate_webhook::{
    AdmissionHandler, BoundedReviewPool, DevCertificates, Metrics, PemPair, ServerOptions,
    TlsSource, server_config, start,
};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tls_client::Connection;

/// The AdmissionReviews the admission crate's own benchmark sends, as the API server
/// shapes them: a CertificateRequest CREATE (with a real CSR) and a policy CREATE.
const MUTATE_CR: &str =
    include_str!("../../admission/benches/reviews/certificate-request-create.json");
const VALIDATE_POLICY: &str = include_str!("../../admission/benches/reviews/policy-create.json");

const CONNECTIONS: usize = 32;
const WARM_UP: Duration = Duration::from_secs(1);

/// Answers every request with the same allowed review: the server without the decisions.
struct Fixed;

impl AdmissionHandler for Fixed {
    async fn handle(&self, _: Endpoint, _: &[u8]) -> Result<Handled, Rejection> {
        Ok(Handled {
            body: br#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"0df28fbd-5f5f-4e8b-9b2d-5a8b7bb3c1a4","allowed":true}}"#.to_vec(),
            resource: "cert-manager.io/v1/certificaterequests".to_owned(),
            operation: "CREATE".to_owned(),
            allowed: true,
            reviewed: true,
        })
    }
}

fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let seconds = std::env::var("LOAD_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);
    let measure = Duration::from_secs(seconds);
    let rounds: usize = std::env::var("LOAD_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(3);

    let certificates = DevCertificates::generate(&[]).unwrap();
    // Server and client get a runtime each, as separate processes would; they share the cores.
    let server_runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let client_runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();

    // Policy reviews on the server's bounded pool, as `certgate webhook` runs them, with room
    // for every connection to wait: the default queue (4 per CPU) answers a flood of policy
    // writes with 429, which the review pool's own tests check; this bench measures what a
    // review costs under load, so every request must be served.
    let pool = Arc::new(BoundedReviewPool::new(HeavyReviewOptions {
        waiting: CONNECTIONS,
        ..HeavyReviewOptions::default()
    }));
    let admission = Arc::new(
        Admission::new(Arc::new(PolicyCel::default()), NoCluster, NoCluster).with_review_pool(pool),
    );
    let minimal = server_runtime.block_on(minimal_endpoint(&certificates.serving));
    let webhook = server_runtime
        .block_on(start(
            ServerOptions {
                listen: "127.0.0.1:0".parse().unwrap(),
                tls: TlsSource::Fixed(certificates.serving.clone()),
                connections: Default::default(),
                metrics_listener: None,
            },
            admission.clone(),
            Arc::new(Metrics::default()),
        ))
        .unwrap()
        .local_addr();
    let fixed = server_runtime
        .block_on(start(
            ServerOptions {
                listen: "127.0.0.1:0".parse().unwrap(),
                tls: TlsSource::Fixed(certificates.serving.clone()),
                connections: Default::default(),
                metrics_listener: None,
            },
            Arc::new(Fixed),
            Arc::new(Metrics::default()),
        ))
        .unwrap()
        .local_addr();
    let client = tls_client::trusting(&[&certificates.ca_pem]);
    let leaf = CertificateDer::from_pem_slice(&certificates.serving.cert).unwrap();
    let mutation = Bytes::from_static(MUTATE_CR.as_bytes());
    let policy = Bytes::from_static(VALIDATE_POLICY.as_bytes());

    // The first row is every row's baseline. The HTTP/2 rows (the API server's protocol
    // when ALPN offers it) are compared with the HTTP/1.1 baseline too.
    let scenarios = [
        ("minimal axum+rustls, fixed response", minimal, "/", mutation.clone(), Http::One),
        ("webhook router, fixed handler answer", fixed, "/mutate", mutation.clone(), Http::One),
        ("/mutate CertificateRequest CREATE", webhook, "/mutate", mutation.clone(), Http::One),
        ("/validate CertificateRequestPolicy CREATE", webhook, "/validate", policy, Http::One),
        ("minimal axum+rustls, HTTP/2", minimal, "/", mutation.clone(), Http::Two),
        ("/mutate CertificateRequest CREATE, HTTP/2", webhook, "/mutate", mutation, Http::Two),
    ];
    // Scenarios take turns, round after round, so that load from other processes on this
    // shared machine spreads over all of them; each figure is the median over the rounds.
    let mut runs: Vec<Vec<Stats>> = scenarios.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for ((_, addr, path, body, http), runs) in scenarios.iter().zip(&mut runs) {
            let target = Target { addr: *addr, path, http: *http };
            let stats =
                client_runtime.block_on(load(&client, &leaf, target, body.clone(), measure));
            runs.push(stats);
        }
    }
    println!(
        "{CONNECTIONS} connections; {rounds} rounds of {seconds} s per scenario, each after {} s \
         warm-up; medians over the rounds",
        WARM_UP.as_secs()
    );
    println!("| scenario | requests/s | p50 | p99 | throughput / minimal | p99 / minimal |");
    println!("|---|---|---|---|---|---|");
    let medians: Vec<Stats> = runs.iter().map(|r| Stats::median(r)).collect();
    for ((name, ..), stats) in scenarios.iter().zip(&medians) {
        let baseline = &medians[0];
        println!(
            "| {name} | {:.0} | {:.2} ms | {:.2} ms | {:.0} % | {:.2}× |",
            stats.throughput,
            stats.p50.as_secs_f64() * 1e3,
            stats.p99.as_secs_f64() * 1e3,
            100.0 * stats.throughput / baseline.throughput,
            stats.p99.as_secs_f64() / baseline.p99.as_secs_f64(),
        );
    }

    // Where the difference goes: the handler alone, on one thread, no I/O.
    let handler_only = [
        ("/mutate", Endpoint::Mutate, MUTATE_CR),
        ("/validate", Endpoint::Validate, VALIDATE_POLICY),
    ];
    for (path, endpoint, body) in handler_only {
        let per_call = client_runtime.block_on(handler_cost(&admission, endpoint, body.as_bytes()));
        println!("handler alone, {path}: {:.1} µs per request", per_call.as_secs_f64() * 1e6);
    }
}

async fn handler_cost(
    admission: &Admission<NoCluster, NoCluster>,
    endpoint: Endpoint,
    body: &[u8],
) -> Duration {
    const CALLS: u32 = 20_000;
    let started = Instant::now();
    for _ in 0..CALLS {
        let handled = admission.handle(endpoint, body).await.unwrap();
        std::hint::black_box(handled);
    }
    started.elapsed() / CALLS
}

async fn minimal_endpoint(pair: &PemPair) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let tls = axum_server::tls_rustls::RustlsConfig::from_config(server_config(pair).unwrap());
    let app =
        axum::Router::new().route("/", axum::routing::post(|| async { r#"{"allowed":true}"# }));
    let server = axum_server::from_tcp_rustls(listener, tls).unwrap();
    tokio::spawn(server.serve(app.into_make_service()));
    addr
}

#[derive(Clone, Copy)]
struct Stats {
    throughput: f64,
    p50: Duration,
    p99: Duration,
}

impl Stats {
    /// The median of each figure separately.
    fn median(runs: &[Stats]) -> Stats {
        let mut throughput: Vec<f64> = runs.iter().map(|r| r.throughput).collect();
        let mut p50: Vec<Duration> = runs.iter().map(|r| r.p50).collect();
        let mut p99: Vec<Duration> = runs.iter().map(|r| r.p99).collect();
        throughput.sort_unstable_by(f64::total_cmp);
        p50.sort_unstable();
        p99.sort_unstable();
        let mid = runs.len() / 2;
        Stats { throughput: throughput[mid], p50: p50[mid], p99: p99[mid] }
    }
}

#[derive(Clone, Copy)]
enum Http {
    One,
    Two,
}

/// Where one scenario sends its requests.
#[derive(Clone, Copy)]
struct Target {
    addr: SocketAddr,
    path: &'static str,
    http: Http,
}

impl Target {
    async fn connect(self, client: Arc<rustls::ClientConfig>) -> Connection {
        match self.http {
            Http::One => Connection::open(client, self.addr).await,
            Http::Two => Connection::open_http2(client, self.addr).await,
        }
    }
}

async fn load(
    client: &Arc<rustls::ClientConfig>,
    leaf: &CertificateDer<'static>,
    target: Target,
    body: Bytes,
    measure: Duration,
) -> Stats {
    let path = target.path;
    // Every scenario must be answered as intended, or the figures mean nothing.
    let mut probe = target.connect(client.clone()).await;
    let agreed = probe.alpn.as_deref();
    assert_eq!(agreed, matches!(target.http, Http::Two).then_some(&b"h2"[..]));
    assert_eq!(&probe.peer_certificate, leaf);
    let (status, answer) = probe.send("POST", path, body.clone()).await;
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.contains(r#""allowed":true"#), "{answer}");

    let begin = Instant::now() + WARM_UP;
    let end = begin + measure;
    let workers: Vec<_> = (0..CONNECTIONS)
        .map(|_| {
            let (client, body) = (client.clone(), body.clone());
            tokio::spawn(async move {
                let mut connection = target.connect(client).await;
                let mut latencies = Vec::new();
                loop {
                    let sent = Instant::now();
                    if sent >= end {
                        return latencies;
                    }
                    let (status, _) = connection.send("POST", path, body.clone()).await;
                    assert_eq!(status, 200);
                    if sent >= begin {
                        latencies.push(sent.elapsed());
                    }
                }
            })
        })
        .collect();
    let mut latencies = Vec::new();
    for worker in workers {
        latencies.extend(worker.await.unwrap());
    }
    latencies.sort_unstable();
    let at = |q: usize| latencies[(latencies.len() * q / 100).min(latencies.len() - 1)];
    Stats { throughput: latencies.len() as f64 / measure.as_secs_f64(), p50: at(50), p99: at(99) }
}
