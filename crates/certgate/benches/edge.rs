//! The live Contour edge under load (issue #21, performance): `certgate edge serve` (the real
//! binary, a child process) watching an in-process sandbox API server
//! (`certgate_sandbox::start`) and serving a real Envoy (`CERTGATE_ENVOY`, else
//! `tools/envoy/install`; one worker thread, admin on a Unix socket) over plain gRPC, with
//! Envoy enforcing client certificates and CRLs (`spec.virtualhost.tls.clientValidation.
//! {caSecret,crlSecret}`). Clients are rustls in this process: a fresh TCP connection, TLS 1.3
//! handshake with a client certificate and `GET /` per request, answered by a loopback
//! backend. Memory figures are VmHWM (peak resident set) of the child processes.
//!
//! Three scenarios, each once per client-validation delivery of `certgate edge serve
//! --client-validation` (`sds`, its default, and `inline`, Contour's; only the binary's
//! behaviour when it has no such flag):
//!
//! 1. **CRL rotation → Envoy enforcing** (`edge/rotation.rs`): one HTTPProxy, 50 client
//!    certificates issued beforehand, 50 rotations of its CRL Secret each revoking the next
//!    client; from the patch's answer until that client's first refused request (tight loop),
//!    p50/p99/max (goal: p99 ≤ 1 s), beside the floor measured in the same run: the same
//!    refused request against an Envoy that already holds the CRL, the good client's served
//!    request, and the controller's 100 ms debounce.
//! 2. **1,000 HTTPProxies with client validation** (`edge/proxies.rs`), created before the
//!    controller starts: from its spawn until Envoy built and ACKed the listeners, until its
//!    workers start (every filter chain's secrets and routes in), until the last fqdn is
//!    served and until every status is `valid`; filter chains Envoy holds; xDS streams; peak
//!    memory of the controller and of Envoy;
//!    beside the pure cost of the same rebuild in this process (`edge/pure.rs`:
//!    `process_snapshot`, `build_resources`, `to_xds`, `decide`, CRL checks).
//! 3. **A 1,000,000-entry CRL in one Secret** (`edge/crl.rs`): `certgate crl inspect` on the
//!    bundle (wall time, peak memory); the sandbox's answer to such a Secret, the largest CRL
//!    it accepts (bisection) and that CRL live (patch → published, → Envoy enforcing, rebuild
//!    time, controller memory); the full-size CRL through the controller's path in a child
//!    process serving a real Envoy (→ published, → ACKed, → enforcing, memory).
//!
//! Knobs: `CERTGATE_BENCH_ROTATIONS` (50), `CERTGATE_BENCH_PROXIES` (1000),
//! `CERTGATE_BENCH_CRL_ENTRIES` (1000000), `CERTGATE_BENCH_RUNS` (1: each scenario again on a
//! fresh sandbox, rotation latencies pooled, other figures per run),
//! `CERTGATE_BENCH_ENVOY_TIMEOUT` (seconds Envoy may take to enforce a large CRL, 600),
//! `CERTGATE_BENCH_SCENARIOS` (`rotation,proxies,crl`), `CERTGATE_BENCH_VALIDATION`
//! (`sds,inline`), `CERTGATE_BENCH_ENVOY_LOG` (a file: Envoy's log of scenario 2, to see where
//! its start-up time goes).
//!
//!   nice -n 19 cargo bench -p certgate --bench edge
//!
//! (about one minute at full size on 2 cores, once built; docs/performance.md has the figures).
//! A small run: `CERTGATE_BENCH_ROTATIONS=5 CERTGATE_BENCH_PROXIES=50
//! CERTGATE_BENCH_CRL_ENTRIES=50000`.

#[path = "edge/client.rs"]
mod client;
#[path = "edge/cluster.rs"]
mod cluster;
#[path = "edge/crl.rs"]
mod crl;
#[path = "edge/pki.rs"]
mod pki;
#[path = "edge/processes.rs"]
mod processes;
#[path = "edge/proxies.rs"]
mod proxies;
#[path = "edge/pure.rs"]
mod pure;
#[path = "edge/rotation.rs"]
mod rotation;

use std::time::Duration;

use crl::CrlFigures;
use proxies::ProxiesFigures;
use rotation::RotationFigures;

struct Scale {
    rotations: usize,
    proxies: usize,
    crl_entries: usize,
    runs: usize,
    envoy_timeout: Duration,
    scenarios: Vec<String>,
    modes: Vec<String>,
}

