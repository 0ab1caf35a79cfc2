//! Text and JSON output of `certgate explain`. The request table, its trace and the policy
//! table are `check --explain`'s own rendering; this module adds what is recorded on the
//! request before it, and why and what is missing after it.

use std::fmt::Write as _;
use std::io::Write;

use certgate_api::gofmt::quote;
use certgate_approval::trace::PolicyOutcome;

use super::Explanation;
use crate::shared::report::{
    OutputError, OutputOptions, PolicyResult, Report, ReportFormat, RequestResult, Verdict, output,
};

/// The reasons the known deciders write, and who they are.
fn decider(reason: &str) -> &'static str {
    match reason {
        "policy.cert-manager.io" => "approver-policy's policy-approver controller",
        "cert-manager.io" => "cert-manager's built-in approver, which approves everything",
        "KubectlCertManager" => "set by hand with `certgate approve|deny` or `cmctl approve|deny`",
        _ => "set by whoever wrote the condition",
    }
}

pub fn json(explanation: &Explanation, out: &mut dyn Write) -> Result<(), OutputError> {
    serde_json::to_writer_pretty(&mut *out, explanation).map_err(OutputError::Json)?;
    writeln!(out)?;
    Ok(())
}

/// The JSON document as YAML (as Go's yaml.v3 writes it).
pub fn yaml(explanation: &Explanation, out: &mut dyn Write) -> Result<(), OutputError> {
    let document = serde_json::to_value(explanation).map_err(OutputError::Json)?;
    out.write_all(certgate_goyaml::to_yaml(&document).as_bytes())?;
    Ok(())
}

pub fn text(
    explanation: &Explanation,
    colour: bool,
    out: &mut dyn Write,
) -> Result<(), OutputError> {
    out.write_all(escape(&header(explanation)).as_bytes())?;
    writeln!(out)?;
    let report = Report {
        results: vec![copy_result(&explanation.result)],
        policies: explanation.policies.iter().map(copy_policy).collect(),
        rbac_evaluated: true,
    };
    output::write(
        &report,
        OutputOptions { format: ReportFormat::Text, explain: true, colour },
        out,
    )?;
    writeln!(out)?;
    out.write_all(escape(&footer(explanation)).as_bytes())?;
    Ok(())
}

/// check's report owns its rows, which are not `Clone`.
fn copy_result(result: &RequestResult) -> RequestResult {
    RequestResult {
        namespace: result.namespace.clone(),
        name: result.name.clone(),
        decision: result.decision,
        message: result.message.clone(),
        trace: result.trace.clone(),
        at: result.at.clone(),
        basis: result.basis,
    }
}

fn copy_policy(policy: &PolicyResult) -> PolicyResult {
    PolicyResult {
        name: policy.name.clone(),
        ready: policy.ready,
        message: policy.message.clone(),
        warnings: policy.warnings.clone(),
        at: policy.at.clone(),
    }
}

fn header(explanation: &Explanation) -> String {
    let result = &explanation.result;
    let mut text = format!("CertificateRequest {}/{}\n", result.namespace, result.name);
    match &explanation.recorded {
        Some(recorded) => {
            let _ = write!(
                text,
                "  recorded decision: {} (reason {}: {})",
                recorded.type_,
                quote(&recorded.reason),
                decider(&recorded.reason)
            );
            if let Some(at) = &recorded.last_transition_time {
                let _ = write!(text, " at {at}");
            }
            let _ = writeln!(text, ": {}", recorded.message);
            let _ = writeln!(
                text,
                "  A decided request is never reviewed again, so this decision stands. What a review \
                 would decide now:"
            );
        }
        None => {
            let _ = writeln!(
                text,
                "  recorded decision: none yet (neither Approved nor Denied). What a review decides now:"
            );
        }
    }
    let _ = writeln!(
        text,
        "  (RBAC: asked the API server with SubjectAccessReviews as the requester; readiness: each \
         policy's Ready condition)"
    );
    text
}

