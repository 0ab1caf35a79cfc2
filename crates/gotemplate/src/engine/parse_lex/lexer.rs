//! A lexer with the token boundaries of Go's `text/template/parse` lexer, for error reporting
//! only: gotmpl's lexer splits and refuses some inputs differently (it has no "character"
//! token, so `\` in an action is its own lexer error where Go's parser names the context),
//! so Go's first lexical problem is found here. Values are not decoded: only kinds, byte
//! offsets and the texts Go prints are kept. Every index is checked; no input panics.

/// One token: its kind and the byte offset where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    pub kind: Kind,
    pub start: usize,
    /// Where it ends (exclusive; for a delimiter, where it starts).
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    LeftDelim,
    /// The left delimiter of a comment (Go emits no token for it).
    CommentDelim,
    RightDelim,
    /// A run of white space inside an action.
    Space,
    /// A printable ASCII character that starts no other token (Go's `itemChar`).
    Char(char),
    /// `if`, `range`, ... (Go's keywords, printed as `<word>`).
    Keyword(&'static str),
    /// An identifier, field, `.`, literal or `nil`: something that can be an operand.
    Operand,
    /// A variable (an operand that may also start a declaration).
    Variable,
    LeftParen,
    RightParen,
    Pipe,
    /// `:=` or `=`.
    Declare,
    /// Go's lexer error text; lexing stops here.
    Error(String),
}

const KEYWORDS: &[&str] =
    &["block", "break", "continue", "define", "else", "end", "if", "range", "template", "with"];

pub(crate) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_alphanumeric(c: char) -> bool {
    // Go: `_`, unicode.IsLetter, unicode.IsDigit (Rust's classes are close supersets).
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

/// Go's `%#U`: `U+0027 '''`, without the quoted character when it is not printable.
pub(crate) fn go_sharp_u(c: char) -> String {
    let printable = c == ' ' || !(c.is_control() || c.is_whitespace());
    if printable {
        format!("U+{:04X} '{c}'", u32::from(c))
    } else {
        format!("U+{:04X}", u32::from(c))
    }
}

pub(crate) struct Lexer<'a> {
    input: &'a str,
    left: &'a str,
    right: &'a str,
    pos: usize,
    items: Vec<Item>,
    /// Item budget: the caller's source is bounded, this bounds the work per source too.
    limit: usize,
}

impl<'a> Lexer<'a> {
    /// Every token of `input` up to and including the first error (or the end).
    pub(crate) fn items(input: &'a str, left: &'a str, right: &'a str) -> Vec<Item> {
        let limit = input.len().saturating_mul(2).saturating_add(8);
        let mut lexer = Lexer { input, left, right, pos: 0, items: Vec::new(), limit };
        lexer.run();
        lexer.items
    }

    fn rest(&self) -> &'a str {
        self.input.get(self.pos..).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn emit(&mut self, kind: Kind, start: usize) {
        self.items.push(Item { kind, start, end: self.pos.max(start) });
    }

    fn run(&mut self) {
        while self.items.len() < self.limit {
            let Some(found) = self.rest().find(self.left) else { return };
            self.pos += found + self.left.len();
            let delim = self.pos - self.left.len();
            let rest = self.rest();
            let marker = usize::from(
                rest.starts_with('-') && rest[1..].chars().next().is_some_and(is_space),
            ) * 2;
            if rest.get(marker..).is_some_and(|r| r.starts_with("/*")) {
                self.emit(Kind::CommentDelim, delim);
                self.pos += marker;
                if !self.comment() {
                    return;
                }
                continue;
            }
            self.emit(Kind::LeftDelim, delim);
            self.pos += marker;
            if !self.action() {
                return;
            }
        }
    }

    /// A comment from its `/*`; false after an error.
    fn comment(&mut self) -> bool {
        let start = self.pos;
        let Some(close) = self.rest().get(2..).and_then(|r| r.find("*/")) else {
            self.emit(Kind::Error("unclosed comment".into()), start);
            return false;
        };
        self.pos += 2 + close + 2;
        match self.at_right_delim() {
            Some(len) => {
                self.pos += len;
                true
            }
            None => {
                self.emit(Kind::Error("comment ends before closing delimiter".into()), start);
                false
            }
        }
    }

    /// Length of the right delimiter (with its trim marker) at the current position.
    fn at_right_delim(&self) -> Option<usize> {
        let rest = self.rest();
        let mut chars = rest.chars();
        if chars.next().is_some_and(is_space)
            && chars.next() == Some('-')
            && rest.get(2..).is_some_and(|r| r.starts_with(self.right))
        {
            return Some(2 + self.right.len());
        }
        rest.starts_with(self.right).then_some(self.right.len())
    }

