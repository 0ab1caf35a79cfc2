//! Tokens of the CEL lexis, with byte spans.
//!
//! Text that is no token is handled as cel-go's ANTLR lexer handles it: reported as a
//! `token recognition error` covering the token's start up to and including the first
//! character that cannot continue it, skipped, and lexing goes on after it. When a
//! shorter prefix was a token by itself (`r` in `r'abc`, `''` in `'''abc`), that token
//! is produced instead and lexing goes on after it.

use super::ast::Span;
use super::error::{ParseError, SyntaxErrorKind};
use super::literal::unescape;

/// cel-go stops after this many syntax errors.
pub const MAX_ERRORS: usize = 100;

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind<'a> {
    /// Magnitude of an int literal; the sign is applied by the parser so that
    /// `-9223372036854775808` is representable.
    Int(u64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
    /// Lexically valid literals whose value is not representable or does not decode:
    /// cel-go reports them after parsing, so parsing goes on. The strings carry the
    /// message.
    BadInt,
    BadUint,
    BadDouble,
    BadString(&'static str),
    BadBytes(&'static str),
    /// Identifiers and reserved words alike: whether a reserved word is allowed
    /// depends on where it appears (`a.if` is fine, `if` alone is not).
    Ident(&'a str),
    /// A backquoted identifier, without its backquotes.
    QuotedIdent(&'a str),
    True,
    False,
    Null,
    In,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Dot,
    Comma,
    Colon,
    Question,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Bang,
    EqEq,
    NotEq,
    Less,
    LessEq,
    Greater,
    GreaterEq,
    AndAnd,
    OrOr,
    Eof,
}

impl TokenKind<'_> {
    /// How the token is quoted in error messages (ANTLR's token display).
    pub fn describe(&self, source: &str, span: Span) -> String {
        match self {
            TokenKind::Eof => "<EOF>".to_owned(),
            _ => escape_ws(source.get(span.start as usize..span.end as usize).unwrap_or("")),
        }
    }
}

/// ANTLR shows line breaks and tabs in quoted input as escapes.
pub fn escape_ws(text: &str) -> String {
    text.replace('\n', "\\n").replace('\r', "\\r").replace('\t', "\\t")
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token<'a> {
    pub kind: TokenKind<'a>,
    pub span: Span,
}

pub struct Lexer<'a> {
    source: &'a str,
    pos: usize,
    /// Token recognition errors so far.
    pub errors: Vec<ParseError>,
}

impl<'a> Lexer<'a> {
    pub fn new(source: &'a str) -> Self {
        Lexer { source, pos: 0, errors: Vec::new() }
    }

    fn rest(&self) -> &'a str {
        self.source.get(self.pos..).unwrap_or("")
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.source.as_bytes().get(self.pos + ahead).copied()
    }

    /// Records a recognition error for the text from `start` through the character at
    /// `at` (or the end) and resumes after that character.
    fn fail(&mut self, start: usize, at: usize) {
        let width = self.source.get(at..).and_then(|r| r.chars().next()).map_or(0, char::len_utf8);
        let end = (at + width).min(self.source.len());
        self.pos = end.max(start + 1).min(self.source.len());
        let kind = if self.errors.len() >= MAX_ERRORS {
            // cel-go gives up here; so does the lexer, by ending the input.
            self.pos = self.source.len();
            SyntaxErrorKind::TooManyErrors(MAX_ERRORS)
        } else {
            SyntaxErrorKind::UnrecognizedToken(escape_ws(self.source.get(start..end).unwrap_or("")))
        };
        self.errors.push(*ParseError::new(kind, span(start, end.max(start + 1)), self.source));
    }

    fn skip_trivia(&mut self) {
        loop {
            match self.peek_byte(0) {
                Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') => self.pos += 1,
                Some(b'/') if self.peek_byte(1) == Some(b'/') => {
                    let rest = self.rest();
                    self.pos += rest.find('\n').unwrap_or(rest.len());
                }
                _ => return,
            }
        }
    }

    /// The next token; text that is no token is recorded in `errors` and skipped.
    pub fn next_token(&mut self) -> Token<'a> {
        loop {
            self.skip_trivia();
            let start = self.pos;
            let Some(first) = self.peek_byte(0) else {
                return Token { kind: TokenKind::Eof, span: span(start, start) };
            };
            let kind = match first {
                b'0'..=b'9' => Some(self.number()),
                b'.' if self.peek_byte(1).is_some_and(|b| b.is_ascii_digit()) => {
                    Some(self.number())
                }
                b'\'' | b'"' => self.quoted(start, false, false),
                b'`' => self.quoted_ident(),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => Some(self.word()),
                _ => self.punctuation(),
            };
            if let Some(kind) = kind {
                return Token { kind, span: span(start, self.pos) };
            }
        }
    }

    fn punctuation(&mut self) -> Option<TokenKind<'a>> {
        let two = |second: u8| self.peek_byte(1) == Some(second);
        let (kind, len) = match self.peek_byte(0) {
            Some(b'(') => (TokenKind::LParen, 1),
            Some(b')') => (TokenKind::RParen, 1),
            Some(b'[') => (TokenKind::LBracket, 1),
            Some(b']') => (TokenKind::RBracket, 1),
            Some(b'{') => (TokenKind::LBrace, 1),
            Some(b'}') => (TokenKind::RBrace, 1),
            Some(b'.') => (TokenKind::Dot, 1),
            Some(b',') => (TokenKind::Comma, 1),
            Some(b':') => (TokenKind::Colon, 1),
            Some(b'?') => (TokenKind::Question, 1),
            Some(b'+') => (TokenKind::Plus, 1),
            Some(b'-') => (TokenKind::Minus, 1),
            Some(b'*') => (TokenKind::Star, 1),
            Some(b'/') => (TokenKind::Slash, 1),
            Some(b'%') => (TokenKind::Percent, 1),
            Some(b'=') if two(b'=') => (TokenKind::EqEq, 2),
            Some(b'!') if two(b'=') => (TokenKind::NotEq, 2),
            Some(b'!') => (TokenKind::Bang, 1),
            Some(b'<') if two(b'=') => (TokenKind::LessEq, 2),
            Some(b'<') => (TokenKind::Less, 1),
            Some(b'>') if two(b'=') => (TokenKind::GreaterEq, 2),
            Some(b'>') => (TokenKind::Greater, 1),
            Some(b'&') if two(b'&') => (TokenKind::AndAnd, 2),
            Some(b'|') if two(b'|') => (TokenKind::OrOr, 2),
            // The first half of `==`, `&&` or `||`: the character after it ends the
            // attempt.
            Some(b'=' | b'&' | b'|') => {
                self.fail(self.pos, self.pos + 1);
                return None;
            }
            _ => {
                self.fail(self.pos, self.pos);
                return None;
            }
        };
        self.pos += len;
        Some(kind)
    }

    fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek_byte(0).is_some_and(&pred) {
            self.pos += 1;
        }
        self.source.get(start..self.pos).unwrap_or("")
    }

    /// Identifiers, keywords, and the `r`/`b` prefixes of string and bytes literals.
    fn word(&mut self) -> TokenKind<'a> {
        let start = self.pos;
        let rest = self.rest().as_bytes();
        let prefix_len = rest.iter().take(2).take_while(|b| b"rRbB".contains(b)).count();
        for len in (1..=prefix_len).rev() {
            let prefix = rest.get(..len).unwrap_or(&[]);
            let raw = prefix.iter().any(|b| b"rR".contains(b));
            let bytes = prefix.iter().any(|b| b"bB".contains(b));
            // `rb` and `br` are fine, `rr` and `bb` are plain identifiers.
            let valid = len == 1 || (raw && bytes);
            if valid && matches!(rest.get(len), Some(b'\'' | b'"')) {
                self.pos += len;
                if let Some(kind) = self.quoted(start, raw, bytes) {
                    return kind;
                }
                // The prefix alone is an identifier; the quote starts the next token.
                self.pos = start + len;
                return TokenKind::Ident(self.source.get(start..start + len).unwrap_or(""));
            }
        }
        let word = self.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        match word {
            "true" => TokenKind::True,
            "false" => TokenKind::False,
            "null" => TokenKind::Null,
            "in" => TokenKind::In,
            _ => TokenKind::Ident(word),
        }
    }

    fn number(&mut self) -> TokenKind<'a> {
        let start = self.pos;
        // `0x` without a digit is the int `0` followed by the identifier `x...`.
        let hex = self.peek_byte(0) == Some(b'0')
            && matches!(self.peek_byte(1), Some(b'x' | b'X'))
            && self.peek_byte(2).is_some_and(|b| b.is_ascii_hexdigit());
        if hex {
            self.pos += 2;
            let digits = self.take_while(|b| b.is_ascii_hexdigit());
            return self.integer_suffix(digits, 16);
        }
        let int_digits = self.take_while(|b| b.is_ascii_digit());
        let mut is_double = false;
        if self.peek_byte(0) == Some(b'.') && self.peek_byte(1).is_some_and(|b| b.is_ascii_digit())
        {
            self.pos += 1;
            self.take_while(|b| b.is_ascii_digit());
            is_double = true;
        }
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.peek_byte(1), Some(b'+' | b'-')));
            if self.peek_byte(1 + sign).is_some_and(|b| b.is_ascii_digit()) {
                self.pos += 1 + sign;
                self.take_while(|b| b.is_ascii_digit());
                is_double = true;
            }
        }
        if !is_double {
            return self.integer_suffix(int_digits, 10);
        }
        let text = self.source.get(start..self.pos).unwrap_or("");
        // Go's ParseFloat refuses values beyond the double range, so cel-go does too.
        match text.parse::<f64>() {
            Ok(value) if value.is_finite() => TokenKind::Double(value),
            _ => TokenKind::BadDouble,
        }
    }

    fn integer_suffix(&mut self, digits: &str, radix: u32) -> TokenKind<'a> {
        let unsigned = matches!(self.peek_byte(0), Some(b'u' | b'U'));
        if unsigned {
            self.pos += 1;
        }
        let value = u64::from_str_radix(digits, radix);
        match (unsigned, value) {
            (true, Ok(v)) => TokenKind::Uint(v),
            (true, Err(_)) => TokenKind::BadUint,
            // The magnitude may be 2^63 here; the parser accepts it only when negated.
            (false, Ok(v)) if v <= 1 << 63 => TokenKind::Int(v),
            (false, _) => TokenKind::BadInt,
        }
    }

    /// A string or bytes literal starting at `start` whose prefix (if any) has been
    /// consumed. `None` when it is no token: with a prefix nothing is recorded (the
    /// prefix is an identifier), otherwise the error is recorded.
    fn quoted(&mut self, start: usize, raw: bool, bytes: bool) -> Option<TokenKind<'a>> {
        let rest = self.rest();
        let quote = if rest.starts_with('"') { "\"" } else { "'" };
        let triple = quote.repeat(3);
        let multiline = rest.starts_with(&triple);
        let delimiter = if multiline { triple.as_str() } else { quote };
        let body_offset = self.pos + delimiter.len();
        let end = match scan_body(self.source, body_offset, delimiter, raw, multiline) {
            Ok(end) => end,
            Err(_) if multiline => {
                // Its first two quotes (with the prefix) were an empty literal: that is
                // the token.
                self.pos += 2;
                return Some(if bytes {
                    TokenKind::Bytes(Vec::new())
                } else {
                    TokenKind::String(String::new())
                });
            }
            Err(_) if start != self.pos => return None,
            Err(at) => {
                self.fail(start, at);
                return None;
            }
        };
        let body = self.source.get(body_offset..end).unwrap_or("");
        self.pos = end + delimiter.len();
        let decoded = if raw { Ok(body.as_bytes().to_vec()) } else { unescape(body, bytes) };
        Some(match decoded {
            Ok(b) if bytes => TokenKind::Bytes(b),
            Err(message) if bytes => TokenKind::BadBytes(message),
            // Escapes in strings decode to whole code points.
            Ok(b) => String::from_utf8(b)
                .map_or(TokenKind::BadString("invalid unicode code point"), TokenKind::String),
            Err(message) => TokenKind::BadString(message),
        })
    }

    /// `` `name` `` with letters, digits and `_ . - /` and space only, at least one.
    fn quoted_ident(&mut self) -> Option<TokenKind<'a>> {
        let start = self.pos;
        let mut at = start + 1;
        for c in self.source.get(at..).unwrap_or("").chars() {
            if c == '`' && at > start + 1 {
                self.pos = at + 1;
                return Some(TokenKind::QuotedIdent(self.source.get(start + 1..at).unwrap_or("")));
            }
            if !(c.is_ascii_alphanumeric() || "_.-/ ".contains(c)) {
                break;
            }
            at += c.len_utf8();
        }
        self.fail(start, at);
        None
    }
}

