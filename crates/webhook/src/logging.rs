//! Log output of the webhook: one line per event on stderr (stdout may carry the CA bundle).

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFormat {
    /// One JSON object per line, for log collectors.
    Json,
    /// Human-readable lines.
    Text,
}

/// Why logging could not be set up.
#[derive(Debug, thiserror::Error)]
#[error("cannot set up logging: {0}")]
pub struct LoggingError(String);

/// Installs the global subscriber. `RUST_LOG` selects levels (default `info`).
pub fn init(format: LogFormat) -> Result<(), LoggingError> {
    init_with_default(format, "info")
}

/// Installs the global subscriber; `RUST_LOG` selects levels, `default` (an `EnvFilter`
/// directive such as `info` or `warn`) when it is unset or empty. A `RUST_LOG` that does not
/// parse is an error naming it, not silently replaced.
pub fn init_with_default(format: LogFormat, default: &str) -> Result<(), LoggingError> {
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => EnvFilter::try_new(&directives)
            .map_err(|e| LoggingError(format!("RUST_LOG={directives}: {e}")))?,
        _ => EnvFilter::try_new(default).map_err(|e| LoggingError(e.to_string()))?,
    };
    // Colour only for a person watching a terminal, never into log files or collectors.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let installed = match format {
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init(),
        LogFormat::Text => builder.try_init(),
    };
    installed.map_err(|e| LoggingError(e.to_string()))
}
