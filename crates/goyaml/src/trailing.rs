//! Content after a quoted scalar that is the first document's root node, on its line.
//!
//! yaml.v3 decodes one node and stops: the document end after it is implicit whatever token
//! follows (libyaml checks the next document only when asked for it), so `'op-4'tmu` reads as
//! `"op-4"`. Its scanner still reads ahead — always two tokens past the one the parser looks
//! at, and to the end of the line while the root can still become a simple key — and fails on
//! a token it cannot scan there (`'x' @`), on `-`, `?` or `:` indicators (`'x' b: c`), and so
//! on. The parser used here refuses any content after a quoted scalar on its line ("invalid
//! trailing content after single-quoted scalar").
//!
//! [`comment_out`] turns that content into a comment, which is what yaml.v3 makes of it, only
//! when it is certainly harmless to libyaml: made of plain and single-line quoted scalars (the
//! tokens whose scanning is simple enough to check here), with every later line blank or a
//! comment, so the look-ahead meets nothing else. Anything else keeps the parser's refusal —
//! in the cases this leaves out, yaml.v3 sometimes accepts, sometimes refuses.

use granit_parser::{ErrorKind, Event, ScalarStyle, ScanError};

/// `text` with the content after its root quoted scalar turned into a comment, or `None` when
/// `error` is not that refusal, the content is not certainly harmless or the scalar is not the
/// root. Costs up to one parse of `text`.
pub fn comment_out(text: &str, error: &ScanError) -> Option<String> {
    if !matches!(
        error.kind(),
        ErrorKind::InvalidTrailingSingleQuotedScalar | ErrorKind::InvalidTrailingDoubleQuotedScalar
    ) {
        return None;
    }
    let at = error.marker().byte_offset().filter(|&at| text.is_char_boundary(at))?;
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let later_lines_empty = text[line_end..].split('\n').all(|line| {
        let line = line.trim_start_matches(' ');
        line.trim_end_matches('\r').is_empty() || line.starts_with('#')
    });
    if !later_lines_empty || !harmless(&text[at..line_end]) {
        return None;
    }
    let mut commented = String::with_capacity(text.len() + 2);
    commented.push_str(&text[..at]);
    commented.push_str(" #");
    commented.push_str(&text[at..]);
    (commented.len() <= crate::MAX_INPUT_BYTES && quoted_root(&commented)).then_some(commented)
}

/// Whether the first document of `text` is a quoted scalar and nothing else. The parser's
/// refusal does not say which quoted scalar it was (a flow sequence item `["x" y]` is refused
/// alike), so the commented text is parsed once more to check it.
fn quoted_root(text: &str) -> bool {
    let mut events = crate::decode::parser(text).filter_map(|next| match next {
        Ok((Event::StreamStart | Event::DocumentStart(..) | Event::Anchor(..), _)) => None,
        next => Some(next.map(|(event, _)| event)),
    });
    let root = matches!(
        events.next(),
        Some(Ok(Event::Scalar(_, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted, ..)))
    );
    root && matches!(events.next(), Some(Ok(Event::DocumentEnd)))
}

/// Whether `line` (the rest of a line after a complete node) scans, as libyaml would scan it
/// there, into plain and quoted scalars only.
fn harmless(line: &str) -> bool {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let blank_or_end = |rest: &str| rest.chars().next().is_none_or(|c| matches!(c, ' ' | '\t'));
    let mut rest = line;
    loop {
        // After a token on its line, libyaml's scanner skips spaces and tabs alike.
        rest = rest.trim_start_matches([' ', '\t']);
        let Some(first) = rest.chars().next() else { return true };
        let after = &rest[first.len_utf8()..];
        rest = match first {
            '#' => return true,
            // Block indicators are not allowed there (or turn the root into a key).
            '-' | '?' | ':' if blank_or_end(after) => return false,
            '\'' => match single_quoted_end(after) {
                Some(end) => &after[end..],
                None => return false,
            },
            // Escapes are left to the parser: only escape-free scalars are checked here.
            '"' => match after.find(['"', '\\']) {
                Some(end) if after[end..].starts_with('"') => &after[end + 1..],
                _ => return false,
            },
            // Flow collections, block scalars, anchors, aliases, tags, directives and reserved
            // indicators: more than this module checks.
            '[' | ']' | '{' | '}' | ',' | '|' | '>' | '&' | '*' | '!' | '%' | '@' | '`' => {
                return false;
            }
            _ => plain_end(rest).map_or("", |end| &rest[end..]),
        };
    }
}

/// The byte after the closing quote of a single-quoted scalar whose opening quote came just
/// before `rest`, when it closes on this line (`''` is an escaped quote).
fn single_quoted_end(rest: &str) -> Option<usize> {
    let mut at = 0;
    while let Some(quote) = rest[at..].find('\'') {
        let end = at + quote + 1;
        if !rest[end..].starts_with('\'') {
            return Some(end);
        }
        at = end + 1;
    }
    None
}

/// Where a plain scalar starting at `rest` ends on its line in block context: at `: ` (or a
/// final `:`), or at white space before `#`; `None` when it runs to the end of the line.
fn plain_end(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    (1..bytes.len()).find(|&i| {
        let next_blank = bytes.get(i + 1).is_none_or(|b| matches!(b, b' ' | b'\t'));
        (bytes[i] == b':' && next_blank)
            || (matches!(bytes[i], b' ' | b'\t') && bytes.get(i + 1) == Some(&b'#'))
    })
}

#[cfg(test)]
mod tests {
    use super::harmless;

    #[test]
    fn plain_and_quoted_scalars_are_harmless() {
        assert!(harmless("tmu"));
        assert!(harmless("-p#  2 "));
        assert!(harmless("b 'c''d' \"e\"\t# c"));
        assert!(harmless("b, c]"));
    }

    #[test]
    fn indicators_and_unchecked_tokens_are_not() {
        assert!(!harmless("b: c"));
        assert!(!harmless("b:"));
        assert!(!harmless("- b"));
        assert!(!harmless("? b"));
        assert!(!harmless("'b"));
        assert!(!harmless("\"b\\x\""));
        assert!(!harmless("@"));
        assert!(!harmless("[b"));
        assert!(!harmless("&a b"));
    }
}
