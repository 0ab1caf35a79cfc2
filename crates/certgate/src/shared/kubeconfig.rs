//! Reaching a cluster: kubectl's standard client flags (`--kubeconfig`, `--context`,
//! `--cluster`, `--user`, `--server`, `--token`, `--as`, ...) on every command that talks to
//! an API server, and the one way every command turns them into a client configuration.
//!
//! The precedence is kubectl's: a flag overrides what the kubeconfig says, the kubeconfig's
//! `--context` (or its current context) names the cluster and user unless `--cluster` or
//! `--user` name others, and the files are `--kubeconfig`, else each file of `$KUBECONFIG`
//! (missing ones skipped, the first to set a value wins), else `~/.kube/config`. With no
//! kubeconfig at all, `--server` (with `--token` or client certificates) is enough; inside a
//! Pod, with no kubeconfig and no `--server`, the Pod's service account is used, with the
//! flags applied on top.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{ArgAction, Args};
use kube::config::{
    AuthInfo, Cluster, Context, KubeConfigOptions, Kubeconfig, NamedAuthInfo, NamedCluster,
    NamedContext,
};

use certgate_gofmt::quote;

use crate::shared::duration::{DurationFlagError, parse_duration};

/// The name of the one context, cluster and user of the kubeconfig the flags resolve to.
const RESOLVED: &str = "certgate-resolved";

/// The help heading of these flags.
pub const CLIENT_FLAGS_HEADING: &str = "Cluster client flags (as kubectl's)";

/// kubectl's client flags (`k8s.io/cli-runtime` ConfigFlags, as cmctl registers them), except
/// `-n/--namespace`, which each command declares where it reads namespaced objects.
#[derive(Clone, Debug, Default, Args)]
pub struct KubeconfigArgs {
    /// Path to the kubeconfig file [default: $KUBECONFIG, else ~/.kube/config; in a Pod
    /// without either, its service account]
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use [default: its current context]
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "NAME")]
    pub context: Option<String>,

    /// The kubeconfig cluster to use [default: the context's]
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "NAME")]
    pub cluster: Option<String>,

    /// The kubeconfig user to use [default: the context's]
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "NAME")]
    pub user: Option<String>,

    /// The API server's address and port (overrides the kubeconfig cluster's server; https://
    /// when no scheme is given)
    #[arg(help_heading = CLIENT_FLAGS_HEADING, short = 's', long, value_name = "URL")]
    pub server: Option<String>,

    /// Bearer token to authenticate to the API server with (overrides the kubeconfig user's
    /// credentials)
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "TOKEN")]
    pub token: Option<String>,

    /// Username to impersonate for the requests (a user, or
    /// system:serviceaccount:NAMESPACE:NAME)
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long = "as", value_name = "USER")]
    pub impersonate: Option<String>,

    /// Group to impersonate for the requests; repeat the flag for several groups
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long = "as-group", value_name = "GROUP", action = ArgAction::Append)]
    pub impersonate_groups: Vec<String>,

    /// UID to impersonate for the requests
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long = "as-uid", value_name = "UID")]
    pub impersonate_uid: Option<String>,

    /// Path to a PEM file of the CA certificates that verify the API server
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "FILE")]
    pub certificate_authority: Option<PathBuf>,

    /// Path to a client certificate file (PEM) for TLS client authentication
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "FILE")]
    pub client_certificate: Option<PathBuf>,

    /// Path to the client certificate's private key file (PEM)
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "FILE")]
    pub client_key: Option<PathBuf>,

    /// Name the API server's certificate must hold [default: the server's host name]
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "NAME")]
    pub tls_server_name: Option<String>,

    /// Do not verify the API server's certificate (insecure: only for test clusters)
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "BOOL", action = ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub insecure_skip_tls_verify: bool,

    /// How long to wait for a single request to the API server: a Go duration (30s, 1m30s),
    /// a bare number of seconds, or 0 for no limit
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "DURATION", default_value = "0", value_parser = parse_request_timeout)]
    pub request_timeout: Duration,

    /// Ask the API server not to compress its responses
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "BOOL", action = ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub disable_compression: bool,

    /// kubectl's discovery cache directory: accepted for kubectl's and cmctl's command lines;
    /// certgate keeps no cache
    #[arg(help_heading = CLIENT_FLAGS_HEADING, long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
}

