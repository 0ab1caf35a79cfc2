//! `certgate edge serve`: Contour's `contour serve` for the part certgate serves. Arguments
//! and wiring only; the controller, the xDS server and the process are `certgate-edge`'s.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use certgate_edge::controller::{
    ControllerConfig, LoadBalancer, LoadBalancerSource, ProcessError, ProcessOptions, run_process,
};
use certgate_edge::tls::XdsTlsFiles;
use certgate_ingress::ProcessorConfig;
use certgate_ingress::envoy::{
    ListenerOptions, ResourceOptions, TranslateOptions, ValidationDelivery,
};
use certgate_ingress::ingress_class::class_names;
use certgate_runtime::{LeaseSettings, replica_identity, termination_signal};
use clap::{ArgAction, Args};

use crate::shared::connections::HttpConnectionArgs;
use crate::shared::duration::parse_lease_duration;
use crate::shared::kubeconfig::KubeconfigArgs;
use crate::shared::logging::LogFormatArg;

pub const SERVE_LONG_ABOUT: &str = "\
Serve Envoy over xDS from the cluster's HTTPProxies, as `contour serve` does for the part of
Contour certgate supports (docs/ingress-model.md): watch HTTPProxies, TLSCertificateDelegations,
Secrets, Services and EndpointSlices, write each HTTPProxy's status as Contour writes it, and
serve the listeners, routes, clusters, endpoints and secrets (client-certificate validation with
CA and CRL Secrets included) to every Envoy that connects.

As Contour, only HTTPProxies of the configured ingress classes are processed
(--ingress-class-name; by default class contour and proxies without a class); the others are
left alone. Every processed HTTPProxy's status.loadBalancer gets the address of the Envoy
Service (--envoy-service-namespace, --envoy-service-name) once it has one, or the fixed
--ingress-status-address.

Changes are applied after a 100 ms pause, at most 500 ms after the first pending change, as
Contour does. Every replica serves xDS; with --leader-elect (the default) only the holder of the
Lease writes statuses.

With --xds-tls-cert-file, --xds-tls-key-file and --xds-tls-ca-file (all three; Contour's
--contour-cert-file, --contour-key-file and --contour-cafile are accepted too) the xDS server
speaks mutual TLS and serves only Envoys presenting a certificate of that CA; the files are
re-read when they change. As with Contour, plain gRPC needs --insecure: then bind --xds-address
to loopback or to a network only Envoy reaches (SDS carries the serving certificates' private
keys).

  certgate edge serve --xds-address=0.0.0.0 --leader-election-namespace=projectcontour \\
    --xds-tls-cert-file=/certs/tls.crt --xds-tls-key-file=/certs/tls.key \\
    --xds-tls-ca-file=/certs/ca.crt
  certgate edge bootstrap /config/envoy.json --xds-address=certgate --xds-port=8001 \\
    --envoy-cafile=/certs/ca.crt --envoy-cert-file=/certs/tls.crt --envoy-key-file=/certs/tls.key

Serves /metrics (Prometheus), /healthz and /readyz (ready once the first configuration is
built) over plain HTTP on --listen. See docs/edge.md.";

