//! The errors of parsing and executing, rendered as Go's `text/template` renders them.

/// A template that failed to parse or execute, rendered as Go renders it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// `template: <name>:<line>: <message>`
    #[error("template: {name}:{line}: {message}")]
    Parse { name: String, line: usize, message: String },
    /// `template: <name>:<line>:<col>: executing "<template>" at <<command>>: <message>`, where
    /// `message` already carries `error calling <fn>: ` when the function's own call failed.
    /// `name` is the parsed template's name (Go's location), `template` the template being
    /// executed at the failure: the same, or the name of the `define`/`block` the failing
    /// command is in (Go prints that one after `executing`). `column` is the 0-based byte
    /// offset within the line, as Go counts it.
    #[error("template: {name}:{line}:{column}: executing {template:?} at <{command}>: {message}")]
    Exec {
        name: String,
        template: String,
        line: usize,
        column: usize,
        command: String,
        message: String,
    },
    /// An execution error the engine could not place in the source.
    #[error("template: {name}: executing {name:?}: {message}")]
    ExecUnplaced { name: String, message: String },
    /// An execution bound was reached.
    #[error("template: {name}: executing {name:?}: {message}")]
    Limit { name: String, message: String },
}
