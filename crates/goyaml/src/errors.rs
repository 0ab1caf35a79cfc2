//! Parser errors in yaml.v3's words.
//!
//! yaml.v3 reports libyaml problems as `yaml: line N: <problem>`. The parser used here has
//! its own error kinds; the common ones are mapped to libyaml's problem texts, and the line
//! is the one yaml.v3 prints (see [`libyaml_line`]), which needs the collections open at
//! the failure ([`context`]).

mod context;

use granit_parser::{ErrorKind, ScanError};

use crate::YamlError;

use context::{
    Open, document_indicator_after, empty_flow_entry, end_line, innermost, line_of,
    quoted_scalar_start,
};

fn problem(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::ExpectedBlockMappingKey | ErrorKind::UnexpectedEofBlockMapping => {
            "did not find expected key".to_owned()
        }
        ErrorKind::ExpectedNodeContent
        | ErrorKind::UnexpectedEof
        | ErrorKind::UnclosedFlowCollection { .. } => {
            "did not find expected node content".to_owned()
        }
        ErrorKind::ExpectedFlowMappingSeparator
        | ErrorKind::UnexpectedEofFlowMapping
        | ErrorKind::UnexpectedEofImplicitFlowMapping => {
            "did not find expected ',' or '}'".to_owned()
        }
        ErrorKind::ExpectedFlowSequenceSeparator | ErrorKind::UnexpectedEofFlowSequence => {
            "did not find expected ',' or ']'".to_owned()
        }
        ErrorKind::ExpectedBlockSequenceEntry | ErrorKind::UnexpectedEofBlockSequence => {
            "did not find expected '-' indicator".to_owned()
        }
        ErrorKind::SimpleKeyExpected | ErrorKind::InvalidSimpleKey => {
            "could not find expected ':'".to_owned()
        }
        ErrorKind::MappingValueNotAllowed => {
            "mapping values are not allowed in this context".to_owned()
        }
        ErrorKind::BlockSequenceEntryNotAllowed | ErrorKind::BlockEntryInFlowCollection => {
            "block sequence entries are not allowed in this context".to_owned()
        }
        ErrorKind::UnexpectedCharacter { .. } | ErrorKind::MisplacedFlowCollectionEnd => {
            "found character that cannot start any token".to_owned()
        }
        ErrorKind::TabNotAllowed
        | ErrorKind::TabInBlockIndentation
        | ErrorKind::TabInIndentation
        | ErrorKind::TabAtBlockScalarStart => {
            "found a tab character that violates indentation".to_owned()
        }
        ErrorKind::UnclosedQuotedScalar => "found unexpected end of stream".to_owned(),
        ErrorKind::UnknownQuotedScalarEscape => "found unknown escape character".to_owned(),
        ErrorKind::InvalidUnicodeEscape
        | ErrorKind::InvalidLowSurrogate
        | ErrorKind::MissingLowSurrogate
        | ErrorKind::UnpairedLowSurrogate => {
            "found invalid Unicode character escape code".to_owned()
        }
        ErrorKind::InvalidQuotedScalarHexEscape | ErrorKind::InvalidLowSurrogateHexEscape => {
            "did not find expected hexdecimal number".to_owned()
        }
        ErrorKind::MissingAnchorOrAliasName => {
            "did not find expected alphabetic or numeric character".to_owned()
        }
        ErrorKind::UndeclaredTagHandle => "found undefined tag handle".to_owned(),
        ErrorKind::InvalidTagTerminator => {
            "did not find expected whitespace or line break".to_owned()
        }
        ErrorKind::InvalidBlockScalarHeader => {
            "did not find expected comment or line break".to_owned()
        }
        ErrorKind::InvalidBlockScalarIndent => {
            "found a tab character where an indentation space is expected".to_owned()
        }
        ErrorKind::DocumentIndicatorInQuotedScalar => {
            "found unexpected document indicator".to_owned()
        }
        ErrorKind::RecursionLimitExceeded => {
            format!("exceeded max depth of {}", crate::MAX_DEPTH)
        }
        ErrorKind::InputByteLimitExceeded { .. } => "input too large".to_owned(),
        // Worked around in `reindent`, which recognises this text.
        ErrorKind::InvalidQuotedScalarIndent => crate::reindent::QUOTED_INDENT_PROBLEM.to_owned(),
        // Anything else keeps the parser's own description.
        other => other.to_string(),
    }
}

