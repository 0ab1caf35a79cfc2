//! `certgate approve NAME` / `certgate deny NAME`: set a CertificateRequest's `Approved` or
//! `Denied` condition by hand, as `cmctl approve|deny` does — same flags, defaults, checks,
//! messages and output. The condition is written with a full update of the `status`
//! subresource as the user running the command, so the signer permission check (`approve`
//! on `signers`) applies to that user.

use certgate_api::CertificateRequest;
use certgate_api::certificate_request::manual::{ManualDecision, decide};
use clap::Args;
use kube::api::{Api, PostParams};

use crate::shared::cmctl::CmctlLogArgs;
use crate::shared::kubeconfig::KubeconfigArgs;
use certgate_clock::{Clock as _, SystemClock};

/// cmctl's default reason, kept so scripts and dashboards that match it keep working.
pub const DEFAULT_REASON: &str = "KubectlCertManager";

/// The long help of `certgate approve` (`--help`).
pub const APPROVE_LONG_ABOUT: &str = "\
Approve a CertificateRequest by hand, as `cmctl approve` does: same flags, defaults, checks,
messages and output, so scripts written for cmctl work unchanged.

Sets the Approved condition (reason KubectlCertManager unless --reason) with a full update of
the status subresource, as you: the cluster's webhook then checks that you may `approve` on
`signers` for the request's issuer. A request that is already Approved or Denied is refused.

  certgate approve my-request -n team-a
  certgate approve my-request -n team-a --reason ManualReview --message 'checked by security'

Prints `Approved CertificateRequest '<namespace>/<name>'`; errors are printed as kubectl prints
them and exit with status 1.";

/// The long help of `certgate deny` (`--help`).
pub const DENY_LONG_ABOUT: &str = "\
Deny a CertificateRequest by hand, as `cmctl deny` does: same flags, defaults, checks, messages
and output, so scripts written for cmctl work unchanged.

Sets the Denied condition (reason KubectlCertManager unless --reason) with a full update of the
status subresource, as you: the cluster's webhook then checks that you may `approve` on `signers`
for the request's issuer (one verb covers both). A request that is already Approved or Denied is
refused.

  certgate deny my-request -n team-a --message 'not for production names'

Prints `Denied CertificateRequest '<namespace>/<name>'`; errors are printed as kubectl prints
them and exit with status 1.";

#[derive(Debug, Args)]
pub struct DecideArgs {
    /// The CertificateRequest's name (exactly one)
    #[arg(value_name = "NAME")]
    pub names: Vec<String>,

    /// Namespace of the CertificateRequest [default: the kubeconfig context's namespace, else
    /// "default"]
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    /// The condition's reason
    #[arg(long, default_value = DEFAULT_REASON)]
    pub reason: String,

    /// The condition's message [default: manually approved|denied by "<this program's name>"]
    #[arg(long)]
    pub message: Option<String>,

    #[command(flatten)]
    pub cluster: KubeconfigArgs,

    #[command(flatten)]
    pub log: CmctlLogArgs,
}

/// What went wrong, worded as cmctl (through kubectl's error handler) words it.
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    /// A usage or state error: `error: <message>`.
    #[error("error: {0}")]
    Usage(String),
    /// The API server refused: `Error from server (<Reason>): <message>`; or could not be
    /// reached (the message of [`crate::shared::unreachable`]).
    #[error("{0}")]
    Server(String),
}

/// The program name cmctl quotes in its default message: the executable's base name, or
/// `kubectl <plugin>` when run as a kubectl plugin (`kubectl-<plugin>`).
pub fn program_name(argv0: &str) -> String {
    let base =
        std::path::Path::new(argv0).file_name().and_then(|n| n.to_str()).unwrap_or("certgate");
    match base.strip_prefix("kubectl-").or_else(|| base.strip_prefix("kubectl_")) {
        Some(plugin) => format!("kubectl {}", plugin.replace('_', "-")),
        None => base.to_owned(),
    }
}

/// Checks the arguments before any API call, in cmctl's order; returns the name and message.
pub fn validate(
    args: &DecideArgs,
    decision: ManualDecision,
    program: &str,
) -> Result<(String, String), DecideError> {
    let usage = |text: String| Err(DecideError::Usage(text));
    let name = match args.names.as_slice() {
        [] => {
            return usage(format!(
                "the name of the CertificateRequest to {} has to be provided as an argument",
                decision.verb()
            ));
        }
        [name] => name.clone(),
        _ => {
            return usage(
                "only one argument can be passed: the name of the CertificateRequest".to_owned(),
            );
        }
    };
    if args.reason.is_empty() {
        return usage(format!(
            "a reason must be given as to who {} this CertificateRequest",
            decision.past()
        ));
    }
    let message = args.message.clone().unwrap_or_else(|| {
        format!("manually {} by {}", decision.past(), certgate_api::gofmt::quote(program))
    });
    if message.is_empty() {
        return usage(format!(
            "a message must be given as to why this CertificateRequest is {}",
            decision.past()
        ));
    }
    Ok((name, message))
}

