//! Directives, anchors, aliases and tags (`yaml_parser_scan_directive`, `_scan_anchor`,
//! `_scan_tag` and their helpers).

use super::super::reader::width;
use super::super::token::{Token, TokenType};
use super::Scanner;
use crate::libyaml::{Mark, Step};

const TAG_CONTEXT: &str = "while parsing a tag";
const TAG_DIRECTIVE_CONTEXT: &str = "while parsing a %TAG directive";
const DIRECTIVE_CONTEXT: &str = "while scanning a directive";
const YAML_DIRECTIVE_CONTEXT: &str = "while scanning a %YAML directive";

impl Scanner<'_> {
    /// Skips blanks (`for is_blank { skip; cache(1) }`).
    fn skip_blanks(&mut self) -> Step {
        self.r.cache(1)?;
        while self.r.is_blank_at(0) {
            self.r.skip();
            self.r.cache(1)?;
        }
        Ok(())
    }

    fn tag_error(&mut self, directive: bool, mark: Mark, problem: &str) -> crate::libyaml::Stop {
        let context = if directive { TAG_DIRECTIVE_CONTEXT } else { TAG_CONTEXT };
        self.r.scanner_error(context, mark, problem)
    }

    /// `yaml_parser_scan_directive`: `%YAML` or `%TAG` up to the end of its line.
    pub(super) fn scan_directive(&mut self) -> Step<Token> {
        let start = self.r.mark;
        self.r.skip();
        let name = self.scan_directive_name(start)?;
        let token = match name.as_slice() {
            b"YAML" => {
                self.skip_blanks()?;
                let major = self.scan_version_number(start)?;
                if self.r.byte() != b'.' {
                    return Err(self.r.scanner_error(
                        YAML_DIRECTIVE_CONTEXT,
                        start,
                        "did not find expected digit or '.' character",
                    ));
                }
                self.r.skip();
                let minor = self.scan_version_number(start)?;
                let mut token = Token::new(TokenType::VersionDirective, start, self.r.mark);
                token.major = major;
                token.minor = minor;
                token
            }
            b"TAG" => {
                let (handle, prefix) = self.scan_tag_directive_value(start)?;
                let mut token = Token::new(TokenType::TagDirective, start, self.r.mark);
                token.value = handle;
                token.prefix = prefix;
                token
            }
            _ => {
                return Err(self.r.scanner_error(
                    DIRECTIVE_CONTEXT,
                    start,
                    "found unknown directive name",
                ));
            }
        };
        // The rest of the line: blanks and a comment (discarded by yaml.v3).
        self.skip_blanks()?;
        if self.r.byte() == b'#' {
            while !self.r.is_breakz(0) {
                self.r.skip();
                self.r.cache(1)?;
            }
        }
        if !self.r.is_breakz(0) {
            return Err(self.r.scanner_error(
                DIRECTIVE_CONTEXT,
                start,
                "did not find expected comment or line break",
            ));
        }
        if self.r.is_break(0) {
            self.r.cache(2)?;
            self.r.skip_line();
        }
        Ok(token)
    }

    fn scan_directive_name(&mut self, start: Mark) -> Step<Vec<u8>> {
        self.r.cache(1)?;
        let mut s = Vec::new();
        while self.r.is_alpha(0) {
            self.r.read(&mut s);
            self.r.cache(1)?;
        }
        if s.is_empty() {
            return Err(self.r.scanner_error(
                DIRECTIVE_CONTEXT,
                start,
                "could not find expected directive name",
            ));
        }
        if !self.r.is_blankz(0) {
            return Err(self.r.scanner_error(
                DIRECTIVE_CONTEXT,
                start,
                "found unexpected non-alphabetical character",
            ));
        }
        Ok(s)
    }

    /// `yaml_parser_scan_version_directive_number`: at most two digits.
    fn scan_version_number(&mut self, start: Mark) -> Step<i8> {
        self.r.cache(1)?;
        let (mut value, mut length) = (0i8, 0);
        while self.r.byte().is_ascii_digit() {
            length += 1;
            if length > 2 {
                return Err(self.r.scanner_error(
                    YAML_DIRECTIVE_CONTEXT,
                    start,
                    "found extremely long version number",
                ));
            }
            value = value * 10 + (self.r.byte() - b'0') as i8;
            self.r.skip();
            self.r.cache(1)?;
        }
        if length == 0 {
            return Err(self.r.scanner_error(
                YAML_DIRECTIVE_CONTEXT,
                start,
                "did not find expected version number",
            ));
        }
        Ok(value)
    }

    fn scan_tag_directive_value(&mut self, start: Mark) -> Step<(Vec<u8>, Vec<u8>)> {
        self.skip_blanks()?;
        let handle = self.scan_tag_handle(true, start)?;
        self.r.cache(1)?;
        if !self.r.is_blank_at(0) {
            return Err(self.r.scanner_error(
                "while scanning a %TAG directive",
                start,
                "did not find expected whitespace",
            ));
        }
        self.skip_blanks()?;
        let prefix = self.scan_tag_uri(true, &[], start)?;
        self.r.cache(1)?;
        if !self.r.is_blankz(0) {
            return Err(self.r.scanner_error(
                "while scanning a %TAG directive",
                start,
                "did not find expected whitespace or line break",
            ));
        }
        Ok((handle, prefix))
    }

    /// `yaml_parser_scan_anchor`: `&name` or `*name`, ended by a blank or one of `?:,]}%@``.
    pub(super) fn scan_anchor(&mut self, typ: TokenType) -> Step<Token> {
        let start = self.r.mark;
        self.r.skip();
        self.r.cache(1)?;
        let mut s = Vec::new();
        while self.r.is_alpha(0) {
            self.r.read(&mut s);
            self.r.cache(1)?;
        }
        let end = self.r.mark;
        let ends = self.r.is_blankz(0)
            || matches!(self.r.byte(), b'?' | b':' | b',' | b']' | b'}' | b'%' | b'@' | b'`');
        if s.is_empty() || !ends {
            let context = if typ == TokenType::Anchor {
                "while scanning an anchor"
            } else {
                "while scanning an alias"
            };
            return Err(self.r.scanner_error(
                context,
                start,
                "did not find expected alphabetic or numeric character",
            ));
        }
        let mut token = Token::new(typ, start, end);
        token.value = s;
        Ok(token)
    }

    /// `yaml_parser_scan_tag`: `!<uri>`, `!suffix` or `!handle!suffix`.
    pub(super) fn scan_tag(&mut self) -> Step<Token> {
        let start = self.r.mark;
        self.r.cache(2)?;
        let (handle, suffix);
        if self.r.at(1) == b'<' {
            self.r.skip();
            self.r.skip();
            suffix = self.scan_tag_uri(false, &[], start)?;
            if self.r.byte() != b'>' {
                return Err(self.r.scanner_error(
                    "while scanning a tag",
                    start,
                    "did not find the expected '>'",
                ));
            }
            self.r.skip();
            handle = Vec::new();
        } else {
            let first = self.scan_tag_handle(false, start)?;
            if first.len() > 1 && first[0] == b'!' && first[first.len() - 1] == b'!' {
                handle = first;
                suffix = self.scan_tag_uri(false, &[], start)?;
            } else {
                // Not a handle after all: it is the start of the suffix.
                let rest = self.scan_tag_uri(false, &first, start)?;
                if rest.is_empty() {
                    // The '!' tag alone: handle '' and suffix '!'.
                    (handle, suffix) = (Vec::new(), b"!".to_vec());
                } else {
                    (handle, suffix) = (b"!".to_vec(), rest);
                }
            }
        }
        self.r.cache(1)?;
        if !self.r.is_blankz(0) {
            return Err(self.r.scanner_error(
                "while scanning a tag",
                start,
                "did not find expected whitespace or line break",
            ));
        }
        let mut token = Token::new(TokenType::Tag, start, self.r.mark);
        token.value = handle;
        token.suffix = suffix;
        Ok(token)
    }

    /// `yaml_parser_scan_tag_handle`.
    fn scan_tag_handle(&mut self, directive: bool, start: Mark) -> Step<Vec<u8>> {
        self.r.cache(1)?;
        if self.r.byte() != b'!' {
            return Err(self.tag_error(directive, start, "did not find expected '!'"));
        }
        let mut s = Vec::new();
        self.r.read(&mut s);
        self.r.cache(1)?;
        while self.r.is_alpha(0) {
            self.r.read(&mut s);
            self.r.cache(1)?;
        }
        if self.r.byte() == b'!' {
            self.r.read(&mut s);
        } else if directive && s != b"!" {
            // In a %TAG directive the handle must end with '!'; in a tag it is part of the URI.
            return Err(self.tag_error(directive, start, "did not find expected '!'"));
        }
        Ok(s)
    }

    /// `yaml_parser_scan_tag_uri`: URI characters and %-escapes, after `head` without its '!'.
    fn scan_tag_uri(&mut self, directive: bool, head: &[u8], start: Mark) -> Step<Vec<u8>> {
        let mut s = Vec::new();
        let mut has_tag = !head.is_empty();
        if head.len() > 1 {
            s.extend_from_slice(&head[1..]);
        }
        self.r.cache(1)?;
        while self.r.is_alpha(0)
            || matches!(
                self.r.byte(),
                b';' | b'/'
                    | b'?'
                    | b':'
                    | b'@'
                    | b'&'
                    | b'='
                    | b'+'
                    | b'$'
                    | b','
                    | b'.'
                    | b'!'
                    | b'~'
                    | b'*'
                    | b'\''
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'%'
            )
        {
            if self.r.byte() == b'%' {
                self.scan_uri_escapes(directive, start, &mut s)?;
            } else {
                self.r.read(&mut s);
            }
            self.r.cache(1)?;
            has_tag = true;
        }
        if !has_tag {
            return Err(self.tag_error(directive, start, "did not find expected tag URI"));
        }
        Ok(s)
    }

    /// `yaml_parser_scan_uri_escapes`: one UTF-8 sequence written as %-escaped octets.
    fn scan_uri_escapes(&mut self, directive: bool, start: Mark, s: &mut Vec<u8>) -> Step {
        let mut w = 1024usize;
        while w > 0 {
            self.r.cache(3)?;
            let hex = |b: u8| (b as char).to_digit(16);
            let (Some(high), Some(low)) = (hex(self.r.at(1)), hex(self.r.at(2))) else {
                return Err(self.tag_error(directive, start, "did not find URI escaped octet"));
            };
            if self.r.byte() != b'%' {
                return Err(self.tag_error(directive, start, "did not find URI escaped octet"));
            }
            let octet = (high * 16 + low) as u8;
            if w == 1024 {
                w = width(octet);
                if w == 0 {
                    return Err(self.tag_error(
                        directive,
                        start,
                        "found an incorrect leading UTF-8 octet",
                    ));
                }
            } else if octet & 0xC0 != 0x80 {
                return Err(self.tag_error(
                    directive,
                    start,
                    "found an incorrect trailing UTF-8 octet",
                ));
            }
            s.push(octet);
            self.r.skip();
            self.r.skip();
            self.r.skip();
            w -= 1;
        }
        Ok(())
    }
}
