// Runs a probe in a child process of the test binary itself, so that a regression (a
// multi-GiB allocation, an hours-long execution) fails the test instead of taking the
// machine down: the child runs under `ulimit -v` (an allocation past it aborts the child)
// and is killed when it has not finished in time. Included with `#[path]` by the tests that
// probe hostile templates; each such test binary defines a `probe_child` test that runs the
// probe named by `PROBE_ENV` and does nothing otherwise.
#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable naming the probe a child runs.
pub const PROBE_ENV: &str = "CERTGATE_TEMPLATE_PROBE";
/// Address space of a child: the test harness plus the execution budget (64 MiB by
/// default), far below what any of the probes reached before it was bounded.
pub const CHILD_MEMORY_KIB: u64 = 1024 * 1024;
/// How long a child may run before it counts as hanging (a bounded probe takes well under
/// a second; this only has to separate "finishes" from "runs for hours" on a loaded machine).
pub const CHILD_TIME: Duration = Duration::from_secs(120);

/// Runs probe `name` in a bounded child; `Err` says how it failed.
pub fn run_bounded(name: &str) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("no test binary: {e}"))?;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {CHILD_MEMORY_KIB} && exec \"$0\" --exact probe_child --nocapture --test-threads=1"
        ))
        .arg(exe)
        .env(PROBE_ENV, name)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the probe: {e}"))?;
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(stderr) = stderr.as_mut() {
            let _ = stderr.take(64 * 1024).read_to_string(&mut text);
        }
        text
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) if started.elapsed() > CHILD_TIME => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(format!("still running after {} s: killed", CHILD_TIME.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => break Err(format!("cannot wait for the probe: {e}")),
        }
    };
    let output = reader.join().unwrap_or_default();
    match status {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!("{status}: {}", output.trim())),
        Err(message) => Err(message),
    }
}

/// Runs every probe in its own bounded child and reports all failures at once.
pub fn run_all(names: &[&str]) {
    let mut failures = Vec::new();
    for name in names {
        let started = Instant::now();
        match run_bounded(name) {
            // Informational only (visible with --nocapture); nothing asserts on durations.
            Ok(()) => println!("probe {name}: ok in {} ms", started.elapsed().as_millis()),
            Err(e) => failures.push(format!("probe {name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}