/// Where the body starting at `from` ends (the closing delimiter's offset), or the
/// offset of the first character that cannot continue the literal.
fn scan_body(
    source: &str,
    from: usize,
    delimiter: &str,
    raw: bool,
    multiline: bool,
) -> Result<usize, usize> {
    let mut at = from;
    loop {
        let rest = source.get(at..).unwrap_or("");
        if rest.starts_with(delimiter) {
            return Ok(at);
        }
        let Some(c) = rest.chars().next() else {
            return Err(at);
        };
        if !multiline && (c == '\n' || c == '\r') {
            return Err(at);
        }
        if c == '\\' && !raw {
            at = scan_escape(source, at)?;
            continue;
        }
        at += c.len_utf8();
    }
}

/// The end of the escape sequence at `at` (a backslash), or where it goes wrong.
fn scan_escape(source: &str, at: usize) -> Result<usize, usize> {
    let bytes = source.as_bytes();
    let letter = at + 1;
    let digits = |from: usize, count: usize, ok: fn(&u8) -> bool| {
        (from..from + count).find(|&i| !bytes.get(i).is_some_and(ok)).map_or(Ok(from + count), Err)
    };
    match bytes.get(letter) {
        Some(
            b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'"' | b'\'' | b'\\' | b'?' | b'`',
        ) => Ok(letter + 1),
        Some(b'0'..=b'3') => digits(letter + 1, 2, |b| (b'0'..=b'7').contains(b)),
        Some(b'x' | b'X') => digits(letter + 1, 2, u8::is_ascii_hexdigit),
        Some(b'u') => digits(letter + 1, 4, u8::is_ascii_hexdigit),
        Some(b'U') => digits(letter + 1, 8, u8::is_ascii_hexdigit),
        _ => Err(letter),
    }
}

