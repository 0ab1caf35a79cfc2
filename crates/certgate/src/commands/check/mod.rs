//! `certgate check`: decide CertificateRequests offline from manifest files.
//!
//! Pipeline: [`load`] (files → typed objects, input errors), [`evaluate`] (admission, policy
//! readiness, review), [`output`] (text / JSON / YAML). Diagnostics go to stderr, the report
//! to stdout.

pub mod classify;
pub mod discover;
pub mod documents;
pub mod error;
pub mod evaluate;
pub mod inputs;
pub mod load;
pub mod namespaces;
pub mod output;
pub mod read;
pub mod readiness;
pub mod report;
pub mod source;

use std::io::{Read, Write};

use crate::cli::CheckArgs;
pub use error::{LoadError, LoadErrors};
pub use evaluate::{EvaluateOptions, evaluate};
pub use load::{Loaded, load, load_text};
pub use output::{OutputError, OutputOptions};
pub use report::{CheckStatus, Report, Verdict};

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
    let loaded = match load(&args.files, stdin) {
        Ok(loaded) => loaded,
        Err(LoadErrors(errors)) => {
            for error in errors {
                writeln!(stderr, "error: {error}")?;
            }
            return Ok(CheckStatus::Failed);
        }
    };
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
    write_diagnostics(&report, stderr)?;
    Ok(report.status())
}

/// Policy admission warnings, and the policies and requests that make the exit status 2,
/// with where they came from.
fn write_diagnostics(report: &Report, stderr: &mut dyn Write) -> std::io::Result<()> {
    for policy in &report.policies {
        for warning in &policy.warnings {
            writeln!(
                stderr,
                "warning: {}: CertificateRequestPolicy {:?}: {warning}",
                policy.at, policy.name
            )?;
        }
        if !policy.ready {
            writeln!(
                stderr,
                "error: {}: CertificateRequestPolicy {:?}: {}",
                policy.at, policy.name, policy.message
            )?;
        }
    }
    for result in &report.results {
        if matches!(result.decision, Verdict::Invalid | Verdict::Error) {
            writeln!(
                stderr,
                "error: {}: CertificateRequest {:?}: {}: {}",
                result.at,
                format!("{}/{}", result.namespace, result.name),
                result.decision.as_str(),
                result.message
            )?;
        }
    }
    Ok(())
}
