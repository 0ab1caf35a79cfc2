//! Scenario 1: CRL rotations reaching Envoy. One HTTPProxy with `caSecret` and `crlSecret`;
//! `rotations` client certificates issued beforehand; rotation `i` replaces the CRL Secret's
//! `crl.pem` (a merge patch through the API) with a CRL revoking clients `0..=i`. Measured
//! from the patch's answer until client `i`'s first refused request (a fresh TCP connection,
//! TLS handshake and `GET /` each, in a tight loop); then the floor: the same client's refused
//! request against an Envoy that already holds the CRL, and the good client's served one.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use certgate_sandbox::{SandboxOptions, start};

use super::client::{Client, Polled};
use super::cluster::{
    BACKEND_BODY, client, create_all, endpoint_slice, httpproxy, install_crds, namespace, secret,
    service, set_crl, watch_statuses,
};
use super::pki::Ca;
use super::processes::{Backend, Envoy, HANG_GUARD, Ports, edge_serve, lock, wait_for};

const NAMESPACE: &str = "edge";
const HOST: &str = "edge.bench.example.com";
/// A serial no certificate has: the first CRL is never empty.
pub const UNUSED_SERIAL: u64 = 0xdead;
const GOOD_SERIAL: u64 = 0x1001;
/// Requests of the floor after each rotation.
const FLOOR_SAMPLES: usize = 10;
const ROTATION_LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, Default)]
pub struct RotationFigures {
    pub mode: String,
    /// Patch answered → first refused request of the newly revoked client (its end).
    pub latencies: Vec<Duration>,
    /// Patch answered → the controller logged the published rebuild.
    pub to_published: Vec<Duration>,
    /// The controller's published rebuild → the first refused request (xDS push, Envoy
    /// applying it, the request).
    pub published_to_refused: Vec<Duration>,
    /// Requests of the revoked client per rotation until the refusal.
    pub attempts: Vec<usize>,
    /// How the refusals looked.
    pub refusal_kinds: BTreeMap<String, usize>,
    /// Rotations with no refusal within the limit.
    pub missed: usize,
    /// The refused request of the revoked client against an Envoy holding the CRL.
    pub refused_floor: Vec<Duration>,
    /// The good client's served request.
    pub served_floor: Vec<Duration>,
    /// Rotations after which the good client was still served.
    pub good_served: usize,
    pub rebuilds: f64,
    pub rebuild_seconds_sum: f64,
    pub controller_peak_mib: f64,
    pub envoy_peak_mib: f64,
}

