//! `certgate explain certificaterequest NAME`: the `check --explain` trace of a live request.
//!
//! Reads the request, every CertificateRequestPolicy and (when a policy selects by labels) the
//! request's Namespace from the cluster, asks the API server the SubjectAccessReviews the
//! policy-approver controller asks (as the requester, verb `use` on each selected policy),
//! reads each policy's readiness from its `Ready` condition as the controller does, and
//! reviews the request with the same pipeline. The report is `check`'s, with what is recorded
//! on the request and what is missing before it.

mod cluster;
mod render;
pub mod target;

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use certgate_api::CertificateRequest;
use certgate_api::CertificateRequestPolicy;
use certgate_approval::readiness::MESSAGE_READY;
use certgate_approval::{Approver, Decision, PolicyEntry, Readiness, Request, ReviewOptions};
use certgate_cluster::SarAccessChecker;
use clap::{Args, ValueEnum};
use serde::Serialize;

use cluster::{Call, FetchedNamespace};

use crate::shared::kubeconfig::KubeconfigArgs;
use crate::shared::manifests::Source;
use crate::shared::report::{
    Basis, CheckStatus, OutputError, PolicyResult, RequestResult, Verdict,
};

/// The long help of `certgate explain` (`--help`).
pub const EXPLAIN_LONG_ABOUT: &str = "\
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

/// Arguments of `certgate explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// `certificaterequest` (or `certificaterequests`, `cr`, `crs`), or `certificaterequest/NAME`
    #[arg(value_name = "RESOURCE")]
    pub resource: String,

    /// The CertificateRequest's name (unless given as RESOURCE/NAME)
    #[arg(value_name = "NAME")]
    pub name: Option<String>,

    /// Namespace of the CertificateRequest [default: the kubeconfig context's namespace, else
    /// "default"]
    #[arg(short = 'n', long, value_name = "NAMESPACE")]
    pub namespace: Option<String>,

    #[command(flatten)]
    pub cluster: KubeconfigArgs,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ExplainFormat::Text)]
    pub output: ExplainFormat,
}

/// Output formats of `certgate explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    /// What is recorded, `check --explain`'s report, and what is missing.
    Text,
    /// One JSON document: check's result fields plus `recorded`, `policies` and `notes`.
    Json,
    /// The JSON document as YAML.
    Yaml,
}

/// Why `explain` could not produce a report; each is one line on stderr.
#[derive(Debug, thiserror::Error)]
pub enum ExplainError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Config(String),
    #[error("{0}")]
    Cluster(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Decode(String),
    #[error(transparent)]
    Output(#[from] OutputError),
}

/// The permissions `explain` needs, worded for error messages.
const GET_REQUESTS: &str = "get on certificaterequests.cert-manager.io in the request's namespace";
const LIST_POLICIES: &str = "list on certificaterequestpolicies.policy.cert-manager.io";
const GET_NAMESPACES: &str = "get on namespaces";

/// The condition that decided the request, as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recorded {
    /// `Approved` or `Denied`.
    #[serde(rename = "type")]
    pub type_: String,
    pub reason: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

/// Everything `explain` found out about one request.
#[derive(Debug, Serialize)]
pub struct Explanation {
    /// What a review decides now (check's result shape).
    #[serde(flatten)]
    pub result: RequestResult,
    /// The `Approved` or `Denied` condition already on the request; absent while pending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded: Option<Recorded>,
    /// Every policy with its readiness as read from its `Ready` condition.
    pub policies: Vec<PolicyResult>,
    /// Remarks about how the cluster was read (skipped policies, the caller's permissions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl Explanation {
    /// As `check`'s exit status: a decided request counts with its recorded decision (it is
    /// never reviewed again), a pending one with what a review decides now.
    pub fn status(&self) -> CheckStatus {
        let verdict = match self.recorded.as_ref().map(|r| r.type_.as_str()) {
            Some("Approved") => Verdict::Approved,
            Some(_) => Verdict::Denied,
            None => self.result.decision,
        };
        match verdict {
            Verdict::Approved => CheckStatus::AllApproved,
            Verdict::Denied | Verdict::Unprocessed => CheckStatus::NotAllApproved,
            Verdict::Invalid | Verdict::Error => CheckStatus::Failed,
        }
    }
}

/// Runs the command: the report goes to `stdout`; errors are returned for one line on stderr.
pub fn run(
    args: &ExplainArgs,
    colour: bool,
    stdout: &mut dyn Write,
) -> Result<CheckStatus, ExplainError> {
    let name = target::request_name(&args.resource, args.name.as_deref())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ExplainError::Usage(format!("cannot start the async runtime: {e}")))?;
    let explanation = runtime.block_on(explain(args, &name))?;
    match args.output {
        ExplainFormat::Text => render::text(&explanation, colour, stdout)?,
        ExplainFormat::Json => render::json(&explanation, stdout)?,
        ExplainFormat::Yaml => render::yaml(&explanation, stdout)?,
    }
    stdout.flush().map_err(OutputError::Io)?;
    Ok(explanation.status())
}

