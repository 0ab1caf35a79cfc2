//! `-o yaml`: the same document as `-o json`, in YAML.

use std::io::Write;

use super::OutputError;
use crate::shared::report::Report;

pub fn write(report: &Report, out: &mut dyn Write) -> Result<(), OutputError> {
    let text = serde_saphyr::to_string(report).map_err(OutputError::Yaml)?;
    out.write_all(text.as_bytes())?;
    Ok(())
}
