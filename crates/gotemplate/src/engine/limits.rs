//! Bounds on one execution (tenants write the templates) and their messages.

use std::fmt;
use std::time::Duration;

/// Bounds on one execution; tenants write the templates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Iterations of every `range` of one execution together. `0` disables the bound
    /// (gotmpl's convention); do not configure that for tenant templates.
    pub max_range_iterations: u64,
    /// Bytes one execution may write.
    pub max_output_bytes: usize,
    /// Bytes of template source accepted by [`crate::Engine::parse`].
    pub max_source_bytes: usize,
    /// Bytes of values one execution may produce, all together: every function result
    /// (measured by [`crate::budget::weight`], so a dictionary holding the same value twice
    /// counts it twice) and every value a function was about to build
    /// ([`crate::budget::check_alloc`]). Not the memory in use at any one time: building a
    /// string by appending to it in a loop counts every intermediate string.
    pub max_value_bytes: usize,
    /// How deeply a value a function produces may nest (lists and maps within each
    /// other): printing, comparing and serializing values recurse, and a value nested a
    /// hundred thousand levels deep would overflow the stack.
    pub max_value_depth: usize,
    /// Steps of one execution: function calls (builtins included), `{{template}}` calls and
    /// `range` iterations. `0` disables the bound.
    pub max_steps: u64,
    /// Wall-clock time of one execution, checked at every step. `None` disables the bound.
    pub max_duration: Option<Duration>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_range_iterations: 100_000,
            max_output_bytes: 4 * 1024 * 1024,
            max_source_bytes: 1024 * 1024,
            max_value_bytes: 64 * 1024 * 1024,
            max_value_depth: 100,
            max_steps: 1_000_000,
            max_duration: Some(Duration::from_secs(10)),
        }
    }
}

/// gotmpl's fixed bound on nested `if`/`with`/`range`/`template` during execution (Go's is
/// 100,000 `template` calls; gotmpl keeps the native stack small instead).
pub(crate) const MAX_EXEC_DEPTH: usize = 200;

pub(crate) fn output_message(limit: usize) -> String {
    format!("the output exceeds the limit of {limit} bytes")
}

pub(crate) fn range_message(limit: u64) -> String {
    format!("the range iterations exceed the limit of {limit}")
}

pub(crate) fn depth_message() -> String {
    // Go's wording for its own (template-call) depth bound, with gotmpl's number.
    format!("exceeded maximum template depth ({MAX_EXEC_DEPTH})")
}

pub(crate) fn source_message(len: usize, limit: usize) -> String {
    format!("the template source is {len} bytes, over the limit of {limit} bytes")
}

/// Collects output and refuses to grow past the limit. gotmpl turns the refusal into its
/// write error; `exceeded` tells the engine it was the bound, not a real write failure.
pub(crate) struct BoundedOutput {
    pub text: String,
    pub limit: usize,
    pub exceeded: bool,
}

impl BoundedOutput {
    pub(crate) fn new(limit: usize) -> Self {
        Self { text: String::new(), limit, exceeded: false }
    }
}

impl fmt::Write for BoundedOutput {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.text.len().saturating_add(s.len()) > self.limit {
            self.exceeded = true;
            return Err(fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}
