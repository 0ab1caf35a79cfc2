//! The `allowed` evaluator (spec §4): every request attribute against `spec.allowed`, in
//! upstream's order, all errors collected into one Denied message.

mod attribute;
mod other;

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_api::policy::{Allowed, AllowedString, AllowedStringSlice, AllowedSubject};

pub(crate) use attribute::Context;
use attribute::{SliceRule, check_slice, check_string, json_list};

use crate::attributes::{
    OID_COMMON_NAME, OID_SERIAL_NUMBER, OidGroup, RequestAttributes, SUBJECT_SLICES, SubjectStrings,
};
use crate::findings::{Findings, Verdict};
use crate::trace::CheckTrace;
use crate::wildcard;

/// `spec.allowed`.
pub(crate) fn allowed_path() -> Path {
    Path::new("spec").child("allowed")
}

/// Evaluates one policy's `allowed` block against the request.
pub(crate) fn evaluate(
    cx: &Context<'_>,
    attrs: &RequestAttributes<'_>,
    allowed: Option<&Allowed>,
    explain: bool,
) -> (Verdict, Vec<CheckTrace>) {
    if let Some(denial) = &attrs.san_denial {
        let checks = if explain {
            vec![CheckTrace {
                attribute: "subjectAltName extension".into(),
                values: Vec::new(),
                passed: false,
                errors: vec![denial.clone()],
            }]
        } else {
            Vec::new()
        };
        return (Verdict::Denied(denial.clone()), checks);
    }
    let mut findings = Findings::new(explain);
    let subject = allowed.and_then(|a| a.subject.as_ref());

    findings.check(
        || path_of("commonName"),
        || subject_values(&attrs.common_names),
        |errors| {
            let rule = allowed.and_then(|a| a.common_name.as_ref());
            let path = || allowed_path().child("commonName");
            check_subject_string(cx, &attrs.common_names, rule, OID_COMMON_NAME, &path, errors);
        },
    );
    let san_slices = [
        ("dnsNames", &attrs.dns_names, allowed.and_then(|a| a.dns_names.as_ref())),
        ("ipAddresses", &attrs.ip_addresses, allowed.and_then(|a| a.ip_addresses.as_ref())),
        ("uris", &attrs.uris, allowed.and_then(|a| a.uris.as_ref())),
        (
            "emailAddresses",
            &attrs.email_addresses,
            allowed.and_then(|a| a.email_addresses.as_ref()),
        ),
    ];
    for (field, values, rule) in san_slices {
        findings.check(
            || path_of(field),
            || owned(values),
            |errors| {
                let path = || allowed_path().child(field);
                check_slice(cx, values, rule.map(SliceRule::of), &path, errors);
            },
        );
    }
    findings.check(
        || path_of("isCA"),
        || vec![attrs.is_ca.to_string()],
        |errors| check_is_ca(attrs.is_ca, allowed.and_then(|a| a.is_ca), errors),
    );
    findings.check(
        || path_of("usages"),
        || owned(&attrs.usages),
        |errors| check_usages(&attrs.usages, allowed.and_then(|a| a.usages.as_deref()), errors),
    );
    findings.check(
        || path_of("otherNames"),
        || {
            let unsupported = attrs.unsupported_sans.iter().map(|k| k.as_str().to_owned());
            unsupported.chain(oid_values(&attrs.other_names)).collect()
        },
        |errors| {
            let entries = allowed.and_then(|a| a.other_names.as_deref()).unwrap_or_default();
            other::other_names(cx, attrs, entries, errors);
        },
    );
    let subject_rules = subject.map(subject_slice_rules).unwrap_or_default();
    let subject_slices = SUBJECT_SLICES.iter().zip(&attrs.subject_slices).zip(subject_rules);
    for (((field, _), values), rule) in subject_slices {
        findings.check(
            || format!("spec.allowed.subject.{field}"),
            || owned(values),
            |errors| {
                let path = || allowed_path().child("subject").child(field);
                check_slice(cx, values, rule.map(SliceRule::of), &path, errors);
            },
        );
    }
    findings.check(
        || "spec.allowed.subject.serialNumber".into(),
        || subject_values(&attrs.serial_numbers),
        |errors| {
            let rule = subject.and_then(|s| s.serial_number.as_ref());
            let path = || allowed_path().child("subject").child("serialNumber");
            check_subject_string(cx, &attrs.serial_numbers, rule, OID_SERIAL_NUMBER, &path, errors);
        },
    );
    findings.check(
        || "spec.allowed.subject.otherAttributes".into(),
        || {
            let non_string =
                attrs.non_string.iter().map(|a| format!("{}=<non-string value>", a.oid));
            non_string.chain(oid_values(&attrs.other_attributes)).collect()
        },
        |errors| {
            let entries = subject.and_then(|s| s.other_attributes.as_deref()).unwrap_or_default();
            other::other_attributes(cx, attrs, entries, errors);
        },
    );
    findings.finish()
}

