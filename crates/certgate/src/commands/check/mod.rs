//! `certgate check`: decide CertificateRequests offline from manifest files.
//!
//! The arguments and the wiring only: the pipeline is the shared offline review
//! ([`crate::shared::offline`]: files → typed objects with input errors, then admission,
//! policy readiness and review) and its report ([`crate::shared::report`]: text / JSON /
//! YAML). Diagnostics go to stderr, the report to stdout.

mod load;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::PathBuf;

use clap::Args;

use crate::shared::manifests::Source;
use crate::shared::manifests::positions::Node;
use crate::shared::offline::{EvaluateOptions, evaluate};
use crate::shared::report::{
    CheckStatus, OutputError, OutputOptions, Report, ReportFormat, Verdict, output,
};
use load::load;

pub const CHECK_LONG_ABOUT: &str = "\
Decide CertificateRequests against CertificateRequestPolicies offline, from manifest files.

Reads CertificateRequests (cert-manager.io/v1), CertificateRequestPolicies
(policy.cert-manager.io/v1alpha1), Namespaces (v1) and Role, ClusterRole, RoleBinding and
ClusterRoleBinding (rbac.authorization.k8s.io/v1) objects, and prints the decision approver-policy
would reach for each request: Approved, Denied or Unprocessed, with upstream's message. Other kinds
are ignored with a notice on stderr.

Policies are checked with the policy admission rules first; a policy the webhook would reject is
reported as not ready and takes no part in the review. Without any RBAC object every policy
counts as bound to every requester, and the output says RBAC was not evaluated.

A CertificateRequest or CertificateRequestPolicy that its CRD schema rejects is reported on
stderr with the API server's message (as `kubectl apply` would show it) and left out; the
other objects are still decided.

Messages name the file, line and column (file:line:column) of the object or of the field they
are about. A field an object's schema does not know (a misspelt dnsName for dnsNames, say) is
warned about with the nearest known field: the API server would drop it, or refuse the object
under kubectl's strict field validation. Such warnings do not change the exit status.

Exit status: 0 when every request is Approved, 1 when any is Denied or Unprocessed, 2 on usage or
input errors, on an object the API server would refuse (decisions are still printed), on a
policy or request the webhook would reject (a not-ready policy, an Invalid request) and on a
review that fails (Error).

Examples:
  certgate check -f examples/
  certgate check -f policy.yaml -f requests/ -o json
  certgate check -f cluster-dump.yaml --explain
  kubectl get crp,cr,ns,roles,rolebindings,clusterroles,clusterrolebindings -A -o yaml \\
    | certgate check -f -";

/// Arguments of `certgate check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A manifest file, or a directory searched recursively for *.yaml, *.yml and *.json files
    /// (in name order). `-` reads standard input. Repeat to give several.
    #[arg(short = 'f', long = "filename", value_name = "PATH", required = true)]
    pub files: Vec<PathBuf>,

    /// Output format.
    #[arg(short = 'o', long = "output", value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,

    /// For each request, show why each policy was or was not selected, whether it is bound
    /// and ready, and every evaluator finding per attribute.
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set, default_value_t = false, num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub explain: bool,
}

/// Runs `check`: writes the report to `stdout` and diagnostics to `stderr`, and returns the
/// exit status. Only a failure to write the output is an `Err`; input errors are reported on
/// `stderr` and give [`CheckStatus::Failed`].
pub fn run(
    args: &CheckArgs,
    colour: bool,
    stdin: impl Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<CheckStatus, OutputError> {
    let (inputs, errors) = load(&args.files, stdin);
    // Unknown fields first: a misspelt field often explains an error or a decision below.
    inputs.unknown_fields.write(stderr)?;
    if let Some(errors) = errors {
        for line in inputs.error_lines(&errors) {
            writeln!(stderr, "{line}")?;
        }
        return Ok(CheckStatus::Failed);
    }
    let load::CheckInputs { loaded, invalid, warnings, positions, .. } = inputs;
    // Objects the API server would refuse are left out; the others are still decided.
    for object in &invalid {
        writeln!(stderr, "error: {object}")?;
    }
    for object in &warnings {
        writeln!(stderr, "warning: {object}")?;
    }
    for ignored in &loaded.ignored {
        writeln!(stderr, "notice: {ignored}")?;
    }
    if loaded.inputs.requests.is_empty() {
        writeln!(
            stderr,
            "notice: no CertificateRequest objects were given; only policies were checked"
        )?;
    }
    let report = evaluate(loaded.inputs, EvaluateOptions { explain: args.explain });
    let options = OutputOptions { format: args.output, explain: args.explain, colour };
    output::write(&report, options, stdout)?;
    write_diagnostics(&report, &positions, stderr)?;
    if invalid.is_empty() { Ok(report.status()) } else { Ok(CheckStatus::Failed) }
}

/// Where a webhook's denial points: the first field its message names (for a CEL rule that
/// does not compile, the `rule` itself), in the user's file.
fn denial_source(at: &Source, positions: &BTreeMap<Source, Node>, message: &str) -> Source {
    const DENIED: &str = "denied the request: ";
    let Some(start) = message.find(DENIED) else { return at.clone() };
    let rest = message[start + DENIED.len()..].trim_start_matches('[');
    let Some((path, detail)) = rest.split_once(": ") else { return at.clone() };
    if !(path.starts_with("spec.") || path.starts_with("metadata.")) || path.contains(' ') {
        return at.clone();
    }
    let rule = format!("{path}.rule");
    let is_cel = path.ends_with(']')
        && path.contains(".validations[")
        && detail.split(", ").next().is_some_and(|d| d.contains("ERROR: <input>:"));
    let path = if is_cel { rule.as_str() } else { path };
    load::field_source(at, positions.get(at), path)
}

/// Policy admission warnings, and the policies and requests that make the exit status 2,
/// with where they came from (the field the webhook names, where it can be found).
fn write_diagnostics(
    report: &Report,
    positions: &BTreeMap<Source, Node>,
    stderr: &mut dyn Write,
) -> std::io::Result<()> {
    for policy in &report.policies {
        for warning in &policy.warnings {
            writeln!(
                stderr,
                "warning: {}: CertificateRequestPolicy {}: {warning}",
                policy.at,
                certgate_gofmt::quote(&policy.name)
            )?;
        }
        if !policy.ready {
            writeln!(
                stderr,
                "error: {}: CertificateRequestPolicy {}: {}",
                denial_source(&policy.at, positions, &policy.message),
                certgate_gofmt::quote(&policy.name),
                policy.message
            )?;
        }
    }
    for result in &report.results {
        if matches!(result.decision, Verdict::Invalid | Verdict::Error) {
            writeln!(
                stderr,
                "error: {}: CertificateRequest {}: {}: {}",
                denial_source(&result.at, positions, &result.message),
                certgate_gofmt::quote(&format!("{}/{}", result.namespace, result.name)),
                result.decision.as_str(),
                result.message
            )?;
        }
    }
    Ok(())
}
