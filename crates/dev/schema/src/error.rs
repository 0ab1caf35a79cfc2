//! Why a schema could not be compiled.

/// A CRD schema that is malformed or not structural. `at` is the schema location, e.g.
/// `openAPIV3Schema.properties[spec].properties[replicas]`.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("{at}: must be a JSON object (a schema), found {found}")]
    NotASchema { at: String, found: &'static str },
    #[error("{at}: `{keyword}` must be {expected}")]
    Malformed { at: String, keyword: &'static str, expected: &'static str },
    #[error("{at}: not a structural schema: {reason}; fix the CRD's openAPIV3Schema")]
    NotStructural { at: String, reason: String },
    #[error("{at}: schema nesting deeper than {max} levels; flatten the schema")]
    TooDeep { at: String, max: usize },
    #[error(
        "{at}: unsupported type {}; use object, array, string, integer, number or boolean",
        certgate_gofmt::quote(.found)
    )]
    UnknownType { at: String, found: String },
    #[error("{at}: x-kubernetes-validations rule refused: {reason}")]
    Rule { at: String, reason: String },
    #[error("{at}: pattern {} does not compile: {source}", certgate_gofmt::quote(.pattern))]
    Pattern {
        at: String,
        pattern: String,
        #[source]
        source: regex::Error,
    },
}
