//! `certgate controller`: the controllers against a cluster, with leader election, graceful
//! shutdown, Prometheus metrics and health endpoints. Arguments and wiring only: the
//! controllers are registered in [`crate::controllers`], their machinery is
//! `certgate-runtime`, their reconcilers live in their system crates.

use std::net::SocketAddr;
use std::time::Duration;

use certgate_runtime::{
    AccessMode, LeaseSettings, ManagerError, ManagerOptions, Settings, replica_identity,
    run_controllers, termination_signal,
};
use certgate_webhook::logging;
use clap::{ArgAction, Args, ValueEnum};

use crate::controllers::REGISTRY;
use crate::shared::connections::HttpConnectionArgs;
use crate::shared::duration::{parse_duration, parse_go_duration, parse_lease_duration};
use crate::shared::kubeconfig::KubeconfigArgs;
use crate::shared::logging::LogFormatArg;

/// The long help of `certgate controller` (`--help`).
pub const CONTROLLER_LONG_ABOUT: &str = "\
Run certgate's controllers against a cluster, as approver-policy's and cert-manager's
controllers run:

  policy-approver
      reviews every CertificateRequest that is neither Approved nor Denied
      against the CertificateRequestPolicies and sets Approved or Denied with
      reason policy.cert-manager.io and the review's message (events Approved,
      Denied, Unprocessed, EvaluationError). Decided requests are never touched.
      Pending requests are reviewed again when policies, RBAC objects or
      Namespaces change.
  policy-readiness
      keeps the policies' Ready condition and observedGeneration current.
  builtin-approver
      cert-manager's approve-everything controller (reason cert-manager.io);
      off by default, add it with --controllers=*,builtin-approver.
  policy-propagator
      OCM's governance-policy-propagator: replicates root Policies into managed
      cluster namespaces by their PlacementBindings and resolves their hub
      templates; needs the OCM CRDs, so off by default
      (--controllers=*,policy-propagator).
  certificates
      cert-manager's Certificate controllers as one: the private key
      Secret, the CertificateRequest of each revision, the Secret with
      tls.crt, tls.key and ca.crt, renewal before expiry, and the retry
      backoff after a denied or failed request
      (--certificate-request-{minimum,maximum}-backoff-duration); off by
      default.
  issuers
      cert-manager's issuers controller: the Ready condition of
      CA and SelfSigned Issuers; off by default.
  clusterissuers
      the same for ClusterIssuers (CA Secrets in
      --cluster-resource-namespace); off by default.
  certificaterequests-issuer-ca
      cert-manager's CA issuer: signs approved CertificateRequests
      (status.certificate, status.ca, Ready=True Issued), marks
      Denied ones Ready=False Denied; off by default.
  certificaterequests-issuer-selfsigned
      cert-manager's SelfSigned issuer: the same, signed with the
      key of the cert-manager.io/private-key-secret-name Secret;
      off by default.
  issuers-crl
      certgate's CRL publishing for CA Issuers and ClusterIssuers
      annotated certgate.io/crl-secret-name: crl.pem kept current
      from the Secret's revocations.json (certgate revoke); off by
      default.

Several replicas elect one leader with a Lease (--leader-election-namespace, default
$POD_NAMESPACE); the others wait as standbys. On SIGTERM the leader finishes in-flight reviews
and releases the lease so a standby takes over at once; losing the lease exits with status 1.

  certgate controller --leader-election-namespace certgate --log-format json
  certgate controller --authorizer local --controllers '*,-policy-readiness'
  certgate controller --controllers '*,issuers,clusterissuers' \\
    --controllers certificaterequests-issuer-ca,certificaterequests-issuer-selfsigned

Serves /metrics (Prometheus), /healthz and /readyz over plain HTTP on --listen. The
permissions each controller needs are listed in docs/controller.md and deploy/.";

/// How the policy approver answers "may the requester `use` this policy?".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum AuthorizerMode {
    /// Ask the API server with SubjectAccessReviews, as approver-policy does (every
    /// authorizer of the cluster takes part); answers are cached for --sar-cache-ttl.
    #[default]
    Sar,
    /// Evaluate the watched RBAC objects in memory: no API round trip, but only RBAC
    /// counts (and system:masters), not webhook or Node authorizers.
    Local,
}