fn span(start: usize, end: usize) -> Span {
    // Sources are bounded far below 4 GiB by the parser's size limit.
    Span::new(u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(end).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Result<Vec<TokenKind<'_>>, SyntaxErrorKind> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let token = lexer.next_token();
            if token.kind == TokenKind::Eof {
                return match lexer.errors.first() {
                    Some(error) => Err(error.kind.clone()),
                    None => Ok(out),
                };
            }
            out.push(token.kind);
        }
    }

    #[test]
    fn numbers() {
        use TokenKind::*;
        assert_eq!(
            kinds("0 42 0x1F 7u 0x10U 1.5 .5 1e3 2.5E-2 9223372036854775808"),
            Ok(vec![
                Int(0),
                Int(42),
                Int(31),
                Uint(7),
                Uint(16),
                Double(1.5),
                Double(0.5),
                Double(1000.0),
                Double(0.025),
                Int(1 << 63)
            ])
        );
        // `1.` is not a double: the dot starts a member access.
        assert_eq!(kinds("1.a"), Ok(vec![Int(1), Dot, Ident("a")]));
        assert_eq!(kinds("1e"), Ok(vec![Int(1), Ident("e")]));
        // Out of range literals are tokens; the parser reports them.
        assert_eq!(kinds("18446744073709551616u 9223372036854775809"), Ok(vec![BadUint, BadInt]));
        assert_eq!(kinds("1e309 1e308"), Ok(vec![BadDouble, Double(1e308)]));
        // `0x` without a digit is `0` and the identifier `x...`.
        assert_eq!(kinds("0xg"), Ok(vec![Int(0), Ident("xg")]));
    }

    #[test]
    fn strings_and_bytes() {
        use TokenKind::*;
        assert_eq!(
            kinds(r#"'a\n' "b" '''c'd''' """e"f""" r'\n' R"\x" b'\377' bR'\x' rb"z""#),
            Ok(vec![
                String("a\n".into()),
                String("b".into()),
                String("c'd".into()),
                String("e\"f".into()),
                String("\\n".into()),
                String("\\x".into()),
                Bytes(vec![255]),
                Bytes(b"\\x".to_vec()),
                Bytes(b"z".to_vec()),
            ])
        );
        assert_eq!(kinds(r"'\''"), Ok(vec![String("'".into())]));
        assert_eq!(kinds("'''a\nb'''"), Ok(vec![String("a\nb".into())]));
        assert_eq!(kinds("'a\nb'"), Err(SyntaxErrorKind::UnrecognizedToken("'a\\n".into())));
        assert_eq!(kinds("\"abc"), Err(SyntaxErrorKind::UnrecognizedToken("\"abc".into())));
        // `''`, then `'abc'`, then a lone `'`.
        assert_eq!(kinds("'''abc''"), Err(SyntaxErrorKind::UnrecognizedToken("'".into())));
        assert_eq!(kinds("rr'x'"), Ok(vec![Ident("rr"), String("x".into())]));
    }

    #[test]
    fn identifiers_keywords_operators_comments() {
        use TokenKind::*;
        assert_eq!(
            kinds(
                "a_1 in true false null `x-y.z` // comment\n!= == <= >= && || ! < > ? : . , % * / - + ( ) [ ] { }"
            ),
            Ok(vec![
                Ident("a_1"),
                In,
                True,
                False,
                Null,
                QuotedIdent("x-y.z"),
                NotEq,
                EqEq,
                LessEq,
                GreaterEq,
                AndAnd,
                OrOr,
                Bang,
                Less,
                Greater,
                Question,
                Colon,
                Dot,
                Comma,
                Percent,
                Star,
                Slash,
                Minus,
                Plus,
                LParen,
                RParen,
                LBracket,
                RBracket,
                LBrace,
                RBrace
            ])
        );
        assert_eq!(kinds("a # b"), Err(SyntaxErrorKind::UnrecognizedToken("#".into())));
        assert_eq!(kinds("a & b"), Err(SyntaxErrorKind::UnrecognizedToken("& ".into())));
        assert_eq!(kinds("`a+b`"), Err(SyntaxErrorKind::UnrecognizedToken("`a+".into())));
        assert_eq!(kinds("é"), Err(SyntaxErrorKind::UnrecognizedToken("é".into())));
    }

    #[test]
    fn spans_are_byte_ranges() {
        let mut lexer = Lexer::new("  ab 'ü'");
        assert_eq!(lexer.next_token().span, Span::new(2, 4));
        assert_eq!(lexer.next_token().span, Span::new(5, 9));
        assert_eq!(lexer.next_token().span, Span::new(9, 9));
    }

    /// Every recognition error with the text ANTLR shows, and the tokens lexed around them.
    fn recovered(src: &str) -> (Vec<TokenKind<'_>>, Vec<String>) {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let token = lexer.next_token();
            if token.kind == TokenKind::Eof {
                let errors =
                    lexer.errors.iter().map(|e| format!("{}:{}", e.column, e.kind)).collect();
                return (out, errors);
            }
            out.push(token.kind);
        }
    }

    #[test]
    fn recognition_errors_cover_up_to_the_failing_character_and_lexing_goes_on() {
        use TokenKind::*;
        let at = |col: usize, text: &str| {
            format!("{col}:Syntax error: token recognition error at: '{text}'")
        };
        assert_eq!(recovered("a &&& true"), (vec![Ident("a"), AndAnd, True], vec![at(5, "& ")]));
        assert_eq!(recovered("@"), (vec![], vec![at(1, "@")]));
        assert_eq!(recovered("'abc"), (vec![], vec![at(1, "'abc")]));
        assert_eq!(recovered(r"'\q'"), (vec![], vec![at(1, r"'\q"), at(4, "'")]));
        assert_eq!(
            recovered(r#""\u00ZZ""#),
            (vec![Ident("Z")], vec![at(1, r#""\u00Z"#), at(8, "\"")])
        );
        // A prefix or an empty literal before the failure is a token of its own.
        assert_eq!(recovered("r'ab"), (vec![Ident("r")], vec![at(2, "'ab")]));
        assert_eq!(recovered("'''ab"), (vec![String("".into())], vec![at(3, "'ab")]));
        assert_eq!(recovered("``"), (vec![], vec![at(1, "``")]));
        assert_eq!(recovered("a = b"), (vec![Ident("a"), Ident("b")], vec![at(3, "= ")]));
        assert_eq!(recovered("'a\tb\nc"), (vec![Ident("c")], vec![at(1, "'a\\tb\\n")]));
    }
}
