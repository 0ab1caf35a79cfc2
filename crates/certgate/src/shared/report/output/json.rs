//! `-o json`: the report as one pretty-printed JSON document.

use std::io::Write;

use super::OutputError;
use crate::shared::report::Report;

pub fn write(report: &Report, out: &mut dyn Write) -> Result<(), OutputError> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(OutputError::Json)?;
    writeln!(out)?;
    Ok(())
}
