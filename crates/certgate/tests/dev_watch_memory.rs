//! Watches that are never read do not each cost a copy of the data set: their initial
//! events are streamed from objects shared with the store, their buffers are bounded, and a
//! watch whose buffer stays full is closed (as the API server closes an unresponsive
//! watcher), returning what it held.
//!
//! Measured on the real binary: the resident memory of `certgate dev` before and after
//! eight unread watches of a 36 MB data set. Before the fix each such watch held a full
//! copy (eight watches: +290 MB here); the bound asserted is one copy for all eight.

mod dev_http;
mod dev_support;

use std::time::Duration;

use dev_http::Endpoint;
use dev_support::spawn_dev;

/// Many mid-sized objects (36 MB in all), as a cluster has: each watch's bounded buffer is
/// then small next to the data set.
const OBJECTS: usize = 300;
const VALUE_BYTES: usize = 120_000;
const WATCHES: usize = 8;

fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/PID/status")
}

#[test]
fn unread_watches_do_not_each_hold_a_copy_of_the_data_set() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, kubeconfig, _) = spawn_dev(dir.path(), &["--no-webhook"]);
    let endpoint = Endpoint::from_kubeconfig(&kubeconfig, dir.path());
    let value = "x".repeat(VALUE_BYTES);
    for index in 0..OBJECTS {
        let body = format!(
            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"big-{index}"}},"data":{{"v":"{value}"}}}}"#
        );
        let created =
            endpoint.request("POST", "/api/v1/namespaces/default/configmaps", Some(&body));
        assert!(created.is_some_and(|c| c["metadata"]["name"] == format!("big-{index}")));
    }
    let data_set_kib = (OBJECTS * VALUE_BYTES / 1024) as u64;
    let before = resident_kib(child.id());
    let mut watches: Vec<_> = (0..WATCHES)
        .map(|_| endpoint.unread_watch("/api/v1/namespaces/default/configmaps?watch=true"))
        .collect();
    // Give the server time to do whatever each watch makes it do (the old code copied the
    // data set per watch at once); the grace for a full buffer is 5 s. Nothing is asserted
    // about this duration: the assertion is on memory.
    std::thread::sleep(Duration::from_secs(8));
    let during = resident_kib(child.id());
    for watch in &mut watches {
        let _ = watch.kill();
        let _ = watch.wait();
    }
    std::thread::sleep(Duration::from_secs(1));
    let after = resident_kib(child.id());
    let _ = child.kill();
    let _ = child.wait();
    eprintln!(
        "data set {data_set_kib} KiB; resident before {before} KiB, with {WATCHES} unread watches {during} KiB (+{} KiB), after closing them {after} KiB",
        during.saturating_sub(before)
    );
    assert!(
        during.saturating_sub(before) < data_set_kib,
        "{WATCHES} unread watches grew the server by {} KiB, more than one copy of the {data_set_kib} KiB data set",
        during - before
    );
}
