//! Command-line surface of the `certgate` binary (clap derive types only; no behaviour).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// certgate: trust decisions for Kubernetes, compatible with cert-manager and approver-policy.
#[derive(Debug, Parser)]
#[command(name = "certgate", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decide CertificateRequests against CertificateRequestPolicies offline, from manifest files.
    #[command(long_about = CHECK_LONG_ABOUT)]
    Check(CheckArgs),
    /// Explain why a CertificateRequest in a cluster is, or would be, Approved, Denied or Unprocessed.
    #[command(long_about = EXPLAIN_LONG_ABOUT)]
    Explain(crate::commands::explain::ExplainArgs),
    /// Print the CustomResourceDefinitions certgate serves.
    #[command(long_about = CRDS_LONG_ABOUT)]
    Crds(CrdsArgs),
    /// Serve the admission webhook for CertificateRequests and CertificateRequestPolicies.
    #[command(long_about = WEBHOOK_LONG_ABOUT)]
    Webhook(crate::commands::webhook::WebhookArgs),
    /// Run certgate's controllers against a cluster: policy approval, policy readiness.
    #[command(long_about = CONTROLLER_LONG_ABOUT)]
    Controller(crate::commands::controller::command::ControllerArgs),
    /// Run a local sandbox Kubernetes API server, for development and end-to-end tests only.
    #[command(long_about = DEV_LONG_ABOUT)]
    Dev(crate::commands::dev::DevArgs),
    /// Approve a CertificateRequest by hand (as `cmctl approve`).
    #[command(long_about = APPROVE_LONG_ABOUT)]
    Approve(crate::commands::decide::DecideArgs),
    /// Deny a CertificateRequest by hand (as `cmctl deny`).
    #[command(long_about = DENY_LONG_ABOUT)]
    Deny(crate::commands::decide::DecideArgs),
    /// OCM hub templates offline: resolve a Policy's {{hub ... hub}} templates for a cluster.
    Template(crate::commands::template::TemplateArgs),
    /// Client-certificate revocation for Contour HTTPProxies: inspect CRLs, verify a client, check.
    #[command(long_about = crate::commands::crl::CRL_LONG_ABOUT)]
    Crl(crate::commands::crl::CrlArgs),
}

const CONTROLLER_LONG_ABOUT: &str = "\
Run certgate's controllers against a cluster, as approver-policy's controller runs:

  policy-approver   reviews every CertificateRequest that is neither Approved nor Denied
                    against the CertificateRequestPolicies and sets Approved or Denied with
                    reason policy.cert-manager.io and the review's message (events Approved,
                    Denied, Unprocessed, EvaluationError). Decided requests are never touched.
                    Pending requests are reviewed again when policies, RBAC objects or
                    Namespaces change.
  policy-readiness  keeps the policies' Ready condition and observedGeneration current.
  builtin-approver  cert-manager's approve-everything controller (reason cert-manager.io);
                    off by default, add it with --controllers=*,builtin-approver.

Several replicas elect one leader with a Lease (--leader-election-namespace, default
$POD_NAMESPACE); the others wait as standbys. On SIGTERM the leader finishes in-flight reviews
and releases the lease so a standby takes over at once; losing the lease exits with status 1.

  certgate controller --leader-election-namespace certgate --log-format json
  certgate controller --authorizer local --controllers '*,-policy-readiness'

Serves /metrics (Prometheus), /healthz and /readyz over plain HTTP on --listen. The
permissions each controller needs are listed in docs/controller.md and deploy/.";

const APPROVE_LONG_ABOUT: &str = "\
Approve a CertificateRequest by hand, as `cmctl approve` does: same flags, defaults, checks,
messages and output, so scripts written for cmctl work unchanged.

Sets the Approved condition (reason KubectlCertManager unless --reason) with a full update of
the status subresource, as you: the cluster's webhook then checks that you may `approve` on
`signers` for the request's issuer. A request that is already Approved or Denied is refused.

  certgate approve my-request -n team-a
  certgate approve my-request -n team-a --reason ManualReview --message 'checked by security'