/// Runs the command; returns the line to print on success.
pub fn run(
    args: &DecideArgs,
    decision: ManualDecision,
    program: &str,
) -> Result<String, DecideError> {
    let (name, message) = validate(args, decision, program)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| DecideError::Usage(format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async {
        let connection =
            args.cluster.connect().await.map_err(|e| DecideError::Usage(e.to_string()))?;
        let failed = |err| server_error(&connection.server, err);
        let namespace = args.namespace.clone().unwrap_or(connection.default_namespace.clone());
        let api: Api<CertificateRequest> = Api::namespaced(connection.client.clone(), &namespace);
        let mut request = api.get(&name).await.map_err(failed)?;
        let now = SystemClock.now_rfc3339();
        decide(&mut request.status, decision, &args.reason, &message, &now)
            .map_err(|err| DecideError::Usage(err.to_string()))?;
        let updated =
            api.replace_status(&name, &PostParams::default(), &request).await.map_err(failed)?;
        let namespace = updated.metadata.namespace.unwrap_or(namespace);
        let name = updated.metadata.name.unwrap_or(name);
        let done = match decision {
            ManualDecision::Approve => "Approved",
            ManualDecision::Deny => "Denied",
        };
        Ok(format!("{done} CertificateRequest '{namespace}/{name}'"))
    })
}

/// kubectl's wording of API errors, and the one unreachable-server message.
fn server_error(server: &str, err: kube::Error) -> DecideError {
    if let Some(message) = crate::shared::unreachable::message(server, &err) {
        return DecideError::Server(message);
    }
    match err {
        kube::Error::Api(status) if !status.reason.is_empty() => DecideError::Server(format!(
            "Error from server ({}): {}",
            status.reason, status.message
        )),
        kube::Error::Api(status) => {
            DecideError::Server(format!("Error from server: {}", status.message))
        }
        other => DecideError::Usage(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(names: &[&str], reason: &str, message: Option<&str>) -> DecideArgs {
        DecideArgs {
            names: names.iter().map(|n| (*n).to_owned()).collect(),
            namespace: None,
            reason: reason.to_owned(),
            message: message.map(str::to_owned),
            cluster: KubeconfigArgs::default(),
            log: CmctlLogArgs::default(),
        }
    }

    fn usage(result: Result<(String, String), DecideError>) -> String {
        result.unwrap_err().to_string()
    }

    #[test]
    fn arguments_are_checked_in_cmctls_order_with_its_messages() {
        let approve = ManualDecision::Approve;
        let deny = ManualDecision::Deny;
        assert_eq!(
            usage(validate(&args(&[], "", Some("")), approve, "cmctl")),
            "error: the name of the CertificateRequest to approve has to be provided as an argument"
        );
        assert_eq!(
            usage(validate(&args(&[], DEFAULT_REASON, None), deny, "cmctl")),
            "error: the name of the CertificateRequest to deny has to be provided as an argument"
        );
        assert_eq!(
            usage(validate(&args(&["a", "b"], "", None), approve, "cmctl")),
            "error: only one argument can be passed: the name of the CertificateRequest"
        );
        assert_eq!(
            usage(validate(&args(&["a"], "", Some("")), approve, "cmctl")),
            "error: a reason must be given as to who approved this CertificateRequest"
        );
        assert_eq!(
            usage(validate(&args(&["a"], "r", Some("")), deny, "cmctl")),
            "error: a message must be given as to why this CertificateRequest is denied"
        );
    }

    #[test]
    fn the_default_message_quotes_the_program_name() {
        let (name, message) =
            validate(&args(&["a"], DEFAULT_REASON, None), ManualDecision::Approve, "certgate")
                .unwrap();
        assert_eq!((name.as_str(), message.as_str()), ("a", r#"manually approved by "certgate""#));
        let (_, message) =
            validate(&args(&["a"], DEFAULT_REASON, None), ManualDecision::Deny, "cmctl").unwrap();
        assert_eq!(message, r#"manually denied by "cmctl""#);
        assert_eq!(program_name("/usr/local/bin/cmctl"), "cmctl");
        assert_eq!(program_name("kubectl-cert_manager"), "kubectl cert-manager");
        assert_eq!(program_name("/usr/bin/kubectl-certgate"), "kubectl certgate");
    }
}
