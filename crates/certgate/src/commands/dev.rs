//! `certgate dev`: the local sandbox API server, for development and end-to-end tests.

use std::net::SocketAddr;
use std::path::PathBuf;

use certgate_sandbox::{SandboxOptions, start};
use clap::Args;

#[derive(Debug, Args)]
pub struct DevArgs {
    /// Loopback address and port to serve the API on (port 0 picks a free one)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:6443")]
    pub listen: SocketAddr,

    /// Write a kubeconfig for the sandbox to FILE (kubectl --kubeconfig FILE, or KUBECONFIG=FILE)
    #[arg(long, value_name = "FILE")]
    pub kubeconfig_out: Option<PathBuf>,

    /// Keep every object durably in DIR (created if missing); a restart with the same DIR
    /// keeps all objects and resourceVersions. Without it, state lives in memory only
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum DevError {
    #[error(transparent)]
    Start(#[from] certgate_sandbox::StartError),
    #[error("cannot write the kubeconfig to {path}: {source}")]
    Kubeconfig { path: PathBuf, source: std::io::Error },
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot wait for SIGTERM or SIGINT: {0}")]
    Signal(std::io::Error),
}

/// Serves until SIGINT or SIGTERM.
pub fn run(args: &DevArgs, out: &mut impl std::io::Write) -> Result<(), DevError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(DevError::Runtime)?;
    runtime.block_on(async {
        let sandbox = start(SandboxOptions {
            listen: args.listen,
            data_dir: args.data_dir.clone(),
            ..SandboxOptions::default()
        }).await?;
        let kubeconfig = sandbox.kubeconfig();
        match &args.kubeconfig_out {
            Some(path) => {
                write_private(path, &kubeconfig)
                    .map_err(|source| DevError::Kubeconfig { path: path.clone(), source })?;
                let _ = writeln!(
                    out,
                    "certgate sandbox API server (development only) at https://{}; kubeconfig written to {}",
                    sandbox.address,
                    path.display()
                );
            }
            None => {
                let _ = write!(out, "{kubeconfig}");
            }
        }
        let _ = out.flush();
        wait_for_signal().await.map_err(DevError::Signal)?;
        sandbox.shutdown();
        Ok(())
    })
}

/// The kubeconfig holds the admin token: readable by its owner only.
fn write_private(path: &std::path::Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(contents.as_bytes())
}

async fn wait_for_signal() -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate())?;
    tokio::select! {
        result = tokio::signal::ctrl_c() => result,
        _ = terminate.recv() => Ok(()),
    }
}
