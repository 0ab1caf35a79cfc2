//! `-o text`: a requests table, a policies table, the RBAC note and a summary line.

use std::io::{self, Write};

use super::table::{Cell, Colour, Table};
use crate::shared::report::{Basis, Report, RequestResult, Verdict};

/// Printed when no RBAC object was among the inputs.
pub const RBAC_NOT_EVALUATED: &str =
    "RBAC not evaluated: no Role/ClusterRole/RoleBinding/ClusterRoleBinding objects were given";

const NOT_REVIEWED_ADMISSION: &str = "not reviewed: the CertificateRequest admission webhook \
     rejects this request, so it would never be created";
const NOT_REVIEWED_DECIDED: &str = "not reviewed: status.conditions already holds this \
     decision, and a decided request is never reviewed again";

pub fn write(report: &Report, explain: bool, colour: bool, out: &mut dyn Write) -> io::Result<()> {
    if report.results.is_empty() {
        writeln!(out, "No CertificateRequests found.")?;
    } else {
        let mut requests = Table::new(&["NAMESPACE", "NAME", "DECISION", "MESSAGE"]);
        for result in &report.results {
            let explanation = explain.then(|| explanation(result));
            let cells = vec![
                Cell::plain(&result.namespace),
                Cell::plain(&result.name),
                Cell::coloured(result.decision.as_str(), verdict_colour(result.decision)),
                Cell::plain(&result.message),
            ];
            requests.row(cells, explanation.as_deref());
        }
        requests.write(out, colour)?;
    }
    writeln!(out)?;
    if report.policies.is_empty() {
        writeln!(out, "No CertificateRequestPolicies found.")?;
    } else {
        let mut policies = Table::new(&["POLICY", "READY", "MESSAGE"]);
        for policy in &report.policies {
            let (ready, colour) =
                if policy.ready { ("True", Colour::Green) } else { ("False", Colour::Red) };
            policies.row(
                vec![
                    Cell::plain(&policy.name),
                    Cell::coloured(ready, colour),
                    Cell::plain(&policy.message),
                ],
                None,
            );
        }
        policies.write(out, colour)?;
    }
    if !report.rbac_evaluated {
        writeln!(out)?;
        writeln!(out, "{RBAC_NOT_EVALUATED}")?;
    }
    if !report.results.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", summary(report))?;
    }
    Ok(())
}

/// The `--explain` text under a request's row.
fn explanation(result: &RequestResult) -> String {
    match (&result.trace, result.basis) {
        (Some(trace), _) => trace.to_string(),
        (None, Basis::AdmissionRejected) => NOT_REVIEWED_ADMISSION.to_owned(),
        (None, Basis::AlreadyDecided) => NOT_REVIEWED_DECIDED.to_owned(),
        (None, Basis::Reviewed) => String::new(),
    }
}

fn verdict_colour(verdict: Verdict) -> Colour {
    match verdict {
        Verdict::Approved => Colour::Green,
        Verdict::Denied => Colour::Red,
        Verdict::Unprocessed => Colour::Yellow,
        Verdict::Invalid | Verdict::Error => Colour::Magenta,
    }
}

/// `3 CertificateRequests: 1 Approved, 2 Denied` (only the decisions that occur, in a fixed
/// order).
fn summary(report: &Report) -> String {
    let order = [
        Verdict::Approved,
        Verdict::Denied,
        Verdict::Unprocessed,
        Verdict::Invalid,
        Verdict::Error,
    ];
    let counts: Vec<String> = order
        .iter()
        .filter_map(|verdict| {
            let n = report.results.iter().filter(|r| r.decision == *verdict).count();
            (n > 0).then(|| format!("{n} {}", verdict.as_str()))
        })
        .collect();
    let total = report.results.len();
    let noun = if total == 1 { "CertificateRequest" } else { "CertificateRequests" };
    format!("{total} {noun}: {}", counts.join(", "))
}
