//! The scanner (`scannerc.go`): characters to tokens, with libyaml's simple-key and
//! indentation bookkeeping and yaml.v3's comment scanning (which decides how far ahead the
//! scanner reads, so it is ported even though comments do not reach JSON values).

mod comments;
mod directives;
mod fetch;
mod scalars;

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use super::reader::Reader;
use super::token::{Token, TokenType};
use super::{Mark, Step};

/// libyaml's `max_flow_level` and `max_indents`.
const MAX_NESTING: usize = 10000;

/// Token numbers are distinct small integers: SipHash on them cost more than the scanning
/// around the lookups (measured with `perf` on the decode bench).
#[derive(Default)]
struct TokenNumberHasher(u64);

impl Hasher for TokenNumberHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// `simple_keys_by_tok`: token number to index in the simple key stack.
type KeysByToken = HashMap<usize, usize, BuildHasherDefault<TokenNumberHasher>>;

/// `yaml_simple_key_t`.
#[derive(Clone, Copy, Debug, Default)]
struct SimpleKey {
    possible: bool,
    required: bool,
    token_number: usize,
    mark: Mark,
}

/// `yaml_comment_t`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Comment {
    pub scan_mark: Mark,
    pub token_mark: Mark,
    pub start_mark: Mark,
    pub end_mark: Mark,
    pub head: Vec<u8>,
    pub line: Vec<u8>,
}

