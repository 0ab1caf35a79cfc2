//! Type errors of a checked expression and their rendering in cel-go's layout.

use std::fmt;

use crate::check::{ResolveError, Type};
use crate::syntax::{ParseError, Span, SyntaxErrorKind};

/// At most this many errors are collected for one expression; the walk stops
/// recording after that so a pathological rule cannot build an unbounded report.
pub const MAX_CHECK_ERRORS: usize = 100;

/// What is wrong with the types of an expression. Texts are cel-go's, so users see the
/// messages Kubernetes and approver-policy give.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckErrorKind {
    #[error("undeclared reference to '{name}' (in container '')")]
    UndeclaredReference { name: String },
    #[error(transparent)]
    Call(#[from] ResolveError),
    #[error("undefined field '{field}'")]
    UndefinedField { field: String },
    #[error("type '{ty}' does not support field selection")]
    NoFieldSelection { ty: Type },
    #[error(
        "expression of type '{ty}' cannot be the range of a comprehension (must be list, map, or dynamic)"
    )]
    NotIterable { ty: Type },
    #[error("expected type '{expected}' but found '{found}'")]
    Mismatch { expected: Type, found: Type },
    #[error("got {got}, wanted bool result type")]
    NotBool { got: Type },
}

/// One type error and the source range of the node it is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind}")]
pub struct CheckError {
    pub kind: CheckErrorKind,
    pub span: Span,
    pub(crate) anchor: Anchor,
}

/// Where in its node's span an error points: cel-go places a call at its `(`, an
/// operator at the operator, a select at its `.`. The tree keeps only whole-node spans,
/// so the position is found in the source when the error is rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// The start of the node.
    Start,
    /// The first `ch` at or after byte `after` within the node.
    Char { after: u32, ch: char },
    /// The first character at or after byte `after` that is neither white space nor a
    /// closing parenthesis: a binary operator following its left operand.
    Operator { after: u32 },
}

impl CheckError {
    /// Byte offset in `source` the caret points at.
    pub fn offset(&self, source: &str) -> u32 {
        let (after, wanted): (u32, &dyn Fn(char) -> bool) = match self.anchor {
            Anchor::Start => return self.span.start,
            Anchor::Char { after, ch } => (after, &move |c| c == ch),
            Anchor::Operator { after } => (after, &|c: char| !c.is_whitespace() && c != ')'),
        };
        let end = (self.span.end as usize).min(source.len());
        source
            .get(after as usize..end)
            .and_then(|rest| rest.char_indices().find(|&(_, c)| wanted(c)))
            .and_then(|(i, _)| u32::try_from(i).ok())
            .map_or(self.span.start, |i| after.saturating_add(i))
    }
}

impl CheckError {
    /// `ERROR: <input>:line:column: message`, the source line and a caret under the
    /// column: the parser's layout, so syntax and type errors read alike.
    pub fn render(&self, source: &str) -> String {
        // The parser's error locates the span and cuts the snippet; only its message
        // line is replaced.
        let offset = self.offset(source);
        let at = Span::new(offset, offset);
        let located = ParseError::new(SyntaxErrorKind::Macro(""), at, source);
        let rendered = located.to_string();
        let snippet = rendered.find('\n').and_then(|i| rendered.get(i..)).unwrap_or("");
        format!("ERROR: <input>:{}:{}: {}{snippet}", located.line, located.column, self.kind)
    }
}

/// Every type error found in one expression, in source order of discovery.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckErrors {
    errors: Vec<CheckError>,
}

impl CheckErrors {
    pub(crate) fn new(errors: Vec<CheckError>) -> Self {
        CheckErrors { errors }
    }

    pub(crate) fn single(error: CheckError) -> Self {
        CheckErrors { errors: vec![error] }
    }

    pub fn errors(&self) -> &[CheckError] {
        &self.errors
    }

    /// All errors rendered against `source`, one block per error, as cel-go prints them.
    pub fn render(&self, source: &str) -> String {
        self.errors.iter().map(|e| e.render(source)).collect::<Vec<_>>().join("\n")
    }
}

impl fmt::Display for CheckErrors {
    /// Without the source only byte offsets are known; use [`CheckErrors::render`] for
    /// line, column and caret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for error in &self.errors {
            if !first {
                f.write_str("\n")?;
            }
            first = false;
            write!(f, "at byte {}: {}", error.span.start, error.kind)?;
        }
        Ok(())
    }
}

impl std::error::Error for CheckErrors {}
