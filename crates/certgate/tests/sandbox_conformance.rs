//! The sandbox conformance report (issue #18 item 4): one fixed script of requests
//! (`sandbox_conformance/script.yaml`) replayed over raw HTTPS against `certgate dev` and
//! against a real kube-apiserver, both with certgate's webhook registered (the script's
//! admission denial needs it) and no controllers (they would change CertificateRequests while
//! the script reads them). Each step's status code, media type, `Warning` headers and body
//! (watch events in order) are compared after normalization (`normalize.rs`).
//!
//! The test fails when a step differs that the script's `known_differences` does not list,
//! and when a listed step now agrees, so the list stays true. It prints
//! `sandbox conformance: A of N steps agree` and the differences; docs/sandbox.md records the
//! figure.
#![forbid(unsafe_code)]

#[path = "dev_http/mod.rs"]
mod dev_http;
#[path = "dev_support/mod.rs"]
mod dev_support;

#[path = "sandbox_conformance/client.rs"]
mod client;
#[path = "sandbox_conformance/normalize.rs"]
mod normalize;
#[path = "sandbox_conformance/script.rs"]
mod script;

use std::path::Path;

use client::Endpoint;
use dev_support::{Dev, Server};
use script::Script;

/// Both servers as the script expects them: webhook on, controllers off.
const FLAGS: &[&str] = &["--controllers=-*"];

#[test]
fn the_sandbox_answers_the_replay_script_as_kube_apiserver_does() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sandbox_conformance");
    let script = Script::load(&dir.join("script.yaml"));
    let csr = example_csr();

    // Started and replayed side by side: each server only ever sees its own replay.
    let (sandbox, real) = std::thread::scope(|scope| {
        let sandbox = scope.spawn(|| Server::Sandbox.start_with(FLAGS));
        let real = scope.spawn(|| Server::Real.start_with(FLAGS));
        (sandbox.join().unwrap(), real.join().unwrap())
    });
    let (sandbox_answers, real_answers) = std::thread::scope(|scope| {
        let sandbox_run = scope.spawn(|| replay(&sandbox, &script, &csr));
        let real_run = scope.spawn(|| replay(&real, &script, &csr));
        (sandbox_run.join().unwrap(), real_run.join().unwrap())
    });
    drop(sandbox);
    drop(real);

    let mut agree = 0;
    let mut unexpected = Vec::new();
    let mut report = String::new();
    let mut summary = String::new();
    for ((step, (id, sandbox)), (_, real)) in
        script.steps.iter().zip(&sandbox_answers).zip(&real_answers)
    {
        let compare = |answer| {
            let value = normalize::normalize(answer, step.update_managers);
            serde_json::to_string_pretty(&value).unwrap()
        };
        // One line per step: its id and both status codes (what each server made of it).
        summary.push_str(&format!("{id}: real {} sandbox {}\n", real.status, sandbox.status));
        let (sandbox, real) = (compare(sandbox), compare(real));
        let known = script.known_differences.get(id);
        if sandbox == real {
            agree += 1;
            if known.is_some() {
                unexpected.push(format!("{id}: listed as a known difference but now agrees"));
            }
            continue;
        }
        let why = known.map_or("NOT a known difference".to_owned(), |why| format!("known: {why}"));
        report.push_str(&format!(
            "\n=== {id} differs ({why}); left real kube-apiserver, right sandbox\n{}\n",
            pretty_assertions::StrComparison::new(&real, &sandbox)
        ));
        if known.is_none() {
            unexpected.push(format!("{id}: differs and is not a known difference"));
        }
    }
    println!("{summary}{report}");
    println!("sandbox conformance: {agree} of {} steps agree", script.steps.len());
    assert!(unexpected.is_empty(), "unexpected outcomes:\n{}", unexpected.join("\n"));
}

fn replay(dev: &Dev, script: &Script, csr: &str) -> Vec<(String, client::Response)> {
    let work = tempfile::tempdir().unwrap();
    let endpoint = Endpoint::from_kubeconfig(&dev.kubeconfig, work.path());
    script::replay(script, &endpoint, csr)
}

/// The CSR of the DNS example's first request (a valid one, for CertificateRequests).
fn example_csr() -> String {
    let all = std::fs::read_to_string(dev_support::examples().join("dns/requests.yaml")).unwrap();
    all.lines().find_map(|l| l.trim().strip_prefix("request: ")).unwrap().to_owned()
}
