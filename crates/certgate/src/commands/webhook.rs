//! `certgate webhook`: the admission webhook server for CertificateRequests and
//! CertificateRequestPolicies.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use certgate_clock::SystemClock;
use certgate_rbac::NO_CLUSTER;
use certgate_webhook::dynamic_serving::{ServingNames, certificate_feed};
use certgate_webhook::logging;
use certgate_webhook::{DevCertificates, Metrics, ServerOptions, TlsSource};
use clap::Args;

use crate::shared::connections::ConnectionArgs;
use crate::shared::duration::parse_duration;
use crate::shared::kubeconfig::KubeconfigArgs;
use crate::shared::logging::LogFormatArg;
use crate::shared::metrics::{MetricsListen, bind_metrics_port, parse_metrics_listen};
use certgate_webhook::cluster_serving::{self as webhook_serving, DynamicServing};

/// The long help of `certgate webhook` (`--help`).
pub const WEBHOOK_LONG_ABOUT: &str = "\
Serve the admission webhook for CertificateRequests and CertificateRequestPolicies.

Answers admission.k8s.io/v1 AdmissionReviews over HTTPS (TLS 1.2 and 1.3):
  POST /mutate    stamps the requester's identity on new CertificateRequests
  POST /validate  checks CertificateRequests (identity, spec, immutability, Approved and
                  Denied conditions, the signer permission check on status updates) and
                  CertificateRequestPolicies, with cert-manager's and approver-policy's messages
  GET /healthz    200 while the process runs
  GET /readyz     200 once serving with a loaded certificate, 503 while shutting down
  GET /metrics    OpenMetrics text: certgate_webhook_requests_total{path,resource,operation,
                  result}, certgate_webhook_request_duration_seconds{path}, process_*,
                  certgate_build_info (docs/observability.md)
