//! The formats a decision report is printed in (`certgate check -o`).

use clap::ValueEnum;

/// Output formats of `certgate check` (the report's formats; `explain` and `dev --demo` print
/// the text one). The variants' doc comments are `check --help`'s descriptions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Readable tables (the decision is coloured on a terminal unless NO_COLOR is set).
    Text,
    /// One JSON document: `{"results": [...], "policies": [...], "rbacEvaluated": bool}`.
    Json,
    /// The JSON document as YAML.
    Yaml,
}
