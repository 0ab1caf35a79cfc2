//! The oracle process client: a crash on one case is reported with the process's own words
//! and does not end the run, because Go's fatal errors (a stack overflow printing a cyclic
//! map) cannot be recovered inside an oracle.

use std::path::PathBuf;

use certgate_oracles::{Oracle, OracleError};

/// A stand-in oracle: answers `{"echo": <line>}`, and dies on the case `"die"`.
fn fake_oracle_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("certgate-fake-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let script = dir.join("fake");
    std::fs::write(
        &script,
        "#!/bin/sh\nwhile IFS= read -r line; do\n  if [ \"$line\" = '\"die\"' ]; then\n    \
         echo 'fatal error: stack overflow' >&2\n    exit 2\n  fi\n  \
         printf '{\"echo\":%s}\\n' \"$line\"\ndone\n",
    )
    .expect("the script");
    let status = std::process::Command::new("chmod").arg("+x").arg(&script).status();
    assert!(status.is_ok_and(|s| s.success()), "chmod +x {}", script.display());
    dir
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Echo {
    echo: String,
}

#[test]
fn a_crash_is_reported_with_stderr_and_the_next_case_gets_a_fresh_process() {
    let dir = fake_oracle_dir();
    let mut oracle = Oracle::start_in(&dir, "fake").expect("the fake oracle starts");
    let first: Echo = oracle.ask(&"one").expect("an answer");
    assert_eq!(first, Echo { echo: "one".into() });

    match oracle.ask::<_, Echo>(&"die") {
        Err(OracleError::Exited { name, case, stderr }) => {
            assert_eq!(name, "fake");
            assert_eq!(case, "\"die\"");
            assert_eq!(stderr.trim(), "fatal error: stack overflow");
        }
        other => panic!("expected the crash to be reported, got {other:?}"),
    }

    let after: Echo = oracle.ask(&"two").expect("a fresh process answers");
    assert_eq!(after, Echo { echo: "two".into() });
    drop(oracle);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_missing_oracle_is_named_with_its_folder() {
    let dir = std::env::temp_dir().join("certgate-no-such-oracle-dir");
    match Oracle::start_in(&dir, "nothing") {
        Err(error @ OracleError::Missing { .. }) => assert_eq!(
            error.to_string(),
            format!(
                "the nothing oracle is not in {}; tools/oracles/<name>/ must hold its Go module",
                dir.display()
            )
        ),
        Err(other) => panic!("expected Missing, got {other}"),
        Ok(_) => panic!("expected Missing, got a running oracle"),
    }
}
