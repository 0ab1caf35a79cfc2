//! Crash consistency of `certgate dev --data-dir`: writers create objects concurrently, the
//! process is killed with SIGKILL at a (seeded) random moment, and after a restart every
//! write that was acknowledged (its response arrived with a resourceVersion) is there with
//! that resourceVersion. Nothing here asserts a duration: the random moments only decide
//! where the kills land.

mod dev_http;
mod dev_support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dev_http::Endpoint;
use dev_support::spawn_dev;

const KILLS: usize = 5;
const WRITERS: usize = 4;

/// A small deterministic generator (xorshift64*): the same kill moments on every run.
struct Seeded(u64);

impl Seeded {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % bound
    }
}

fn start(dir: &Path, data: &Path) -> (Child, Endpoint) {
    let (child, kubeconfig, _) =
        spawn_dev(dir, &["--no-webhook", "--data-dir", data.to_str().unwrap()]);
    let endpoint = Endpoint::from_kubeconfig(&kubeconfig, dir);
    (child, endpoint)
}

#[test]
fn every_acknowledged_write_survives_kill_9_with_its_resource_version() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let mut random = Seeded(0x5EED_CAFE_F00D_0016);
    // name → resourceVersion, as acknowledged by the server.
    let acknowledged = Arc::new(Mutex::new(BTreeMap::<String, String>::new()));
    for round in 0..KILLS {
        let (mut child, endpoint) = start(dir.path(), &data);
        let endpoint = Arc::new(endpoint);
        let dead = Arc::new(AtomicBool::new(false));
        let writers: Vec<_> = (0..WRITERS)
            .map(|writer| {
                let (endpoint, dead, acknowledged) =
                    (Arc::clone(&endpoint), Arc::clone(&dead), Arc::clone(&acknowledged));
                std::thread::spawn(move || {
                    for index in 0.. {
                        if dead.load(Ordering::SeqCst) {
                            return;
                        }
                        let name = format!("r{round}-w{writer}-{index}");
                        let body = format!(
                            r#"{{"apiVersion":"v1","kind":"ConfigMap","metadata":{{"name":"{name}"}},"data":{{"n":"{index}"}}}}"#
                        );
                        let path = "/api/v1/namespaces/default/configmaps";
                        if let Some(created) = endpoint.request("POST", path, Some(&body))
                            && let Some(rv) = created["metadata"]["resourceVersion"].as_str()
                        {
                            acknowledged.lock().unwrap().insert(name, rv.to_owned());
                        }
                    }
                })
            })
            .collect();
        // Let some writes land before the kill: at least a few acknowledged ones.
        // (Bounded so that a sandbox that stops answering fails the test, not hangs it.)
        let before = acknowledged.lock().unwrap().len();
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        while acknowledged.lock().unwrap().len() < before + 5 {
            assert!(
                std::time::Instant::now() < deadline,
                "no writes acknowledged in round {round}"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(random.below(400)));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        dead.store(true, Ordering::SeqCst);
        for writer in writers {
            writer.join().unwrap();
        }
    }

    let (mut child, endpoint) = start(dir.path(), &data);
    let listed = endpoint
        .request("GET", "/api/v1/namespaces/default/configmaps", None)
        .expect("the restarted sandbox lists");
    let _ = child.kill();
    let _ = child.wait();
    let stored: BTreeMap<String, String> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["metadata"]["name"].as_str().unwrap().to_owned(),
                item["metadata"]["resourceVersion"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let acknowledged = acknowledged.lock().unwrap();
    eprintln!(
        "{} acknowledged writes over {KILLS} kills, {} objects stored",
        acknowledged.len(),
        stored.len()
    );
    assert!(acknowledged.len() >= KILLS * 5, "{} acknowledged writes", acknowledged.len());
    for (name, rv) in acknowledged.iter() {
        assert_eq!(stored.get(name), Some(rv), "acknowledged {name} at resourceVersion {rv}");
    }
    // Revisions are never reused: all distinct.
    let mut revisions: Vec<u64> = stored.values().map(|rv| rv.parse().unwrap()).collect();
    revisions.sort_unstable();
    revisions.dedup();
    assert_eq!(revisions.len(), stored.len());
}
