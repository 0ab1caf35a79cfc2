//! `certgate crl check`: HTTPProxies with their Secrets and TLSCertificateDelegations, checked
//! offline as Contour would (certgate-ingress), with certgate-crl's deeper CRL checks plugged
//! into the inspector seam as warnings.

use std::io::{Read, Write};

use certgate_crl::Timestamp;
use certgate_ingress::{CheckOptions, CheckResult, CrlContext, ServedCrl, check, crl_warnings};
use serde::Serialize;

use super::error::{CrlError, InputError};
use super::input::{load_manifests, now_or};
use super::output::{Format, write_document};
use super::{CheckArgs, Outcome, WARNING_EXIT};

/// The documented JSON shape: only `results` (objects that could not be read are input
/// errors, reported on stderr with exit status 2).
#[derive(Serialize)]
struct Report<'a> {
    results: &'a [CheckResult],
}

/// Runs `check`; returns 1 when any HTTPProxy is invalid; otherwise [`WARNING_EXIT`] with
/// `--strict` when any warning was reported (unknown fields of the manifests included, written
/// to `stderr`), else 0 (without `--strict` warnings do not count, as they do not change
/// Contour's status).
pub fn run(
    args: &CheckArgs,
    stdin: impl Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<Outcome, CrlError> {
    let (objects, unknown_fields) = match load_manifests(&args.files, stdin) {
        Ok(loaded) => loaded,
        Err(err) => return Ok(Err(vec![err])),
    };
    unknown_fields.write(stderr)?;
    let now = now_or(args.at);
    let inspector = |context: &CrlContext<'_>| inspect(context, now);
    let options =
        CheckOptions { transition_time: Some(now.to_string()), ..CheckOptions::default() };
    let mut report = check(&objects, &inspector, &options);
    if !report.skipped.is_empty() {
        return Ok(Err(report.skipped.into_iter().map(InputError::Unusable).collect()));
    }
    if report.results.is_empty() {
        return Ok(Err(vec![InputError::NoHttpProxy]));
    }
    match args.output {
        Format::Json | Format::Yaml => {
            // The JSON results carry their HTTPProxy's unknown fields too (with where they
            // are), so that a consumer of the JSON alone sees them.
            for warning in unknown_fields.warnings.iter().filter(|w| w.kind == "HTTPProxy") {
                let result = report
                    .results
                    .iter_mut()
                    .find(|r| r.namespace == warning.namespace && r.name == warning.name);
                if let Some(result) = result {
                    result.warnings.push(format!("{}: {}", warning.at, warning.field));
                }
            }
            write_document(stdout, args.output, &Report { results: &report.results })?
        }
        Format::Text => write_text(stdout, &report.results)?,
    }
    if report.results.iter().any(|r| !r.valid) {
        Ok(Ok(1))
    } else if args.strict && (!unknown_fields.is_empty() || report.results.iter().any(has_warning))
    {
        Ok(Ok(WARNING_EXIT))
    } else {
        Ok(Ok(0))
    }
}

/// Whether the result reports any warning: certgate's, or one of a status condition.
fn has_warning(result: &CheckResult) -> bool {
    !result.warnings.is_empty()
        || result.status.conditions.iter().flatten().any(|c| !c.warnings.is_empty())
}

/// certgate-crl's warnings for one CRL Secret Contour accepted, at `now`.
fn inspect(context: &CrlContext<'_>, now: Timestamp) -> Vec<String> {
    let served = ServedCrl {
        crl_secret: context.crl_secret,
        crl_pem: context.crl_pem,
        ca_bundle: context.ca_bundle,
        only_verify_leaf: context.only_verify_leaf,
        skip_client_cert_validation: context.skip_client_cert_validation,
    };
    crl_warnings(&served, now)
}

fn write_text(out: &mut dyn Write, results: &[CheckResult]) -> std::io::Result<()> {
    for result in results {
        let verdict = if result.valid { "valid" } else { "invalid" };
        writeln!(out, "HTTPProxy {}/{}: {verdict}", result.namespace, result.name)?;
        for condition in result.status.conditions.iter().flatten() {
            writeln!(
                out,
                "  condition {}={} ({}): {}",
                condition.type_, condition.status, condition.reason, condition.message
            )?;
            for error in &condition.errors {
                writeln!(out, "    error {} {}: {}", error.type_, error.reason, error.message)?;
            }
            for warning in &condition.warnings {
                writeln!(
                    out,
                    "    warning {} {}: {}",
                    warning.type_, warning.reason, warning.message
                )?;
            }
        }
        if !result.warnings.is_empty() {
            writeln!(
                out,
                "  certgate warnings (Contour does not check these; the status is unchanged):"
            )?;
            for warning in &result.warnings {
                writeln!(out, "    - {warning}")?;
            }
        }
        if result.envoy.is_null() {
            writeln!(
                out,
                "  envoy: no DownstreamTlsContext (Contour programs none for this HTTPProxy)"
            )?;
        } else {
            writeln!(out, "  envoy: DownstreamTlsContext programmed; print it with -o json")?;
        }
    }
    let invalid = results.iter().filter(|r| !r.valid).count();
    let warned = results.iter().filter(|r| !r.warnings.is_empty()).count();
    writeln!(
        out,
        "{} HTTPProxies: {} valid, {invalid} invalid, {warned} with warnings",
        results.len(),
        results.len() - invalid
    )
}