pub async fn run(rotations: usize, mode_flags: &[String], mode: &str) -> RotationFigures {
    let mut figures = RotationFigures { mode: mode.to_owned(), ..RotationFigures::default() };
    let sandbox = start(SandboxOptions::default()).await.unwrap();
    let admin = client(&sandbox.kubeconfig()).await;
    install_crds(&admin).await;

    let serving_ca = Ca::new("edge bench serving CA");
    let server = serving_ca.server(HOST, 0x5001);
    let client_ca = Ca::new("edge bench client CA");
    let clients: Vec<_> = (0..rotations)
        .map(|i| client_ca.client(&format!("client {i}"), 0x2000 + i as u64))
        .collect();
    let good = client_ca.client("client good", GOOD_SERIAL);
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
        secret(NAMESPACE, "crl", "Opaque", &[("crl.pem", &client_ca.crl(&[UNUSED_SERIAL], 0, 1))]),
        service(NAMESPACE),
        endpoint_slice(NAMESPACE, backend.port),
        httpproxy(NAMESPACE, "edge", HOST, "server", "client-ca", "crl"),
    ];
    create_all(&admin, &objects).await;
    let (statuses, watching) = watch_statuses(admin.clone()).await;

    let dir = tempfile::Builder::new().prefix("certgate-edge-bench-").tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, sandbox.kubeconfig()).unwrap();
    let ports = Ports::free();
    let edge = tokio::task::block_in_place(|| edge_serve(&kubeconfig, ports, mode_flags));
    let envoy = Envoy::start(dir.path(), ports.xds);
    let context = || format!("{}\n{}", edge.tail(), envoy.process.tail());
    let good_client = Client::new(&serving_ca.der, &good, HOST);
    let addr = ports.https();
    tokio::task::block_in_place(|| {
        wait_for(
            "the HTTPProxy to be valid",
            HANG_GUARD,
            Duration::from_millis(20),
            || (lock(&statuses).valid() == 1).then_some(()),
            context,
        );
        wait_for(
            "Envoy to serve the good client",
            HANG_GUARD,
            Duration::from_millis(20),
            || good_client.get(addr).is_ok_with(BACKEND_BODY).then_some(()),
            context,
        );
    });

    let rebuilds_before =
        edge.metric("certgate_edge_rebuild_duration_seconds_count").unwrap_or(0.0);
    let sum_before = edge.metric("certgate_edge_rebuild_duration_seconds_sum").unwrap_or(0.0);
    for i in 0..rotations {
        let revoked = Client::new(&serving_ca.der, &clients[i], HOST);
        let served = tokio::task::block_in_place(|| revoked.get(addr));
        assert!(
            served.is_ok_with(BACKEND_BODY),
            "client {i} before its revocation: {served:?}\n{}",
            context()
        );
        let mut serials = vec![UNUSED_SERIAL];
        serials.extend(clients[..=i].iter().map(|c| c.serial));
        let crl = client_ca.crl(&serials, 0, i as u64 + 2);
        let before = Instant::now();
        set_crl(&admin, NAMESPACE, "crl", &crl).await.unwrap();
        let answered = Instant::now();
        let refused = tokio::task::block_in_place(|| {
            revoked.poll_until(addr, ROTATION_LIMIT, |o| o.is_refused())
        });
        let Some(Polled { outcome, at, attempts, .. }) = refused else {
            figures.missed += 1;
            eprintln!("rotation {i}: client not refused within {ROTATION_LIMIT:?}");
            continue;
        };
        figures.latencies.push(at - answered);
        figures.attempts.push(attempts);
        *figures.refusal_kinds.entry(outcome.kind()).or_default() += 1;
        if let Some(published) = edge.published_after(before) {
            figures.to_published.push(published.saturating_duration_since(answered));
            figures.published_to_refused.push(at.saturating_duration_since(published));
        }
        tokio::task::block_in_place(|| {
            for _ in 0..FLOOR_SAMPLES {
                let (outcome, took, _) = revoked.timed_get(addr);
                assert!(outcome.is_refused(), "client {i} served again: {outcome:?}");
                figures.refused_floor.push(took);
            }
            let mut all_served = true;
            for _ in 0..FLOOR_SAMPLES {
                let (outcome, took, _) = good_client.timed_get(addr);
                all_served &= outcome.is_ok_with(BACKEND_BODY);
                figures.served_floor.push(took);
            }
            figures.good_served += usize::from(all_served);
        });
        if (i + 1) % 10 == 0 {
            eprintln!("  [{mode}] {} rotations done", i + 1);
        }
    }
    figures.rebuilds = edge.metric("certgate_edge_rebuild_duration_seconds_count").unwrap_or(0.0)
        - rebuilds_before;
    figures.rebuild_seconds_sum =
        edge.metric("certgate_edge_rebuild_duration_seconds_sum").unwrap_or(0.0) - sum_before;
    figures.controller_peak_mib = edge.memory_mib("VmHWM");
    figures.envoy_peak_mib = envoy.process.memory_mib("VmHWM");
    let warnings = lock(&edge.log).warnings.clone();
    if !warnings.is_empty() {
        eprintln!("controller warnings: {warnings:#?}");
    }
    drop(envoy);
    drop(edge);
    watching.abort();
    sandbox.shutdown();
    figures
}
