//! Accepting quoted scalars whose continuation lines are not indented past their block.
//!
//! libyaml (and so yaml.v3) never checks the indentation of a single- or double-quoted
//! scalar's continuation lines: `key: "a\nb"` with `b` at column 0 reads as `a b`. The parser
//! used here rejects such a line ("invalid indentation in multiline quoted scalar") even in
//! its lenient mode. A continuation line's leading white space is dropped when the scalar is
//! folded, so indenting that line further changes nothing but the parser's verdict: on that
//! error the decoder pads the reported line and parses again.
//!
//! The same loop retries after [`crate::comment_gap`]'s fix for comments without white space
//! before them. Each retry parses the whole text again, so the retries are bounded by a work
//! budget (the parsed bytes summed over retries, at most a small multiple of
//! [`crate::MAX_INPUT_BYTES`]); past it the parser's error stands.

use std::borrow::Cow;

/// The parser's text for the refusal this module works around.
pub const QUOTED_INDENT_PROBLEM: &str = "invalid indentation in multiline quoted scalar";

/// Total bytes the retries may parse: plenty for documents with a few such scalars, and a
/// small multiple of [`crate::MAX_INPUT_BYTES`] at worst.
const RETRY_BUDGET_BYTES: usize = 4 * crate::MAX_INPUT_BYTES;

/// The parser's text when a tab starts a line where it expects indentation, which it also
/// says for a tab at the start of a quoted scalar's continuation line (libyaml accepts it).
pub const TAB_PROBLEM: &str = "found a tab character that violates indentation";

/// Decodes `text` with `decode`, padding each continuation line the parser refuses.
///
/// A tab error is not always inside a quoted scalar, so lines padded for one are confirmed
/// afterwards: each must lie within a quoted scalar of the padded text, else the first
/// error stands (padding a block line could change the document's structure).
pub fn decode_lenient<T>(
    text: &str,
    mut decode: impl FnMut(&str) -> Result<T, crate::YamlError>,
) -> Result<T, crate::YamlError> {
    let mut current = Cow::Borrowed(text);
    let mut result = decode(text);
    let mut first_error = None;
    let mut tab_lines = Vec::new();
    let mut spent = 0usize;
    let mut last_line = None;
    while let Err(error) = &result {
        spent = spent.saturating_add(current.len());
        if spent > RETRY_BUDGET_BYTES {
            break;
        }
        let retried = match refused_line(&error.0) {
            Some((line, tab)) => {
                // No progress on the same line: the error stands.
                if last_line == Some(line) {
                    break;
                }
                let Some(padded) = pad_line(&current, line) else { break };
                if tab {
                    tab_lines.push(line);
                }
                last_line = Some(line);
                padded
            }
            None => {
                // Finding what the parser refused parses the text once more. Each retry
                // removes one refusal (a `#` gets a space before it, a block scalar header
                // becomes a quoted scalar, content after a quoted root becomes a comment), so
                // none can repeat itself.
                spent = spent.saturating_add(current.len());
                let Some(error) = crate::decode::first_parser_error(&current) else { break };
                let fixed = crate::comment_gap::separate(&current, &error)
                    .or_else(|| crate::empty_block::replace(&current, &error))
                    .or_else(|| crate::trailing::comment_out(&current, &error));
                let Some(fixed) = fixed else { break };
                fixed
            }
        };
        first_error.get_or_insert_with(|| error.clone());
        current = Cow::Owned(retried);
        result = decode(&current);
    }
    if let Some(first) = first_error
        && !tab_lines.is_empty()
        && !inside_quoted_scalars(&current, &tab_lines)
    {
        return Err(first);
    }
    result
}

/// The line of a refusal this module works around, and whether it is the tab one.
fn refused_line(message: &str) -> Option<(usize, bool)> {
    let rest = message.strip_prefix("yaml: line ")?;
    let (number, problem) = rest.split_once(": ")?;
    let tab = match problem {
        QUOTED_INDENT_PROBLEM => false,
        TAB_PROBLEM => true,
        _ => return None,
    };
    Some((number.parse().ok()?, tab))
}

/// Whether every line in `lines` is a continuation line of a quoted scalar of `text` (as
/// far as the text parses).
fn inside_quoted_scalars(text: &str, lines: &[usize]) -> bool {
    let mut covered = vec![false; lines.len()];
    for next in crate::decode::parser(text) {
        let Ok((event, span)) = next else { break };
        if let granit_parser::Event::Scalar(_, style, ..) = event
            && matches!(
                style,
                granit_parser::ScalarStyle::SingleQuoted | granit_parser::ScalarStyle::DoubleQuoted
            )
        {
            let (first, last) = (span.start.line(), span.end.line());
            for (line, seen) in lines.iter().zip(covered.iter_mut()) {
                *seen |= first < *line && *line <= last;
            }
        }
    }
    covered.iter().all(|&seen| seen)
}

/// `text` with line `line` (1-based) indented past every line before it, which is past any
/// block that can enclose the scalar (that block starts on an earlier line). `None` when the
/// line is a document marker at column 0, which ends the scalar with an error in yaml.v3 too.
fn pad_line(text: &str, line: usize) -> Option<String> {
    let mut start = 0;
    let mut widest = 0;
    for _ in 1..line {
        let end = text[start..].find('\n')? + start;
        widest = widest.max(text[start..end].chars().count());
        start = end + 1;
    }
    let rest = &text[start..];
    let marker = rest.starts_with("---") || rest.starts_with("...");
    if marker && rest[3..].chars().next().is_none_or(|c| matches!(c, ' ' | '\t' | '\r' | '\n')) {
        return None;
    }
    let mut padded = String::with_capacity(text.len() + widest + 1);
    padded.push_str(&text[..start]);
    padded.extend(std::iter::repeat_n(' ', widest + 1));
    padded.push_str(rest);
    (padded.len() <= crate::MAX_INPUT_BYTES).then_some(padded)
}
