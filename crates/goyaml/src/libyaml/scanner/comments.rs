//! yaml.v3's comment scanning (`yaml_parser_scan_line_comment`, `yaml_parser_scan_comments`).
//!
//! Comments never reach a JSON value, but this code reads ahead (up to 512 characters past
//! a comment, for blank lines and further comments), so it decides where a reader error is
//! met, and its records place BLOCK-END tokens. Its reads record a reader error without
//! failing, as Go's `break` does; the parser then stops on the recorded error.

use super::{Comment, Scanner};
use crate::libyaml::{Mark, Step};

/// How far the look-ahead peeks, in bytes past the cursor.
const PEEK_LIMIT: usize = 512;

impl Scanner<'_> {
    /// Consumes the rest of a comment whose '#' is `seen` characters in (by index), adding
    /// its text to `text` when given.
    fn consume_comment(
        &mut self,
        seen: isize,
        mut text: Option<&mut Vec<u8>>,
        start: &mut Option<Mark>,
    ) -> Step {
        loop {
            self.r.cache(1)?;
            if self.r.is_breakz(0) {
                if self.r.mark.index >= seen {
                    return Ok(());
                }
                self.r.cache(2)?;
                self.r.skip_line();
            } else if self.r.mark.index >= seen {
                if let Some(text) = text.as_deref_mut() {
                    if text.is_empty() && start.is_none() {
                        *start = Some(self.r.mark);
                    }
                    self.r.read(text);
                }
            } else {
                self.r.skip();
            }
        }
    }

    /// Records the comment text so far as a foot comment ending at `end`; scanning for the
    /// next one starts there (`marks` are the scan and token marks).
    fn record_foot(&mut self, marks: [&mut Mark; 2], start_mark: Mark, end: Mark) {
        let [scan_mark, token_mark] = marks;
        self.comments.push(Comment {
            scan_mark: *scan_mark,
            token_mark: *token_mark,
            start_mark,
            end_mark: end,
            ..Comment::default()
        });
        *scan_mark = end;
        *token_mark = end;
    }

    /// `yaml_parser_scan_line_comment`: a comment on the rest of the current line.
    pub(super) fn scan_line_comment(&mut self, token_mark: Mark) -> Step {
        if self.r.newlines > 0 {
            return Ok(());
        }
        let mut text = Vec::new();
        let mut start = None;
        for peek in 0..PEEK_LIMIT {
            if !self.r.cache_quietly(peek + 1) {
                break;
            }
            if self.r.is_blank_at(peek) {
                continue;
            }
            if self.r.at(peek) == b'#' {
                let seen = self.r.mark.index + peek as isize;
                self.consume_comment(seen, Some(&mut text), &mut start)?;
            }
            break;
        }
        if !text.is_empty() {
            self.comments.push(Comment {
                token_mark,
                start_mark: start.unwrap_or_default(),
                line: text,
                ..Comment::default()
            });
        }
        Ok(())
    }

    /// `yaml_parser_scan_comments`: comment lines (and the blank lines between them) before
    /// the next token, split into foot comments of what came before and a head comment of
    /// what follows.
    pub(super) fn scan_comments(&mut self, mut scan_mark: Mark) -> Step {
        // Foot comments are recorded for their marks only (their text reaches no value).
        let (last, before_last) = (self.slice_last(0), self.slice_last(1));
        let (mut token_typ, mut token_mark) = last.unwrap_or_default();
        if token_typ == super::TokenType::FlowEntry
            && let Some(before) = before_last
        {
            (token_typ, token_mark) = before;
        }
        let mut start_mark = Mark::default();
        let mut next_indent = self.indent.max(0);
        let mut recent_empty = false;
        let mut first_empty = self.r.newlines <= 1;
        let mut line = self.r.mark.line;
        let mut column = self.r.mark.column;
        let mut text: Vec<u8> = Vec::new();
        // A comment starting on this line is still a foot of the prior content.
        let mut foot_line = -1;
        if scan_mark.line > 0 {
            foot_line = self.r.mark.line - self.r.newlines as isize + 1;
            if self.r.newlines == 0 && self.r.mark.column > 1 {
                foot_line += 1;
            }
        }
        let mut peek = 0usize;
        while peek < PEEK_LIMIT {
            if !self.r.cache_quietly(peek + 1) {
                break;
            }
            column += 1;
            if self.r.is_blank_at(peek) {
                peek += 1;
                continue;
            }
            let c = self.r.at(peek);
            let base = self.r.mark.index + peek as isize;
            let close_flow = self.flow_level > 0 && (c == b']' || c == b'}');
            let here = |line, column| Mark { index: base, line, column };
            if close_flow || self.r.is_breakz(peek) {
                // A line break or a terminator.
                if close_flow || !recent_empty {
                    if close_flow
                        || (first_empty
                            && ((start_mark.line == foot_line
                                && token_typ != super::TokenType::Value)
                                || start_mark.column - 1 < next_indent))
                    {
                        // The comment so far is a foot of the prior token.
                        if !text.is_empty() {
                            if start_mark.column - 1 < next_indent {
                                // Dedented: unrelated to the prior token.
                                token_mark = start_mark;
                            }
                            let end = here(line, column);
                            self.record_foot([&mut scan_mark, &mut token_mark], start_mark, end);
                            text.clear();
                        }
                    } else if !text.is_empty() && c != 0 {
                        text.push(b'\n');
                    }
                }
                if !self.r.is_break(peek) {
                    break;
                }
                first_empty = false;
                recent_empty = true;
                column = 0;
                line += 1;
                peek += 1;
                continue;
            }
            if !text.is_empty()
                && (close_flow || (column - 1 < next_indent && column != start_mark.column))
            {
                // A comment at another indentation is a foot of the preceding data.
                let end = here(line, column);
                self.record_foot([&mut scan_mark, &mut token_mark], start_mark, end);
                text.clear();
            }
            if c != b'#' {
                break;
            }
            if text.is_empty() {
                start_mark = here(line, column);
            } else {
                text.push(b'\n');
            }
            recent_empty = false;
            // Consume the comment line.
            let seen = self.r.mark.index + peek as isize;
            let mut ignored = None;
            self.consume_comment(seen, Some(&mut text), &mut ignored)?;
            // Go resets `peek` to 0 and its loop then increments it: the line break ending
            // the comment is not looked at.
            peek = 1;
            column = 0;
            line = self.r.mark.line;
            next_indent = self.indent.max(0);
        }
        if !text.is_empty() {
            self.comments.push(Comment {
                scan_mark,
                token_mark: start_mark,
                start_mark,
                end_mark: Mark { index: self.r.mark.index + peek as isize - 1, line, column },
                head: text,
                ..Comment::default()
            });
        }
        Ok(())
    }
}