impl Scale {
    fn from_env() -> Scale {
        let number = |name: &str, default: usize| {
            std::env::var(name).ok().map_or(default, |v| {
                v.parse().unwrap_or_else(|_| panic!("{name} must be a number, not {v:?}"))
            })
        };
        let list = |name: &str, default: &str| -> Vec<String> {
            std::env::var(name)
                .unwrap_or_else(|_| default.to_owned())
                .split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        };
        let modes = if processes::has_client_validation_flag() {
            list("CERTGATE_BENCH_VALIDATION", "sds,inline")
        } else {
            vec!["default".to_owned()]
        };
        Scale {
            rotations: number("CERTGATE_BENCH_ROTATIONS", 50).max(1),
            proxies: number("CERTGATE_BENCH_PROXIES", 1_000).max(1),
            crl_entries: number("CERTGATE_BENCH_CRL_ENTRIES", 1_000_000).max(3),
            runs: number("CERTGATE_BENCH_RUNS", 1).max(1),
            envoy_timeout: Duration::from_secs(number("CERTGATE_BENCH_ENVOY_TIMEOUT", 600) as u64),
            scenarios: list("CERTGATE_BENCH_SCENARIOS", "rotation,proxies,crl"),
            modes,
        }
    }

    fn wants(&self, scenario: &str) -> bool {
        self.scenarios.iter().any(|s| s == scenario)
    }
}

/// `certgate edge serve`'s flags for `mode`.
fn mode_flags(mode: &str) -> Vec<String> {
    if mode == "default" { Vec::new() } else { vec![format!("--client-validation={mode}")] }
}

#[derive(Default)]
struct Figures {
    rotations: Vec<RotationFigures>,
    proxies: Vec<ProxiesFigures>,
    crls: Vec<CrlFigures>,
}

