//! Helpers of the live edge tests (`edge_live*.rs`): the certificates and CRLs, a loopback
//! HTTP backend, `certgate edge serve` and a real Envoy bootstrapped by `certgate edge
//! bootstrap`, and a rustls client. Every process is killed when its handle is dropped
//! (also on a panic); every wait is bounded and polls; nothing asserts a time.
#![allow(dead_code)]

pub mod client;
pub mod cluster;
pub mod live;
pub mod pki;
pub mod processes;

use std::net::TcpListener;
use std::time::{Duration, Instant};

/// Bounds every wait (a cluster, a process, Envoy taking a configuration); not measured.
pub const HANG_GUARD: Duration = Duration::from_secs(90);

/// A port free on 127.0.0.1 right now, below Linux's ephemeral range (32768–60999): Envoy
/// binds its listeners only once configured, seconds later, and a port from the ephemeral
/// range can meanwhile be taken by any outgoing connection of the machine (a kubectl, an
/// API server's etcd client). Below it, only another test picking the same port can collide.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    // Spread the tests of one binary over the range from a per-process start.
    static NEXT: AtomicU16 = AtomicU16::new(0);
    let span = 32768 - 20000;
    let start = (std::process::id() as u64 * 7919 % span) as u16;
    for _ in 0..span {
        let offset = (start as u64 + NEXT.fetch_add(1, Ordering::Relaxed) as u64 * 13) % span;
        let port = 20000 + offset as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free port on 127.0.0.1 in 20000-32767")
}

/// Polls `probe` every 100 ms until it gives `Ok`, at most [`HANG_GUARD`]; then panics with
/// `what`, the last `Err` (what was seen instead) and `context` (logs).
pub fn wait_for<T>(
    what: &str,
    mut probe: impl FnMut() -> Result<T, String>,
    context: impl Fn() -> String,
) -> T {
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let seen = match probe() {
            Ok(value) => return value,
            Err(seen) => seen,
        };
        if Instant::now() > deadline {
            panic!("gave up waiting for {what}; last seen: {seen}\n{}", context());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
