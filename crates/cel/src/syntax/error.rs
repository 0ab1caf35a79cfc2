//! Syntax errors with a position and a caret snippet in cel-go's layout.

use super::ast::Span;

/// What is wrong with the source text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SyntaxErrorKind {
    #[error("Syntax error: token recognition error at: '{0}'")]
    UnrecognizedToken(String),
    #[error("Syntax error: unterminated string literal: close it with {0}")]
    UnterminatedString(&'static str),
    #[error("Syntax error: unterminated quoted identifier: close it with '`'")]
    UnterminatedQuotedIdent,
    #[error(
        "Syntax error: invalid character {0:?} in quoted identifier (allowed: letters, digits, '_', '.', '-', '/', ' ')"
    )]
    InvalidQuotedIdent(char),
    #[error("Syntax error: invalid escape sequence '{0}'")]
    InvalidEscape(String),
    #[error("Syntax error: unicode escapes (\\u, \\U) are not allowed in bytes literals")]
    UnicodeEscapeInBytes,
    #[error("invalid int literal: {0} does not fit in a 64-bit signed integer")]
    IntOverflow(String),
    #[error("invalid uint literal: {0} does not fit in a 64-bit unsigned integer")]
    UintOverflow(String),
    #[error("invalid double literal: {0}")]
    InvalidDouble(String),
    #[error("Syntax error: mismatched input '{found}' expecting {expected}")]
    Mismatched { found: String, expected: &'static str },
    #[error("Syntax error: extraneous input '{0}' after the end of the expression")]
    Trailing(String),
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
    marker: String,
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
        let marker = ".".repeat(column - 1);
        Box::new(ParseError { kind, span, line, column, snippet, marker })
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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
                self.line, self.column, self.kind, self.snippet, self.marker
            ),
        }
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
        let err = ParseError::new(SyntaxErrorKind::Trailing("b".into()), Span::new(4, 5), "a + b");
        assert_eq!(
            err.to_string(),
            "ERROR: <input>:1:5: Syntax error: extraneous input 'b' after the end of the expression\n | a + b\n | ....^"
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
