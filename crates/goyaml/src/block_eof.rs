//! Block scalars that end the text without a final line break.
//!
//! libyaml (yaml.v3) copies a block scalar's line breaks from the text, so a last line with
//! no line break after it (end of input) adds none: `a: |\n  x` reads as `"x"`, with keep
//! chomping too. The parser used here ends that line with a break anyway; both decoding
//! paths drop it again.

use granit_parser::{ScalarStyle, Span};

/// Per-text facts for [`trim`], computed once per document.
pub struct EofBlock<'t> {
    text: &'t str,
    unterminated: bool,
    chars: Option<usize>,
}

impl<'t> EofBlock<'t> {
    pub fn new(text: &'t str) -> Self {
        let unterminated = !text.is_empty() && !text.ends_with(['\n', '\r']);
        Self { text, unterminated, chars: None }
    }

    /// Whether a scalar with this style and span is a block scalar running to the end of an
    /// unterminated text, so its final line break is the parser's, not the text's.
    pub fn added_break(&mut self, style: ScalarStyle, span: &Span) -> bool {
        if !self.unterminated || !matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
            return false;
        }
        let end = match span.end.byte_offset() {
            Some(bytes) => return bytes >= self.text.len(),
            None => span.end.index(),
        };
        let text = self.text;
        end >= *self.chars.get_or_insert_with(|| text.chars().count())
    }
}

/// A keep-chomping scalar whose body is blank lines only (its value is line breaks only):
/// libyaml keeps one break per line break of the text after the header, which the parser
/// miscounts when the last blank line is unterminated.
pub fn blank_body(text: &str, span: &Span, value: &mut String) {
    if value.is_empty() || !value.chars().all(|c| c == '\n') {
        return;
    }
    let Some(start) = span.start.byte_offset().filter(|&s| s <= text.len()) else { return };
    if !text.is_char_boundary(start) {
        return;
    }
    if let Some((_, header_end, _)) = crate::block_tabs::header(text, start) {
        let breaks = text.get(header_end + 1..).map_or(0, |body| body.matches('\n').count());
        *value = "\n".repeat(breaks);
    }
}

/// Drops the parser's final line break from `value` when [`EofBlock::added_break`] holds and
/// the text's unterminated last line is part of the scalar's content: a non-blank line, or a
/// blank one longer than the indentation (its extra spaces are content). A blank last line
/// no longer than the indentation adds nothing, so the break before it is the text's own.
pub fn trim(text: &str, span: &Span, value: &mut String) {
    let last_line = text.rsplit(['\n', '\r']).next().unwrap_or_default();
    if !value.ends_with('\n') {
        return;
    }
    let is_content = if last_line.chars().all(|c| c == ' ') {
        let indent = span
            .start
            .byte_offset()
            .filter(|&s| s <= text.len() && text.is_char_boundary(s))
            .and_then(|start| crate::block_tabs::indentation(text, start));
        indent.is_some_and(|indent| last_line.len() > indent)
    } else {
        true
    };
    if is_content {
        value.pop();
    }
}
