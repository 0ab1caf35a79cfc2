//! yaml.v3's refusal of a tab right after a block indicator.
//!
//! libyaml skips tabs between tokens only where a simple key cannot start: in flow context, or
//! after a token on the same line. After a block sequence entry `-`, an explicit key `?` or the
//! `:` of an explicit key, a simple key may start, so a tab there (after any spaces) is a
//! character that cannot start any token, and the document is refused: `-\tx`, `- \tx`,
//! `?\ta`. After the `:` of an implicit key (`a:\tb`) a simple key may not start and the tab
//! is separation space. The parser used here (YAML 1.2) reads all of them as separation space,
//! so documents that decode are checked against the source text.

use granit_parser::TokenType;

use crate::YamlError;
use crate::root_extent::RootExtent;

/// The error yaml.v3 reports for the first tab after a block indicator in the first document,
/// or `None`. Cheap for texts without such a tab: the scanner runs only when one may exist.
pub fn check(text: &str) -> Option<YamlError> {
    if !maybe(text) {
        return None;
    }
    let mut tokens = Vec::new();
    // Up to a scanner error: the decoder worked around it (it decoded the text), and the
    // tokens before it are the ones libyaml reads first.
    for token in crate::tokens::tokens(text) {
        let Ok(token) = token else { break };
        tokens.push(token);
    }
    let mut flow = 0usize;
    let mut content = false;
    let mut extent = RootExtent::default();
    // libyaml scans one token past the root node (with what follows it up to the next
    // token), so a tab after that token's indicator still fails (`[a]\n-\tx`), a later one
    // does not (`8\n#\n- x\n-\ty` is 8).
    let mut past = 0usize;
    for token in &tokens {
        if extent.past_root(token.token_type()) && !synthetic(token.token_type()) {
            past += 1;
            if past > 1 {
                return None;
            }
        }
        let span = token.span();
        match token.token_type() {
            TokenType::FlowSequenceStart | TokenType::FlowMappingStart => flow += 1,
            TokenType::FlowSequenceEnd | TokenType::FlowMappingEnd => {
                flow = flow.saturating_sub(1);
            }
            TokenType::DocumentStart | TokenType::DocumentEnd if content => return None,
            TokenType::StreamEnd => return None,
            TokenType::BlockEntry | TokenType::Key | TokenType::Value if flow == 0 => {
                let (Some(start), Some(end)) = (span.start.byte_offset(), span.end.byte_offset())
                else {
                    continue;
                };
                let Some(at) = (match token.token_type() {
                    // An explicit key's span is its `?`; a simple key's is empty.
                    TokenType::Key => (text.get(start..end) == Some("?")).then_some(start),
                    // Only the `:` of an explicit key, which starts its line, allows a simple
                    // key after it.
                    TokenType::Value => (text.as_bytes().get(start) == Some(&b':')
                        && line_prefix(text, start).bytes().all(|b| b == b' '))
                    .then_some(start),
                    _ => block_entry(text, start),
                }) else {
                    continue;
                };
                if text[at + 1..].trim_start_matches(' ').starts_with('\t') {
                    let line = 1 + text[..at].matches('\n').count();
                    let problem = "found character that cannot start any token";
                    // yaml.v3 leaves out the line of a problem on the first line.
                    return Some(YamlError(if line > 1 {
                        format!("yaml: line {line}: {problem}")
                    } else {
                        format!("yaml: {problem}")
                    }));
                }
            }
            _ => {}
        }
        // Only node tokens make a document marker end the first document (comments, which
        // some builds of the scanner report as tokens, do not).
        content |= matches!(
            token.token_type(),
            TokenType::BlockSequenceStart
                | TokenType::BlockMappingStart
                | TokenType::FlowSequenceStart
                | TokenType::FlowMappingStart
                | TokenType::BlockEntry
                | TokenType::Key
                | TokenType::Value
                | TokenType::Scalar(..)
                | TokenType::Alias(_)
                | TokenType::Anchor(_)
                | TokenType::Tag(..)
        );
    }
    None
}

/// The text of `at`'s line before it.
fn line_prefix(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    &text[line_start..at]
}

/// The byte offset of the `-` of a block entry whose span starts at `start`, at its node,
/// after the white space, line breaks and comments that follow the `-`: they are walked back
/// over a line at a time (so each stretch of text is walked once).
fn block_entry(text: &str, start: usize) -> Option<usize> {
    let mut end = start;
    loop {
        let before = text.get(..end)?.trim_end_matches([' ', '\t', '\r', '\n']).len();
        let at = before.checked_sub(1)?;
        if text.as_bytes()[at] == b'-' {
            // Not the end of a plain scalar or a `|-` header: a line start or white space
            // (after indentation or another indicator) comes before it. Only the one byte
            // is looked at, so long lines of entries stay linear.
            let after_space = at == 0 || matches!(text.as_bytes()[at - 1], b' ' | b'\n');
            return after_space.then_some(at);
        }
        // A comment on that line: the first `#` at its start or after white space.
        let line = line_prefix(text, before);
        let line_start = before - line.len();
        let comment = if line.trim_start_matches([' ', '\t']).starts_with('#') {
            Some(line.len() - line.trim_start_matches([' ', '\t']).len())
        } else {
            line.find(" #").into_iter().chain(line.find("\t#")).min()
        };
        end = line_start + comment?;
    }
}

/// Whether some tab follows a `-`, `?` or `:` with only spaces between (a necessary condition).
fn maybe(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'\t'
            && bytes[..i]
                .iter()
                .rev()
                .find(|&&c| c != b' ')
                .is_some_and(|c| matches!(c, b'-' | b'?' | b':'))
    })
}

/// Tokens the scanner adds for block structure, with no text of their own.
fn synthetic(token: &TokenType<'_>) -> bool {
    matches!(
        token,
        TokenType::BlockMappingStart | TokenType::BlockSequenceStart | TokenType::BlockEnd
    )
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn tabs_after_block_indicators_are_refused() {
        let refused = |text: &str| check(text).map(|e| e.0);
        let problem = "found character that cannot start any token";
        assert_eq!(refused("-\tx\n"), Some(format!("yaml: {problem}")));
        assert_eq!(refused("-\t# c\n- x\n"), Some(format!("yaml: {problem}")));
        assert_eq!(
            refused("- a\n-\t# c\n  # d\n\n   b: c\n"),
            Some(format!("yaml: line 2: {problem}"))
        );
        assert_eq!(refused("a:\n- \tb\n"), Some(format!("yaml: line 2: {problem}")));
        assert_eq!(refused("? a\n:\tb\n"), Some(format!("yaml: line 2: {problem}")));
        assert_eq!(refused("a:\t1\n- a:\t1\n"), None);
        assert_eq!(refused("[a, b]\n"), None);
        assert_eq!(refused("- 'a\t-\tb'\n"), None);
        assert_eq!(refused("- a\n---\n-\tb\n"), None);
        assert_eq!(refused("# c\n---\n-\tb\n"), Some(format!("yaml: line 3: {problem}")));
        // Chomping indicators and `?` in plain scalars are not block indicators.
        assert_eq!(refused("a: |-\t# tab\n \nb: 5.\n"), None);
        assert_eq!(refused("a: x?\t# tab\nb: c\n"), None);
    }
}
