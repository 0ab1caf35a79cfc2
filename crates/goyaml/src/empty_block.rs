//! Block scalars that libyaml ends before their first content line.
//!
//! libyaml fixes a block scalar's indentation from its indentation indicator, or else from the
//! longest of its leading blank lines (at least one column past the enclosing block). A first
//! non-blank line indented less than that ends the scalar: it is empty (keep chomping keeps one
//! line break per blank line), and the scanner goes on reading that line in the enclosing
//! context, where a comment, a key or a sequence entry is fine. The parser used here refuses
//! both shapes (YAML 1.2 forbids leading blank lines longer than the first content line and
//! content indented less than the indicator says; it reports "found a tab character where an
//! indentation space is expected" for them). On that refusal the decoder turns the header's
//! indicator into the double-quoted scalar libyaml reads (`""`, or `"\n\n"` for keep chomping
//! over two blank lines) and parses again; tag, anchor and comment on the header stay, so do
//! all line numbers, and the blank lines are blank lines of the enclosing block.
//!
//! The parser reports the refusal on the first less-indented line, so the header is the
//! nearest line before it that is not blank; when the lines between are not all spaces, or
//! the header has no block scalar indicator, nothing is changed and the error stands.

use granit_parser::{ErrorKind, ScanError};

/// `text` with the refused block scalar written as the quoted scalar libyaml reads, or `None`
/// when `error` (the text's first parser error) is another one or its place is not understood.
pub fn replace(text: &str, error: &ScanError) -> Option<String> {
    if !matches!(error.kind(), ErrorKind::InvalidBlockScalarIndent) {
        return None;
    }
    let refused = error.marker().line();
    // Byte ranges of lines 1..=refused (without their line breaks).
    let mut lines = Vec::with_capacity(refused.min(1024));
    let mut start = 0;
    for _ in 0..refused {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        lines.push((start, end));
        if end == text.len() {
            break;
        }
        start = end + 1;
    }
    if lines.len() != refused {
        return None;
    }
    let blank =
        |(s, e): (usize, usize)| text[s..e].trim_end_matches('\r').bytes().all(|b| b == b' ');
    let (last, before) = lines.split_last()?;
    // A tab within the refused line's indentation is an error to libyaml too.
    let refused_line = &text[last.0..last.1];
    if blank(*last) || refused_line.trim_start_matches(' ').starts_with('\t') {
        return None;
    }
    let header_at = before.iter().rposition(|&range| !blank(range))?;
    let blank_lines = before.len() - header_at - 1;
    let (header_start, header_end) = before[header_at];
    let header = &text[header_start..header_end];
    let indicator = crate::block_tabs::indicator(header)?;
    // `indicator` borrows from `header`, so its place is a pointer difference.
    let at = header_start + (indicator.as_ptr() as usize - header.as_ptr() as usize);
    let quoted = if indicator.contains('+') {
        format!("\"{}\"", "\\n".repeat(blank_lines))
    } else {
        "\"\"".to_owned()
    };
    let mut replaced = String::with_capacity(text.len() + quoted.len());
    replaced.push_str(&text[..at]);
    replaced.push_str(&quoted);
    replaced.push_str(&text[at + indicator.len()..]);
    (replaced.len() <= crate::MAX_INPUT_BYTES).then_some(replaced)
}

#[cfg(test)]
mod tests {
    fn replace(text: &str) -> Option<String> {
        super::replace(text, &crate::decode::first_parser_error(text)?)
    }

    #[test]
    fn the_header_becomes_the_quoted_scalar_libyaml_reads() {
        assert_eq!(
            replace("a: >\n   \n # c\nb: 1\n").as_deref(),
            Some("a: \"\"\n   \n # c\nb: 1\n")
        );
        assert_eq!(replace("a: |2 # h\n # c\n").as_deref(), Some("a: \"\" # h\n # c\n"));
        assert_eq!(
            replace("a: !!str |+\n   \n\n   \n # c\n").as_deref(),
            Some("a: !!str \"\\n\\n\\n\"\n   \n\n   \n # c\n")
        );
    }

    #[test]
    fn other_errors_are_left_alone() {
        assert_eq!(replace("a: [x\n"), None);
        assert_eq!(replace("a: |\n  x\n"), None);
        assert_eq!(replace("a: >-\n   \n  \t# c\n"), None);
    }
}
