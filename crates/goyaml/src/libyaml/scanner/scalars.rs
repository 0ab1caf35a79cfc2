//! Scalars: block (`|`, `>`), quoted and plain, with libyaml's folding of line breaks.

use super::super::token::{ScalarStyle, Token, TokenType};
use super::Scanner;
use crate::libyaml::{Mark, Step};

const BLOCK_CONTEXT: &str = "while scanning a block scalar";
const QUOTED_CONTEXT: &str = "while scanning a quoted scalar";
const ESCAPE_CONTEXT: &str = "while parsing a quoted scalar";

/// Joins the breaks and blanks between two pieces of a quoted or plain scalar: one line
/// break folds into a space, more keep all but the first.
fn fold(s: &mut Vec<u8>, leading_break: &mut Vec<u8>, trailing_breaks: &mut Vec<u8>) {
    if leading_break.first() == Some(&b'\n') {
        if trailing_breaks.is_empty() {
            s.push(b' ');
        } else {
            s.extend_from_slice(trailing_breaks);
        }
    } else {
        s.extend_from_slice(leading_break);
        s.extend_from_slice(trailing_breaks);
    }
    leading_break.clear();
    trailing_breaks.clear();
}

/// The blanks and line breaks between two pieces of a quoted or plain scalar: blanks before
/// the first break are kept in `whitespaces` (they stay if no break follows), the first break
/// goes to `leading_break`, later ones to `trailing_breaks`.
struct Gap {
    leading_blanks: bool,
    whitespaces: Vec<u8>,
    leading_break: Vec<u8>,
    trailing_breaks: Vec<u8>,
}

impl Gap {
    fn new() -> Self {
        Gap {
            leading_blanks: false,
            whitespaces: Vec::new(),
            leading_break: Vec::new(),
            trailing_breaks: Vec::new(),
        }
    }

    /// Appends the gap to `s`: folded when it holds a line break, else its blanks.
    fn join(&mut self, s: &mut Vec<u8>) {
        if self.leading_blanks {
            fold(s, &mut self.leading_break, &mut self.trailing_breaks);
            self.leading_blanks = false;
        } else {
            s.append(&mut self.whitespaces);
        }
    }
}