fn footer(explanation: &Explanation) -> String {
    let result = &explanation.result;
    let decided = explanation.recorded.is_some();
    let (sets, writes) = if decided { ("would set", "would write") } else { ("sets", "writes") };
    let mut text = String::new();
    match result.decision {
        Verdict::Approved => {
            let _ = writeln!(
                text,
                "Approved: the first policy (in name order) that selects the request, is bound to the \
                 requester, is ready and that no evaluator denies, approves it. The policy-approver \
                 controller {sets} Approved=True with reason \"policy.cert-manager.io\" and that message."
            );
        }
        Verdict::Denied => {
            let _ = writeln!(
                text,
                "Denied: every policy that selects the request, is bound to the requester and is ready \
                 denies it; the findings are listed under each policy above. The policy-approver \
                 controller {sets} Denied=True with reason \"policy.cert-manager.io\" and that message."
            );
        }
        Verdict::Unprocessed => {
            let _ = writeln!(
                text,
                "Unprocessed: {}. The policy-approver controller {writes} no condition: the request \
                 stays pending and is reviewed again when policies, RBAC objects or Namespaces change.",
                result.message.trim_end_matches('.')
            );
            if let Some(counts) = outcome_counts(explanation) {
                let _ = writeln!(text, "Policies: {counts}.");
            }
        }
        Verdict::Error | Verdict::Invalid => {
            let _ = writeln!(
                text,
                "Error: the review fails: {}\nThe policy-approver controller retries such a review \
                 with backoff and records a Warning event (reason EvaluationError); the request \
                 stays pending.",
                result.message
            );
            if result.message.contains("failed to get request's namespace") {
                let _ = writeln!(
                    text,
                    "A policy selects by Namespace labels (spec.selector.namespace.matchLabels), so \
                     the review reads the request's Namespace, and it could not be read."
                );
            }
            if result.message.contains("failed to create subjectaccessreview") {
                let _ = writeln!(
                    text,
                    "The API server did not answer the SubjectAccessReview asked for a policy's \
                     `use` permission."
                );
            }
        }
    }
    let grants: Vec<_> = result
        .trace
        .iter()
        .flat_map(|trace| &trace.policies)
        .filter(|policy| policy.outcome == PolicyOutcome::NotBound)
        .filter_map(|policy| policy.binding.as_ref()?.grant.as_ref())
        .collect();
    if !grants.is_empty() {
        let _ = writeln!(
            text,
            "\nMissing RBAC (policies that select the request but the requester may not use):"
        );
        for grant in grants {
            let _ = writeln!(text, "  {}", grant.missing);
            if !grant.commands.is_empty() {
                let _ = writeln!(text, "  grant it with:");
                for command in &grant.commands {
                    for line in command.lines() {
                        let _ = writeln!(text, "    {line}");
                    }
                }
            }
        }
    }
    if !explanation.notes.is_empty() {
        let _ = writeln!(text);
        for note in &explanation.notes {
            let _ = writeln!(text, "note: {note}");
        }
    }
    text
}

/// `1 not selected, 2 not bound to the requester`: where each policy's journey ended.
fn outcome_counts(explanation: &Explanation) -> Option<String> {
    let trace = explanation.result.trace.as_ref()?;
    let mut counts: Vec<(PolicyOutcome, usize)> = Vec::new();
    for policy in &trace.policies {
        match counts.iter_mut().find(|(outcome, _)| *outcome == policy.outcome) {
            Some((_, n)) => *n += 1,
            None => counts.push((policy.outcome, 1)),
        }
    }
    (!counts.is_empty()).then(|| {
        counts.iter().map(|(outcome, n)| format!("{n} {outcome}")).collect::<Vec<_>>().join(", ")
    })
}

/// Escapes control characters other than line breaks, as check's tables do, so that a
/// condition's message cannot move the cursor or recolour the terminal.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_but_lines_kept() {
        assert_eq!(escape("a\x1b[31mb\nc\td"), "a\\u{1b}[31mb\nc\\td");
    }

    #[test]
    fn known_deciders_are_named() {
        assert!(decider("policy.cert-manager.io").contains("policy-approver"));
        assert!(decider("KubectlCertManager").contains("by hand"));
        assert!(decider("Custom").contains("whoever"));
    }
}
