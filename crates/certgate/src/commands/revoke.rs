//! `certgate revoke certificate|certificaterequest NAME`: records a certificate's revocation
//! in the `revocations.json` of its CA issuer's CRL Secret (the issuer annotated
//! `certgate.io/crl-secret-name`), where the `issuers-crl` controller picks it up and publishes
//! the CRL. The list is updated with the Secret's resourceVersion, so two revocations at once
//! both land; revoking a serial twice changes nothing.

use certgate_crl::build::parse_reason;
use clap::{Args, Subcommand};

use crate::shared::kubeconfig::KubeconfigArgs;
use crate::shared::revocation::{Kind, RevokeError, RevokeObject, revoke_with};

/// The long help of `certgate revoke` (`--help`).
pub const REVOKE_LONG_ABOUT: &str = "\
Revoke a certificate issued by a CA Issuer or ClusterIssuer that publishes a CRL (certgate's
own; cert-manager has no revocation).

The issuer opts in with an annotation naming the Secret, in its resource namespace (the
Issuer's namespace, or --cluster-resource-namespace for a ClusterIssuer), that holds the CRL:

  metadata:
    annotations:
      certgate.io/crl-secret-name: ca-crl
      certgate.io/crl-validity: 720h     # optional

The certificate's serial and notAfter are read from the Certificate's Secret (`tls.crt`) or
the CertificateRequest's `status.certificate`; the entry is added to the Secret's
`revocations.json` (the Secret is created when absent), and the `issuers-crl` controller
(`certgate controller --controllers=*,issuers-crl`) publishes `crl.pem` within seconds, for
example for a Contour HTTPProxy's `crlSecret`. Revoking a serial that is already listed
changes nothing and says so. Entries leave the CRL once the certificate expires.

  certgate revoke certificate web -n team-a --reason keyCompromise
  certgate revoke certificaterequest web-1 -n team-a --reason superseded

Permissions: `get` on the Certificate (or CertificateRequest), `get` on the Certificate's
Secret, `get` on the Issuer or ClusterIssuer, and `get`, `create`, `update` on the CRL Secret.

Prints `Revoked certificate serial <hex> of Certificate '<namespace>/<name>'; issuer ...
publishes it in secret '<namespace>/<name>'`; errors exit with status 1.";

#[derive(Debug, Args)]
pub struct RevokeArgs {
    #[command(subcommand)]
    pub command: RevokeCommand,
}

#[derive(Debug, Subcommand)]
pub enum RevokeCommand {
    /// Revoke the certificate in a Certificate's Secret (`tls.crt`).
    #[command(visible_alias = "cert")]
    Certificate(RevokeTarget),
    /// Revoke the certificate a CertificateRequest was issued (`status.certificate`).
    #[command(visible_alias = "cr")]
    Certificaterequest(RevokeTarget),
}

#[derive(Debug, Args)]
pub struct RevokeTarget {
    /// The object's name
    #[arg(value_name = "NAME")]
    pub name: String,

    /// Its namespace [default: the kubeconfig context's namespace, else "default"]
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// Why, as `openssl ca -crl_reason` names it: unspecified, keyCompromise, cACompromise,
    /// affiliationChanged, superseded, cessationOfOperation, certificateHold,
    /// privilegeWithdrawn, aACompromise
    #[arg(long, default_value = "unspecified")]
    pub reason: String,

    /// Where ClusterIssuers' Secrets live (the controllers' flag of this name)
    #[arg(long, value_name = "NAMESPACE", default_value = certgate_issuer::DEFAULT_CLUSTER_RESOURCE_NAMESPACE)]
    pub cluster_resource_namespace: String,

    #[command(flatten)]
    pub cluster: KubeconfigArgs,
}

/// Runs the command; returns the line to print on success.
pub fn run(args: &RevokeArgs) -> Result<String, RevokeError> {
    let (kind, target) = match &args.command {
        RevokeCommand::Certificate(target) => (Kind::Certificate, target),
        RevokeCommand::Certificaterequest(target) => (Kind::CertificateRequest, target),
    };
    let reason = parse_reason(&target.reason)
        .map_err(|problem| RevokeError(format!("--reason: {problem}")))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RevokeError(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(revoke(kind, target, reason))
}

async fn revoke(
    kind: Kind,
    target: &RevokeTarget,
    reason: Option<certgate_crl::build::Reason>,
) -> Result<String, RevokeError> {
    let connection = target.cluster.connect().await.map_err(|e| RevokeError(e.to_string()))?;
    let namespace = target.namespace.clone().unwrap_or(connection.default_namespace);
    let client = connection.client;
    let object = RevokeObject {
        kind,
        namespace: &namespace,
        name: &target.name,
        cluster_resource_namespace: &target.cluster_resource_namespace,
    };
    match revoke_with(&client, object, reason).await {
        Ok(line) => Ok(line),
        // The revocation's own messages do not tell an unreachable server apart; asking the
        // server for its version does, with the message every command gives.
        Err(err) => match client.apiserver_version().await {
            Err(probe) => match crate::shared::unreachable::message(&connection.server, &probe) {
                Some(message) => Err(RevokeError(message)),
                None => Err(err),
            },
            Ok(_) => Err(err),
        },
    }
}
