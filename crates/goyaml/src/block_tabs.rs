//! yaml.v3's refusal of tabs where a block scalar expects indentation spaces.
//!
//! libyaml reads a block scalar's indentation spaces line by line; a tab met before the
//! indentation is complete is an error ("found a tab character where an indentation space
//! is expected"). Without an indentation indicator the indentation is unknown until the
//! first non-blank line, so a tab after the leading spaces of that line (or of a blank line
//! before it) is refused; afterwards a line with fewer spaces than the indentation followed
//! by a tab is. The parser used here reads those tabs as content, so both decoding paths
//! check block scalars against the source text.
//!
//! Not covered: scalars with an explicit indentation indicator (their indentation depends on
//! the enclosing block's, which the event does not carry); those keep the parser's reading.

use granit_parser::{ScalarStyle, Span};

use crate::YamlError;

/// The error for a refused tab, or `Ok` when the block scalar at `span` has none.
///
/// The span starts at the scalar's first content character (after any blank lines), so the
/// header is the nearest line before it that is not blank, or the start's own line when the
/// scalar has no content.
pub fn check(text: &str, style: ScalarStyle, span: &Span) -> Result<(), YamlError> {
    if !matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
        return Ok(());
    }
    let (Some(start), Some(end)) = (span.start.byte_offset(), span.end.byte_offset()) else {
        return Ok(());
    };
    if start > text.len() || end > text.len() || !text.is_char_boundary(start) {
        return Ok(());
    }
    let Some((header_start, header_end, walked)) = header(text, start) else { return Ok(()) };
    if indicator(&text[header_start..header_end])
        .is_none_or(|i| i.contains(|c: char| c.is_ascii_digit()))
    {
        return Ok(());
    }
    let header_line = span.start.line().saturating_sub(walked);
    let body_start = (header_end + 1).min(text.len());
    // The line that ends the scalar is read for indentation too.
    let body_end = text[end..].find('\n').map_or(text.len(), |i| end + i).max(body_start);
    let mut indent: Option<usize> = None;
    for (offset, line) in text[body_start..body_end].split('\n').enumerate() {
        let spaces = line.len() - line.trim_start_matches(' ').len();
        let after = line[spaces..].chars().next();
        let refused = match indent {
            None => after == Some('\t'),
            Some(indent) => spaces < indent && after == Some('\t'),
        };
        if refused {
            // yaml.v3 reports a scanner error at its context (the header's line) unless that
            // is the document's first line, where it falls back to the problem's line.
            let line = if header_line > 1 { header_line } else { header_line + 1 + offset };
            return Err(YamlError(format!(
                "yaml: line {line}: found a tab character where an indentation space is expected"
            )));
        }
        if indent.is_none() && !matches!(after, None | Some('\r')) {
            indent = Some(spaces.max(1));
        }
    }
    Ok(())
}

/// The block scalar indicator (`|`, `>-`, `|2+`, ...) ending a header line, before any comment.
pub fn indicator(line: &str) -> Option<&str> {
    let line = line.split(" #").next().unwrap_or_default();
    let line = line.split("\t#").next().unwrap_or_default();
    let token = line.trim_end().rsplit([' ', '\t']).next()?;
    let valid = token.starts_with(['|', '>'])
        && token[1..].chars().all(|c| matches!(c, '+' | '-' | '1'..='9'));
    valid.then_some(token)
}

/// The header line of the block scalar whose content starts at byte `start`: its start, the
/// offset of its line break, and how many lines lie between it and `start`'s line. `None`
/// when the line found does not end with a block scalar indicator (the span of a scalar
/// without content does not always start where this expects); the caller then trusts the
/// parser.
pub fn header(text: &str, start: usize) -> Option<(usize, usize, usize)> {
    let found = find_header(text, start)?;
    indicator(&text[found.0..found.1]).map(|_| found)
}

fn find_header(text: &str, start: usize) -> Option<(usize, usize, usize)> {
    let blank = |line: &str| line.chars().all(|c| matches!(c, ' ' | '\t' | '\r'));
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut at = line_start(start);
    if !blank(&text[at..start]) {
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        return Some((at, line_end, 0));
    }
    let mut walked = 0;
    while at > 0 {
        let previous = line_start(at - 1);
        walked += 1;
        if !blank(&text[previous..at - 1]) {
            return Some((previous, at - 1, walked));
        }
        at = previous;
    }
    None
}

/// The indentation of the block scalar whose content starts at byte `start`: the explicit
/// indicator added to the enclosing block's indentation, as libyaml adds it, or the first
/// content line's spaces. `None` when the header is not found.
pub fn indentation(text: &str, start: usize) -> Option<usize> {
    let (header_start, header_end, _) = header(text, start)?;
    let line = &text[header_start..header_end];
    let token = indicator(line)?;
    let explicit = token.chars().find_map(|c| c.to_digit(10));
    match explicit {
        Some(digit) => {
            // `token` borrows from `line`, so its column is a pointer difference.
            let column = token.as_ptr() as usize - line.as_ptr() as usize;
            Some(enclosing_block(&line[..column]) + digit as usize)
        }
        None => {
            let body = text.get(header_end + 1..)?;
            let first = body.split('\n').find(|l| !l.trim_matches([' ', '\r']).is_empty())?;
            Some(first.len() - first.trim_start_matches(' ').len())
        }
    }
}

/// The column of the innermost block collection a header line opens or continues before its
/// indicator: the last `- ` or `? ` entry, or a `key: ` after them (`- - >1+` is inside the
/// sequence at column 2, `- a: |2` inside the mapping at column 2). A line with none of them
/// (`|2` alone, `--- |2`) falls back to its own indentation, which is the enclosing block's
/// only when it is a document's top level; the previous lines would tell, and are not read.
fn enclosing_block(prefix: &str) -> usize {
    let mut at = prefix.len() - prefix.trim_start_matches(' ').len();
    let mut column = at;
    while let Some(rest) = prefix.get(at..)
        && (rest.starts_with("- ") || rest.starts_with("? "))
    {
        column = at;
        at += 1;
        at += prefix[at..].len() - prefix[at..].trim_start_matches(' ').len();
    }
    if prefix[at..].contains(": ") {
        column = at;
    }
    column
}