    /// The inside of one action up to its right delimiter; false after an error.
    fn action(&mut self) -> bool {
        let mut depth = 0usize;
        loop {
            if self.items.len() >= self.limit {
                return false;
            }
            let start = self.pos;
            if let Some(len) = self.at_right_delim() {
                if depth == 0 {
                    self.emit(Kind::RightDelim, start);
                    self.pos += len;
                    return true;
                }
                self.emit(Kind::Error("unclosed left paren".into()), start);
                return false;
            }
            let Some(c) = self.bump() else {
                self.emit(Kind::Error("unclosed action".into()), start);
                return false;
            };
            let kind = match c {
                _ if is_space(c) => {
                    // A space that begins ` -}}` belongs to the delimiter.
                    self.pos = start;
                    while self.peek().is_some_and(is_space) {
                        if self.pos > start
                            && self.at_right_delim().is_some_and(|l| l > self.right.len())
                        {
                            break;
                        }
                        self.bump();
                    }
                    if self.pos == start {
                        continue;
                    }
                    Kind::Space
                }
                '=' => Kind::Declare,
                ':' if self.bump() == Some('=') => Kind::Declare,
                ':' => Kind::Error("expected :=".into()),
                '|' => Kind::Pipe,
                '"' => self.quoted('"', "unterminated quoted string"),
                '\'' => self.quoted('\'', "unterminated character constant"),
                '`' => match self.rest().find('`') {
                    Some(end) => {
                        self.pos += end + 1;
                        Kind::Operand
                    }
                    None => Kind::Error("unterminated raw quoted string".into()),
                },
                '$' => match self.word(true) {
                    Kind::Operand => Kind::Variable,
                    other => other,
                },
                '.' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => self.word(true),
                '.' | '+' | '-' | '0'..='9' => {
                    self.pos = start;
                    self.number(start)
                }
                _ if is_alphanumeric(c) => {
                    self.pos = start;
                    self.word(false)
                }
                '(' => {
                    depth += 1;
                    Kind::LeftParen
                }
                ')' => match depth.checked_sub(1) {
                    Some(d) => {
                        depth = d;
                        Kind::RightParen
                    }
                    None => Kind::Error("unexpected right paren".into()),
                },
                _ if c.is_ascii_graphic() => Kind::Char(c),
                _ => Kind::Error(format!("unrecognized character in action: {}", go_sharp_u(c))),
            };
            let failed = matches!(kind, Kind::Error(_));
            self.emit(kind, start);
            if failed {
                return false;
            }
        }
    }

    fn quoted(&mut self, quote: char, unterminated: &str) -> Kind {
        loop {
            match self.bump() {
                Some('\\') => {
                    if matches!(self.bump(), None | Some('\n')) {
                        return Kind::Error(unterminated.into());
                    }
                }
                None | Some('\n') => return Kind::Error(unterminated.into()),
                Some(c) if c == quote => return Kind::Operand,
                Some(_) => {}
            }
        }
    }

    /// Go's terminator check after a word: white space, the end, `.,|:()` or the delimiter.
    fn at_terminator(&self) -> bool {
        match self.peek() {
            None => true,
            Some(c) if is_space(c) || ".,|:()".contains(c) => true,
            _ => self.rest().starts_with(self.right),
        }
    }

    /// An identifier or keyword (`dotted` false), or the rest of a field or variable after
    /// its `.` or `$`.
    fn word(&mut self, dotted: bool) -> Kind {
        let begin = self.pos;
        if dotted && self.at_terminator() {
            return Kind::Operand;
        }
        while self.peek().is_some_and(is_alphanumeric) {
            self.bump();
        }
        if !self.at_terminator() {
            let bad = self.peek().unwrap_or('\u{FFFD}');
            return Kind::Error(format!("bad character {}", go_sharp_u(bad)));
        }
        let word = self.input.get(begin..self.pos).unwrap_or_default();
        match KEYWORDS.iter().find(|k| **k == word) {
            Some(keyword) if !dotted => Kind::Keyword(keyword),
            _ => Kind::Operand,
        }
    }

    fn accept(&mut self, set: &str) -> bool {
        match self.peek() {
            Some(c) if set.contains(c) => {
                self.bump();
                true
            }
            _ => false,
        }
    }

    fn accept_run(&mut self, set: &str) {
        while self.accept(set) {}
    }

    /// Go's `scanNumber`: deliberately loose; only a letter or digit straight after fails.
    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if self.peek().is_some_and(is_alphanumeric) {
            self.bump();
            return false;
        }
        true
    }

    fn number(&mut self, start: usize) -> Kind {
        let bad = |lexer: &Self| {
            let text = lexer.input.get(start..lexer.pos).unwrap_or_default();
            Kind::Error(format!("bad number syntax: {text:?}"))
        };
        if !self.scan_number() {
            return bad(self);
        }
        if matches!(self.peek(), Some('+' | '-')) {
            let ok = self.scan_number();
            if !ok || !self.input.get(..self.pos).is_some_and(|s| s.ends_with('i')) {
                return bad(self);
            }
        }
        Kind::Operand
    }
}