/// `--request-timeout`, read as kubectl reads it: `0` (no limit), a bare number of seconds,
/// or a Go duration through the one duration parser.
pub fn parse_request_timeout(text: &str) -> Result<Duration, DurationFlagError> {
    match text.parse::<u64>() {
        Ok(seconds) => Ok(Duration::from_secs(seconds)),
        Err(_) => parse_duration(text),
    }
}

/// Why no client configuration could be made; each command wraps it in its own error.
#[derive(Debug, thiserror::Error)]
pub enum KubeconfigError {
    #[error("cannot read the kubeconfig {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: kube::config::KubeconfigError,
    },
    #[error(
        "context {} is not in the kubeconfig: pick one that `kubectl config get-contexts` lists",
        quote(.0)
    )]
    NoContext(String),
    #[error(
        "cluster {} is not in the kubeconfig: pick one that `kubectl config get-clusters` lists",
        quote(.0)
    )]
    NoCluster(String),
    #[error(
        "user {} is not in the kubeconfig: pick one that `kubectl config get-users` lists",
        quote(.0)
    )]
    NoUser(String),
    #[error(
        "no cluster to connect to: give --server, or a kubeconfig (--kubeconfig, $KUBECONFIG or \
         ~/.kube/config) whose context names a cluster with a server"
    )]
    NoServer,
    #[error("--server {} is not a URL: give one such as https://203.0.113.10:6443", quote(.0))]
    Server(String),
    #[error(
        "--certificate-authority and --insecure-skip-tls-verify exclude each other: either verify \
         the server with the CA or skip the check"
    )]
    InsecureWithCa,
    #[error("cannot read --certificate-authority {}: {detail}", path.display())]
    CertificateAuthority { path: PathBuf, detail: String },
    #[error("cannot use the service account of this Pod: {0}")]
    InCluster(#[source] kube::config::InClusterError),
    #[error("cannot use the kubeconfig: {0}")]
    Use(#[source] kube::config::KubeconfigError),
    #[error("cannot create a client for the cluster: {0}")]
    Client(#[source] kube::Error),
}

/// A client, the namespace the configuration defaults to, and the server it talks to.
pub struct Connection {
    pub client: kube::Client,
    pub default_namespace: String,
    /// The API server's URL, for messages.
    pub server: String,
}

impl KubeconfigArgs {
    /// The client configuration the flags and the kubeconfig make, with kubectl's precedence.
    pub async fn config(&self) -> Result<kube::Config, KubeconfigError> {
        if let Some(server) = self.server_url() {
            let parsed = server.parse().map(kube::Config::new);
            if !parsed.is_ok_and(|config| config.cluster_url.host().is_some()) {
                return Err(KubeconfigError::Server(self.server.clone().unwrap_or_default()));
            }
        }
        let file = self.read_files()?;
        let empty = file.clusters.is_empty()
            && file.contexts.is_empty()
            && file.auth_infos.is_empty()
            && nonempty(file.current_context.as_deref()).is_none();
        let selects = [&self.context, &self.cluster, &self.user, &self.server]
            .iter()
            .any(|value| nonempty(value.as_deref()).is_some());
        let mut config = if empty && !selects && in_cluster_possible() {
            kube::Config::incluster().map_err(KubeconfigError::InCluster)?
        } else {
            let resolved = self.resolve(file)?;
            kube::Config::from_custom_kubeconfig(resolved, &KubeConfigOptions::default())
                .await
                .map_err(KubeconfigError::Use)?
        };
        self.apply(&mut config)?;
        Ok(config)
    }

    /// A client for [`Self::config`].
    pub async fn connect(&self) -> Result<Connection, KubeconfigError> {
        let config = self.config().await?;
        let default_namespace = config.default_namespace.clone();
        let server = config.cluster_url.to_string();
        let client = kube::Client::try_from(config).map_err(KubeconfigError::Client)?;
        Ok(Connection { client, default_namespace, server })
    }

    /// The kubeconfig files: `--kubeconfig` (which must exist), else `$KUBECONFIG`'s files
    /// (missing ones skipped), else `~/.kube/config` (if it exists).
    fn read_files(&self) -> Result<Kubeconfig, KubeconfigError> {
        let read = |path: &Path| {
            Kubeconfig::read_from(path)
                .map_err(|source| KubeconfigError::Read { path: path.to_path_buf(), source })
        };
        if let Some(path) = self.kubeconfig.as_deref().filter(|p| !p.as_os_str().is_empty()) {
            return read(path);
        }
        let paths: Vec<PathBuf> = match std::env::var_os("KUBECONFIG") {
            Some(value) if !value.is_empty() => {
                std::env::split_paths(&value).filter(|p| !p.as_os_str().is_empty()).collect()
            }
            _ => std::env::var_os("HOME")
                .filter(|home| !home.is_empty())
                .map(|home| PathBuf::from(home).join(".kube").join("config"))
                .into_iter()
                .collect(),
        };
        let mut merged = Kubeconfig::default();
        for path in paths.iter().filter(|path| path.exists()) {
            merged = merged.merge(read(path)?).map_err(KubeconfigError::Use)?;
        }
        Ok(merged)
    }

    /// The kubeconfig reduced to the one context, cluster and user the flags select, with
    /// `--server` in place of the cluster's server.
    fn resolve(&self, file: Kubeconfig) -> Result<Kubeconfig, KubeconfigError> {
        let context_name =
            nonempty(self.context.as_deref()).or_else(|| nonempty(file.current_context.as_deref()));
        let context = match context_name {
            Some(name) => file
                .contexts
                .iter()
                .find(|c| c.name == name)
                .map(|c| c.context.clone().unwrap_or_default())
                .ok_or_else(|| KubeconfigError::NoContext(name.to_owned()))?,
            None => Context::default(),
        };
        let mut cluster = match nonempty(self.cluster.as_deref()) {
            Some(name) => find_cluster(&file, name)
                .ok_or_else(|| KubeconfigError::NoCluster(name.to_owned()))?,
            None => find_cluster(&file, &context.cluster).unwrap_or_default(),
        };
        let user = match nonempty(self.user.as_deref()) {
            Some(name) => {
                find_user(&file, name).ok_or_else(|| KubeconfigError::NoUser(name.to_owned()))?
            }
            // As client-go, a context's user that the file lacks is no user.
            None => {
                context.user.as_deref().and_then(|name| find_user(&file, name)).unwrap_or_default()
            }
        };
        if let Some(server) = self.server_url() {
            cluster.server = Some(server);
        }
        if nonempty(cluster.server.as_deref()).is_none() {
            return Err(KubeconfigError::NoServer);
        }
        Ok(Kubeconfig {
            current_context: Some(RESOLVED.to_owned()),
            contexts: vec![NamedContext {
                name: RESOLVED.to_owned(),
                context: Some(Context {
                    cluster: RESOLVED.to_owned(),
                    user: Some(RESOLVED.to_owned()),
                    namespace: context.namespace.filter(|ns| !ns.is_empty()),
                    ..Context::default()
                }),
                ..NamedContext::default()
            }],
            clusters: vec![NamedCluster {
                name: RESOLVED.to_owned(),
                cluster: Some(cluster),
                ..NamedCluster::default()
            }],
            auth_infos: vec![NamedAuthInfo {
                name: RESOLVED.to_owned(),
                auth_info: Some(user),
                ..NamedAuthInfo::default()
            }],
            ..Kubeconfig::default()
        })
    }

    /// `--server` as a URL (`https://` added when it has no scheme).
    fn server_url(&self) -> Option<String> {
        let server = nonempty(self.server.as_deref())?;
        Some(if server.contains("://") { server.to_owned() } else { format!("https://{server}") })
    }

    /// The flags over the configuration, as kubectl lays its overrides over the kubeconfig.
    fn apply(&self, config: &mut kube::Config) -> Result<(), KubeconfigError> {
        let server = self.server_url();
        // kubectl: a --server on the command line also replaces the kubeconfig's TLS server
        // name, with --tls-server-name's value or none.
        if server.is_some() || nonempty(self.tls_server_name.as_deref()).is_some() {
            config.tls_server_name = nonempty(self.tls_server_name.as_deref()).map(str::to_owned);
        }
        if let Some(server) = server {
            config.cluster_url = server
                .parse()
                .map_err(|_| KubeconfigError::Server(self.server.clone().unwrap_or_default()))?;
        }
        if self.insecure_skip_tls_verify && self.certificate_authority.is_some() {
            return Err(KubeconfigError::InsecureWithCa);
        }
        if self.insecure_skip_tls_verify {
            config.accept_invalid_certs = true;
            config.root_cert = None;
            config.root_cert_file = None;
        }
        if let Some(path) = &self.certificate_authority {
            config.accept_invalid_certs = false;
            config.root_cert = Some(read_certificates(path)?);
            config.root_cert_file = None;
        }
        let auth = &mut config.auth_info;
        if let Some(token) = nonempty(self.token.as_deref()) {
            // The token on the command line is the credential: kube would otherwise prefer
            // the kubeconfig's auth provider, exec plugin or basic credentials.
            auth.token = Some(token.to_owned().into());
            auth.token_file = None;
            auth.auth_provider = None;
            auth.exec = None;
            auth.username = None;
            auth.password = None;
        }
        if let Some(path) = &self.client_certificate {
            auth.client_certificate = Some(path.display().to_string());
            auth.client_certificate_data = None;
        }
        if let Some(path) = &self.client_key {
            auth.client_key = Some(path.display().to_string());
            auth.client_key_data = None;
        }
        if let Some(user) = nonempty(self.impersonate.as_deref()) {
            auth.impersonate = Some(user.to_owned());
        }
        if !self.impersonate_groups.is_empty() {
            auth.impersonate_groups = Some(self.impersonate_groups.clone());
        }
        if let Some(uid) = nonempty(self.impersonate_uid.as_deref()) {
            auth.impersonate_uid = Some(uid.to_owned());
        }
        if self.disable_compression {
            config.disable_compression = true;
        }
        if !self.request_timeout.is_zero() {
            let timeout = Some(self.request_timeout);
            config.connect_timeout = timeout;
            config.read_timeout = timeout;
            config.write_timeout = timeout;
            // The wait counts from the request, not from when its pooled connection went idle.
            config.reset_reader_on_write = true;
        }
        Ok(())
    }
}

/// For the commands that keep running (`controller`, `webhook`, `edge serve`), which retry
/// until the API server answers: asks the server for its version once, in the background, and
/// logs the message every command gives when it cannot be reached.
pub fn warn_if_unreachable(client: &kube::Client, server: String) {
    let client = client.clone();
    tokio::spawn(async move {
        if let Err(err) = client.apiserver_version().await
            && let Some(message) = crate::shared::unreachable::message(&server, &err)
        {
            tracing::warn!("{message} (retrying until it answers)");
        }
    });
}

fn nonempty(value: Option<&str>) -> Option<&str> {
    value.filter(|v| !v.is_empty())
}

fn find_cluster(file: &Kubeconfig, name: &str) -> Option<Cluster> {
    file.clusters.iter().find(|c| c.name == name).map(|c| c.cluster.clone().unwrap_or_default())
}

fn find_user(file: &Kubeconfig, name: &str) -> Option<AuthInfo> {
    file.auth_infos.iter().find(|u| u.name == name).map(|u| u.auth_info.clone().unwrap_or_default())
}

/// Whether this runs in a Pod with a service account, as client-go decides it.
fn in_cluster_possible() -> bool {
    std::env::var_os("KUBERNETES_SERVICE_HOST").is_some_and(|v| !v.is_empty())
        && std::env::var_os("KUBERNETES_SERVICE_PORT").is_some_and(|v| !v.is_empty())
        && Path::new("/var/run/secrets/kubernetes.io/serviceaccount/token").exists()
}

/// The DER certificates of a PEM file.
fn read_certificates(path: &Path) -> Result<Vec<Vec<u8>>, KubeconfigError> {
    let failed =
        |detail: String| KubeconfigError::CertificateAuthority { path: path.to_path_buf(), detail };
    let pem = std::fs::read(path).map_err(|e| failed(e.to_string()))?;
    let mut certificates = Vec::new();
    let mut rest = pem.as_slice();
    while let Some((block, after)) = certgate_pki::pem::decode(rest) {
        if block.label == b"CERTIFICATE" {
            certificates.push(block.der.to_vec());
        }
        rest = after;
    }
    if certificates.is_empty() {
        return Err(failed("it holds no PEM CERTIFICATE block".to_owned()));
    }
    Ok(certificates)
}

#[cfg(test)]
mod tests;
