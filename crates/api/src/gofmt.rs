//! The Go formatting rules that upstream messages are made of.

use std::time::Duration;

/// Go's `%q` / `strconv.Quote` of a string (printable non-ASCII kept, Go escapes otherwise).
pub fn quote(s: &str) -> String {
    let _ = s;
    todo!("api crate owner")
}

/// Go's `encoding/json.Marshal` of a value: compact, with `<`, `>`, `&`, U+2028, U+2029
/// escaped as `\u003c` etc. Map keys sorted (serde_json `Value` objects keep insertion
/// order with `preserve_order`, so callers build maps sorted or this sorts them).
pub fn json(v: &serde_json::Value) -> String {
    let _ = v;
    todo!("api crate owner")
}

/// A signed Go `time.Duration` (nanoseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GoDuration(pub i64);

impl GoDuration {
    /// Parses Go's `time.ParseDuration` syntax (`1h30m`, `-1.5h`, `300ms`, `0`).
    pub fn parse(s: &str) -> Result<Self, DurationError> {
        let _ = s;
        todo!("api crate owner")
    }
    pub fn as_std(self) -> Option<Duration> {
        u64::try_from(self.0).ok().map(Duration::from_nanos)
    }
}

impl std::fmt::Display for GoDuration {
    /// Go's `time.Duration.String()`: `24h0m0s`, `1m0s`, `1.5s`, `0s`, `-1h0m0s`.
    fn fmt(&self, _f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        todo!("api crate owner")
    }
}

/// A duration string Go's `time.ParseDuration` rejects; the text matches Go's error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("time: invalid duration {quoted}")]
pub struct DurationError {
    /// The input, Go-quoted.
    pub quoted: String,
}
