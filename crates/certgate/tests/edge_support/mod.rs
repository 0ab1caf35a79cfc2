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

// Several harness modules include it; its reservations are process-wide (see there).
#[allow(clippy::duplicate_mod)]
#[path = "../ports/mod.rs"]
mod ports;
pub use ports::free_port;

use std::time::{Duration, Instant};

/// Bounds every wait (a cluster, a process, Envoy taking a configuration); not measured.
pub const HANG_GUARD: Duration = Duration::from_secs(90);

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
