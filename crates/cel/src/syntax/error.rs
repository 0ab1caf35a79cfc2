//! Syntax errors with a position and a caret snippet in cel-go's layout.

use super::ast::Span;
use super::expected::TokenSet;

/// What is wrong with the source text, in cel-go's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxErrorKind {
    /// Text the grammar's lexer cannot turn into a token: from the token's start up to
    /// and including the first character that cannot continue it.
    #[error("Syntax error: token recognition error at: '{0}'")]
    UnrecognizedToken(String),
    /// A string or bytes literal whose escapes the lexer accepts but that does not decode.
    #[error("{0}")]
    Unescape(&'static str),
    #[error("invalid int literal")]
    IntOverflow(String),
    #[error("invalid uint literal")]
    UintOverflow(String),
    #[error("invalid double literal")]
    InvalidDouble(String),
    #[error("Syntax error: mismatched input '{found}' expecting {expected}")]
    Mismatched { found: String, expected: TokenSet },
    /// A token the parser skipped to go on (ANTLR's single-token deletion).
    #[error("Syntax error: extraneous input '{found}' expecting {expected}")]
    Extraneous { found: String, expected: TokenSet },
    /// A token the parser assumed to go on (ANTLR's single-token insertion).
    #[error("Syntax error: missing {missing} at '{found}'")]
    Missing { missing: TokenSet, found: String },
    /// No alternative of a grammar decision fits the tokens from `{0}`'s start.
    #[error("Syntax error: no viable alternative at input '{0}'")]
    NoViableAlternative(String),
    /// More syntax errors than cel-go reports; it stops parsing there.
    #[error("Syntax error: More than {0} syntax errors")]
    TooManyErrors(usize),
    #[error("reserved identifier: {0}")]
    ReservedIdentifier(String),
    /// The grammar's nesting (per rule, as cel-go's parse listener counts it).
    #[error("expression recursion limit exceeded: {0}")]
    NestingTooDeep(u32),
    /// Chains of operators, ternaries, selections, calls and indexes (cel-go's tree walk).
    #[error("max recursion depth exceeded")]
    ChainTooDeep,
    #[error("expression code point size exceeds limit: size: {size}, limit {limit}")]
    TooLarge { size: usize, limit: usize },
    #[error("struct type name must be a plain (optionally dot-qualified) identifier")]
    InvalidStructName,
    #[error("{0}")]
    Macro(&'static str),
}

/// A syntax error located in the source: `kind` says what, `line`:`column` where.
///
/// `Display` renders cel-go's layout so messages read the same as in Kubernetes:
/// `ERROR: <input>:1:5: message`, then the offending line and a caret under the column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    pub kind: SyntaxErrorKind,
    /// Byte range of the offending text.
    pub span: Span,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in code points.
    pub column: usize,
    snippet: String,
    /// Further errors of the same parse, after this one in source order; cel-go
    /// reports every error it finds, one per `ERROR:` block.
    more: Vec<ParseError>,
}

impl ParseError {
    /// Locates `kind` at byte offset `span.start` of `source`. Boxed because the
    /// parser passes errors up through many small frames.
    pub(crate) fn new(kind: SyntaxErrorKind, span: Span, source: &str) -> Box<Self> {
        let offset = floor_char_boundary(source, span.start as usize);
        let before = source.get(..offset).unwrap_or("");
        let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
        let line = 1 + count_line_breaks(before);
        let prefix = source.get(line_start..offset).unwrap_or("");
        let column = prefix.chars().count() + 1;
        let rest = source.get(line_start..).unwrap_or("");
        let snippet = rest.split(['\n', '\r']).next().unwrap_or("").to_owned();
        Box::new(ParseError { kind, span, line, column, snippet, more: Vec::new() })
    }

    /// All errors of one parse as one, in cel-go's order: by line and column, those at
    /// the same place in the order they were found. `None` when there are none.
    pub(crate) fn combine(mut errors: Vec<ParseError>) -> Option<Box<ParseError>> {
        errors.sort_by_key(|e| (e.line, e.column));
        let mut errors = errors.into_iter();
        let mut first = errors.next()?;
        first.more.extend(errors);
        Some(Box::new(first))
    }

    /// This error and the ones after it.
    pub fn all(&self) -> impl Iterator<Item = &ParseError> {
        std::iter::once(self).chain(self.more.iter())
    }

    fn fmt_one(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            // cel-go reports its size and recursion limits without a location (`-1:0`) and so
            // without the source line.
            SyntaxErrorKind::NestingTooDeep(_)
            | SyntaxErrorKind::ChainTooDeep
            | SyntaxErrorKind::TooLarge { .. } => {
                write!(f, "ERROR: <input>:-1:0: {}", self.kind)
            }
            // In an empty source cel-go puts the end of input at column 0 and has no line
            // to show.
            _ if self.snippet.is_empty() && self.line == 1 && self.column == 1 => {
                write!(f, "ERROR: <input>:1:0: {}", self.kind)
            }
            _ => write!(
                f,
                "ERROR: <input>:{}:{}: {}\n | {}\n | {}^",
                self.line,
                self.column,
                self.kind,
                self.snippet,
                ".".repeat(self.column - 1)
            ),
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, error) in self.all().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            error.fmt_one(f)?;
        }
        Ok(())
    }
}

/// Counts `\n`, `\r\n` and lone `\r` each as one line break, as the grammar's NEWLINE does.
fn count_line_breaks(text: &str) -> usize {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .count()
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_cel_go_layout() {
        let kind = SyntaxErrorKind::Extraneous { found: "b".into(), expected: TokenSet::EOF };
        let err = ParseError::new(kind, Span::new(4, 5), "a + b");
        assert_eq!(
            err.to_string(),
            "ERROR: <input>:1:5: Syntax error: extraneous input 'b' expecting <EOF>\n | a + b\n | ....^"
        );
    }

    #[test]
    fn column_counts_code_points_and_lines_count_all_breaks() {
        let src = "'é'\r\nx\ry + ü";
        let offset = src.rfind('ü').unwrap_or(0);
        let err = ParseError::new(
            SyntaxErrorKind::ReservedIdentifier("ü".into()),
            Span::new(offset as u32, offset as u32 + 2),
            src,
        );
        assert_eq!((err.line, err.column), (3, 5));
        assert!(err.to_string().ends_with("\n | y + ü\n | ....^"));
    }
}