Prints `Approved CertificateRequest '<namespace>/<name>'`; errors are printed as kubectl prints
them and exit with status 1.";

const DENY_LONG_ABOUT: &str = "\
Deny a CertificateRequest by hand, as `cmctl deny` does: same flags, defaults, checks, messages
and output, so scripts written for cmctl work unchanged.

Sets the Denied condition (reason KubectlCertManager unless --reason) with a full update of the
status subresource, as you: the cluster's webhook then checks that you may `approve` on `signers`
for the request's issuer (one verb covers both). A request that is already Approved or Denied is
refused.

  certgate deny my-request -n team-a --message 'not for production names'

Prints `Denied CertificateRequest '<namespace>/<name>'`; errors are printed as kubectl prints
them and exit with status 1.";

const DEV_LONG_ABOUT: &str = "\
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

Stops on SIGINT or SIGTERM.";

const CHECK_LONG_ABOUT: &str = "\
Decide CertificateRequests against CertificateRequestPolicies offline, from manifest files.

Reads CertificateRequests (cert-manager.io/v1), CertificateRequestPolicies
(policy.cert-manager.io/v1alpha1), Namespaces (v1) and Role, ClusterRole, RoleBinding and
ClusterRoleBinding (rbac.authorization.k8s.io/v1) objects, and prints the decision approver-policy
would reach for each request: Approved, Denied or Unprocessed, with upstream's message. Other kinds
are ignored with a notice on stderr.

Policies are checked with the policy admission rules first; a policy the webhook would reject is
reported as not ready and takes no part in the review. Without any RBAC object every policy
counts as bound to every requester, and the output says RBAC was not evaluated.

Exit status: 0 when every request is Approved, 1 when any is Denied or Unprocessed, 2 on usage or
input errors, on a policy or request the webhook would reject (a not-ready policy, an Invalid
request) and on a review that fails (Error).

Examples:
  certgate check -f examples/
  certgate check -f policy.yaml -f requests/ -o json
  certgate check -f cluster-dump.yaml --explain
  kubectl get crp,cr,ns,roles,rolebindings,clusterroles,clusterrolebindings -A -o yaml \\
    | certgate check -f -";

const EXPLAIN_LONG_ABOUT: &str = "\
Explain why a CertificateRequest in a cluster is, or would be, Approved, Denied or Unprocessed:
`certgate check --explain` for a live request.