/// Which libyaml stage reports a problem: yaml.v3 prints scanner lines 1-based and parser
/// lines 0-based (it adds one only for scanner errors).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Scanner,
    Parser,
}

/// The line yaml.v3's `parser.fail` prints, from libyaml's 0-based context and problem
/// marks: the context mark's line when it is not the first line, else the problem mark's,
/// plus one for scanner errors; `None` (no `line N:` at all) when both are on line 0.
fn libyaml_line(stage: Stage, context: usize, problem: usize) -> Option<usize> {
    let line = if context != 0 { context } else { problem };
    if line == 0 {
        return None;
    }
    Some(if stage == Stage::Scanner { line + 1 } else { line })
}

/// What libyaml reports for the parser's error: problem text, stage, and 0-based context
/// and problem lines; `None` where the parser's own text and line are kept.
struct Libyaml {
    problem: String,
    stage: Stage,
    context: usize,
    problem_line: usize,
}

fn libyaml(text: &str, err: &ScanError) -> Option<Libyaml> {
    let at = err.marker().line().saturating_sub(1);
    let problem_text = problem(err.kind());
    let found = context::failure(text);
    let collection = |kind| innermost(&found.open, kind).unwrap_or(at);
    let quoted_start = || quoted_scalar_start(text, found.resume).unwrap_or(at);
    if flow_related(err.kind())
        && let Some(comma) = err.marker().byte_offset().and_then(|at| empty_flow_entry(text, at))
    {
        let problem = "did not find expected node content".to_owned();
        return Some(Libyaml {
            problem,
            stage: Stage::Parser,
            context: comma,
            problem_line: comma,
        });
    }
    let (problem, stage, context, problem_line) = match err.kind() {
        // "while parsing a block mapping" etc.: the context is the collection's start.
        ErrorKind::ExpectedBlockMappingKey | ErrorKind::UnexpectedEofBlockMapping => {
            (problem_text, Stage::Parser, collection(Open::BlockMapping), at)
        }
        ErrorKind::ExpectedBlockSequenceEntry | ErrorKind::UnexpectedEofBlockSequence => {
            (problem_text, Stage::Parser, collection(Open::BlockSequence), at)
        }
        // `[ , x]`: libyaml expects a node where the comma is.
        ErrorKind::UnexpectedEofImplicitFlowMapping if char_at(text, err) == Some(',') => {
            ("did not find expected node content".to_owned(), Stage::Parser, at, at)
        }
        ErrorKind::ExpectedFlowMappingSeparator
        | ErrorKind::UnexpectedEofFlowMapping
        | ErrorKind::UnexpectedEofImplicitFlowMapping => {
            (problem_text, Stage::Parser, collection(Open::FlowMapping), at)
        }
        ErrorKind::ExpectedFlowSequenceSeparator | ErrorKind::UnexpectedEofFlowSequence => {
            (problem_text, Stage::Parser, collection(Open::FlowSequence), at)
        }
        // `{a:[b]}`: in a flow collection libyaml reads `a:` as a plain scalar, which the
        // `[` or `{` then follows where a `,` or the collection's end must be.
        ErrorKind::FlowMappingValueAdjacentCollection => {
            let (kind, start) = context::flow_at(text, &found, err.marker().byte_offset()?)?;
            let problem = if kind == Open::FlowMapping {
                "did not find expected ',' or '}'"
            } else {
                "did not find expected ',' or ']'"
            };
            (problem.to_owned(), Stage::Parser, start, at)
        }
        // `"a" b`: libyaml's scanner reads on after the closing quote; the parser then
        // fails on the next token, depending on where the scalar stood.
        ErrorKind::InvalidTrailingDoubleQuotedScalar
        | ErrorKind::InvalidTrailingSingleQuotedScalar => {
            let offset = err.marker().byte_offset()?;
            let rest = text.get(offset..)?.lines().next().unwrap_or("");
            let in_flow = context::flow_at(text, &found, offset);
            return trailing(text, &found, in_flow, rest, quoted_start(), at);
        }
        // "while parsing a node": context and problem are the node's first token.
        ErrorKind::ExpectedNodeContent | ErrorKind::UndeclaredTagHandle => {
            (problem_text, Stage::Parser, at, at)
        }
        // Scanner errors whose context mark is the scanner's position.
        ErrorKind::MappingValueNotAllowed
        | ErrorKind::BlockSequenceEntryNotAllowed
        | ErrorKind::BlockEntryInFlowCollection
        | ErrorKind::UnexpectedCharacter { .. }
        | ErrorKind::MisplacedFlowCollectionEnd
        // "while scanning a tag" / "a block scalar": the context is the tag's or header's
        // start, on the line the parser reports.
        | ErrorKind::InvalidTagTerminator
        | ErrorKind::InvalidBlockScalarHeader => (problem_text, Stage::Scanner, at, at),
        // "while scanning a quoted scalar": the context is the scalar's start, the problem
        // is where the scanner stopped.
        ErrorKind::UnclosedQuotedScalar => {
            (problem_text, Stage::Scanner, quoted_start(), line_of(text, text.len()))
        }
        ErrorKind::DocumentIndicatorInQuotedScalar => {
            let start = quoted_start();
            let indicator = document_indicator_after(text, start).unwrap_or(at);
            (problem_text, Stage::Scanner, start, indicator)
        }
        // A continuation line that is a document indicator ends the scalar in libyaml too
        // (`reindent` cannot pad it, so this is the final error).
        ErrorKind::InvalidQuotedScalarIndent
            if document_indicator_after(text, at.saturating_sub(1)) == Some(at) =>
        {
            let problem = "found unexpected document indicator".to_owned();
            (problem, Stage::Scanner, quoted_start(), at)
        }
        ErrorKind::UnknownQuotedScalarEscape
        | ErrorKind::InvalidUnicodeEscape
        | ErrorKind::InvalidLowSurrogate
        | ErrorKind::MissingLowSurrogate
        | ErrorKind::UnpairedLowSurrogate
        | ErrorKind::InvalidQuotedScalarHexEscape
        | ErrorKind::InvalidLowSurrogateHexEscape => {
            (problem_text, Stage::Scanner, quoted_start(), at)
        }
        _ => return None,
    };
    Some(Libyaml { problem, stage, context, problem_line })
}

