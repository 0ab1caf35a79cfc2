//! `-o text`: the snapshot in `cmctl status certificate`'s layout (`Name:`, `Conditions:`,
//! `Issuer:`, `Secret:`, `CertificateRequest:` sections, one `Type: Status, Reason: ...,
//! Message: ...` line per condition), with certgate's additions: the revision, the Secret's
//! validity, the request's approval, and the retry of a failed issuance.

use std::fmt::Write as _;

use super::snapshot::{
    CertificateSnapshot, ConditionView, EventsView, RequestRole, RequestView, RetryState,
    RetryView, SecretView,
};

/// The text rendering; ends with a newline.
pub fn text(s: &CertificateSnapshot) -> String {
    let mut out = String::new();
    line(&mut out, 0, &format!("Name: {}", s.name));
    line(&mut out, 0, &format!("Namespace: {}", s.namespace));
    line(&mut out, 0, &format!("Created at: {}", or_none(s.created_at.as_deref())));
    conditions(&mut out, 0, &s.conditions);
    line(&mut out, 0, "DNS Names:");
    for name in &s.dns_names {
        line(&mut out, 0, &format!("- {name}"));
    }
    line(
        &mut out,
        0,
        &format!("Revision: {}", s.revision.map_or("<none>".to_owned(), |r| r.to_string())),
    );
    events(&mut out, 0, &s.events);

    line(&mut out, 0, "Issuer:");
    line(&mut out, 1, &format!("Name: {}", s.issuer.name));
    line(&mut out, 1, &format!("Kind: {}", s.issuer.kind));
    line(&mut out, 1, &format!("Group: {}", s.issuer.group));
    match &s.issuer.error {
        Some(error) => line(&mut out, 1, &format!("Error: {error}")),
        None => conditions(&mut out, 1, &s.issuer.conditions),
    }

    secret(&mut out, &s.secret);
    line(&mut out, 0, &format!("Not Before: {}", or_none(s.not_before.as_deref())));
    line(&mut out, 0, &format!("Not After: {}", or_none(s.not_after.as_deref())));
    line(&mut out, 0, &format!("Renewal Time: {}", or_none(s.renewal_time.as_deref())));
    request(&mut out, &s.namespace, &s.certificate_request);
    if let Some(retry) = &s.retry {
        self::retry(&mut out, retry);
    }
    out
}

fn line(out: &mut String, level: usize, text: &str) {
    let _ = writeln!(out, "{}{text}", "  ".repeat(level));
}

fn or_none(value: Option<&str>) -> &str {
    value.unwrap_or("<none>")
}

fn condition_line(c: &ConditionView) -> String {
    format!(
        "{}: {}, Reason: {}, Message: {}",
        c.type_,
        c.status,
        c.reason.as_deref().unwrap_or_default(),
        c.message.as_deref().unwrap_or_default()
    )
}

fn conditions(out: &mut String, level: usize, list: &[ConditionView]) {
    line(out, level, "Conditions:");
    if list.is_empty() {
        line(out, level + 1, "No Conditions set");
    }
    for c in list {
        line(out, level + 1, &condition_line(c));
    }
}

/// kubectl describe's events table (`Type Reason Age From Message`), with the time of the
/// last occurrence instead of its age.
fn events(out: &mut String, level: usize, view: &EventsView) {
    if let Some(error) = &view.error {
        line(out, level, &format!("Events: cannot list them: {error}"));
        return;
    }
    if view.items.is_empty() {
        line(out, level, "Events:  <none>");
        return;
    }
    line(out, level, "Events:");
    let header = ["Type", "Reason", "Last Seen", "From", "Message"];
    let rows: Vec<[String; 5]> = view
        .items
        .iter()
        .map(|e| {
            let seen = e.last_seen.clone().unwrap_or_else(|| "<unknown>".to_owned());
            let seen = match e.count {
                Some(count) if count > 1 => format!("{seen} (x{count})"),
                _ => seen,
            };
            [
                e.type_.clone(),
                e.reason.clone(),
                seen,
                e.from.clone().unwrap_or_default(),
                e.message.trim().to_owned(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let render = |cells: [&str; 5]| {
        let mut text = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                text.push_str(cell);
            } else {
                let _ = write!(text, "{cell:<width$}  ", width = widths[i]);
            }
        }
        text
    };
    line(out, level + 1, &render(header));
    line(out, level + 1, &render(["----", "------", "---------", "----", "-------"]));
    for row in &rows {
        line(out, level + 1, &render([&row[0], &row[1], &row[2], &row[3], &row[4]]));
    }
}

fn secret(out: &mut String, s: &SecretView) {
    line(out, 0, "Secret:");
    line(out, 1, &format!("Name: {}", s.name));
    if let Some(error) = &s.error {
        line(out, 1, &format!("Error: {error}"));
    }
    if let Some(c) = &s.certificate {
        line(out, 1, &format!("Subject: {}", c.subject));
        line(out, 1, &format!("Issuer: {}", c.issuer));
        line(out, 1, &format!("Serial Number: {}", c.serial_number));
        line(out, 1, &format!("Not Before: {}", c.not_before));
        line(out, 1, &format!("Not After: {}", c.not_after));
        line(out, 1, &format!("Is CA: {}", c.is_ca));
    }
}

fn request(out: &mut String, namespace: &str, r: &RequestView) {
    line(out, 0, "CertificateRequest:");
    let role = match r.role {
        RequestRole::Next => "next",
        RequestRole::Current => "current",
    };
    line(out, 1, &format!("Revision: {} ({role})", r.revision));
    if let Some(error) = &r.error {
        line(out, 1, &format!("Error: {error}"));
        return;
    }
    line(out, 1, &format!("Name: {}", r.name.as_deref().unwrap_or_default()));
    line(out, 1, &format!("Namespace: {namespace}"));
    match &r.approval {
        Some(approval) => line(out, 1, &format!("Approval: {}", condition_line(approval))),
        None => line(out, 1, "Approval: pending (neither Approved nor Denied)"),
    }
    conditions(out, 1, &r.conditions);
    if let Some(view) = &r.events {
        events(out, 1, view);
    }
}

fn retry(out: &mut String, r: &RetryView) {
    line(out, 0, "Retry:");
    line(out, 1, &format!("Last Failure Time: {}", r.last_failure_time));
    let attempts = r.failed_issuance_attempts.map_or("<none>".to_owned(), |a| a.to_string());
    line(out, 1, &format!("Failed Issuance Attempts: {attempts}"));
    if let Some(error) = &r.error {
        line(out, 1, &format!("Error: {error}"));
        return;
    }
    line(out, 1, &format!("Backoff: {}", or_none(r.backoff.as_deref())));
    let next = or_none(r.next_attempt.as_deref());
    let next = match r.state {
        RetryState::Waiting => {
            format!("{next} (in {})", or_none(r.remaining.as_deref()))
        }
        RetryState::Due => format!("now (the backoff ended at {next})"),
        RetryState::Issuing => {
            "now: an issuance is under way (Issuing=True), the backoff does not hold it".to_owned()
        }
        RetryState::Unknown => "<unknown>".to_owned(),
    };
    line(out, 1, &format!("Next Attempt: {next}"));
}