impl AuthorizerMode {
    fn access(self) -> AccessMode {
        match self {
            AuthorizerMode::Sar => AccessMode::SubjectAccessReview,
            AuthorizerMode::Local => AccessMode::LocalRbac,
        }
    }
}

/// Arguments of `certgate controller`.
#[derive(Debug, Args)]
pub struct ControllerArgs {
    /// Controllers to run, comma-separated, as cert-manager's --controllers: `*` the ones on
    /// by default (policy-approver, policy-readiness), `name` adds one (builtin-approver,
    /// policy-propagator and cert-manager's issuers, clusterissuers,
    /// certificaterequests-issuer-ca and certificaterequests-issuer-selfsigned are off by
    /// default), `-name` removes one.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_value = "*")]
    pub controllers: Vec<String>,

    /// How the policy approver answers "may the requester `use` this policy?": `sar` asks
    /// the API server (SubjectAccessReview, as approver-policy; every authorizer of the
    /// cluster counts), `local` evaluates the watched RBAC objects in memory (no round
    /// trip; RBAC only). See docs/controller.md.
    #[arg(long, value_enum, default_value_t = AuthorizerMode::Sar)]
    pub authorizer: AuthorizerMode,

    /// How long SubjectAccessReview answers are reused (--authorizer=sar); every RBAC,
    /// Namespace or policy change forgets them at once. 0s disables the cache.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub sar_cache_ttl: Duration,

    /// Requests each controller reconciles at once.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrency: u16,

    /// Elect a leader with a Lease, so that of several replicas only one runs the
    /// controllers. --leader-elect=false runs them at once (one replica only!).
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, default_value_t = true, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub leader_elect: bool,

    /// Namespace of the leader election Lease [default: $POD_NAMESPACE, else certgate].
    #[arg(long, value_name = "NAMESPACE", env = "POD_NAMESPACE", default_value = "certgate")]
    pub leader_election_namespace: String,

    /// Name of the leader election Lease.
    #[arg(long, value_name = "NAME", default_value = "certgate-controller")]
    pub leader_election_lease_name: String,

    /// How long the leader's lease is valid after its last renewal (renewed a third of it
    /// before expiry): a crashed leader is replaced after at most this long.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_lease_duration)]
    pub leader_election_lease_duration: Duration,

    /// Address and port of the plain-HTTP /metrics, /healthz and /readyz endpoints.
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:9402")]
    pub listen: SocketAddr,

    /// Log line format, on standard error. RUST_LOG selects levels (default info).
    #[arg(long, value_enum, default_value_t = LogFormatArg::Text)]
    pub log_format: LogFormatArg,

    // The cluster to work on: kubectl's client flags (--kubeconfig, --context, --server,
    // --token, --as, ...); without a kubeconfig, inside a Pod, its service account.
    #[command(flatten)]
    pub cluster: KubeconfigArgs,

    /// Timeouts and limits of the --listen endpoints' connections.
    #[command(flatten)]
    pub connections: HttpConnectionArgs,

    /// Expiry of the ServiceAccount tokens the policy-propagator requests for hub templates
    /// under spec.hubTemplateOptions.serviceAccountName (upstream: 2h). Each is renewed
    /// before it expires: 5 to 10 minutes before for 2h (a quarter to a half of the
    /// lifetime for tokens shorter than 20 minutes).
    #[arg(long, value_name = "DURATION", default_value = "2h", value_parser = parse_duration)]
    pub hub_templates_token_expiration: Duration,

    /// Namespace the clusterissuers and certificaterequests-issuer-* controllers read
    /// ClusterIssuers' Secrets from (`spec.ca.secretName`), as cert-manager's flag of this
    /// name.
    #[arg(long, value_name = "NAMESPACE", default_value = certgate_issuer::DEFAULT_CLUSTER_RESOURCE_NAMESPACE)]
    pub cluster_resource_namespace: String,