/// Arguments of `certgate edge serve` (Contour's names where Contour has the flag).
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// xDS gRPC API address.
    #[arg(long, default_value = "127.0.0.1")]
    pub xds_address: IpAddr,
    /// xDS gRPC API port.
    #[arg(long, default_value_t = 8001)]
    pub xds_port: u16,
    /// The xDS server's certificate (PEM, with its intermediates), for mutual TLS with Envoy.
    #[arg(long, value_name = "FILE", alias = "contour-cert-file", env = "CONTOUR_CERT_FILE")]
    pub xds_tls_cert_file: Option<PathBuf>,
    /// The xDS server's private key (PEM).
    #[arg(long, value_name = "FILE", alias = "contour-key-file", env = "CONTOUR_KEY_FILE")]
    pub xds_tls_key_file: Option<PathBuf>,
    /// The CA whose certificates Envoys must present (PEM).
    #[arg(long, value_name = "FILE", alias = "contour-cafile", env = "CONTOUR_CAFILE")]
    pub xds_tls_ca_file: Option<PathBuf>,
    /// Serve xDS over plain gRPC, without TLS (the TLS files are then ignored, as Contour's
    /// --insecure).
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub insecure: bool,
    /// Address Envoy's HTTP listener binds.
    #[arg(long, default_value = "0.0.0.0")]
    pub envoy_service_http_address: String,
    /// Port Envoy's HTTP listener binds.
    #[arg(long, default_value_t = 8080)]
    pub envoy_service_http_port: u16,
    /// Address Envoy's HTTPS listener binds.
    #[arg(long, default_value = "0.0.0.0")]
    pub envoy_service_https_address: String,
    /// Port Envoy's HTTPS listener binds.
    #[arg(long, default_value_t = 8443)]
    pub envoy_service_https_port: u16,
    /// Namespaces where root HTTPProxies are allowed, comma-separated [default: all].
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub root_namespaces: Vec<String>,
    /// Which HTTPProxies are processed and the address written into their status (boxed:
    /// the arguments are large).
    #[command(flatten)]
    pub scope: Box<ScopeArgs>,
    /// Where each virtual host's client validation (CA, CRL) goes: in an SDS secret of its own,
    /// so that a changed CA or CRL Secret reaches Envoy without draining established
    /// connections, or inline in the listener, byte for byte as Contour does (Envoy then
    /// drains the virtual host's connections on every CA or CRL change).
    #[arg(long, value_enum, value_name = "WHERE", default_value_t = ValidationDeliveryArg::Sds)]
    pub client_validation: ValidationDeliveryArg,

    /// Elect a leader with a Lease, so that of several replicas only one writes HTTPProxy
    /// statuses (all of them serve xDS). --leader-elect=false writes from this replica.
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, default_value_t = true, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub leader_elect: bool,
    /// Namespace of the leader election Lease [default: $POD_NAMESPACE, else certgate].
    #[arg(long, value_name = "NAMESPACE", env = "POD_NAMESPACE", default_value = "certgate")]
    pub leader_election_namespace: String,
    /// Name of the leader election Lease.
    #[arg(long, value_name = "NAME", default_value = "certgate-edge")]
    pub leader_election_lease_name: String,
    /// How long the leader's lease is valid after its last renewal.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_lease_duration)]
    pub leader_election_lease_duration: Duration,

    /// Address and port of the plain-HTTP /metrics, /healthz and /readyz endpoints.
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:8000")]
    pub listen: SocketAddr,
    /// Log line format, on standard error. RUST_LOG selects levels (default info).
    #[arg(long, value_enum, default_value_t = LogFormatArg::Text)]
    pub log_format: LogFormatArg,
    // The cluster to work on: kubectl's client flags (--kubeconfig, --context, --server,
    // --token, --as, ...); without a kubeconfig, inside a Pod, its service account.
    #[command(flatten)]
    pub cluster: Box<KubeconfigArgs>,
    /// Timeouts and limits of the --listen endpoints' connections.
    #[command(flatten)]
    pub connections: HttpConnectionArgs,
}

/// Contour's ingress class and load-balancer status flags.
#[derive(Debug, Args)]
pub struct ScopeArgs {
    /// Ingress classes whose HTTPProxies are processed, comma-separated (Contour's flag; a
    /// proxy's class is its projectcontour.io/ingress.class or kubernetes.io/ingress.class
    /// annotation, else spec.ingressClassName). Other proxies are ignored: not served, their
    /// status not written [default: class contour and proxies without a class].
    #[arg(long, value_name = "NAMES")]
    pub ingress_class_name: Option<String>,
    /// Namespace of the Envoy Service whose status.loadBalancer is copied into every processed
    /// HTTPProxy's status [default: $CONTOUR_NAMESPACE, else projectcontour].
    #[arg(
        long,
        value_name = "NAMESPACE",
        env = "CONTOUR_NAMESPACE",
        default_value = "projectcontour"
    )]
    pub envoy_service_namespace: String,
    /// Name of that Envoy Service.
    #[arg(long, value_name = "NAME", default_value = "envoy")]
    pub envoy_service_name: String,
    /// Fixed addresses for the HTTPProxies' status.loadBalancer instead of the Envoy Service's,
    /// comma-separated: an IP address becomes an ip entry, anything else a hostname.
    #[arg(long, value_name = "ADDRESSES")]
    pub ingress_status_address: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Logging(#[from] certgate_webhook::logging::LoggingError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot listen for SIGTERM: {0}")]
    Signal(#[source] std::io::Error),
    #[error("cannot configure the API client: {0}")]
    Client(String),
    /// Contour's texts (`verifyTLSFlags`), which name its flags (accepted here as aliases).
    #[error("no TLS parameters and --insecure not supplied. You must supply one or the other")]
    NoTls,
    #[error(
        "you must supply all three TLS parameters - --contour-cafile, --contour-cert-file, --contour-key-file, or none of them"
    )]
    PartialTls,
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// The API server could not be reached for the leader lease: the message every command
    /// gives ([`crate::shared::unreachable::leader_election`]).
    #[error("{0}")]
    Unreachable(String),
}

