//! `certgate dev`: the local sandbox API server with certgate's admission webhook
//! registered in it, for development, demos and end-to-end tests. Not for production.

mod demo;
mod demo_issuance;
mod issuers;
/// Also started by the issuance bench, as `certgate dev` starts it.
pub mod webhook;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use certgate_access::StaticUsers;
use certgate_approver::policy_approver;
use certgate_runtime::{ControllerMetrics, Launch, Registry, Settings, Shutdown};
use certgate_sandbox::{RunningSandbox, SandboxOptions, start};
use clap::Args;
use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::controllers::REGISTRY;
use crate::shared::connections::ConnectionArgs;
use crate::shared::logging::LogFormatArg;

/// The long help of `certgate dev` (`--help`).
pub const DEV_LONG_ABOUT: &str = "\
Run a local sandbox Kubernetes API server, for development and end-to-end tests only.

NOT A PRODUCTION API SERVER: it listens on loopback only, keeps its state in this one process,
and simplifies what certgate does not need. Production runs certgate against a real cluster.

It serves HTTPS with a freshly generated CA and writes a kubeconfig for it (to --kubeconfig-out,
or standard output), so the real kubectl and kube-rs clients can talk to it:
  certgate dev --kubeconfig-out /tmp/sandbox.kubeconfig &
  kubectl --kubeconfig /tmp/sandbox.kubeconfig api-resources

Requests are authenticated (the kubeconfig's admin token, --users tokens, service-account tokens
from `kubectl create token`, or anonymous), may impersonate (`kubectl --as`), and are authorized
by RBAC. certgate's admission webhook runs in the same process and is registered as cert-manager
and approver-policy register theirs, so CertificateRequests get their requester's identity and
Approved/Denied conditions need `approve` on the signer, as in a cluster.

  certgate dev --demo      apply the examples, print admission and policy decisions, exit
                           (with --kubeconfig-out: then keep serving, to look around)
  certgate dev --demo-issuance
                           issue, deny, revoke: Certificates through a CEL policy, the CA
                           issuer and its CRL, with certgate's controllers; then exit

Logs go to standard error (--log-format text or json): where the API server, the webhook and
--metrics-listen listen, which controllers run, what the demonstrations apply, and every
admission decision. RUST_LOG selects levels: info by default, warn with --demo and
--demo-issuance so that their report reads cleanly (RUST_LOG=info shows everything).

With --metrics-listen ADDR (loopback), /metrics, /healthz and /readyz are served over plain
HTTP: the webhook's and the controllers' metrics, process_* and certgate_build_info, as the
production servers expose them (docs/observability.md).

Stops on SIGINT or SIGTERM.";

#[derive(Debug, Args)]
pub struct DevArgs {
    /// Loopback address and port to serve the API on (port 0 picks a free one)
    /// [default: 127.0.0.1:6443; with --demo, a free port]
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<SocketAddr>,

    /// Write a kubeconfig for the sandbox to FILE (kubectl --kubeconfig FILE, or
    /// KUBECONFIG=FILE). It holds the admin token (user sandbox-admin, group system:masters)
    /// and is written readable by its owner only (0600), replacing an existing file; a
    /// symbolic link is refused. Without it, the kubeconfig is printed
    #[arg(long, value_name = "FILE")]
    pub kubeconfig_out: Option<PathBuf>,

    /// Keep every object durably in DIR (created if missing, owner-only); a restart with the
    /// same DIR keeps all objects and resourceVersions, and service-account tokens stay
    /// valid. A store in DIR that does not open cleanly stops the start; it is never
    /// replaced. Without it, state lives in memory only
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Static users: a YAML file mapping bearer tokens to usernames, uids, groups and extra
    /// (format in docs/access.md). Each user is then `kubectl --token TOKEN`; the admin can
    /// also act as anyone with `kubectl --as NAME --as-group GROUP`
    #[arg(long, value_name = "FILE")]
    pub users: Option<PathBuf>,

    /// Loopback address for certgate's admission webhook, which the sandbox calls for
    /// CertificateRequests and CertificateRequestPolicies (port 0 picks a free one)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub webhook_listen: SocketAddr,

    /// Serve the API alone, without certgate's webhook registered
    #[arg(long, conflicts_with = "demo", value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub no_webhook: bool,

