//! Where the test tools built by the project's own scripts under `tools/` are: the real
//! kube-apiserver and etcd, Envoy, helm, the oracles. One lookup for every test that needs one.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's `tools/` folder.
fn tools_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tools")
}

/// The path the environment variable `variable` names (`.ci/run` sets it after running the
/// script), or else the last line `tools/<script>` prints when run here, which builds or
/// installs the tool into the cache outside the source tree on first use.
///
/// Panics with the script's messages when it fails, and when the path does not exist: a
/// missing tool fails the test loudly, it is never skipped.
pub fn tool_path(variable: &str, script: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(variable).filter(|path| !path.is_empty()) {
        let path = PathBuf::from(path);
        assert!(
            path.exists(),
            "{variable}={} does not exist; unset it or run tools/{script}",
            path.display()
        );
        return path;
    }
    let script_path = tools_dir().join(script);
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
