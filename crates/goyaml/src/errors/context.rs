//! What libyaml would know when it fails: the collections open at the failure.
//!
//! libyaml reports many problems with the line of a *context* mark (the start of the block
//! mapping, sequence or flow collection being parsed). The parser used here reports only
//! the problem's position, so on the error path the text is parsed again up to the same
//! failure, keeping the stack of open collections. This runs once per failed document and
//! costs one more linear parse.

use std::iter::Peekable;
use std::str::CharIndices;

use granit_parser::Event;

/// A collection libyaml would have on its marks stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Open {
    BlockMapping,
    BlockSequence,
    FlowMapping,
    FlowSequence,
    /// `[a: b]`: a single pair inside a flow sequence, which libyaml parses without marks.
    FlowPair,
}

/// The parser's state when it failed.
pub struct Failure {
    /// The open collections, outermost first, each with its 0-based start line.
    pub open: Vec<(Open, usize)>,
    /// Byte offset where the last event before the failure ended.
    pub resume: usize,
    /// How many nodes the innermost open collection holds (keys and values counted apart).
    pub children: usize,
    /// The column of the innermost open block collection (libyaml's indentation), if any.
    pub indent: Option<usize>,
}

/// Parses `text` again up to its failure.
pub fn failure(text: &str) -> Failure {
    let mut open = Vec::new();
    let mut columns: Vec<usize> = Vec::new();
    let mut children: Vec<usize> = Vec::new();
    let mut resume = 0;
    for next in crate::decode::parser(text) {
        let Ok((event, span)) = next else { break };
        if let Some(end) = span.end.byte_offset() {
            resume = resume.max(end);
        }
        let first = span.start.byte_offset().and_then(|at| text[at..].chars().next());
        let line = span.start.line().saturating_sub(1);
        let column = span.start.col();
        match event {
            Event::MappingStart(..) => {
                let kind = match (first, open.last()) {
                    (Some('{'), _) => Open::FlowMapping,
                    (_, Some((Open::FlowSequence | Open::FlowMapping | Open::FlowPair, _))) => {
                        Open::FlowPair
                    }
                    _ => Open::BlockMapping,
                };
                add_child(&mut children);
                open.push((kind, line));
                columns.push(column);
                children.push(0);
            }
            Event::SequenceStart(..) => {
                let kind =
                    if first == Some('[') { Open::FlowSequence } else { Open::BlockSequence };
                add_child(&mut children);
                open.push((kind, line));
                columns.push(column);
                children.push(0);
            }
            Event::MappingEnd | Event::SequenceEnd => {
                open.pop();
                columns.pop();
                children.pop();
            }
            Event::Scalar(..) | Event::Alias(..) | Event::UnresolvedAlias(..) => {
                add_child(&mut children);
            }
            _ => {}
        }
    }
    let children = children.last().copied().unwrap_or(0);
    let indent = open
        .iter()
        .zip(&columns)
        .rev()
        .find(|((kind, _), _)| matches!(kind, Open::BlockMapping | Open::BlockSequence))
        .map(|(_, &column)| column);
    Failure { open, resume, children, indent }
}

/// The 0-based line of the quoted scalar the scanner was reading when it failed.
pub fn quoted_scalar_start(text: &str, resume: usize) -> Option<usize> {
    quoted_scalar_opening(text, resume).map(|at| line_of(text, at))
}

/// Byte offset of the opening quote of the quoted scalar the scanner was reading: the first
/// quote after the last event (only indicators, properties, white space and comments can
/// come between).
pub fn quoted_scalar_opening(text: &str, resume: usize) -> Option<usize> {
    let rest = text.get(resume..)?;
    let mut comment = false;
    let mut previous = ' ';
    for (at, c) in rest.char_indices() {
        match c {
            '\n' | '\r' => comment = false,
            '#' if previous.is_whitespace() => comment = true,
            '"' | '\'' if !comment => return Some(resume + at),
            _ => {}
        }
        previous = c;
    }
    None
}

/// Byte offset of the closing quote of the quoted scalar opening at byte `open`, if any.
pub fn quoted_scalar_end(text: &str, open: usize) -> Option<usize> {
    let quote = text.get(open..)?.chars().next()?;
    let mut chars = text.get(open + 1..)?.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if quote == '"' && c == '\\' {
            chars.next();
        } else if c == quote {
            if quote == '\'' && chars.next_if(|&(_, n)| n == '\'').is_some() {
                continue;
            }
            return Some(open + 1 + at);
        }
    }
    None
}

/// The 0-based libyaml line of byte offset `at`.
pub fn line_of(text: &str, at: usize) -> usize {
    text.get(..at)
        .map_or(0, |before| end_line(before).saturating_sub(usize::from(!ends_with_break(before))))
}

fn ends_with_break(text: &str) -> bool {
    text.is_empty() || text.ends_with(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}'])
}

