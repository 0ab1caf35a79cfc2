//! Parser errors in yaml.v3's words.
//!
//! yaml.v3 reports libyaml problems as `yaml: line N: <problem>`. The parser used here has
//! its own error kinds; the common ones are mapped to libyaml's problem texts. The line is
//! the parser's error position (1-based), which for some parser errors differs from the
//! context line libyaml reports.

use granit_parser::{ErrorKind, ScanError};

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

/// A parser error as yaml.v3 words it.
pub fn parse_error(err: &ScanError) -> String {
    let line = err.marker().line();
    let text = problem(err.kind());
    if line == 0 { format!("yaml: {text}") } else { format!("yaml: line {line}: {text}") }
}
