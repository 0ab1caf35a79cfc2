//! Errors of value operations, worded as cel-go words them so that messages users see
//! (and conformance expectations) match the reference implementation.

/// A value operation that has no result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// No overload of `function` accepts operands of these kinds.
    #[error("no such overload: {function}({args})")]
    NoSuchOverload { function: String, args: String },
    #[error("integer overflow")]
    IntOverflow,
    #[error("unsigned integer overflow")]
    UintOverflow,
    #[error("division by zero")]
    DivisionByZero,
    #[error("modulus by zero")]
    ModulusByZero,
    #[error("duration overflow")]
    DurationOverflow,
    #[error("timestamp overflow")]
    TimestampOverflow,
    /// A conversion whose source value does not fit the target type.
    #[error("range error converting {value} to {target}")]
    Range { value: String, target: &'static str },
    /// A string that does not spell a value of the target type.
    #[error("type conversion error from 'string' to '{target}': cannot parse {input:?}: {reason}")]
    Parse { target: &'static str, input: String, reason: String },
    #[error("invalid UTF-8 in bytes, cannot convert to string")]
    InvalidUtf8,
    /// Only bool, int, uint and string values can be map keys.
    #[error("unsupported key type: {kind}; map keys must be bool, int, uint or string")]
    UnsupportedKey { kind: String },
    /// A concatenation whose result would exceed the engine's size bound.
    #[error("result of concatenation exceeds {limit} elements; use smaller operands")]
    TooLarge { limit: usize },
    #[error("Failed with repeated key: {key}")]
    DuplicateKey { key: String },
    /// A library function's own error, worded as the library words it.
    #[error("{0}")]
    Message(String),
}

impl ValueError {
    pub(crate) fn no_overload(function: &str, args: &[&super::Value]) -> Self {
        let args = args.iter().map(|v| v.type_of().to_string()).collect::<Vec<_>>().join(", ");
        Self::NoSuchOverload { function: function.to_owned(), args }
    }

    pub(crate) fn parse(target: &'static str, input: &str, reason: impl Into<String>) -> Self {
        // Inputs come from policies and requests; keep messages bounded.
        let input: String = input.chars().take(64).collect();
        Self::Parse { target, input, reason: reason.into() }
    }
}
