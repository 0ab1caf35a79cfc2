//! Compile error texts in cel-go's layout:
//!
//! ```text
//! ERROR: <input>:1:5: Syntax error: ...
//!  | self = 'a'
//!  | .....^
//! ```
//!
//! Rendered here rather than with the `cel` crate's `Display`, which panics when a
//! position's column exceeds what `format!` padding accepts.

use crate::CompileError;
use cel::ParseErrors;

/// At most this many errors are listed; a rule with more gets a count of the rest.
const MAX_LISTED: usize = 10;

pub(crate) fn from_parse_errors(rule: &str, errors: &ParseErrors) -> CompileError {
    let mut lines: Vec<String> = errors
        .errors
        .iter()
        .take(MAX_LISTED)
        .map(|e| {
            let line = usize::try_from(e.pos.0).unwrap_or(0);
            let column = usize::try_from(e.pos.1).unwrap_or(0);
            render(rule, line, column, &e.msg)
        })
        .collect();
    if errors.errors.len() > MAX_LISTED {
        lines.push(format!("... and {} more errors", errors.errors.len() - MAX_LISTED));
    }
    if lines.is_empty() {
        lines.push(render(rule, 0, 0, "Syntax error"));
    }
    CompileError::new(lines.join("\n"))
}

/// An error about the expression at byte `offset` of `rule`.
pub(crate) fn at_offset(rule: &str, offset: Option<u32>, message: &str) -> CompileError {
    let (line, column) = offset
        .and_then(|offset| usize::try_from(offset).ok())
        .and_then(|offset| rule.get(..offset))
        .map_or((0, 0), line_and_column);
    CompileError::new(render(rule, line, column, message))
}

/// 1-based line and column (in characters) of the end of `before`.
fn line_and_column(before: &str) -> (usize, usize) {
    let line = before.matches('\n').count() + 1;
    let start_of_line = before.rfind('\n').map_or(0, |newline| newline + 1);
    let column = before.get(start_of_line..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// `line` and `column` are 1-based; 0 means unknown, and omits the snippet.
fn render(rule: &str, line: usize, column: usize, message: &str) -> String {
    let mut text = format!("ERROR: <input>:{line}:{column}: {message}");
    let snippet = line.checked_sub(1).and_then(|index| rule.lines().nth(index));
    if let (Some(snippet), Some(indent)) = (snippet, column.checked_sub(1))
        && indent <= snippet.chars().count()
    {
        text.push_str(&format!("\n | {snippet}\n | {}^", ".".repeat(indent)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_snippet_with_a_caret_under_the_column() {
        assert_eq!(
            render("self = 'a'", 1, 6, "Syntax error: token recognition error at: '= '"),
            "ERROR: <input>:1:6: Syntax error: token recognition error at: '= '\n \
             | self = 'a'\n \
             | .....^"
        );
    }

    #[test]
    fn renders_the_right_line_of_a_multi_line_rule() {
        assert_eq!(
            at_offset("'é' &&\n  foo", Some(10), "undeclared reference to 'foo'").message,
            "ERROR: <input>:2:3: undeclared reference to 'foo'\n |   foo\n | ..^"
        );
    }

    #[test]
    fn omits_the_snippet_when_the_position_is_unknown_or_out_of_range() {
        assert_eq!(render("x", 0, 0, "m"), "ERROR: <input>:0:0: m");
        assert_eq!(render("x", 1, 70000, "m"), "ERROR: <input>:1:70000: m");
        assert_eq!(render("x", 5, 1, "m"), "ERROR: <input>:5:1: m");
        assert_eq!(at_offset("x", None, "m").message, "ERROR: <input>:0:0: m");
    }
}