    /// The certificates controller's first wait after a failed issuance, doubled after
    /// each further failure (cert-manager's flag of this name; 0 takes the default, 1h).
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = parse_go_duration)]
    pub certificate_request_minimum_backoff_duration: certgate_issuance::GoDuration,

    /// The longest wait between the certificates controller's issuance attempts
    /// (cert-manager's flag of this name; 0 takes the default, 32h).
    #[arg(long, value_name = "DURATION", default_value = "32h", value_parser = parse_go_duration)]
    pub certificate_request_maximum_backoff_duration: certgate_issuance::GoDuration,

    /// Days until the policy-propagator rotates a cluster's policy encryption key (the
    /// `policy-encryption-key` Secret of its namespace), as upstream's flag of this name.
    #[arg(long, value_name = "DAYS", default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..))]
    pub encryption_key_rotation: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum ControllerError {
    #[error("--controllers: {0}")]
    Controllers(String),
    #[error("invalid backoff: {0}")]
    Backoff(String),
    #[error(transparent)]
    Logging(#[from] logging::LoggingError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error("cannot listen for SIGTERM: {0}")]
    Signal(#[source] std::io::Error),
    #[error("cannot configure the API client: {0}")]
    Client(String),
    /// The API server could not be reached for the leader lease: the message every command
    /// gives ([`crate::shared::unreachable::leader_election`]).
    #[error("{0}")]
    Unreachable(String),
    #[error(transparent)]
    Manager(#[from] ManagerError),
}

/// Runs the controllers until SIGTERM or SIGINT (exit 0), or until the leader lease is
/// lost (an error, so the Pod restarts and rejoins as a standby).
pub fn run(args: &ControllerArgs) -> Result<(), ControllerError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let controllers = REGISTRY
        .select(&args.controllers)
        .map_err(|e| ControllerError::Controllers(e.to_string()))?;
    crate::shared::logging::init(args.log_format)?;
    crate::shared::metrics::declare_build_info();
    certgate_issuer::set_cluster_resource_namespace(args.cluster_resource_namespace.clone());
    let backoff = certgate_issuance::BackoffConfig::from_settings(
        args.certificate_request_minimum_backoff_duration,
        args.certificate_request_maximum_backoff_duration,
    )
    .map_err(|e| ControllerError::Backoff(e.to_string()))?;
    certgate_issuer::certificates::set_backoff(backoff);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ControllerError::Runtime)?;
    runtime.block_on(async {
        let signal = termination_signal().map_err(ControllerError::Signal)?;
        let config = client_config(args).await?;
        let client = kube::Client::try_from(config.clone())
            .map_err(|e| ControllerError::Client(e.to_string()))?;
        crate::shared::kubeconfig::warn_if_unreachable(&client, config.cluster_url.to_string());
        let identity = replica_identity();
        let options = ManagerOptions {
            listen: args.listen,
            connections: args.connections.policy(),
            lease: args.leader_elect.then(|| LeaseSettings {
                namespace: args.leader_election_namespace.clone(),
                name: args.leader_election_lease_name.clone(),
                identity: identity.clone(),
                duration: args.leader_election_lease_duration,
            }),
            settings: Settings {
                access: args.authorizer.access(),
                sar_cache_ttl: args.sar_cache_ttl,
                concurrency: args.concurrency,
                instance: Some(identity),
                service_account_token_ttl: args.hub_templates_token_expiration,
                encryption_key_rotation: Duration::from_secs(
                    u64::from(args.encryption_key_rotation) * 86_400,
                ),
            },
        };
        let server = config.cluster_url.to_string();
        run_controllers(client, Some(config), controllers, options, signal).await.map_err(|err| {
            let unreachable = match &err {
                ManagerError::Leader(leader) => {
                    crate::shared::unreachable::leader_election(&server, leader)
                }
                _ => None,
            };
            unreachable.map_or_else(|| err.into(), ControllerError::Unreachable)
        })
    })
}

async fn client_config(args: &ControllerArgs) -> Result<kube::Config, ControllerError> {
    args.cluster.config().await.map_err(|e| ControllerError::Client(e.to_string()))
}