/// Serves until SIGTERM or SIGINT.
pub fn run_serve(args: &ServeArgs) -> Result<(), ServeError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let options = options(args)?;
    crate::shared::logging::init(args.log_format)?;
    crate::shared::metrics::declare_build_info();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async {
        let signal = termination_signal().map_err(ServeError::Signal)?;
        let config = client_config(args).await?;
        let server = config.cluster_url.to_string();
        let client =
            kube::Client::try_from(config).map_err(|e| ServeError::Client(e.to_string()))?;
        crate::shared::kubeconfig::warn_if_unreachable(&client, server.clone());
        run_process(client, options, signal).await.map_err(|err| {
            let unreachable = match &err {
                ProcessError::Leader(leader) => {
                    crate::shared::unreachable::leader_election(&server, leader)
                }
                _ => None,
            };
            unreachable.map_or_else(|| err.into(), ServeError::Unreachable)
        })
    })
}

fn options(args: &ServeArgs) -> Result<ProcessOptions, ServeError> {
    let files = (&args.xds_tls_cert_file, &args.xds_tls_key_file, &args.xds_tls_ca_file);
    let xds_tls = match files {
        _ if args.insecure => None,
        (None, None, None) => return Err(ServeError::NoTls),
        (Some(cert), Some(key), Some(client_ca)) => {
            Some(XdsTlsFiles { cert: cert.clone(), key: key.clone(), client_ca: client_ca.clone() })
        }
        _ => return Err(ServeError::PartialTls),
    };
    Ok(ProcessOptions {
        xds: SocketAddr::new(args.xds_address, args.xds_port),
        xds_tls,
        listen: args.listen,
        connections: args.connections.policy(),
        lease: args.leader_elect.then(|| LeaseSettings {
            namespace: args.leader_election_namespace.clone(),
            name: args.leader_election_lease_name.clone(),
            identity: replica_identity(),
            duration: args.leader_election_lease_duration,
        }),
        controller: ControllerConfig {
            processor: ProcessorConfig {
                root_namespaces: args.root_namespaces.clone(),
                fallback_certificate: None,
            },
            resources: ResourceOptions {
                listeners: ListenerOptions {
                    http_address: args.envoy_service_http_address.clone(),
                    http_port: u32::from(args.envoy_service_http_port),
                    https_address: args.envoy_service_https_address.clone(),
                    https_port: u32::from(args.envoy_service_https_port),
                },
                translate: TranslateOptions {
                    validation: args.client_validation.into(),
                    ..TranslateOptions::default()
                },
            },
            ingress_class_names: class_names(
                args.scope.ingress_class_name.as_deref().unwrap_or_default(),
            ),
            load_balancer: load_balancer_source(&args.scope),
        },
    })
}

/// Contour: a non-empty `--ingress-status-address` is used instead of watching the Envoy
/// Service (even when no address parses out of it).
fn load_balancer_source(scope: &ScopeArgs) -> LoadBalancerSource {
    match scope.ingress_status_address.as_deref() {
        Some(address) if !address.is_empty() => {
            LoadBalancerSource::Fixed(LoadBalancer::from_status_address(address))
        }
        _ => LoadBalancerSource::Service {
            namespace: scope.envoy_service_namespace.clone(),
            name: scope.envoy_service_name.clone(),
        },
    }
}

async fn client_config(args: &ServeArgs) -> Result<kube::Config, ServeError> {
    args.cluster.config().await.map_err(|e| ServeError::Client(e.to_string()))
}

/// `--client-validation`: where the CA and CRL of client validation are served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ValidationDeliveryArg {
    /// An SDS secret per virtual host: rotations keep established connections.
    Sds,
    /// Inline in the listener, as Contour: rotations drain the virtual host's connections.
    Inline,
}

impl From<ValidationDeliveryArg> for ValidationDelivery {
    fn from(arg: ValidationDeliveryArg) -> Self {
        match arg {
            ValidationDeliveryArg::Sds => ValidationDelivery::Sds,
            ValidationDeliveryArg::Inline => ValidationDelivery::Inline,
        }
    }
}