/healthz, /readyz and /metrics are also served over plain HTTP on --metrics-listen (default
0.0.0.0:9402, cert-manager's metrics port), for Prometheus and probes without TLS.

Serving certificate, one of three sources:
  --tls-cert-file/--tls-private-key-file  files (e.g. a mounted Secret), re-read every
                  --tls-reload-interval; a changed valid pair is served without restart
  --dynamic-serving-ca-secret-name        as cert-manager's webhook: a CA kept in that Secret
                  (created if missing, renewed after 2/3 of --dynamic-serving-ca-duration, ca.crt
                  holding the new and previous CA until the previous expires); each replica signs
                  its own --dynamic-serving-leaf-duration certificate for
                  --dynamic-serving-dns-names in memory and renews it after 2/3 of its lifetime or
                  when the CA changes. --inject-ca-bundle NAME keeps the caBundle of that
                  Mutating/ValidatingWebhookConfiguration current (no cainjector needed). Needs
                  get/create/update on the Secret and get/update on the named configurations.
  --dev-self-signed                       a throw-away CA, for local use only
/readyz answers 200 only once a certificate is served.

Bodies over 3 MiB are refused with 413. SIGTERM or SIGINT stop accepting connections and let
in-flight requests finish within --shutdown-grace-period. Logs go to standard error and never
contain request objects, users' tokens or keys.

In a cluster (the Pod's service account, or a kubeconfig with kubectl's client flags: --kubeconfig,
--context, --server, ...), the signer permission check asks the API server with
SubjectAccessReviews (answers cached for --sar-cache-ttl; a transient failure such as HTTP 429,
500 or 504 is retried once after about a second) and resolves issuer kinds through API
discovery. Without a cluster, every request needing that check is denied.

Examples:
  certgate webhook --tls-cert-file /tls/tls.crt --tls-private-key-file /tls/tls.key \\
    --log-format json
  certgate webhook --dynamic-serving-ca-secret-name certgate-webhook-ca \\
    --dynamic-serving-dns-names certgate-webhook.certgate.svc --inject-ca-bundle certgate
  certgate webhook --dev-self-signed --listen 127.0.0.1:9443 --ca-bundle-out ca.crt";

/// Arguments of `certgate webhook`.
#[derive(Debug, Args)]
pub struct WebhookArgs {
    /// Address and port to serve HTTPS on.
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:9443")]
    pub listen: SocketAddr,

    /// Address and port to serve /metrics, /healthz and /readyz on over plain HTTP (they stay
    /// on the HTTPS port too); `--metrics-listen=` or `0` serves none. Given explicitly, an
    /// address that cannot be bound stops the start; the default one taken is a warning
    /// [default: 0.0.0.0:9402]
    #[arg(long, value_name = "ADDR", value_parser = parse_metrics_listen)]
    pub metrics_listen: Option<MetricsListen>,

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
    #[arg(long, conflicts_with_all = ["tls_cert_file", "tls_private_key_file"], value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
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

    // The cluster for SubjectAccessReviews, discovery and dynamic serving: kubectl's client
    // flags; without a kubeconfig, inside a Pod, its service account.
    #[command(flatten)]
    pub cluster: KubeconfigArgs,
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
    #[error(transparent)]
    MetricsPort(#[from] crate::shared::metrics::MetricsBindError),
}

/// Runs the server until SIGTERM or SIGINT. `stdout` receives the CA bundle in
/// `--dev-self-signed` mode (when not written to a file).
pub fn run(args: &WebhookArgs, stdout: &mut impl Write) -> Result<(), WebhookError> {
    // ring is the process's only rustls provider (kube's client uses it as well); a
    // provider already installed is that same one, so the error is irrelevant.
    let _ = rustls::crypto::ring::default_provider().install_default();
    crate::shared::logging::init(args.log_format)?;
    crate::shared::metrics::declare_build_info();
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
            let value = crate::shared::duration::format_duration(value);
            return Err(WebhookError::ServingDuration { flag, value });
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
    let client = match args.cluster.connect().await {
        Ok(connection) => {
            crate::shared::kubeconfig::warn_if_unreachable(&connection.client, connection.server);
            Ok(connection.client)
        }
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
    let metrics_listener = bind_metrics_port(args.metrics_listen)?;
    let start = certgate_webhook::start(
        ServerOptions {
            listen: args.listen,
            tls,
            connections: args.connections.policy(),
            metrics_listener,
        },
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

pub use certgate_webhook::cluster_admission::admission;

#[cfg(test)]
mod tests {
    use clap::error::ErrorKind;

    use super::*;

    fn parse(args: &[&str]) -> Result<WebhookArgs, clap::Error> {
        crate::shared::testing::parse_args("webhook", args)
    }

    #[test]
    fn defaults_with_certificate_files() {
        let args = parse(&["--tls-cert-file", "c.pem", "--tls-private-key-file", "k.pem"]).unwrap();
        assert_eq!(args.listen, "0.0.0.0:9443".parse::<SocketAddr>().unwrap());
        assert_eq!(args.metrics_listen, None, "the default port, 0.0.0.0:9402");
        assert_eq!(args.tls_reload_interval, Duration::from_secs(2));
        assert_eq!(args.sar_cache_ttl, Duration::from_secs(1));
        assert_eq!(args.shutdown_grace_period, Duration::from_secs(25));
        assert_eq!(args.log_format, LogFormatArg::Text);
        assert!(!args.dev_self_signed);
    }

    #[test]
    fn the_metrics_port_is_an_address_or_off() {
        let args = parse(&["--dev-self-signed", "--metrics-listen", "127.0.0.1:19402"]).unwrap();
        assert_eq!(
            args.metrics_listen,
            Some(MetricsListen::Address("127.0.0.1:19402".parse().unwrap()))
        );
        for off in ["--metrics-listen=", "--metrics-listen=0"] {
            let args = parse(&["--dev-self-signed", off]).unwrap();
            assert_eq!(args.metrics_listen, Some(MetricsListen::Off), "{off}");
        }
        let err = parse(&["--dev-self-signed", "--metrics-listen", "9402"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ValueValidation);
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