fn main() {
    if let Some(dir) = std::env::var_os(crl::CHILD_ENV) {
        crl::child_main(std::path::Path::new(&dir));
        return;
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let scale = Scale::from_env();
    eprintln!(
        "edge benchmark: {} rotations, {} HTTPProxies, {}-entry CRL, {} run(s), deliveries {:?}, scenarios {:?}",
        scale.rotations, scale.proxies, scale.crl_entries, scale.runs, scale.modes, scale.scenarios
    );
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let mut figures = Figures::default();
    for run in 0..scale.runs {
        for mode in &scale.modes {
            let flags = mode_flags(mode);
            if scale.wants("rotation") {
                eprintln!("[run {}] rotation, {mode}", run + 1);
                figures.rotations.push(runtime.block_on(rotation::run(
                    scale.rotations,
                    &flags,
                    mode,
                )));
            }
            if scale.wants("proxies") {
                eprintln!("[run {}] {} HTTPProxies, {mode}", run + 1, scale.proxies);
                let limit = Duration::from_secs(600);
                figures.proxies.push(runtime.block_on(proxies::run(
                    scale.proxies,
                    &flags,
                    mode,
                    limit,
                )));
            }
            if scale.wants("crl") {
                eprintln!("[run {}] {}-entry CRL, {mode}", run + 1, scale.crl_entries);
                figures.crls.push(runtime.block_on(crl::run(
                    scale.crl_entries,
                    &flags,
                    mode,
                    scale.envoy_timeout,
                )));
            }
        }
    }
    report(&scale, &figures);
}

// ---------------------------------------------------------------------------------------
// The report

/// Nearest rank.
fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn opt_ms(d: Option<Duration>) -> String {
    d.map_or_else(|| "—".to_owned(), ms)
}

fn secs(d: Option<Duration>) -> String {
    d.map_or_else(|| "not reached".to_owned(), |d| format!("{:.2} s", d.as_secs_f64()))
}

/// `p50 / p99 / max` of `values`.
fn spread(values: &[Duration]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort();
    format!(
        "{} / {} / {}",
        ms(percentile(&sorted, 50.0)),
        ms(percentile(&sorted, 99.0)),
        ms(sorted.last().copied().unwrap_or_default())
    )
}

fn report(scale: &Scale, figures: &Figures) {
    println!(
        "\n== edge live: certgate edge serve + Envoy {}, {} run(s) ==",
        processes::envoy_binary().display(),
        scale.runs
    );
    for mode in &scale.modes {
        let of_mode: Vec<&RotationFigures> =
            figures.rotations.iter().filter(|r| &r.mode == mode).collect();
        if of_mode.is_empty() {
            continue;
        }
        let pool = |f: &dyn Fn(&RotationFigures) -> &Vec<Duration>| -> Vec<Duration> {
            of_mode.iter().flat_map(|r| f(r).iter().copied()).collect()
        };
        let latencies = pool(&|r| &r.latencies);
        let published = pool(&|r| &r.to_published);
        let envoy_side = pool(&|r| &r.published_to_refused);
        let refused_floor = pool(&|r| &r.refused_floor);
        let served_floor = pool(&|r| &r.served_floor);
        let attempts: Vec<usize> =
            of_mode.iter().flat_map(|r| r.attempts.iter().copied()).collect();
        let rotations: usize = of_mode.iter().map(|r| r.latencies.len() + r.missed).sum();
        let p99 = {
            let mut sorted = latencies.clone();
            sorted.sort();
            percentile(&sorted, 99.0)
        };
        println!(
            "\n-- 1. CRL rotation → Envoy enforcing ({mode}): {rotations} rotations, one HTTPProxy"
        );
        println!("| measure | p50 / p99 / max |");
        println!("|---|---|");
        println!(
            "| patch answered → revoked client's first refused request | {} |",
            spread(&latencies)
        );
        println!("| patch answered → controller published (its log) | {} |", spread(&published));
        println!("| controller published → first refused request | {} |", spread(&envoy_side));
        println!(
            "| floor: the refused request, Envoy already holding the CRL | {} |",
            spread(&refused_floor)
        );
        println!("| floor: the good client's served request | {} |", spread(&served_floor));
        println!(
            "goal p99 ≤ 1 s: {}; controller debounce 100 ms (a floor of its own); rebuilds {:.0}, mean rebuild {}",
            if p99 <= Duration::from_secs(1) { "met" } else { "MISSED" },
            of_mode.iter().map(|r| r.rebuilds).sum::<f64>(),
            ms(Duration::from_secs_f64(
                of_mode.iter().map(|r| r.rebuild_seconds_sum).sum::<f64>()
                    / of_mode.iter().map(|r| r.rebuilds).sum::<f64>().max(1.0)
            ))
        );
        let mut sorted_attempts = attempts.clone();
        sorted_attempts.sort_unstable();
        println!(
            "requests per rotation until refused: median {}, max {}; missed {}; good client served after {} of {} rotations",
            sorted_attempts.get(sorted_attempts.len() / 2).copied().unwrap_or(0),
            sorted_attempts.last().copied().unwrap_or(0),
            of_mode.iter().map(|r| r.missed).sum::<usize>(),
            of_mode.iter().map(|r| r.good_served).sum::<usize>(),
            rotations
        );
        for r in &of_mode {
            println!(
                "refusals seen: {:?}; peak memory: controller {:.0} MiB, Envoy {:.0} MiB",
                r.refusal_kinds, r.controller_peak_mib, r.envoy_peak_mib
            );
        }
    }
    for p in &figures.proxies {
        println!(
            "\n-- 2. {} HTTPProxies with client validation ({}): {} namespaces, {} Secrets ({} serving, one CA and one CRL per namespace), created in {:.1} s (not timed)",
            p.proxies,
            p.mode,
            p.namespaces,
            p.secrets,
            p.proxies,
            p.created_in.as_secs_f64()
        );
        println!("| from `certgate edge serve` spawned | time |");
        println!("|---|---|");
        println!("| caches filled (log) | {} |", secs(p.caches_filled));
        println!("| first snapshot published (log) | {} |", secs(p.first_published));
        println!("| Envoy spawned | {:.2} s |", p.envoy_started_at.as_secs_f64());
        println!(
            "| Envoy built the HTTPS listener from LDS (its log) | {} |",
            secs(p.https_listener_added)
        );
        println!(
            "| Envoy ACKed the listeners (certgate_xds_acks_total) | {} |",
            secs(p.listener_acked)
        );
        println!(
            "| Envoy's secrets and routes all in, `starting workers` (its log) | {} |",
            secs(p.workers_started)
        );
        println!("| last proxy's fqdn served to a client | {} |", secs(p.last_served));
        println!("| first status valid | {} |", secs(p.first_valid));
        println!("| all {} statuses valid | {} |", p.proxies, secs(p.all_valid));
        println!(
            "Envoy's HTTPS listener holds {} filter chains; xDS streams open {:.0}, Secret ACKs {:.0}",
            p.filter_chains, p.xds_streams, p.sds_acks
        );
        println!(
            "peak memory: controller {:.0} MiB (RSS {:.0}), Envoy {:.0} MiB (RSS {:.0}); controller CPU {:.2} s",
            p.controller_peak_mib,
            p.controller_rss_mib,
            p.envoy_peak_mib,
            p.envoy_rss_mib,
            p.controller_cpu
        );
        println!(
            "controller VmRSS once published, before Envoy's ACK: {:.0} MiB; 2 s after Envoy is gone: {:.0} MiB ({:.0} streams open); the last proxy's client saw before it was served: {:?}",
            p.controller_rss_before_ack_mib,
            p.controller_rss_without_envoy_mib,
            p.xds_streams_without_envoy,
            p.before_served
        );
        let pure = &p.pure;
        println!(
            "pure, same objects, this process (median of {}): convert {}, process_snapshot {}, build_resources {}, to_xds {} = {}; decide (with the snapshot) {}, CRL checks: nextUpdate {}, warnings {}; {} bytes of xDS, resources {:?}, {} valid",
            pure.passes,
            ms(pure.convert),
            ms(pure.process_snapshot),
            ms(pure.build_resources),
            ms(pure.to_xds),
            ms(pure.pipeline),
            ms(pure.decide),
            ms(pure.next_updates),
            ms(pure.warnings),
            pure.xds_bytes,
            pure.resources,
            pure.valid
        );
    }
    for c in &figures.crls {
        println!(
            "\n-- 3. {}-entry CRL ({}): {:.1} MB of PEM (generated in {:.1} s)",
            c.entries,
            c.mode,
            c.pem_bytes as f64 / 1e6,
            c.generated_in.as_secs_f64()
        );
        if let Some(inspect) = &c.inspect {
            println!("certgate crl inspect --ca (CLI child): {inspect:?}");
        }
        println!("sandbox, Secret with the full CRL: {}", c.refusal);
        println!(
            "sandbox accepts at most {} entries ({:.2} MB of PEM; {} probes); one more: {}",
            c.live.entries,
            c.live.pem_bytes as f64 / 1e6,
            c.probes,
            c.refusal_over
        );
        println!(
            "a real API server's 1 MiB of Secret data holds at most {} entries (computed)",
            c.real_api_entries
        );
        if let Some(inspect) = &c.inspect_fit {
            println!("certgate crl inspect --ca on the {}-entry CRL: {inspect:?}", c.live.entries);
        }
        let l = &c.live;
        println!("| live, {}-entry CRL | |", l.entries);
        println!("|---|---|");
        println!("| patch answered → controller published | {} |", opt_ms(l.to_published));
        println!(
            "| patch answered → victim refused | {} ({} requests, {}; that request {}, slowest {}) |",
            opt_ms(l.to_refused),
            l.attempts,
            l.refusal,
            ms(l.requests.0),
            ms(l.requests.1)
        );
        println!(
            "| rebuild (certgate_edge_rebuild_duration_seconds) | {} |",
            ms(Duration::from_secs_f64(l.rebuild_seconds.max(0.0)))
        );
        println!(
            "| controller VmHWM before → after | {:.0} → {:.0} MiB |",
            l.controller_peak_before_mib, l.controller_peak_after_mib
        );
        println!(
            "| Envoy VmHWM before → after | {:.0} → {:.0} MiB |",
            l.envoy_peak_before_mib, l.envoy_peak_after_mib
        );
        println!("| good client served after | {} |", l.good_served_after);
        let i = &c.in_process;
        println!(
            "| full {}-entry CRL through the controller's path (child process) | |",
            c.entries
        );
        println!("|---|---|");
        println!("| decode + convert the Secret | {} |", ms(i.convert));
        println!("| decide (process, build, snapshot) | {} |", ms(i.decide));
        println!(
            "| CRL checks: nextUpdate gauge (`NextUpdates::update`) | {} |",
            ms(i.next_updates)
        );
        println!("| CRL checks: warnings (`CrlWarnings::update`) | {} |", ms(i.warnings));
        println!("| switch → published | {} |", opt_ms(i.to_published));
        println!(
            "| switch → Envoy's ACKs of the changed type | {} |",
            i.acks.iter().map(|d| ms(*d)).collect::<Vec<_>>().join(", ")
        );
        println!(
            "| switch → victim refused | {} |",
            if i.timed_out {
                "timed out".to_owned()
            } else {
                format!(
                    "{} ({} requests, {}; that request {}, slowest {})",
                    opt_ms(i.to_refused),
                    i.attempts,
                    i.refusal,
                    ms(i.requests.0),
                    ms(i.requests.1)
                )
            }
        );
        println!(
            "| child VmHWM before → after | {:.0} → {:.0} MiB |",
            i.child_peak_before_mib, i.child_peak_after_mib
        );
        println!(
            "| Envoy VmHWM before → after | {:.0} → {:.0} MiB |",
            i.envoy_peak_before_mib, i.envoy_peak_after_mib
        );
        println!("| good client served after | {:?} |", i.good_served_after);
        if !i.nacks.is_empty() {
            println!("NACKs: {:?}", i.nacks);
        }
    }
    println!(
        "\nbench process peak memory (sandbox included): {:.0} MiB",
        processes::own_peak_mib()
    );
}