async fn explain(args: &ExplainArgs, name: &str) -> Result<Explanation, ExplainError> {
    let connection = cluster::connect(&args.cluster).await?;
    let namespace = args.namespace.clone().unwrap_or_else(|| connection.default_namespace.clone());
    let client = &connection.client;
    let server = connection.server.as_str();

    let call = Call {
        what: format!(
            "get CertificateRequest {}",
            certgate_gofmt::quote(&format!("{namespace}/{name}"))
        ),
        permission: GET_REQUESTS,
        server,
    };
    let Some(cr) = cluster::get_request(client, &namespace, name, &call).await? else {
        return Err(ExplainError::NotFound(format!(
            "CertificateRequest {} not found in namespace {}: check the name and \
             -n/--namespace ('kubectl get certificaterequests -n {namespace}' lists them)",
            certgate_gofmt::quote(name),
            certgate_gofmt::quote(&namespace)
        )));
    };
    let call = Call {
        what: "list CertificateRequestPolicies".to_owned(),
        permission: LIST_POLICIES,
        server,
    };
    let (mut policies, mut notes) = cluster::list_policies(client, &call).await?;
    policies.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    let mut namespace_note = None;
    let namespaces = if cluster::needs_namespace(&policies) {
        let call = Call {
            what: format!("get Namespace {}", certgate_gofmt::quote(&namespace)),
            permission: GET_NAMESPACES,
            server,
        };
        let (fetched, note) = FetchedNamespace::read(client, &namespace, &call).await?;
        namespace_note = note;
        fetched
    } else {
        FetchedNamespace::unread(&namespace)
    };

    let entries: Vec<PolicyEntry<'_>> = policies
        .iter()
        .map(|policy| PolicyEntry { policy, readiness: Readiness::from_policy(policy) })
        .collect();
    let approver = Approver::new(Arc::new(certgate_cel::PolicyCel::default()));
    // Asked afresh every time: an answer cached from before a RoleBinding was created would
    // explain the past.
    let checker = SarAccessChecker::new(client.clone(), Duration::ZERO);
    // Admission verified the CSR's signature when the request was created; a CSR that does
    // not parse is reported by the review as the controller would report it.
    let csr = certgate_pki::parse_csr(&cr.spec.request);
    let review = certgate_approver::live_review::review_asking(
        &approver,
        &Request { cr: &cr, csr: csr.as_ref() },
        &entries,
        &namespaces,
        &checker,
        ReviewOptions { explain: true, rbac_evaluated: true },
    )
    .await;
    let (decision, message) = match review.outcome {
        Ok(Decision::Approved(message)) => (Verdict::Approved, message),
        Ok(Decision::Denied(message)) => (Verdict::Denied, message),
        Ok(Decision::Unprocessed(message)) => (Verdict::Unprocessed, message),
        Err(err) => (Verdict::Error, err.0),
    };
    if decision == Verdict::Error && message.contains("failed to get request's namespace") {
        notes.extend(namespace_note);
    }
    if decision == Verdict::Error
        && message.contains("subjectaccessreview")
        && message.contains("HTTP 403")
    {
        notes.push(
            "certgate asks the SubjectAccessReviews as you, and you may not create them; the \
             controller, which may, could decide: explain needs create on \
             subjectaccessreviews.authorization.k8s.io"
                .to_owned(),
        );
    }
    let policies = policies
        .iter()
        .zip(&entries)
        .map(|(policy, entry)| policy_result(policy, &entry.readiness))
        .collect();
    Ok(Explanation {
        result: RequestResult {
            namespace: cr.metadata.namespace.clone().unwrap_or(namespace),
            name: cr.metadata.name.clone().unwrap_or_else(|| name.to_owned()),
            decision,
            message,
            trace: review.trace,
            at: Source::document(&Arc::from(server), 0),
            basis: Basis::Reviewed,
        },
        recorded: recorded(&cr),
        policies,
        notes,
    })
}