/// libyaml's error for content right after a quoted scalar on its line (`rest`), the scalar
/// starting on 0-based line `start` and the content on `at`; `in_flow` is the innermost
/// flow collection around it.
fn trailing(
    text: &str,
    found: &context::Failure,
    in_flow: Option<(Open, usize)>,
    rest: &str,
    start: usize,
    at: usize,
) -> Option<Libyaml> {
    let make = |problem: &str, stage, context, problem_line| {
        Some(Libyaml { problem: problem.to_owned(), stage, context, problem_line })
    };
    // No simple key is allowed right after a scalar, so a `: ` on the line is refused, and
    // so is one on the lines the plain scalar after the quote continues on.
    if in_flow.is_none() {
        if has_value_indicator(rest) {
            return make("mapping values are not allowed in this context", Stage::Scanner, at, at);
        }
        if !rest.contains(" #")
            && let Some(line) = continued_value_indicator(text, at, found.indent)
        {
            let problem = "mapping values are not allowed in this context";
            return make(problem, Stage::Scanner, line, line);
        }
    }
    if let Some((kind, line)) = in_flow {
        let problem = if kind == Open::FlowMapping {
            "did not find expected ',' or '}'"
        } else {
            "did not find expected ',' or ']'"
        };
        return make(problem, Stage::Parser, line, at);
    }
    match found.open.last() {
        // In a key's place the quoted scalar was a required simple key whose `:` never
        // comes; the scanner notices on the next line with a token.
        Some(&(Open::BlockMapping, _)) if found.children.is_multiple_of(2) => {
            let next = next_token_line(text, at).unwrap_or_else(|| end_line(text));
            make("could not find expected ':'", Stage::Scanner, start, next)
        }
        Some(&(Open::BlockMapping, line)) => {
            make("did not find expected key", Stage::Parser, line, at)
        }
        Some(&(Open::BlockSequence, line)) => {
            make("did not find expected '-' indicator", Stage::Parser, line, at)
        }
        // After the root scalar yaml.v3 stops reading (one document): it accepts what the
        // parser here refuses, which is not a wording difference.
        _ => None,
    }
}