fn add_child(children: &mut [usize]) {
    if let Some(count) = children.last_mut() {
        *count += 1;
    }
}

/// The 0-based start line of the innermost open collection of `kind`.
pub fn innermost(open: &[(Open, usize)], kind: Open) -> Option<usize> {
    open.iter().rev().find(|(k, _)| *k == kind).map(|&(_, line)| line)
}

/// libyaml's 0-based line of the end of the stream: one per line break (CRLF counts once),
/// plus one when the text does not end with a break (the scanner starts a new line there).
pub fn end_line(text: &str) -> usize {
    let mut lines = 0;
    let mut chars = text.chars().peekable();
    let mut last_break = true;
    while let Some(c) = chars.next() {
        last_break = true;
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                lines += 1;
            }
            '\n' | '\u{85}' | '\u{2028}' | '\u{2029}' => lines += 1,
            _ => last_break = false,
        }
    }
    if text.is_empty() || last_break { lines } else { lines + 1 }
}

/// The 0-based line of the first document indicator (`---` or `...` at column 0, then white
/// space or the end) on a line after the 0-based line `after`.
pub fn document_indicator_after(text: &str, after: usize) -> Option<usize> {
    text.split('\n').enumerate().skip(after + 1).find_map(|(n, line)| {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let rest = line.strip_prefix("---").or_else(|| line.strip_prefix("..."))?;
        (rest.is_empty() || rest.starts_with([' ', '\t'])).then_some(n)
    })
}

/// The innermost flow collection (`[` or `{`) open at byte `offset`, with its 0-based start
/// line. The parser reads tokens ahead of its events, so collections opened after the last
/// event are found in the text between it and `offset` (skipping quoted scalars and comments).
pub fn flow_at(text: &str, found: &Failure, offset: usize) -> Option<(Open, usize)> {
    let mut stack: Vec<(Open, usize)> = found
        .open
        .iter()
        .copied()
        .filter(|(k, _)| matches!(k, Open::FlowMapping | Open::FlowSequence))
        .collect();
    let region = text.get(found.resume..offset)?;
    let mut chars = region.char_indices().peekable();
    let mut previous = ' ';
    let mut token_start = true;
    while let Some((at, c)) = chars.next() {
        let line = || line_of(text, found.resume + at);
        match c {
            '#' if previous.is_whitespace() => {
                while chars.next_if(|&(_, c)| c != '\n').is_some() {}
            }
            '\'' | '"' if token_start => {
                skip_quoted(&mut chars, c);
            }
            '[' | '{' if token_start || !stack.is_empty() => {
                let kind = if c == '[' { Open::FlowSequence } else { Open::FlowMapping };
                stack.push((kind, line()));
            }
            ']' | '}' if !stack.is_empty() => {
                stack.pop();
            }
            _ => {}
        }
        // A new token can start after white space or an indicator.
        token_start = c.is_whitespace() || matches!(c, ',' | '[' | '{' | ':' | '-' | '?');
        previous = c;
    }
    stack.last().copied()
}

/// The 0-based line of the first `,` in a flow collection before byte `until` that follows
/// `[`, `{` or another `,` with only white space and comments between: an entry libyaml
/// refuses ("did not find expected node content") where the parser here may read on.
pub fn empty_flow_entry(text: &str, until: usize) -> Option<usize> {
    let region = text.get(..until)?;
    let mut chars = region.char_indices().peekable();
    let (mut depth, mut previous, mut token_start, mut entry_open) = (0usize, '\n', true, false);
    while let Some((at, c)) = chars.next() {
        match c {
            '#' if previous.is_whitespace() => {
                while chars.next_if(|&(_, c)| c != '\n').is_some() {}
                continue;
            }
            c if c.is_whitespace() => {}
            ',' if depth > 0 && entry_open => return Some(line_of(text, at)),
            ',' if depth > 0 => entry_open = true,
            '[' | '{' if token_start || depth > 0 => {
                depth += 1;
                entry_open = true;
            }
            ']' | '}' if depth > 0 => {
                depth -= 1;
                entry_open = false;
            }
            '\'' | '"' if token_start => {
                entry_open = false;
                skip_quoted(&mut chars, c);
            }
            _ => entry_open = false,
        }
        token_start = c.is_whitespace() || matches!(c, ',' | '[' | '{' | ':' | '-' | '?');
        previous = c;
    }
    None
}

/// Consumes a quoted scalar opened by `quote` up to its closing quote (`\"` escapes in double
/// quotes, `''` in single quotes), or to the end of the text.
fn skip_quoted(chars: &mut Peekable<CharIndices<'_>>, quote: char) {
    while let Some((_, c)) = chars.next() {
        if c == '\\' && quote == '"' {
            chars.next();
        } else if c == quote {
            if quote == '\'' && chars.next_if(|&(_, n)| n == '\'').is_some() {
                continue;
            }
            break;
        }
    }
}
