//! Reaching a cluster from a kubeconfig: the `--kubeconfig`/`--context` flags of the commands
//! a person runs against a cluster (`explain`, `approve`, `deny`), and the one way every
//! command (`controller` included) turns them into a client configuration.

use std::path::{Path, PathBuf};

use clap::Args;
use kube::config::{KubeConfigOptions, Kubeconfig};

/// `--kubeconfig` and `--context`, as kubectl reads them.
#[derive(Clone, Debug, Default, Args)]
pub struct KubeconfigArgs {
    /// Path to the kubeconfig file [default: $KUBECONFIG, else ~/.kube/config]
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use [default: its current context]
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
}

impl KubeconfigArgs {
    /// The client configuration of the chosen file and context.
    pub async fn config(&self) -> Result<kube::Config, KubeconfigError> {
        config(self.kubeconfig.as_deref(), self.context.as_deref()).await
    }
}

/// Why a kubeconfig could not be used; each command wraps it in its own error.
#[derive(Debug, thiserror::Error)]
pub enum KubeconfigError {
    #[error("cannot read the kubeconfig: {0}")]
    Read(#[source] kube::config::KubeconfigError),
    #[error("cannot use the kubeconfig: {0}")]
    Use(#[source] kube::config::KubeconfigError),
}

/// The configuration of `kubeconfig` (or `$KUBECONFIG`, `~/.kube/config`) with `context` (or
/// its current context).
pub async fn config(
    kubeconfig: Option<&Path>,
    context: Option<&str>,
) -> Result<kube::Config, KubeconfigError> {
    let file = match kubeconfig {
        Some(path) => Kubeconfig::read_from(path),
        None => Kubeconfig::read(),
    }
    .map_err(KubeconfigError::Read)?;
    let options = KubeConfigOptions { context: context.map(str::to_owned), ..Default::default() };
    kube::Config::from_custom_kubeconfig(file, &options).await.map_err(KubeconfigError::Use)
}