    /// certgate's controllers to run against the sandbox, comma-separated, as cert-manager's
    /// --controllers: `*` the ones on by default, `name` adds one, `-name` removes one
    /// (`-*` none)
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "*",
        allow_hyphen_values = true,
        long_help = crate::controllers::selection_help("to run against the sandbox")
    )]
    pub controllers: Vec<String>,

    /// Expiry of the ServiceAccount tokens the policy-propagator requests for hub templates
    /// (upstream: 2h); renewed a quarter to a half of the lifetime before expiry for short
    /// ones, 5 to 10 minutes before otherwise. Short values let a test watch a renewal.
    #[arg(long, value_name = "DURATION", default_value = "2h", value_parser = crate::shared::duration::parse_duration)]
    pub hub_templates_token_expiration: std::time::Duration,

    /// Demonstrate: apply the examples (embedded in certgate) through the API — policies and
    /// RBAC as the admin, each CertificateRequest as the identity it names — and print what
    /// admission said and the decisions on the requests as stored. Then exit, or, with
    /// --kubeconfig-out, keep serving so the result can be explored with kubectl
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub demo: bool,

    /// Demonstrate issuance and revocation (issue #22's loop) with certgate's own controllers
    /// (certificates, issuers, certificaterequests-issuer-ca, issuers-crl, added to
    /// --controllers): a CA Issuer that publishes a CRL, a CEL CertificateRequestPolicy, a
    /// Certificate it approves (issued into its Secret), one it denies (never issued, retried
    /// after the backoff), then `certgate revoke` and the CRL republished. Then exit, or, with
    /// --kubeconfig-out, keep serving
    #[arg(long, conflicts_with = "demo", value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub demo_issuance: bool,

    /// Loopback address to serve /metrics, /healthz and /readyz on over plain HTTP: the
    /// webhook's and the controllers' metrics in one exposition (port 0 picks a free one)
    /// [default: none]
    #[arg(long, value_name = "ADDR")]
    pub metrics_listen: Option<SocketAddr>,

    /// Log line format, on standard error. RUST_LOG selects levels (default info; warn with
    /// --demo and --demo-issuance).
    #[arg(long, value_enum, default_value_t = LogFormatArg::Text)]
    pub log_format: LogFormatArg,

    /// Timeouts and limits of client connections, for the API and the webhook alike.
    #[command(flatten)]
    pub connections: ConnectionArgs,
}