/// The 0-based line after `line` where a plain scalar continued from `line` meets a `: `:
/// its continuation lines are those indented past `indent` (any line at the root), up to a
/// blank-first comment line, a document marker or a comment.
fn continued_value_indicator(text: &str, line: usize, indent: Option<usize>) -> Option<usize> {
    for (n, content) in text.split('\n').enumerate().skip(line + 1) {
        let content = content.strip_suffix('\r').unwrap_or(content);
        let trimmed = content.trim_start_matches(' ');
        if trimmed.trim().is_empty() {
            continue;
        }
        let column = content.len() - trimmed.len();
        let marker = column == 0 && (trimmed.starts_with("---") || trimmed.starts_with("..."));
        if indent.is_some_and(|indent| column <= indent) || marker || trimmed.starts_with('#') {
            return None;
        }
        if has_value_indicator(trimmed) {
            return Some(n);
        }
        if trimmed.contains(" #") {
            return None;
        }
    }
    None
}

/// Whether `rest` holds a `:` followed by white space or the line's end before a comment.
fn has_value_indicator(rest: &str) -> bool {
    let mut previous = ' ';
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '#' if previous.is_whitespace() => return false,
            ':' if chars.peek().is_none_or(|n| n.is_whitespace()) => return true,
            _ => {}
        }
        previous = c;
    }
    false
}

/// The first 0-based line after `line` with something other than white space or a comment.
fn next_token_line(text: &str, line: usize) -> Option<usize> {
    text.split('\n').enumerate().skip(line + 1).find_map(|(n, l)| {
        let content = l.trim_start_matches([' ', '\t', '\r']);
        (!content.is_empty() && !content.starts_with('#')).then_some(n)
    })
}

/// Errors the parser can raise inside a flow collection after reading past an entry
/// libyaml refuses (see [`empty_flow_entry`]).
fn flow_related(kind: &ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::ExpectedFlowMappingSeparator
            | ErrorKind::ExpectedFlowSequenceSeparator
            | ErrorKind::UnexpectedEofFlowMapping
            | ErrorKind::UnexpectedEofFlowSequence
            | ErrorKind::UnexpectedEofImplicitFlowMapping
            | ErrorKind::FlowMappingValueAdjacentCollection
            | ErrorKind::ExpectedNodeContent
            | ErrorKind::InvalidTrailingDoubleQuotedScalar
            | ErrorKind::InvalidTrailingSingleQuotedScalar
    )
}

/// The character at the error's position.
fn char_at(text: &str, err: &ScanError) -> Option<char> {
    text.get(err.marker().byte_offset()?..)?.chars().next()
}

/// A parser error as yaml.v3 words it. `text` is the document the parser failed on.
pub fn parse_error(text: &str, err: &ScanError) -> String {
    let (problem, line) = match libyaml(text, err) {
        Some(l) => (l.problem, libyaml_line(l.stage, l.context, l.problem_line)),
        // Kept as the parser reports it (`reindent` reads these lines back).
        None => (problem(err.kind()), Some(err.marker().line()).filter(|&line| line != 0)),
    };
    match line {
        Some(line) => format!("yaml: line {line}: {problem}"),
        None => format!("yaml: {problem}"),
    }
}

/// The final error of [`crate::from_yaml`] on `text`, in libyaml's words where the retries in
/// `reindent` left the parser's own: a quoted scalar's continuation line that is a document
/// indicator cannot be padded, and libyaml ends the scalar there with "found unexpected
/// document indicator" (its context is the scalar's start).
pub fn finish(text: &str, error: YamlError) -> YamlError {
    let Some(line) = error
        .0
        .strip_prefix("yaml: line ")
        .and_then(|rest| rest.strip_suffix(crate::reindent::QUOTED_INDENT_PROBLEM))
        .and_then(|rest| rest.strip_suffix(": "))
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return error;
    };
    // 0-based, and never the first line: a continuation line follows the scalar's start.
    let indicator = line.saturating_sub(1);
    if indicator == 0 || document_indicator_after(text, indicator - 1) != Some(indicator) {
        return error;
    }
    // The scalar the parser first refused is the one libyaml is still reading when its
    // closing quote only comes after the indicator (or never).
    let found = context::failure(text);
    let Some(open) = context::quoted_scalar_opening(text, found.resume) else { return error };
    if context::quoted_scalar_end(text, open).is_some_and(|end| line_of(text, end) < indicator) {
        return error;
    }
    let start = line_of(text, open);
    let line = libyaml_line(Stage::Scanner, start, indicator);
    YamlError(match line {
        Some(line) => format!("yaml: line {line}: found unexpected document indicator"),
        None => "yaml: found unexpected document indicator".to_owned(),
    })
}

#[cfg(test)]
mod tests;
