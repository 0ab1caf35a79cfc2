//! A sandbox started in-process on a free loopback port, and the real `kubectl` pointed at
//! it through a written kubeconfig.
#![allow(dead_code)] // each test binary uses a different part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use certgate_sandbox::{RunningSandbox, SandboxOptions, start};

pub struct Harness {
    pub runtime: tokio::runtime::Runtime,
    pub sandbox: RunningSandbox,
    pub dir: tempfile::TempDir,
    pub kubeconfig: PathBuf,
}

/// The workspace's examples directory.
pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../examples")
}

impl Harness {
    pub fn start() -> Self {
        Self::start_with(None)
    }

    pub fn start_with(data_dir: Option<PathBuf>) -> Self {
        Self::start_with_options(SandboxOptions { data_dir, ..SandboxOptions::default() })
    }

    pub fn start_with_options(options: SandboxOptions) -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let sandbox = runtime.block_on(start(options)).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = dir.path().join("kubeconfig");
        std::fs::write(&kubeconfig, sandbox.kubeconfig()).unwrap();
        Harness { runtime, sandbox, dir, kubeconfig }
    }

    /// Runs the real kubectl against the sandbox; fails loudly when it is not installed.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.kubectl_with_input(args, None)
    }

    pub fn kubectl_with_input(&self, args: &[&str], input: Option<&str>) -> Output {
        use std::io::Write;
        let mut command = Command::new("kubectl");
        command.arg("--kubeconfig").arg(&self.kubeconfig).args(args);
        command.stdin(if input.is_some() {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        });
        command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        let mut child = command.spawn().unwrap_or_else(|err| {
            panic!("kubectl is required for the end-to-end tests and is part of this machine image, but could not be run: {err}")
        });
        if let Some(input) = input {
            child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        }
        child.wait_with_output().unwrap()
    }

    /// kubectl's standard output; panics with its standard error when it failed.
    pub fn ok(&self, args: &[&str]) -> String {
        let output = self.kubectl(args);
        assert!(
            output.status.success(),
            "kubectl {} failed: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// kubectl's standard error; panics when it succeeded.
    pub fn fails(&self, args: &[&str]) -> String {
        let output = self.kubectl(args);
        assert!(!output.status.success(), "kubectl {} should have failed", args.join(" "));
        String::from_utf8(output.stderr).unwrap()
    }

    pub fn apply(&self, manifest: &str) -> String {
        let output = self.kubectl_with_input(&["apply", "-f", "-"], Some(manifest));
        assert!(
            output.status.success(),
            "kubectl apply failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        self.sandbox.shutdown();
    }
}
