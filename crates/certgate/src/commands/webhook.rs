//! `certgate webhook`: the admission webhook server for CertificateRequests and
//! CertificateRequestPolicies.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use certgate_admission::review::{
    AccessChecker, Admission, DiscoveryError, KindResolver, NO_CLUSTER, NoCluster, ResolvedKind,
};
use certgate_cel::PolicyCel;
use certgate_cluster::{DiscoveryKindResolver, SarAccessChecker};
use certgate_rbac::{AccessDecision, AccessReview, AuthorizerError};
use certgate_webhook::dynamic_serving::{ServingNames, SystemClock, certificate_feed};
use certgate_webhook::logging::{self, LogFormat};
use certgate_webhook::{DevCertificates, Metrics, ServerOptions, TlsSource};
use clap::{Args, ValueEnum};

use super::connections::ConnectionArgs;
use super::webhook_serving::{self, DynamicServing};

/// Arguments of `certgate webhook`.
#[derive(Debug, Args)]
pub struct WebhookArgs {
    /// Address and port to serve HTTPS on.
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:9443")]
    pub listen: SocketAddr,

    /// PEM file holding the serving certificate, followed by its intermediates. Re-read
    /// every --tls-reload-interval; a changed valid pair is served without restart.
    #[arg(
        long,
        value_name = "FILE",
        requires = "tls_private_key_file",
        required_unless_present_any = ["dev_self_signed", "dynamic_serving_ca_secret_name"]
    )]
    pub tls_cert_file: Option<PathBuf>,

    /// PEM file holding the private key of --tls-cert-file (PKCS#8, PKCS#1 or SEC1).
    #[arg(
        long,
        value_name = "FILE",
        requires = "tls_cert_file",
        required_unless_present_any = ["dev_self_signed", "dynamic_serving_ca_secret_name"]
    )]
    pub tls_private_key_file: Option<PathBuf>,

    /// How often the certificate and key files are checked for changes. A changed pair
    /// that does not load (unreadable, mismatched) is logged and the previous one kept.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_duration)]
    pub tls_reload_interval: Duration,

    /// For local use only: generate a throw-away CA and a serving certificate for
    /// localhost, 127.0.0.1, ::1 and each --dns-name, and print the CA certificate (the
    /// webhook configuration's caBundle) to standard output or --ca-bundle-out.
    #[arg(long, conflicts_with_all = ["tls_cert_file", "tls_private_key_file"])]
    pub dev_self_signed: bool,

    /// An extra DNS name or IP address for the --dev-self-signed certificate, e.g.
    /// certgate-webhook.certgate.svc. Repeat to give several.
    // `requires = "dev_self_signed"` would always hold: a flag's default counts as present.
    #[arg(
        long = "dns-name",
        value_name = "NAME",
        conflicts_with_all = ["tls_cert_file", "tls_private_key_file", "dynamic_serving_ca_secret_name"]
    )]
    pub dns_names: Vec<String>,

    /// Write the --dev-self-signed CA certificate (PEM) to FILE instead of standard output.
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["tls_cert_file", "tls_private_key_file", "dynamic_serving_ca_secret_name"]
    )]
    pub ca_bundle_out: Option<PathBuf>,

    /// Dynamic serving certificates, as cert-manager's webhook: the Secret (type
    /// kubernetes.io/tls: tls.crt, tls.key, ca.crt) holding the CA every replica signs its own
    /// short-lived serving certificate with. Created when missing, renewed after 2/3 of its
    /// lifetime (ca.crt then holds the new and the previous CA until the previous expires).
    /// Needs --dynamic-serving-dns-names.
    #[arg(
        long,
        value_name = "NAME",
        conflicts_with_all = ["tls_cert_file", "tls_private_key_file", "dev_self_signed"],
        requires = "dynamic_serving_dns_names"
    )]
    pub dynamic_serving_ca_secret_name: Option<String>,

    /// Namespace of --dynamic-serving-ca-secret-name.
    #[arg(long, value_name = "NAMESPACE", env = "POD_NAMESPACE")]
    pub dynamic_serving_ca_secret_namespace: Option<String>,

    /// The DNS names and IP addresses of the dynamic serving certificate, e.g.
    /// certgate-webhook.certgate.svc: comma-separated, and/or repeat the flag.
    // Checked in `dynamic_serving`: clap does not enforce a `requires` that points back.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub dynamic_serving_dns_names: Vec<String>,

    /// Lifetime of each replica's serving certificate (signed in memory, never stored;
    /// renewed after 2/3 of it, or at once when the CA changes).
    #[arg(long, value_name = "DURATION", default_value = "168h", value_parser = parse_duration)]
    pub dynamic_serving_leaf_duration: Duration,

    /// Lifetime of a CA certgate creates in --dynamic-serving-ca-secret-name.
    #[arg(long, value_name = "DURATION", default_value = "8760h", value_parser = parse_duration)]
    pub dynamic_serving_ca_duration: Duration,

    /// A MutatingWebhookConfiguration and/or ValidatingWebhookConfiguration whose webhooks'
    /// clientConfig.caBundle certgate keeps set to the dynamic serving CA bundle (instead of
    /// cert-manager's cainjector). One that does not exist yet is retried. Repeatable.
    #[arg(long, value_name = "NAME", requires = "dynamic_serving_ca_secret_name")]
    pub inject_ca_bundle: Vec<String>,

    /// Log line format, on standard error. RUST_LOG selects levels (default info).
    #[arg(long, value_enum, default_value_t = LogFormatArg::Text)]
    pub log_format: LogFormatArg,

    /// How long SubjectAccessReview answers (allowed and denied) are reused for the signer
    /// permission check; 0s disables the cache.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = parse_duration)]
    pub sar_cache_ttl: Duration,

    /// On SIGTERM or SIGINT, how long in-flight requests may take to finish before their
    /// connections are closed.
    #[arg(long, value_name = "DURATION", default_value = "25s", value_parser = parse_duration)]
    pub shutdown_grace_period: Duration,

    #[command(flatten)]
    pub connections: ConnectionArgs,
}