pub(crate) struct Scanner<'a> {
    pub r: Reader<'a>,
    /// Tokens fetched and not consumed (`tokens[tokens_head:]`).
    pub tokens: VecDeque<Token>,
    /// Tokens consumed so far (`tokens_parsed`).
    pub tokens_parsed: usize,
    pub token_available: bool,
    pub stream_end_produced: bool,
    /// The last two consumed tokens: Go's token slice still holds them, and the comment
    /// scanner looks at the last two entries of that slice.
    consumed_tail: [Option<(TokenType, Mark)>; 2],
    stream_start_produced: bool,
    flow_level: usize,
    indent: isize,
    indents: Vec<isize>,
    simple_key_allowed: bool,
    simple_keys: Vec<SimpleKey>,
    simple_keys_by_tok: KeysByToken,
    pub comments: Vec<Comment>,
    pub comments_head: usize,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(input: &'a str) -> Self {
        Scanner {
            r: Reader::new(input),
            tokens: VecDeque::new(),
            tokens_parsed: 0,
            token_available: false,
            stream_end_produced: false,
            consumed_tail: [None, None],
            stream_start_produced: false,
            flow_level: 0,
            indent: 0,
            indents: Vec::new(),
            simple_key_allowed: false,
            simple_keys: Vec::new(),
            simple_keys_by_tok: KeysByToken::default(),
            comments: Vec::new(),
            comments_head: 0,
        }
    }

    /// Consumes the head token (`skip_token` in parserc.go).
    pub(crate) fn skip_token(&mut self) {
        self.token_available = false;
        self.tokens_parsed += 1;
        if let Some(token) = self.tokens.pop_front() {
            self.stream_end_produced = token.typ == TokenType::StreamEnd;
            self.consumed_tail = [self.consumed_tail[1], Some((token.typ, token.start_mark))];
        }
    }

    /// The `n`-th last entry of Go's token slice (0: the last), consumed tokens included.
    fn slice_last(&self, n: usize) -> Option<(TokenType, Mark)> {
        let queued = self.tokens.len();
        if n < queued {
            let t = &self.tokens[queued - 1 - n];
            return Some((t.typ, t.start_mark));
        }
        match n - queued {
            0 => self.consumed_tail[1],
            1 => self.consumed_tail[0],
            _ => None,
        }
    }

    /// `yaml_insert_token`: at `pos` in the queue, or at its end.
    fn insert_token(&mut self, pos: Option<usize>, token: Token) {
        match pos {
            Some(pos) if pos < self.tokens.len() => self.tokens.insert(pos, token),
            _ => self.tokens.push_back(token),
        }
    }

    /// `yaml_parser_fetch_more_tokens`: fetches until the head token is settled. yaml.v3
    /// keeps at least three tokens queued (for comments), and more while the head token
    /// may still become a simple key.
    pub(crate) fn fetch_more_tokens(&mut self) -> Step {
        loop {
            if self.tokens.len() > 2 {
                let Some(&key) = self.simple_keys_by_tok.get(&self.tokens_parsed) else {
                    break;
                };
                if !self.simple_key_is_valid(key)? {
                    break;
                }
            }
            self.fetch_next_token()?;
        }
        self.token_available = true;
        Ok(())
    }

    /// `yaml_parser_fetch_next_token`.
    fn fetch_next_token(&mut self) -> Step {
        self.r.cache(1)?;
        if !self.stream_start_produced {
            self.fetch_stream_start();
            return Ok(());
        }
        let scan_mark = self.r.mark;
        self.scan_to_next_token()?;
        self.unroll_indent(self.r.mark.column, scan_mark);
        self.r.cache(4)?;
        let r = &self.r;
        if r.byte() == 0 {
            return self.fetch_stream_end();
        }
        if r.mark.column == 0 && r.byte() == b'%' {
            return self.fetch_directive();
        }
        let indicator = |c: u8| {
            r.mark.column == 0 && r.at(0) == c && r.at(1) == c && r.at(2) == c && r.is_blankz(3)
        };
        if indicator(b'-') {
            return self.fetch_document_indicator(TokenType::DocumentStart);
        }
        if indicator(b'.') {
            return self.fetch_document_indicator(TokenType::DocumentEnd);
        }
        let mut comment_mark = self.r.mark;
        let c = self.r.byte();
        if (self.flow_level == 0 && c == b':') || (self.flow_level > 0 && c == b',') {
            // Comments after ':' or ',' belong to the token before it.
            if let Some((_, mark)) = self.slice_last(0) {
                comment_mark = mark;
            }
        }
        self.fetch_token()?;
        if self.slice_last(0).map(|(typ, _)| typ) == Some(TokenType::BlockEntry) {
            // Sequence indicators have no line comments of their own.
            return Ok(());
        }
        self.scan_line_comment(comment_mark)
    }

    /// `yaml_simple_key_is_valid` for the key at `i`: a key must be on one line and at most
    /// 1024 characters long; a required one that is no longer possible is an error.
    fn simple_key_is_valid(&mut self, i: usize) -> Step<bool> {
        let mark = self.r.mark;
        let Some(key) = self.simple_keys.get_mut(i) else {
            return Ok(false);
        };
        if !key.possible {
            return Ok(false);
        }
        if key.mark.line < mark.line || key.mark.index + 1024 < mark.index {
            if key.required {
                let key_mark = key.mark;
                return Err(self.key_without_value(key_mark));
            }
            key.possible = false;
            return Ok(false);
        }
        Ok(true)
    }

    /// A simple key that had to be one (block context, at the indentation) found no ':'.
    fn key_without_value(&mut self, key_mark: Mark) -> super::Stop {
        self.r.scanner_error("while scanning a simple key", key_mark, "could not find expected ':'")
    }

    /// `yaml_parser_save_simple_key`.
    fn save_simple_key(&mut self) -> Step {
        let required = self.flow_level == 0 && self.indent == self.r.mark.column;
        if self.simple_key_allowed {
            let key = SimpleKey {
                possible: true,
                required,
                token_number: self.tokens_parsed + self.tokens.len(),
                mark: self.r.mark,
            };
            self.remove_simple_key()?;
            let last = self.simple_keys.len() - 1;
            self.simple_keys[last] = key;
            self.simple_keys_by_tok.insert(key.token_number, last);
        }
        Ok(())
    }

    /// `yaml_parser_remove_simple_key`.
    fn remove_simple_key(&mut self) -> Step {
        let Some(key) = self.simple_keys.last_mut() else {
            return Ok(());
        };
        if key.possible {
            if key.required {
                let key_mark = key.mark;
                return Err(self.key_without_value(key_mark));
            }
            key.possible = false;
            let number = key.token_number;
            self.simple_keys_by_tok.remove(&number);
        }
        Ok(())
    }

    /// `yaml_parser_increase_flow_level`.
    fn increase_flow_level(&mut self) -> Step {
        self.simple_keys.push(SimpleKey {
            possible: false,
            required: false,
            token_number: self.tokens_parsed + self.tokens.len(),
            mark: self.r.mark,
        });
        self.flow_level += 1;
        if self.flow_level > MAX_NESTING {
            let mark = self.r.mark;
            return Err(self.r.scanner_error(
                "while increasing flow level",
                mark,
                &format!("exceeded max depth of {MAX_NESTING}"),
            ));
        }
        Ok(())
    }

    /// `yaml_parser_decrease_flow_level`.
    fn decrease_flow_level(&mut self) {
        if self.flow_level > 0 {
            self.flow_level -= 1;
            if let Some(key) = self.simple_keys.pop() {
                self.simple_keys_by_tok.remove(&key.token_number);
            }
        }
    }

    /// `yaml_parser_roll_indent`: opens a block collection at `column`, inserting its start
    /// token before token number `number` (or at the end).
    fn roll_indent(
        &mut self,
        column: isize,
        number: Option<usize>,
        typ: TokenType,
        mark: Mark,
    ) -> Step {
        if self.flow_level > 0 {
            return Ok(());
        }
        if self.indent < column {
            self.indents.push(self.indent);
            self.indent = column;
            if self.indents.len() > MAX_NESTING {
                let key_mark = self.simple_keys.last().map(|k| k.mark).unwrap_or_default();
                return Err(self.r.scanner_error(
                    "while increasing indent level",
                    key_mark,
                    &format!("exceeded max depth of {MAX_NESTING}"),
                ));
            }
            let pos = number.map(|n| n.saturating_sub(self.tokens_parsed));
            self.insert_token(pos, Token::new(typ, mark, mark));
        }
        Ok(())
    }

    /// `yaml_parser_unroll_indent`: closes block collections deeper than `column`. Each
    /// BLOCK-END is placed before the foot comments of its parent levels.
    fn unroll_indent(&mut self, column: isize, scan_mark: Mark) {
        if self.flow_level > 0 {
            return;
        }
        let mut block_mark = scan_mark;
        block_mark.index -= 1;
        while self.indent > column {
            let mut stop_index = block_mark.index;
            for comment in self.comments.iter().rev() {
                if comment.end_mark.index < stop_index {
                    break;
                }
                if comment.start_mark.column == self.indent + 1 {
                    block_mark = comment.start_mark;
                }
                stop_index = comment.scan_mark.index;
            }
            self.insert_token(None, Token::new(TokenType::BlockEnd, block_mark, block_mark));
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    /// `yaml_parser_scan_to_next_token`: skips blanks, line breaks and comments.
    fn scan_to_next_token(&mut self) -> Step {
        let scan_mark = self.r.mark;
        loop {
            self.r.cache(1)?;
            if self.r.mark.column == 0 && self.r.front_is_bom() {
                self.r.skip();
            }
            self.r.cache(1)?;
            // Tabs are whitespace only in flow context and where no simple key may start.
            while self.r.byte() == b' '
                || ((self.flow_level > 0 || !self.simple_key_allowed) && self.r.byte() == b'\t')
            {
                self.r.skip();
                self.r.cache(1)?;
            }
            // A line comment after a sequence indicator becomes the head of what follows.
            let a = self.slice_last(1).map(|(typ, _)| typ);
            let b = self.slice_last(0).map(|(typ, _)| typ);
            let at_break = self.r.is_break(0);
            let mark = self.r.mark;
            if let Some(comment) = self.comments.last_mut()
                && a == Some(TokenType::BlockSequenceStart)
                && b == Some(TokenType::BlockEntry)
                && !comment.line.is_empty()
                && !at_break
            {
                comment.head = std::mem::take(&mut comment.line);
                if comment.start_mark.line == mark.line - 1 {
                    comment.token_mark = mark;
                }
            }
            if self.r.byte() == b'#' {
                self.scan_comments(scan_mark)?;
            }
            if self.r.is_break(0) {
                self.r.cache(2)?;
                self.r.skip_line();
                if self.flow_level == 0 {
                    self.simple_key_allowed = true;
                }
            } else {
                return Ok(());
            }
        }
    }
}
