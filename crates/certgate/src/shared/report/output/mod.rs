//! Renders a [`Report`] in the format chosen with `-o`.

mod json;
mod table;
mod text;
mod yaml;

use std::io::Write;

pub use text::RBAC_NOT_EVALUATED;

use crate::shared::report::{Report, ReportFormat};

/// How to render.
#[derive(Clone, Copy, Debug)]
pub struct OutputOptions {
    pub format: ReportFormat,
    pub explain: bool,
    /// ANSI colour in text output (the caller decides: a terminal, and `NO_COLOR` unset).
    pub colour: bool,
}

/// Why the report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write the report: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot serialize the report as JSON: {0}")]
    Json(#[source] serde_json::Error),
    #[error("cannot serialize the report as YAML: {0}")]
    Yaml(#[source] serde_saphyr::SerializeError),
}

pub fn write(
    report: &Report,
    options: OutputOptions,
    out: &mut dyn Write,
) -> Result<(), OutputError> {
    match options.format {
        ReportFormat::Text => text::write(report, options.explain, options.colour, out)?,
        ReportFormat::Json => json::write(report, out)?,
        ReportFormat::Yaml => yaml::write(report, out)?,
    }
    Ok(())
}