impl Scanner<'_> {
    /// Whether the cursor is at `---` or `...` followed by a blank, at column 0.
    fn at_document_indicator(&self) -> bool {
        let r = &self.r;
        r.mark.column == 0
            && ((r.at(0) == b'-' && r.at(1) == b'-' && r.at(2) == b'-')
                || (r.at(0) == b'.' && r.at(1) == b'.' && r.at(2) == b'.'))
            && r.is_blankz(3)
    }

    /// Consumes blanks and line breaks into `gap`. In a plain scalar, a tab left of
    /// `tab_limit` on a continuation line is refused.
    fn scan_gap(&mut self, gap: &mut Gap, tab_limit: Option<(isize, Mark)>) -> Step {
        while self.r.is_blank_at(0) || self.r.is_break(0) {
            if self.r.is_blank_at(0) {
                if let Some((indent, start)) = tab_limit
                    && gap.leading_blanks
                    && self.r.mark.column < indent
                    && self.r.byte() == b'\t'
                {
                    return Err(self.r.scanner_error(
                        "while scanning a plain scalar",
                        start,
                        "found a tab character that violates indentation",
                    ));
                }
                if gap.leading_blanks {
                    self.r.skip();
                } else {
                    self.r.read(&mut gap.whitespaces);
                }
            } else {
                self.r.cache(2)?;
                if gap.leading_blanks {
                    self.r.read_line(&mut gap.trailing_breaks);
                } else {
                    gap.whitespaces.clear();
                    self.r.read_line(&mut gap.leading_break);
                    gap.leading_blanks = true;
                }
            }
            self.r.cache(1)?;
        }
        Ok(())
    }

    /// `yaml_parser_scan_block_scalar`.
    pub(super) fn scan_block_scalar(&mut self, literal: bool) -> Step<Token> {
        let start = self.r.mark;
        self.r.skip();
        self.r.cache(1)?;
        // Chomping and indentation indicators, in either order.
        let (mut chomping, mut increment) = (0i8, 0isize);
        let chomp = |b: u8| match b {
            b'+' => Some(1),
            b'-' => Some(-1),
            _ => None,
        };
        if let Some(c) = chomp(self.r.byte()) {
            chomping = c;
            self.r.skip();
            self.r.cache(1)?;
            if self.r.byte().is_ascii_digit() {
                increment = self.indentation_indicator(start)?;
            }
        } else if self.r.byte().is_ascii_digit() {
            increment = self.indentation_indicator(start)?;
            self.r.cache(1)?;
            if let Some(c) = chomp(self.r.byte()) {
                chomping = c;
                self.r.skip();
            }
        }
        // Blanks and a comment up to the end of the line.
        self.r.cache(1)?;
        while self.r.is_blank_at(0) {
            self.r.skip();
            self.r.cache(1)?;
        }
        if self.r.byte() == b'#' {
            self.scan_line_comment(start)?;
            while !self.r.is_breakz(0) {
                self.r.skip();
                self.r.cache(1)?;
            }
        }
        if !self.r.is_breakz(0) {
            return Err(self.r.scanner_error(
                BLOCK_CONTEXT,
                start,
                "did not find expected comment or line break",
            ));
        }
        if self.r.is_break(0) {
            self.r.cache(2)?;
            self.r.skip_line();
        }
        let mut end = self.r.mark;
        let mut indent = 0isize;
        if increment > 0 {
            indent = if self.indent >= 0 { self.indent + increment } else { increment };
        }
        let (mut s, mut leading_break, mut trailing_breaks) = (Vec::new(), Vec::new(), Vec::new());
        self.scan_block_scalar_breaks(&mut indent, &mut trailing_breaks, start, &mut end)?;
        self.r.cache(1)?;
        let (mut leading_blank, mut trailing_blank);
        leading_blank = false;
        while self.r.mark.column == indent && self.r.byte() != 0 {
            // At the start of a non-empty line.
            trailing_blank = self.r.is_blank_at(0);
            if !literal
                && !leading_blank
                && !trailing_blank
                && leading_break.first() == Some(&b'\n')
            {
                // A folded line break joins the lines with a space.
                if trailing_breaks.is_empty() {
                    s.push(b' ');
                }
            } else {
                s.extend_from_slice(&leading_break);
            }
            leading_break.clear();
            s.append(&mut trailing_breaks);
            leading_blank = self.r.is_blank_at(0);
            while !self.r.is_breakz(0) {
                self.r.read(&mut s);
                self.r.cache(1)?;
                self.r.read_run(&mut s, 1, |b| !matches!(b, b'\r' | b'\n' | 0));
            }
            self.r.cache(2)?;
            self.r.read_line(&mut leading_break);
            self.scan_block_scalar_breaks(&mut indent, &mut trailing_breaks, start, &mut end)?;
        }
        if chomping != -1 {
            s.extend_from_slice(&leading_break);
        }
        if chomping == 1 {
            s.extend_from_slice(&trailing_breaks);
        }
        let mut token = Token::new(TokenType::Scalar, start, end);
        token.value = s;
        token.style = if literal { ScalarStyle::Literal } else { ScalarStyle::Folded };
        Ok(token)
    }

    /// A block scalar's indentation indicator (the digit at the cursor), which must not be 0.
    fn indentation_indicator(&mut self, start: Mark) -> Step<isize> {
        if self.r.byte() == b'0' {
            return Err(self.r.scanner_error(
                BLOCK_CONTEXT,
                start,
                "found an indentation indicator equal to 0",
            ));
        }
        let increment = isize::from(self.r.byte() - b'0');
        self.r.skip();
        Ok(increment)
    }

    /// `yaml_parser_scan_block_scalar_breaks`: indentation and empty lines, fixing the
    /// indentation from the most indented empty line when it is not known yet.
    fn scan_block_scalar_breaks(
        &mut self,
        indent: &mut isize,
        breaks: &mut Vec<u8>,
        start: Mark,
        end: &mut Mark,
    ) -> Step {
        *end = self.r.mark;
        let mut max_indent = 0;
        loop {
            self.r.cache(1)?;
            while (*indent == 0 || self.r.mark.column < *indent) && self.r.byte() == b' ' {
                self.r.skip();
                self.r.cache(1)?;
            }
            max_indent = max_indent.max(self.r.mark.column);
            if (*indent == 0 || self.r.mark.column < *indent) && self.r.byte() == b'\t' {
                return Err(self.r.scanner_error(
                    BLOCK_CONTEXT,
                    start,
                    "found a tab character where an indentation space is expected",
                ));
            }
            if !self.r.is_break(0) {
                break;
            }
            self.r.cache(2)?;
            self.r.read_line(breaks);
            *end = self.r.mark;
        }
        if *indent == 0 {
            *indent = max_indent.max(self.indent + 1).max(1);
        }
        Ok(())
    }

    /// `yaml_parser_scan_flow_scalar`: a single- or double-quoted scalar.
    pub(super) fn scan_flow_scalar(&mut self, single: bool) -> Step<Token> {
        let start = self.r.mark;
        self.r.skip();
        let mut s = Vec::new();
        let mut gap = Gap::new();
        loop {
            self.r.cache(4)?;
            if self.at_document_indicator() {
                return Err(self.r.scanner_error(
                    QUOTED_CONTEXT,
                    start,
                    "found unexpected document indicator",
                ));
            }
            if self.r.byte() == 0 {
                return Err(self.r.scanner_error(
                    QUOTED_CONTEXT,
                    start,
                    "found unexpected end of stream",
                ));
            }
            gap.leading_blanks = false;
            while !self.r.is_blankz(0) {
                let c = self.r.byte();
                if single && c == b'\'' && self.r.at(1) == b'\'' {
                    s.push(b'\'');
                    self.r.skip();
                    self.r.skip();
                } else if (single && c == b'\'') || (!single && c == b'"') {
                    break;
                } else if !single && c == b'\\' && self.r.is_break(1) {
                    // An escaped line break.
                    self.r.cache(3)?;
                    self.r.skip();
                    self.r.skip_line();
                    gap.leading_blanks = true;
                    break;
                } else if !single && c == b'\\' {
                    self.scan_escape(start, &mut s)?;
                } else {
                    self.r.read(&mut s);
                    self.r.cache(2)?;
                    // The characters that need no look at.
                    let quote = if single { b'\'' } else { b'"' };
                    self.r
                        .read_run(&mut s, 2, |b| b > b' ' && b != quote && b != b'\\' && b != 0x7F);
                    continue;
                }
                self.r.cache(2)?;
            }
            self.r.cache(1)?;
            if self.r.byte() == if single { b'\'' } else { b'"' } {
                break;
            }
            self.scan_gap(&mut gap, None)?;
            gap.join(&mut s);
        }
        // The closing quote.
        self.r.skip();
        let mut token = Token::new(TokenType::Scalar, start, self.r.mark);
        token.value = s;
        token.style = if single { ScalarStyle::SingleQuoted } else { ScalarStyle::DoubleQuoted };
        Ok(token)
    }

    /// One backslash escape of a double-quoted scalar.
    fn scan_escape(&mut self, start: Mark, s: &mut Vec<u8>) -> Step {
        let simple: &[u8] = match self.r.at(1) {
            b'0' => b"\0",
            b'a' => b"\x07",
            b'b' => b"\x08",
            b't' | b'\t' => b"\t",
            b'n' => b"\n",
            b'v' => b"\x0B",
            b'f' => b"\x0C",
            b'r' => b"\r",
            b'e' => b"\x1B",
            b' ' => b" ",
            b'"' => b"\"",
            b'\'' => b"'",
            b'\\' => b"\\",
            b'N' => "\u{85}".as_bytes(),
            b'_' => "\u{A0}".as_bytes(),
            b'L' => "\u{2028}".as_bytes(),
            b'P' => "\u{2029}".as_bytes(),
            b'x' | b'u' | b'U' => b"",
            _ => {
                return Err(self.r.scanner_error(
                    ESCAPE_CONTEXT,
                    start,
                    "found unknown escape character",
                ));
            }
        };
        let code_length = match self.r.at(1) {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => 0,
        };
        s.extend_from_slice(simple);
        self.r.skip();
        self.r.skip();
        if code_length == 0 {
            return Ok(());
        }
        self.r.cache(code_length)?;
        let mut value: u32 = 0;
        for k in 0..code_length {
            let Some(digit) = (self.r.at(k) as char).to_digit(16) else {
                return Err(self.r.scanner_error(
                    ESCAPE_CONTEXT,
                    start,
                    "did not find expected hexdecimal number",
                ));
            };
            value = (value << 4) + digit;
        }
        let Some(c) = char::from_u32(value) else {
            return Err(self.r.scanner_error(
                ESCAPE_CONTEXT,
                start,
                "found invalid Unicode character escape code",
            ));
        };
        let mut buf = [0; 4];
        s.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        for _ in 0..code_length {
            self.r.skip();
        }
        Ok(())
    }

    /// `yaml_parser_scan_plain_scalar`.
    pub(super) fn scan_plain_scalar(&mut self) -> Step<Token> {
        let mut s = Vec::new();
        let mut gap = Gap::new();
        let indent = self.indent + 1;
        let start = self.r.mark;
        let mut end = self.r.mark;
        loop {
            self.r.cache(4)?;
            if self.at_document_indicator() || self.r.byte() == b'#' {
                break;
            }
            while !self.r.is_blankz(0) {
                let c = self.r.byte();
                if (c == b':' && self.r.is_blankz(1))
                    || (self.flow_level > 0 && matches!(c, b',' | b'?' | b'[' | b']' | b'{' | b'}'))
                {
                    break;
                }
                if gap.leading_blanks || !gap.whitespaces.is_empty() {
                    gap.join(&mut s);
                }
                self.r.read(&mut s);
                self.r.cache(2)?;
                // The characters that cannot end the scalar or need joining.
                let flow = self.flow_level > 0;
                self.r.read_run(&mut s, 2, |b| {
                    b > b' '
                        && b != b':'
                        && b != 0x7F
                        && !(flow && matches!(b, b',' | b'?' | b'[' | b']' | b'{' | b'}'))
                });
                end = self.r.mark;
            }
            if !(self.r.is_blank_at(0) || self.r.is_break(0)) {
                break;
            }
            self.r.cache(1)?;
            self.scan_gap(&mut gap, Some((indent, start)))?;
            if self.flow_level == 0 && self.r.mark.column < indent {
                break;
            }
        }
        let mut token = Token::new(TokenType::Scalar, start, end);
        token.value = s;
        token.style = ScalarStyle::Plain;
        if gap.leading_blanks {
            self.simple_key_allowed = true;
        }
        Ok(token)
    }
}