impl DevArgs {
    fn listen(&self) -> SocketAddr {
        let port = if self.demo || self.demo_issuance { 0 } else { 6443 };
        self.listen.unwrap_or(SocketAddr::from(([127, 0, 0, 1], port)))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DevError {
    #[error(transparent)]
    Start(#[from] certgate_sandbox::StartError),
    #[error("cannot read the users file {path}: {source}")]
    UsersFile { path: PathBuf, source: std::io::Error },
    #[error("the users file {path} is invalid: {message}")]
    Users { path: PathBuf, message: String },
    #[error("--kubeconfig-out: {0}")]
    Kubeconfig(certgate_sandbox::kubeconfig::SecretFileError),
    #[error("cannot connect to the sandbox with its own kubeconfig: {0}")]
    Client(String),
    #[error("the webhook listens on loopback only; {0} is not a loopback address")]
    WebhookNotLoopback(SocketAddr),
    #[error("--metrics-listen: the sandbox serves on loopback only; {0} is not a loopback address")]
    MetricsNotLoopback(SocketAddr),
    #[error("--metrics-listen {address}: cannot listen: {source}")]
    MetricsListen { address: SocketAddr, source: std::io::Error },
    #[error(transparent)]
    Logging(#[from] certgate_webhook::logging::LoggingError),
    #[error("cannot start certgate's webhook: {0}")]
    Webhook(String),
    #[error("--controllers: {0}")]
    Controllers(String),
    #[error("cannot register cert-manager's kinds in the sandbox: {0}")]
    Issuers(String),
    #[error("the demo failed: {0}")]
    Demo(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot wait for SIGTERM or SIGINT: {0}")]
    Signal(std::io::Error),
}

/// Serves until SIGINT or SIGTERM.
pub fn run(args: &DevArgs, out: &mut impl std::io::Write) -> Result<(), DevError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let quiet = args.demo || args.demo_issuance;
    crate::shared::logging::init_with_default(
        args.log_format,
        if quiet { "warn" } else { "info" },
    )?;
    crate::shared::metrics::declare_build_info();
    if let Some(address) = args.metrics_listen.filter(|a| !a.ip().is_loopback()) {
        return Err(DevError::MetricsNotLoopback(address));
    }
    let users = match &args.users {
        Some(path) => read_users(path)?,
        None => StaticUsers::default(),
    };
    let mut selection = args.controllers.clone();
    if args.demo_issuance {
        selection.extend(demo_issuance::CONTROLLERS.map(str::to_owned));
    }
    let controllers =
        REGISTRY.select(&selection).map_err(|err| DevError::Controllers(err.to_string()))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(DevError::Runtime)?;
    runtime.block_on(async {
        let sandbox = start(SandboxOptions {
            listen: args.listen(),
            data_dir: args.data_dir.clone(),
            users,
            connections: args.connections.policy(),
            ..SandboxOptions::default()
        })
        .await?;
        tracing::info!(
            address = %sandbox.address,
            data_dir = %args.data_dir.as_deref().map_or("(memory)".into(), |d| d.display().to_string()),
            "serving the sandbox API server (development only)"
        );
        let webhook = if args.no_webhook {
            tracing::info!("certgate's webhook not started (--no-webhook)");
            None
        } else {
            let webhook = webhook::start(
                args.webhook_listen,
                args.connections.policy(),
                client(&sandbox.kubeconfig(), None).await?,
            )
            .await?;
            tracing::info!(
                address = %webhook.local_addr(),
                "serving certgate's admission webhook, registered with the sandbox for CertificateRequests and CertificateRequestPolicies"
            );
            Some(webhook)
        };
        let kubeconfig = sandbox.kubeconfig();
        issuers::register(&client(&kubeconfig, None).await?).await?;
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let controller_metrics = std::sync::Arc::new(ControllerMetrics::default());
        let metrics_endpoint = match args.metrics_listen {
            Some(address) => Some(
                serve_metrics(
                    address,
                    webhook.as_ref(),
                    &controller_metrics,
                    &args.connections.policy(),
                    until_stopped(stopped.clone()),
                )
                .await?,
            ),
            None => None,
        };
        let launch = Launch {
            client: client(&kubeconfig, None).await?,
            config: Some(client_config(&kubeconfig).await?),
            settings: Settings {
                service_account_token_ttl: args.hub_templates_token_expiration,
                ..Settings::default()
            },
            metrics: std::sync::Arc::clone(&controller_metrics),
            clock: std::sync::Arc::new(certgate_clock::SystemClock),
            shutdown: until_stopped(stopped),
        };
        let controllers_task = tokio::spawn({
            let controllers = controllers.clone();
            async move { Registry::run(&controllers, launch).await }
        });
        let controllers: Vec<&str> = controllers.iter().map(|spec| spec.name).collect();
        if controllers.is_empty() {
            tracing::info!("no controllers running");
        } else {
            tracing::info!(controllers = %controllers.join(","), "running certgate's controllers");
        }
        if let Some((_, readiness)) = &metrics_endpoint {
            readiness.set(true);
        }
        if args.demo || args.demo_issuance {
            let _ = writeln!(
                out,
                "certgate sandbox API server (development only) at https://{}\n",
                sandbox.address
            );
            let approver_running = controllers.contains(&policy_approver::NAME);
            let demonstrated = if args.demo {
                demo::run(&kubeconfig, approver_running, out).await
            } else {
                demo_issuance::run(&kubeconfig, out).await
            };
            // Without a kubeconfig to explore the result with, the demonstration is all.
            if demonstrated.is_err() || args.kubeconfig_out.is_none() {
                let _ = stop.send(true);
                let _ = controllers_task.await;
                if let Some(webhook) = webhook {
                    let _ = webhook.shutdown(std::time::Duration::from_secs(1)).await;
                }
                sandbox.shutdown();
                return demonstrated;
            }
            let _ = writeln!(out);
        }
        match &args.kubeconfig_out {
            Some(path) => {
                certgate_sandbox::kubeconfig::write(path, &kubeconfig)
                    .map_err(DevError::Kubeconfig)?;
                tracing::info!(path = %path.display(), "wrote the admin kubeconfig (owner-only)");
                let _ = write!(
                    out,
                    "{}",
                    usage(
                        &sandbox,
                        path,
                        webhook.as_ref().map(|w| w.local_addr()),
                        metrics_endpoint.as_ref().map(|(address, _)| *address),
                        &controllers
                    )
                );
            }
            None => {
                let _ = write!(out, "{kubeconfig}");
            }
        }
        let _ = out.flush();
        wait_for_signal().await.map_err(DevError::Signal)?;
        tracing::info!("stopping");
        if let Some((_, readiness)) = &metrics_endpoint {
            readiness.set(false);
        }
        let _ = stop.send(true);
        let _ = controllers_task.await;
        if let Some(webhook) = webhook {
            let _ = webhook.shutdown(std::time::Duration::from_secs(1)).await;
        }
        sandbox.shutdown();
        Ok(())
    })
}

/// Serves `/metrics` (the webhook's and the controllers' registries in one exposition),
/// `/healthz` and `/readyz` on `address` until `shutdown`; returns the address bound and the
/// readiness flag (not ready until set).
async fn serve_metrics(
    address: SocketAddr,
    webhook: Option<&certgate_webhook::RunningServer>,
    controllers: &std::sync::Arc<ControllerMetrics>,
    connections: &certgate_serving::ConnectionPolicy,
    shutdown: Shutdown,
) -> Result<(SocketAddr, certgate_serving::Readiness), DevError> {
    use certgate_serving::{Combined, MetricsText, Readiness, health_routes};
    use std::sync::Arc;
    let bind_error = |source| DevError::MetricsListen { address, source };
    let listener = tokio::net::TcpListener::bind(address).await.map_err(bind_error)?;
    let bound = listener.local_addr().map_err(bind_error)?;
    let mut parts: Vec<Arc<dyn MetricsText>> = Vec::new();
    if let Some(webhook) = webhook {
        parts.push(webhook.metrics_text());
    }
    parts.push(Arc::clone(controllers) as Arc<dyn MetricsText>);
    let readiness = Readiness::new("not ready: starting or stopping");
    let router = health_routes(readiness.clone(), Arc::new(Combined(parts)));
    let connections = connections.clone();
    tokio::spawn(async move {
        if let Err(error) =
            certgate_serving::serve_plain(listener, router, &connections, shutdown).await
        {
            tracing::error!(address = %bound, error = %error, "the metrics endpoint stopped");
        }
    });
    tracing::info!(address = %bound, "serving /metrics, /healthz and /readyz over plain HTTP");
    Ok((bound, readiness))
}

fn read_users(path: &Path) -> Result<StaticUsers, DevError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| DevError::UsersFile { path: path.to_owned(), source })?;
    StaticUsers::from_yaml(&text)
        .map_err(|err| DevError::Users { path: path.to_owned(), message: err.to_string() })
}

/// A kube client for the sandbox of `kubeconfig` as its admin, or impersonating a user
/// (`kubectl --as USER --as-group GROUP...`).
/// The client configuration of a kubeconfig the sandbox wrote.
async fn client_config(kubeconfig: &str) -> Result<kube::Config, DevError> {
    let kubeconfig =
        Kubeconfig::from_yaml(kubeconfig).map_err(|e| DevError::Client(e.to_string()))?;
    kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| DevError::Client(e.to_string()))
}

async fn client(
    kubeconfig: &str,
    impersonate: Option<(&str, Vec<String>)>,
) -> Result<kube::Client, DevError> {
    let mut config = client_config(kubeconfig).await?;
    if let Some((username, groups)) = impersonate {
        config.auth_info.impersonate = Some(username.to_owned());
        config.auth_info.impersonate_groups = (!groups.is_empty()).then_some(groups);
    }
    kube::Client::try_from(config).map_err(|e| DevError::Client(e.to_string()))
}

/// What to tell the user once everything listens.
fn usage(
    sandbox: &RunningSandbox,
    kubeconfig: &Path,
    webhook: Option<SocketAddr>,
    metrics: Option<SocketAddr>,
    controllers: &[&str],
) -> String {
    let webhook = match webhook {
        Some(address) => format!(
            "certgate webhook at https://{address}, registered for CertificateRequests and CertificateRequestPolicies\n"
        ),
        None => "certgate webhook not running (--no-webhook)\n".to_owned(),
    };
    let metrics = match metrics {
        Some(address) => format!("metrics at http://{address}/metrics\n"),
        None => String::new(),
    };
    let controllers = if controllers.is_empty() {
        "no controllers running\n".to_owned()
    } else {
        format!("controllers running: {}\n", controllers.join(", "))
    };
    format!(
        "certgate sandbox API server (development only) at https://{address}\n\
         {webhook}\
         {controllers}\
         {metrics}\
         kubeconfig (admin, system:masters) written to {path}\n\
         \n\
         Try:\n  \
           export KUBECONFIG={path}\n  \
           kubectl apply -f examples/\n  \
           kubectl get certificaterequests -A\n  \
           kubectl auth can-i approve signers.cert-manager.io --as alice\n\
         \n\
         Stop with Ctrl-C.\n",
        address = sandbox.address,
        path = kubeconfig.display(),
    )
}

/// Completes once `true` is sent; cloneable, as each controller waits on it.
fn until_stopped(mut stopped: tokio::sync::watch::Receiver<bool>) -> Shutdown {
    certgate_runtime::shutdown_on(async move {
        let _ = stopped.wait_for(|stop| *stop).await;
    })
}

async fn wait_for_signal() -> std::io::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate())?;
    tokio::select! {
        result = tokio::signal::ctrl_c() => result,
        _ = terminate.recv() => Ok(()),
    }
}