/// `--log-format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormatArg {
    /// One JSON object per line.
    Json,
    /// Human-readable lines.
    Text,
}

#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error(transparent)]
    Logging(#[from] logging::LoggingError),
    #[error(transparent)]
    DevCert(#[from] certgate_webhook::DevCertError),
    #[error("cannot write the CA bundle to {path}: {source}")]
    CaBundle {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write the CA bundle to standard output: {0}")]
    CaBundleStdout(#[source] std::io::Error),
    #[error(
        "no serving certificate: give --tls-cert-file and --tls-private-key-file, --dynamic-serving-ca-secret-name, or --dev-self-signed"
    )]
    NoCertificate,
    #[error(
        "--dynamic-serving-ca-secret-name needs a namespace: give --dynamic-serving-ca-secret-namespace or set POD_NAMESPACE (from the Downward API)"
    )]
    NoSecretNamespace,
    #[error(
        "--dynamic-serving-dns-names needs --dynamic-serving-ca-secret-name (for --dev-self-signed, use --dns-name)"
    )]
    DnsNamesWithoutDynamicServing,
    #[error(transparent)]
    ServingNames(#[from] certgate_webhook::dynamic_serving::NamesError),
    #[error("{flag} {value} is out of range; give a duration from 1m to 876000h (100 years)")]
    ServingDuration { flag: &'static str, value: String },
    #[error(
        "dynamic serving certificates need the API server, but no cluster connection is configured ({0}); run in a cluster or set KUBECONFIG"
    )]
    DynamicServingNoCluster(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot listen for SIGTERM: {0}")]
    Signal(#[source] std::io::Error),
    #[error(transparent)]
    Serve(#[from] certgate_webhook::ServeError),
}

/// Parses a duration such as `500ms`, `2s`, `5m` or `1h` (a whole number and one unit).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("{text:?} has no unit; write e.g. 2s, 500ms, 5m or 1h"))?;
    let (number, unit) = text.split_at(split);
    let number: u64 = number
        .parse()
        .map_err(|_| format!("{text:?} does not start with a whole number; write e.g. 2s"))?;
    let seconds = |factor: u64| {
        number
            .checked_mul(factor)
            .map(Duration::from_secs)
            .ok_or_else(|| format!("{text:?} is too long"))
    };
    match unit {
        "ms" => Ok(Duration::from_millis(number)),
        "s" => seconds(1),
        "m" => seconds(60),
        "h" => seconds(3600),
        _ => Err(format!("{text:?} has unknown unit {unit:?}; use ms, s, m or h")),
    }
}

/// Runs the server until SIGTERM or SIGINT. `stdout` receives the CA bundle in
/// `--dev-self-signed` mode (when not written to a file).
pub fn run(args: &WebhookArgs, stdout: &mut impl Write) -> Result<(), WebhookError> {
    // ring is the process's only rustls provider (kube's client uses it as well); a
    // provider already installed is that same one, so the error is irrelevant.
    let _ = rustls::crypto::ring::default_provider().install_default();
    logging::init(match args.log_format {
        LogFormatArg::Json => LogFormat::Json,
        LogFormatArg::Text => LogFormat::Text,
    })?;
    let dynamic = dynamic_serving(args)?;
    let tls = match dynamic {
        Some(_) => None,
        None => Some(tls_source(args, stdout)?),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(WebhookError::Runtime)?;
    runtime.block_on(serve(args, tls, dynamic))
}

/// The shortest and longest lifetime accepted for dynamic serving certificates.
const SERVING_DURATIONS: (Duration, Duration) =
    (Duration::from_secs(60), Duration::from_secs(876_000 * 3_600));

/// The validated dynamic-serving settings, when --dynamic-serving-ca-secret-name is given.
pub fn dynamic_serving(args: &WebhookArgs) -> Result<Option<DynamicServing>, WebhookError> {
    let Some(secret_name) = &args.dynamic_serving_ca_secret_name else {
        if !args.dynamic_serving_dns_names.is_empty() {
            return Err(WebhookError::DnsNamesWithoutDynamicServing);
        }
        return Ok(None);
    };
    let namespace = args
        .dynamic_serving_ca_secret_namespace
        .clone()
        .filter(|ns| !ns.is_empty())
        .ok_or(WebhookError::NoSecretNamespace)?;
    let names = ServingNames::parse(&args.dynamic_serving_dns_names)?;
    for (flag, value) in [
        ("--dynamic-serving-leaf-duration", args.dynamic_serving_leaf_duration),
        ("--dynamic-serving-ca-duration", args.dynamic_serving_ca_duration),
    ] {
        if !(SERVING_DURATIONS.0..=SERVING_DURATIONS.1).contains(&value) {
            return Err(WebhookError::ServingDuration { flag, value: format!("{value:?}") });
        }
    }
    Ok(Some(DynamicServing {
        secret_name: secret_name.clone(),
        namespace,
        names,
        leaf_duration: args.dynamic_serving_leaf_duration,
        ca_duration: args.dynamic_serving_ca_duration,
        inject: args.inject_ca_bundle.clone(),
    }))
}

async fn serve(
    args: &WebhookArgs,
    tls: Option<TlsSource>,
    dynamic: Option<DynamicServing>,
) -> Result<(), WebhookError> {
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(WebhookError::Signal)?;
    let mut signal = Box::pin(async move {
        tokio::select! {
            _ = terminate.recv() => tracing::info!("received SIGTERM"),
            _ = tokio::signal::ctrl_c() => tracing::info!("received SIGINT"),
        }
    });
    let client = match kube::Client::try_default().await {
        Ok(client) => Ok(client),
        Err(err) => {
            if dynamic.is_none() {
                tracing::warn!(
                    error = %err,
                    "{NO_CLUSTER}; status updates that add Approved or Denied will be denied"
                );
            }
            Err(err)
        }
    };
    // Aborted on every way out, so the provider never outlives the server.
    let mut provider = None;
    let tls = match (tls, dynamic) {
        (Some(tls), _) => tls,
        (None, Some(dynamic)) => {
            let client = client
                .as_ref()
                .map_err(|err| WebhookError::DynamicServingNoCluster(err.to_string()))?
                .clone();
            let (publisher, feed) = certificate_feed();
            provider = Some(AbortOnDrop(tokio::spawn(webhook_serving::run(
                client,
                dynamic,
                publisher,
                SystemClock,
            ))));
            TlsSource::Dynamic(feed)
        }
        (None, None) => return Err(WebhookError::NoCertificate),
    };
    let admission = Arc::new(admission(client.ok(), args.sar_cache_ttl));
    let start = certgate_webhook::start(
        ServerOptions { listen: args.listen, tls, connections: args.connections.policy() },
        admission,
        Arc::new(Metrics::default()),
    );
    // In dynamic mode the server waits for its first certificate: a signal ends the wait.
    let server = tokio::select! {
        server = start => server?,
        () = &mut signal => return Ok(()),
    };
    let result = server.run_until(signal, args.shutdown_grace_period).await;
    drop(provider);
    result?;
    Ok(())
}

/// A background task aborted when this handle is dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn tls_source(args: &WebhookArgs, stdout: &mut impl Write) -> Result<TlsSource, WebhookError> {
    if args.dev_self_signed {
        let certificates = DevCertificates::generate(&args.dns_names)?;
        write_ca_bundle(&certificates.ca_pem, args.ca_bundle_out.as_deref(), stdout)?;
        return Ok(TlsSource::Fixed(certificates.serving));
    }
    match (&args.tls_cert_file, &args.tls_private_key_file) {
        (Some(cert), Some(key)) => Ok(TlsSource::Files {
            cert: cert.clone(),
            key: key.clone(),
            poll_interval: args.tls_reload_interval,
        }),
        _ => Err(WebhookError::NoCertificate),
    }
}

/// Writes the development CA certificate to `file`, or to `stdout` without one.
pub fn write_ca_bundle(
    ca_pem: &str,
    file: Option<&Path>,
    stdout: &mut impl Write,
) -> Result<(), WebhookError> {
    match file {
        Some(path) => std::fs::write(path, ca_pem)
            .map_err(|source| WebhookError::CaBundle { path: path.to_path_buf(), source }),
        None => stdout
            .write_all(ca_pem.as_bytes())
            .and_then(|()| stdout.flush())
            .map_err(WebhookError::CaBundleStdout),
    }
}

/// The admission decisions with their cluster I/O.
///
/// The admission core wired to an API server (the cluster the process runs in, through its
/// service account or `KUBECONFIG`, or the sandbox of `certgate dev`): SubjectAccessReviews
/// with a short cache, and API discovery. Without a client the server still starts, and
/// every check that needs the API server (the signer permission check on Approved/Denied
/// status updates) fails closed.
pub fn admission(
    client: Option<kube::Client>,
    sar_cache_ttl: Duration,
) -> Admission<ClusterAccess, ClusterKinds> {
    let cel = Arc::new(PolicyCel::default());
    match client {
        Some(client) => {
            tracing::info!(
                sar_cache_ttl_seconds = sar_cache_ttl.as_secs_f64(),
                "connected to the API server"
            );
            let access = ClusterAccess::Sar(SarAccessChecker::new(client.clone(), sar_cache_ttl));
            let kinds = ClusterKinds::Discovery(DiscoveryKindResolver::new(client));
            Admission::new(cel, access, kinds)
        }
        None => Admission::new(cel, ClusterAccess::None(NoCluster), ClusterKinds::None(NoCluster)),
    }
}

/// Access checks through the API server, or none.
// One value per process, so the size difference between variants does not matter.
#[allow(clippy::large_enum_variant)]
pub enum ClusterAccess {
    Sar(SarAccessChecker),
    None(NoCluster),
}

impl AccessChecker for ClusterAccess {
    async fn check(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        match self {
            ClusterAccess::Sar(sar) => sar.check(review).await,
            ClusterAccess::None(none) => none.check(review).await,
        }
    }
}

/// Issuer kinds through API discovery, or none.
#[allow(clippy::large_enum_variant)]
pub enum ClusterKinds {
    Discovery(DiscoveryKindResolver),
    None(NoCluster),
}

impl KindResolver for ClusterKinds {
    async fn resolve(
        &self,
        group: &str,
        kind: &str,
    ) -> Result<Option<ResolvedKind>, DiscoveryError> {
        match self {
            ClusterKinds::Discovery(discovery) => discovery.resolve(group, kind).await,
            ClusterKinds::None(none) => none.resolve(group, kind).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use clap::error::ErrorKind;

    use super::*;
    use crate::cli::{Cli, Command};

    fn parse(args: &[&str]) -> Result<WebhookArgs, clap::Error> {
        let cli = Cli::try_parse_from(["certgate", "webhook"].iter().chain(args))?;
        match cli.command {
            Command::Webhook(args) => Ok(args),
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn defaults_with_certificate_files() {
        let args = parse(&["--tls-cert-file", "c.pem", "--tls-private-key-file", "k.pem"]).unwrap();
        assert_eq!(args.listen, "0.0.0.0:9443".parse::<SocketAddr>().unwrap());
        assert_eq!(args.tls_reload_interval, Duration::from_secs(2));
        assert_eq!(args.sar_cache_ttl, Duration::from_secs(1));
        assert_eq!(args.shutdown_grace_period, Duration::from_secs(25));
        assert_eq!(args.log_format, LogFormatArg::Text);
        assert!(!args.dev_self_signed);
    }

    #[test]
    fn needs_a_certificate_source() {
        let err = parse(&[]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MissingRequiredArgument);
        let err = parse(&["--tls-cert-file", "c.pem"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MissingRequiredArgument);
    }

    #[test]
    fn dev_self_signed_excludes_files_and_owns_its_flags() {
        let args =
            parse(&["--dev-self-signed", "--dns-name", "a.svc", "--dns-name", "b.svc"]).unwrap();
        assert_eq!(args.dns_names, ["a.svc", "b.svc"]);
        let err = parse(&["--dev-self-signed", "--tls-cert-file", "c.pem"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ArgumentConflict);
        let err = parse(&[
            "--tls-cert-file",
            "c.pem",
            "--tls-private-key-file",
            "k.pem",
            "--dns-name",
            "a.svc",
        ])
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ArgumentConflict);
        let err = parse(&[
            "--tls-cert-file",
            "c.pem",
            "--tls-private-key-file",
            "k.pem",
            "--ca-bundle-out",
            "ca.pem",
        ])
        .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ArgumentConflict);
    }

    #[test]
    fn dynamic_serving_flags_and_defaults() {
        let args = parse(&[
            "--dynamic-serving-ca-secret-name",
            "certgate-webhook-ca",
            "--dynamic-serving-ca-secret-namespace",
            "certgate",
            "--dynamic-serving-dns-names",
            "certgate-webhook.certgate.svc,certgate-webhook.certgate.svc.cluster.local",
            "--dynamic-serving-dns-names",
            "10.0.0.7",
            "--inject-ca-bundle",
            "certgate",
            "--inject-ca-bundle",
            "certgate-policies",
        ])
        .unwrap();
        assert_eq!(args.dynamic_serving_leaf_duration, Duration::from_secs(168 * 3600));
        assert_eq!(args.dynamic_serving_ca_duration, Duration::from_secs(8760 * 3600));
        let dynamic = dynamic_serving(&args).unwrap().unwrap();
        assert_eq!(dynamic.secret_name, "certgate-webhook-ca");
        assert_eq!(dynamic.namespace, "certgate");
        assert_eq!(
            dynamic.names.as_slice(),
            [
                "certgate-webhook.certgate.svc",
                "certgate-webhook.certgate.svc.cluster.local",
                "10.0.0.7"
            ]
        );
        assert_eq!(dynamic.inject, ["certgate", "certgate-policies"]);

        let files =
            parse(&["--tls-cert-file", "c.pem", "--tls-private-key-file", "k.pem"]).unwrap();
        assert!(dynamic_serving(&files).unwrap().is_none());
    }

    #[test]
    fn dynamic_serving_excludes_the_other_modes_and_owns_its_flags() {
        let base = [
            "--dynamic-serving-ca-secret-name",
            "ca",
            "--dynamic-serving-ca-secret-namespace",
            "ns",
        ];
        let with = |extra: &[&str]| {
            let mut all = base.to_vec();
            all.extend_from_slice(extra);
            parse(&all)
        };
        for conflicting in [
            &["--dynamic-serving-dns-names", "a", "--tls-cert-file", "c.pem"][..],
            &["--dynamic-serving-dns-names", "a", "--tls-private-key-file", "k.pem"],
            &["--dynamic-serving-dns-names", "a", "--dev-self-signed"],
            &["--dynamic-serving-dns-names", "a", "--dns-name", "b"],
            &["--dynamic-serving-dns-names", "a", "--ca-bundle-out", "ca.pem"],
        ] {
            let err = with(conflicting).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::ArgumentConflict, "{conflicting:?}");
        }
        let err = with(&[]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MissingRequiredArgument);
        let err = parse(&["--dev-self-signed", "--inject-ca-bundle", "x"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::MissingRequiredArgument);
        let args = parse(&["--dev-self-signed", "--dynamic-serving-dns-names", "x"]).unwrap();
        assert_eq!(
            dynamic_serving(&args).map(|_| ()).unwrap_err().to_string(),
            "--dynamic-serving-dns-names needs --dynamic-serving-ca-secret-name (for --dev-self-signed, use --dns-name)"
        );
    }

    #[test]
    fn dynamic_serving_settings_are_checked() {
        let check = |extra: &[&str]| {
            let mut all = vec!["--dynamic-serving-ca-secret-name", "ca"];
            all.extend_from_slice(extra);
            dynamic_serving(&parse(&all).unwrap()).map(|_| ()).unwrap_err().to_string()
        };
        if std::env::var_os("POD_NAMESPACE").is_none() {
            assert_eq!(
                check(&["--dynamic-serving-dns-names", "a"]),
                "--dynamic-serving-ca-secret-name needs a namespace: give --dynamic-serving-ca-secret-namespace or set POD_NAMESPACE (from the Downward API)"
            );
        }
        let ns = ["--dynamic-serving-ca-secret-namespace", "ns"];
        assert!(
            check(&[&ns[..], &["--dynamic-serving-dns-names", "a,,b"]].concat())
                .contains("holds an empty name")
        );
        assert_eq!(
            check(
                &[
                    &ns[..],
                    &["--dynamic-serving-dns-names", "a", "--dynamic-serving-leaf-duration", "30s"]
                ]
                .concat()
            ),
            "--dynamic-serving-leaf-duration 30s is out of range; give a duration from 1m to 876000h (100 years)"
        );
        assert!(
            check(
                &[
                    &ns[..],
                    &[
                        "--dynamic-serving-dns-names",
                        "a",
                        "--dynamic-serving-ca-duration",
                        "876001h"
                    ]
                ]
                .concat()
            )
            .starts_with("--dynamic-serving-ca-duration ")
        );
    }

    #[test]
    fn durations_and_formats_parse() {
        let args = parse(&[
            "--dev-self-signed",
            "--sar-cache-ttl",
            "0s",
            "--tls-reload-interval",
            "500ms",
            "--log-format",
            "json",
        ])
        .unwrap();
        assert_eq!(args.sar_cache_ttl, Duration::ZERO);
        assert_eq!(args.tls_reload_interval, Duration::from_millis(500));
        assert_eq!(args.log_format, LogFormatArg::Json);
        let err = parse(&["--dev-self-signed", "--sar-cache-ttl", "1"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ValueValidation);
    }

    #[test]
    fn durations_take_one_unit() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("8760h"), Ok(Duration::from_secs(8760 * 3600)));
        assert_eq!(
            parse_duration("2"),
            Err("\"2\" has no unit; write e.g. 2s, 500ms, 5m or 1h".to_owned())
        );
        assert_eq!(
            parse_duration("2d"),
            Err("\"2d\" has unknown unit \"d\"; use ms, s, m or h".to_owned())
        );
        assert_eq!(
            parse_duration("s"),
            Err("\"s\" does not start with a whole number; write e.g. 2s".to_owned())
        );
        assert_eq!(
            parse_duration("99999999999999999999h"),
            Err("\"99999999999999999999h\" does not start with a whole number; write e.g. 2s"
                .to_owned())
        );
    }

    #[test]
    fn the_ca_bundle_goes_to_stdout_or_a_file() {
        let certificates = DevCertificates::generate(&[]).unwrap();
        let mut stdout = Vec::new();
        write_ca_bundle(&certificates.ca_pem, None, &mut stdout).unwrap();
        assert_eq!(String::from_utf8(stdout).unwrap(), certificates.ca_pem);

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ca.crt");
        let mut stdout = Vec::new();
        write_ca_bundle(&certificates.ca_pem, Some(&path), &mut stdout).unwrap();
        assert!(stdout.is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), certificates.ca_pem);

        let missing = dir.path().join("no/such/dir/ca.crt");
        let err =
            write_ca_bundle(&certificates.ca_pem, Some(&missing), &mut Vec::new()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("cannot write the CA bundle to {}: ", missing.display())),
            "{err}"
        );
    }
}
