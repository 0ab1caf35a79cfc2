//! `--log-format` of the long-running commands (`webhook`, `controller`, `edge serve`,
//! `dev`) and the glue that installs the process's log subscriber from it.

use certgate_webhook::logging::{self, LogFormat, LoggingError};
use clap::ValueEnum;

/// `--log-format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormatArg {
    /// One JSON object per line.
    Json,
    /// Human-readable lines.
    Text,
}

impl From<LogFormatArg> for LogFormat {
    fn from(format: LogFormatArg) -> Self {
        match format {
            LogFormatArg::Json => LogFormat::Json,
            LogFormatArg::Text => LogFormat::Text,
        }
    }
}

/// Installs the global log subscriber (standard error; `RUST_LOG` selects levels, default
/// `info`).
pub fn init(format: LogFormatArg) -> Result<(), LoggingError> {
    logging::init(format.into())
}

/// [`init`] with another level when `RUST_LOG` is unset, e.g. `warn` where a command's own
/// output must read cleanly.
pub fn init_with_default(format: LogFormatArg, default: &str) -> Result<(), LoggingError> {
    logging::init_with_default(format.into(), default)
}