Reads the request, every CertificateRequestPolicy and (when a policy selects by Namespace labels)
the request's Namespace, asks the API server the SubjectAccessReviews the policy-approver
controller asks (as the requester: verb `use` on each policy that selects the request, in the
request's namespace), reads each policy's readiness from its Ready condition, and reviews the
request as the controller does. It prints the decision already recorded on the request (the
Approved or Denied condition's reason and message), what a review decides now with the trace of
every policy (selector, RBAC, readiness, evaluator findings), and the `kubectl` commands that
grant a missing `use` permission. Nothing is written to the cluster.

RESOURCE is certificaterequest, certificaterequests, cr or crs (optionally with .cert-manager.io),
or RESOURCE/NAME as kubectl accepts it.

You need: get on certificaterequests (in the request's namespace), list on
certificaterequestpolicies, get on namespaces (when a policy selects by labels) and create on
subjectaccessreviews.authorization.k8s.io.

Exit status: 0 when the request is Approved, 1 when it is Denied or Unprocessed, 2 when the review
fails (Error) or the command does (not found, forbidden, unreachable API server). A decided
request counts with its recorded decision, a pending one with what a review decides now.

Examples:
  certgate explain certificaterequest api-tls -n payments
  certgate explain cr/api-tls -n payments -o json
  certgate explain crs laptop-tls --context prod --kubeconfig ~/.kube/prod";

const CRDS_LONG_ABOUT: &str = "\
Print the CustomResourceDefinitions certgate serves.

The manifests are generated from certgate's own types, so they always match what the webhook and
controllers accept. The default output is a multi-document YAML stream; `-o json` prints a v1
List.

Examples:
  certgate crds | kubectl apply --server-side -f -
  certgate crds -o json > crds.json";

const WEBHOOK_LONG_ABOUT: &str = "\
Serve the admission webhook for CertificateRequests and CertificateRequestPolicies.

Answers admission.k8s.io/v1 AdmissionReviews over HTTPS (TLS 1.2 and 1.3):
  POST /mutate    stamps the requester's identity on new CertificateRequests
  POST /validate  checks CertificateRequests (identity, spec, immutability, Approved and
                  Denied conditions, the signer permission check on status updates) and
                  CertificateRequestPolicies, with cert-manager's and approver-policy's messages
  GET /healthz    200 while the process runs
  GET /readyz     200 once serving with a loaded certificate, 503 while shutting down
  GET /metrics    OpenMetrics text: certgate_webhook_requests_total{path,resource,operation,
                  result} and certgate_webhook_request_duration_seconds{path}

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

In a cluster (in-cluster config or KUBECONFIG), the signer permission check asks the API server
with SubjectAccessReviews (answers cached for --sar-cache-ttl; a transient failure such as HTTP
429, 500 or 504 is retried once after about a second) and resolves issuer kinds through API
discovery. Without a cluster, every request needing that check is denied.

Examples:
  certgate webhook --tls-cert-file /tls/tls.crt --tls-private-key-file /tls/tls.key \\
    --log-format json
  certgate webhook --dynamic-serving-ca-secret-name certgate-webhook-ca \\
    --dynamic-serving-dns-names certgate-webhook.certgate.svc --inject-ca-bundle certgate
  certgate webhook --dev-self-signed --listen 127.0.0.1:9443 --ca-bundle-out ca.crt";

/// Arguments of `certgate check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A manifest file, or a directory searched recursively for *.yaml, *.yml and *.json files
    /// (in name order). `-` reads standard input. Repeat to give several.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub files: Vec<PathBuf>,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = CheckFormat::Text)]
    pub output: CheckFormat,

    /// For each request, show why each policy was or was not selected, whether it is bound
    /// and ready, and every evaluator finding per attribute.
    #[arg(long)]
    pub explain: bool,
}

/// Output formats of `certgate check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    /// Readable tables (the decision is coloured on a terminal unless NO_COLOR is set).
    Text,
    /// One JSON document: `{"results": [...], "policies": [...], "rbacEvaluated": bool}`.
    Json,
    /// The JSON document as YAML.
    Yaml,
}

/// Arguments of `certgate crds`.
#[derive(Debug, Args)]
pub struct CrdsArgs {
    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = CrdsFormat::Yaml)]
    pub output: CrdsFormat,
}

/// Output formats of `certgate crds`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CrdsFormat {
    /// A multi-document YAML stream, one CRD per document.
    Yaml,
    /// A v1 `List` holding the CRDs.
    Json,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn check_requires_a_filename() {
        let err = Cli::try_parse_from(["certgate", "check"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn check_accepts_repeated_filenames_and_formats() {
        let cli = Cli::try_parse_from([
            "certgate",
            "check",
            "-f",
            "a.yaml",
            "--filename",
            "dir",
            "-o",
            "yaml",
            "--explain",
        ])
        .unwrap();
        let Command::Check(args) = cli.command else { panic!("expected check") };
        assert_eq!(args.files, [PathBuf::from("a.yaml"), PathBuf::from("dir")]);
        assert_eq!(args.output, CheckFormat::Yaml);
        assert!(args.explain);
    }

    #[test]
    fn unknown_output_format_is_a_usage_error() {
        let err = Cli::try_parse_from(["certgate", "check", "-f", "x", "-o", "xml"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::InvalidValue);
    }
}
