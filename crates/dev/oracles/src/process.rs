//! One running oracle process and the line protocol spoken with it.

use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::thread::JoinHandle;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Why an oracle could not answer.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("cannot start the {name} oracle at {path}: {source}")]
    Start { name: String, path: String, source: std::io::Error },
    #[error("the {name} oracle is not in {dir}; tools/oracles/<name>/ must hold its Go module")]
    Missing { name: String, dir: String },
    #[error("talking to the {name} oracle failed: {source}")]
    Io { name: String, source: std::io::Error },
    /// The process died on this case (Go's fatal errors, such as a stack overflow, cannot be
    /// recovered inside the oracle). A fresh process has been started for the next case.
    #[error("the {name} oracle exited instead of answering case {case}: {stderr}")]
    Exited { name: String, case: String, stderr: String },
    #[error("the {name} oracle answered {answer:?}, which is not the expected JSON: {source}")]
    Answer { name: String, answer: String, source: serde_json::Error },
    #[error("cannot encode a case for the {name} oracle: {source}")]
    Encode { name: String, source: serde_json::Error },
}

/// The folder holding the built oracles: `CERTGATE_ORACLES_BIN` when set (`.ci/run` sets it),
/// otherwise what `tools/oracles/build` prints ([`crate::tool_path`]).
pub fn oracle_bin_dir() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let bin = crate::tool_path("CERTGATE_ORACLES_BIN", "oracles/build");
        assert!(bin.is_dir(), "{} is not a folder; run tools/oracles/build", bin.display());
        bin
    })
}

/// A running oracle. Dropping it closes its stdin, which ends the process.
pub struct Oracle {
    name: String,
    path: PathBuf,
    child: Child,
    /// Drains the process's stderr and returns its start, kept to explain a crash.
    stderr: Option<JoinHandle<String>>,
    input: BufWriter<ChildStdin>,
    output: BufReader<ChildStdout>,
    line: String,
}

impl Oracle {
    /// Starts the oracle called `name` (`tools/oracles/<name>/`).
    pub fn start(name: &str) -> Result<Self, OracleError> {
        Self::start_in(oracle_bin_dir(), name)
    }

    /// Starts the oracle called `name` from `dir`.
    pub fn start_in(dir: &Path, name: &str) -> Result<Self, OracleError> {
        let path = dir.join(name);
        if !path.is_file() {
            return Err(OracleError::Missing {
                name: name.to_owned(),
                dir: dir.display().to_string(),
            });
        }
        let (child, input, output, stderr) = spawn(name, &path)?;
        let stderr = Some(stderr);
        Ok(Self { name: name.to_owned(), path, child, stderr, input, output, line: String::new() })
    }

    /// Sends one case and reads the oracle's answer to it.
    pub fn ask<Q: Serialize, A: DeserializeOwned>(&mut self, case: &Q) -> Result<A, OracleError> {
        let encoded = serde_json::to_string(case)
            .map_err(|source| OracleError::Encode { name: self.name.clone(), source })?;
        let io = |source| OracleError::Io { name: self.name.clone(), source };
        self.input.write_all(encoded.as_bytes()).map_err(io)?;
        self.input.write_all(b"\n").map_err(io)?;
        self.input.flush().map_err(io)?;
        self.line.clear();
        let read = self.output.read_line(&mut self.line).map_err(io)?;
        if read == 0 {
            let _ = self.child.wait();
            // The pipe is closed once the process is gone, so the drain ends.
            let stderr = self.stderr.take().and_then(|drain| drain.join().ok()).unwrap_or_default();
            let (child, input, output, fresh) = spawn(&self.name, &self.path)?;
            (self.child, self.input, self.output, self.stderr) =
                (child, input, output, Some(fresh));
            return Err(OracleError::Exited { name: self.name.clone(), case: encoded, stderr });
        }
        serde_json::from_str(self.line.trim_end()).map_err(|source| OracleError::Answer {
            name: self.name.clone(),
            answer: self.line.trim_end().to_owned(),
            source,
        })
    }
}

/// How much of an oracle's stderr is kept: enough for Go's `fatal error:` line and the first
/// frames, not the million frames of a stack overflow.
const STDERR_KEPT: usize = 4096;

type Spawned = (Child, BufWriter<ChildStdin>, BufReader<ChildStdout>, JoinHandle<String>);

fn spawn(name: &str, path: &Path) -> Result<Spawned, OracleError> {
    let mut child = Command::new(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| OracleError::Start {
            name: name.to_owned(),
            path: path.display().to_string(),
            source,
        })?;
    let input = BufWriter::new(child.stdin.take().expect("stdin is piped"));
    let output = BufReader::new(child.stdout.take().expect("stdout is piped"));
    let mut stderr = child.stderr.take().expect("stderr is piped");
    // Drains stderr so the oracle never blocks on a full pipe; keeps its start.
    let drain = std::thread::spawn(move || {
        let mut head = Vec::new();
        let _ = (&mut stderr).take(STDERR_KEPT as u64).read_to_end(&mut head);
        let _ = std::io::copy(&mut stderr, &mut std::io::sink());
        String::from_utf8_lossy(&head).into_owned()
    });
    Ok((child, input, output, drain))
}

impl Drop for Oracle {
    fn drop(&mut self) {
        // Closing stdin ends the oracle's read loop; kill covers one that hangs.
        let _ = self.input.flush();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