/// The decision already on the request: `Approved=True`, then `Denied=True`, as cert-manager
/// and the approvers read them.
fn recorded(cr: &CertificateRequest) -> Option<Recorded> {
    let conditions = cr.status.as_ref()?.conditions.as_deref()?;
    ["Approved", "Denied"].into_iter().find_map(|type_| {
        conditions.iter().find(|c| c.type_ == type_ && c.status == "True").map(|c| Recorded {
            type_: type_.to_owned(),
            reason: c.reason.clone().unwrap_or_default(),
            message: c.message.clone().unwrap_or_default(),
            last_transition_time: c.last_transition_time.clone(),
        })
    })
}

/// A policy's row: its readiness as the review reads it, with the condition's message.
fn policy_result(policy: &CertificateRequestPolicy, readiness: &Readiness) -> PolicyResult {
    let ready_message = || {
        policy
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_deref())
            .and_then(|conditions| conditions.iter().find(|c| c.type_ == "Ready"))
            .map(|c| c.message.clone())
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| MESSAGE_READY.to_owned())
    };
    let (ready, message) = match readiness {
        Readiness::Ready => (true, ready_message()),
        Readiness::NotReady(reason) => (false, reason.clone()),
        Readiness::Unreconciled => (
            false,
            "no Ready condition yet: the policy-readiness controller has not reconciled it"
                .to_owned(),
        ),
    };
    PolicyResult {
        name: policy.metadata.name.clone().unwrap_or_default(),
        ready,
        message,
        warnings: Vec::new(),
        at: Source::document(&Arc::from("cluster"), 0),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn try_parse(args: &[&str]) -> Result<ExplainArgs, clap::Error> {
        crate::shared::testing::parse_args("explain", args)
    }

    fn parse(args: &[&str]) -> ExplainArgs {
        try_parse(args).unwrap()
    }

    #[test]
    fn flags_and_both_argument_forms_parse() {
        let args = parse(&["cr", "api-tls", "-n", "payments", "-o", "json", "--context", "prod"]);
        assert_eq!(target::request_name(&args.resource, args.name.as_deref()).unwrap(), "api-tls");
        assert_eq!(args.namespace.as_deref(), Some("payments"));
        assert_eq!(args.output, ExplainFormat::Json);
        assert_eq!(args.cluster.context.as_deref(), Some("prod"));

        let args = parse(&["certificaterequest/api-tls", "--kubeconfig", "/k"]);
        assert_eq!(target::request_name(&args.resource, args.name.as_deref()).unwrap(), "api-tls");
        assert_eq!(args.output, ExplainFormat::Text);
        assert_eq!(args.namespace, None);
        assert_eq!(args.cluster.kubeconfig, Some(PathBuf::from("/k")));
    }

    #[test]
    fn usage_errors_are_clap_errors_or_explain_errors() {
        let cli = try_parse(&[]).unwrap_err();
        assert_eq!(cli.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        let cli = try_parse(&["cr", "a", "-o", "xml"]).unwrap_err();
        assert_eq!(cli.kind(), clap::error::ErrorKind::InvalidValue);
        let cli = try_parse(&["cr", "a", "b"]).unwrap_err();
        assert_eq!(cli.kind(), clap::error::ErrorKind::UnknownArgument);
    }

    #[test]
    fn the_exit_status_follows_the_recorded_decision_then_the_review() {
        let explanation = |decision, recorded: Option<&str>| Explanation {
            result: RequestResult {
                namespace: "ns".to_owned(),
                name: "n".to_owned(),
                decision,
                message: String::new(),
                trace: None,
                at: Source::document(&Arc::from("cluster"), 0),
                basis: Basis::Reviewed,
            },
            recorded: recorded.map(|type_| Recorded {
                type_: type_.to_owned(),
                reason: "r".to_owned(),
                message: "m".to_owned(),
                last_transition_time: None,
            }),
            policies: Vec::new(),
            notes: Vec::new(),
        };
        let code = |decision, recorded| explanation(decision, recorded).status().code();
        assert_eq!(code(Verdict::Approved, None), 0);
        assert_eq!(code(Verdict::Denied, None), 1);
        assert_eq!(code(Verdict::Unprocessed, None), 1);
        assert_eq!(code(Verdict::Error, None), 2);
        assert_eq!(code(Verdict::Unprocessed, Some("Approved")), 0);
        assert_eq!(code(Verdict::Approved, Some("Denied")), 1);
        assert_eq!(code(Verdict::Error, Some("Approved")), 0);
        let json = serde_json::to_value(explanation(Verdict::Denied, Some("Denied"))).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "namespace": "ns", "name": "n", "decision": "Denied", "message": "",
                "recorded": {"type": "Denied", "reason": "r", "message": "m"},
                "policies": []
            })
        );
    }
}
