//! One running oracle process and the line protocol spoken with it.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

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
    #[error("the {name} oracle exited instead of answering case {case}")]
    Exited { name: String, case: String },
    #[error("the {name} oracle answered {answer:?}, which is not the expected JSON: {source}")]
    Answer { name: String, answer: String, source: serde_json::Error },
    #[error("cannot encode a case for the {name} oracle: {source}")]
    Encode { name: String, source: serde_json::Error },
}

/// The folder holding the built oracles: `CERTGATE_ORACLES_BIN` when set (`.ci/run` sets it),
/// otherwise the last line `tools/oracles/build` prints. Panics with the script's messages when
/// the build fails: a missing oracle fails the test loudly, it is never skipped.
pub fn oracle_bin_dir() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(path) = std::env::var_os("CERTGATE_ORACLES_BIN").filter(|p| !p.is_empty()) {
            let path = PathBuf::from(path);
            assert!(
                path.is_dir(),
                "CERTGATE_ORACLES_BIN={} is not a folder; unset it or run tools/oracles/build",
                path.display()
            );
            return path;
        }
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tools/oracles/build");
        let output = Command::new("bash").arg(&script).output().unwrap_or_else(|err| {
            panic!("cannot run {}: {err} (bash is required)", script.display())
        });
        assert!(
            output.status.success(),
            "tools/oracles/build failed ({}); run it by hand to see why. Its messages:\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        let last = stdout.lines().last().unwrap_or_default().trim().to_owned();
        let path = PathBuf::from(&last);
        assert!(path.is_dir(), "tools/oracles/build printed {last:?}, which is not a folder");
        path
    })
}

/// A running oracle. Dropping it closes its stdin, which ends the process.
pub struct Oracle {
    name: String,
    child: Child,
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
        let mut child = Command::new(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|source| OracleError::Start {
                name: name.to_owned(),
                path: path.display().to_string(),
                source,
            })?;
        let input = BufWriter::new(child.stdin.take().expect("stdin is piped"));
        let output = BufReader::new(child.stdout.take().expect("stdout is piped"));
        Ok(Self { name: name.to_owned(), child, input, output, line: String::new() })
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
            return Err(OracleError::Exited { name: self.name.clone(), case: encoded });
        }
        serde_json::from_str(self.line.trim_end()).map_err(|source| OracleError::Answer {
            name: self.name.clone(),
            answer: self.line.trim_end().to_owned(),
            source,
        })
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        // Closing stdin ends the oracle's read loop; kill covers one that hangs.
        let _ = self.input.flush();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