/// CN or serialNumber: one check for a single value, one per value at `[i]` when the
/// Subject repeats the attribute; a non-string value denies the attribute outright.
fn check_subject_string(
    cx: &Context<'_>,
    values: &SubjectStrings<'_>,
    rule: Option<&AllowedString>,
    oid: &str,
    path: &dyn Fn() -> Path,
    errors: &mut Vec<FieldError>,
) {
    match values {
        SubjectStrings::NonString => errors.push(FieldError::invalid(
            path(),
            BadValue::Str("<non-string value>".to_owned()),
            format!(
                "subject attribute {oid} uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"
            ),
        )),
        SubjectStrings::Values(values) if values.len() <= 1 => {
            check_string(cx, values.first().copied().unwrap_or(""), rule, path, errors)
        }
        SubjectStrings::Values(values) => {
            for (i, value) in values.iter().enumerate() {
                check_string(cx, value, rule, &|| path().index(i), errors);
            }
        }
    }
}

/// A CA certificate needs `isCA: true`; the detail shows what the policy said.
fn check_is_ca(requested: bool, allowed: Option<bool>, errors: &mut Vec<FieldError>) {
    let detail = match (requested, allowed) {
        (true, None) => "nil",
        (true, Some(false)) => "false",
        _ => return,
    };
    errors.push(FieldError::invalid(allowed_path().child("isCA"), BadValue::Bool(true), detail));
}

/// Requested usages (only when there are some) must be a wildcard subset of the policy's.
fn check_usages(requested: &[&str], allowed: Option<&[String]>, errors: &mut Vec<FieldError>) {
    if requested.is_empty() {
        return;
    }
    let detail = match allowed {
        None => "nil".to_owned(),
        Some(patterns) if !wildcard::subset(patterns, requested) => patterns.join(", "),
        Some(_) => return,
    };
    errors.push(FieldError::invalid(allowed_path().child("usages"), json_list(requested), detail));
}

/// The policy's rules for the named Subject slices, in [`SUBJECT_SLICES`] order.
fn subject_slice_rules(subject: &AllowedSubject) -> [Option<&AllowedStringSlice>; 7] {
    [
        subject.organizations.as_ref(),
        subject.countries.as_ref(),
        subject.organizational_units.as_ref(),
        subject.localities.as_ref(),
        subject.provinces.as_ref(),
        subject.street_addresses.as_ref(),
        subject.postal_codes.as_ref(),
    ]
}

fn path_of(field: &str) -> String {
    format!("spec.allowed.{field}")
}

fn owned(values: &[&str]) -> Vec<String> {
    values.iter().map(|v| (*v).to_owned()).collect()
}

fn subject_values(values: &SubjectStrings<'_>) -> Vec<String> {
    match values {
        SubjectStrings::Values(values) => owned(values),
        SubjectStrings::NonString => vec!["<non-string value>".to_owned()],
    }
}

fn oid_values<'a>(groups: &'a [OidGroup<'_>]) -> impl Iterator<Item = String> + 'a {
    groups.iter().flat_map(|g| g.values.iter().map(move |v| format!("{}={v}", g.oid)))
}

#[cfg(test)]
mod tests;
