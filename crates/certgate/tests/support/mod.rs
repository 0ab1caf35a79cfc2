//! Runs the built `certgate` binary and compares its behaviour with golden files.
//!
//! A golden file holds the command line, the exit status, stdout and stderr of one run. Set
//! `UPDATE_GOLDEN=1` to rewrite the files from the current behaviour (then review the diff);
//! otherwise any difference fails the test.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The crate directory: fixtures are addressed relative to it so paths in messages are stable.
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace root (for `examples/`).
pub fn workspace_dir() -> PathBuf {
    crate_dir().join("../..")
}

/// The outcome of one run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `certgate args...` in `dir`, with `stdin` piped in when given. Colour is never on
/// (stdout is a pipe), whatever `NO_COLOR` says.
pub fn certgate(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the certgate binary runs");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().expect("stdin is piped");
        pipe.write_all(input.as_bytes()).expect("stdin accepts the input");
    }
    let output = child.wait_with_output().expect("certgate finishes");
    Run {
        code: output.status.code().expect("certgate exits normally, not by a signal"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}

/// Compares a run with `tests/golden/<name>.golden`.
pub fn assert_golden(name: &str, args: &[&str], run: &Run) {
    let actual = format!(
        "$ certgate {}\nexit status: {}\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        run.code,
        run.stdout,
        run.stderr
    );
    let path = crate_dir().join("tests/golden").join(format!("{name}.golden"));
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(&path, &actual).expect("golden file is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|err| {
        panic!("cannot read {}: {err}; run with UPDATE_GOLDEN=1 to create it", path.display())
    });
    pretty_assertions::assert_eq!(
        expected,
        actual,
        "{} differs; if the change is intended, rerun with UPDATE_GOLDEN=1 and review the diff",
        path.display()
    );
}

/// Runs in the crate directory and compares with the golden file.
pub fn golden(name: &str, args: &[&str]) -> Run {
    let run = certgate(&crate_dir(), args, None);
    assert_golden(name, args, &run);
    run
}
