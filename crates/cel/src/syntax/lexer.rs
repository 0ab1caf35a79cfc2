//! Tokens of the CEL lexis, with byte spans.

use super::ast::Span;
use super::error::{ParseError, SyntaxErrorKind};
use super::literal::unescape;

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind<'a> {
    /// Magnitude of an int literal; the sign is applied by the parser so that
    /// `-9223372036854775808` is representable.
    Int(u64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
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
    /// How the token is quoted in error messages.
    pub fn describe(&self, source: &str, span: Span) -> String {
        match self {
            TokenKind::Eof => "<EOF>".to_owned(),
            _ => source
                .get(span.start as usize..span.end as usize)
                .unwrap_or("")
                .chars()
                .take(40)
                .collect(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token<'a> {
    pub kind: TokenKind<'a>,
    pub span: Span,
}

pub struct Lexer<'a> {
    source: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(source: &'a str) -> Self {
        Lexer { source, pos: 0 }
    }

    fn rest(&self) -> &'a str {
        self.source.get(self.pos..).unwrap_or("")
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        self.source.as_bytes().get(self.pos + ahead).copied()
    }

    fn error(&self, kind: SyntaxErrorKind, start: usize) -> Box<ParseError> {
        ParseError::new(kind, span(start, self.pos.max(start + 1)), self.source)
    }

    fn skip_trivia(&mut self) {
        loop {
            match self.peek_byte(0) {
                Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') => self.pos += 1,
                Some(b'/') if self.peek_byte(1) == Some(b'/') => {
                    let rest = self.rest();
                    self.pos += rest.find(['\n', '\r']).unwrap_or(rest.len());
                }
                _ => return,
            }
        }
    }

    pub fn next_token(&mut self) -> Result<Token<'a>, Box<ParseError>> {
        self.skip_trivia();
        let start = self.pos;
        let Some(first) = self.peek_byte(0) else {
            return Ok(Token { kind: TokenKind::Eof, span: span(start, start) });
        };
        let kind = match first {
            b'0'..=b'9' => self.number()?,
            b'.' if self.peek_byte(1).is_some_and(|b| b.is_ascii_digit()) => self.number()?,
            b'\'' | b'"' => self.quoted(start, false, false)?,
            b'`' => self.quoted_ident()?,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.word()?,
            _ => self.punctuation()?,
        };
        Ok(Token { kind, span: span(start, self.pos) })
    }

    fn punctuation(&mut self) -> Result<TokenKind<'a>, Box<ParseError>> {
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
            _ => {
                let c = self.rest().chars().next().unwrap_or('\0');
                let start = self.pos;
                self.pos += c.len_utf8();
                return Err(self.error(SyntaxErrorKind::UnrecognizedToken(c.to_string()), start));
            }
        };
        self.pos += len;
        Ok(kind)
    }

    fn take_while(&mut self, pred: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.peek_byte(0).is_some_and(&pred) {
            self.pos += 1;
        }
        self.source.get(start..self.pos).unwrap_or("")
    }

    /// Identifiers, keywords, and the `r`/`b` prefixes of string and bytes literals.
    fn word(&mut self) -> Result<TokenKind<'a>, Box<ParseError>> {
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
                return self.quoted(start, raw, bytes);
            }
        }
        let word = self.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        Ok(match word {
            "true" => TokenKind::True,
            "false" => TokenKind::False,
            "null" => TokenKind::Null,
            "in" => TokenKind::In,
            _ => TokenKind::Ident(word),
        })
    }

    fn number(&mut self) -> Result<TokenKind<'a>, Box<ParseError>> {
        let start = self.pos;
        let hex = self.peek_byte(0) == Some(b'0') && matches!(self.peek_byte(1), Some(b'x' | b'X'));
        if hex {
            self.pos += 2;
            let digits = self.take_while(|b| b.is_ascii_hexdigit());
            if digits.is_empty() {
                return Err(self.error(SyntaxErrorKind::UnrecognizedToken("0x".into()), start));
            }
            return self.integer_suffix(start, digits, 16);
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
            return self.integer_suffix(start, int_digits, 10);
        }
        let text = self.source.get(start..self.pos).unwrap_or("");
        let value: f64 = text
            .parse()
            .map_err(|_| self.error(SyntaxErrorKind::InvalidDouble(text.to_owned()), start))?;
        Ok(TokenKind::Double(value))
    }

    fn integer_suffix(
        &mut self,
        start: usize,
        digits: &str,
        radix: u32,
    ) -> Result<TokenKind<'a>, Box<ParseError>> {
        let unsigned = matches!(self.peek_byte(0), Some(b'u' | b'U'));
        if unsigned {
            self.pos += 1;
        }
        let text = self.source.get(start..self.pos).unwrap_or("").to_owned();
        let value = u64::from_str_radix(digits, radix);
        match (unsigned, value) {
            (true, Ok(v)) => Ok(TokenKind::Uint(v)),
            (true, Err(_)) => Err(self.error(SyntaxErrorKind::UintOverflow(text), start)),
            // The magnitude may be 2^63 here; the parser accepts it only when negated.
            (false, Ok(v)) if v <= 1 << 63 => Ok(TokenKind::Int(v)),
            (false, _) => Err(self.error(SyntaxErrorKind::IntOverflow(text), start)),
        }
    }

    /// A string or bytes literal whose prefix (if any) has been consumed.
    fn quoted(
        &mut self,
        start: usize,
        raw: bool,
        bytes: bool,
    ) -> Result<TokenKind<'a>, Box<ParseError>> {
        let rest = self.rest();
        let quote = if rest.starts_with('"') { '"' } else { '\'' };
        let triple = if quote == '"' { "\"\"\"" } else { "'''" };
        let (delimiter, body_start) = if rest.starts_with(triple) {
            (triple, 3)
        } else {
            (if quote == '"' { "\"" } else { "'" }, 1)
        };
        let body_rest = rest.get(body_start..).unwrap_or("");
        let end = find_closing(body_rest, delimiter, raw).ok_or_else(|| {
            self.pos = self.source.len();
            self.error(SyntaxErrorKind::UnterminatedString(closing_hint(delimiter)), start)
        })?;
        let body = body_rest.get(..end).unwrap_or("");
        if body_start == 1 && body.contains(['\n', '\r']) {
            self.pos += body_start + end;
            return Err(
                self.error(SyntaxErrorKind::UnterminatedString(closing_hint(delimiter)), start)
            );
        }
        let body_offset = self.pos + body_start;
        self.pos = body_offset + end + delimiter.len();
        let decoded = if raw {
            body.as_bytes().to_vec()
        } else {
            unescape(body, bytes).map_err(|(kind, at)| {
                ParseError::new(kind, span(body_offset + at, body_offset + at + 1), self.source)
            })?
        };
        if bytes {
            return Ok(TokenKind::Bytes(decoded));
        }
        // Escapes in strings decode to whole code points, so this cannot fail; the
        // error path exists only to avoid a panic.
        String::from_utf8(decoded)
            .map(TokenKind::String)
            .map_err(|_| self.error(SyntaxErrorKind::InvalidEscape(body.to_owned()), start))
    }

    fn quoted_ident(&mut self) -> Result<TokenKind<'a>, Box<ParseError>> {
        let start = self.pos;
        let rest = self.rest().get(1..).unwrap_or("");
        let Some(end) = rest.find('`') else {
            self.pos = self.source.len();
            return Err(self.error(SyntaxErrorKind::UnterminatedQuotedIdent, start));
        };
        let name = rest.get(..end).unwrap_or("");
        if let Some(bad) =
            name.chars().find(|&c| !(c.is_ascii_alphanumeric() || "_.-/ ".contains(c)))
        {
            return Err(self.error(SyntaxErrorKind::InvalidQuotedIdent(bad), start));
        }
        if name.is_empty() {
            return Err(self.error(SyntaxErrorKind::UnrecognizedToken("``".into()), start));
        }
        self.pos += end + 2;
        Ok(TokenKind::QuotedIdent(name))
    }
}

fn span(start: usize, end: usize) -> Span {
    // Sources are bounded far below 4 GiB by the parser's size limit.
    Span::new(u32::try_from(start).unwrap_or(u32::MAX), u32::try_from(end).unwrap_or(u32::MAX))
}

fn closing_hint(delimiter: &str) -> &'static str {
    match delimiter {
        "'''" => "'''",
        "\"\"\"" => "\"\"\"",
        "'" => "'",
        _ => "\"",
    }
}

/// Byte offset of the closing delimiter in `body`; escapes (`\'`) do not close a
/// non-raw literal.
fn find_closing(body: &str, delimiter: &str, raw: bool) -> Option<usize> {
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !raw && bytes.get(i) == Some(&b'\\') {
            i += 2;
            continue;
        }
        if bytes.get(i..).is_some_and(|b| b.starts_with(delimiter.as_bytes())) {
            return Some(i);
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Result<Vec<TokenKind<'_>>, SyntaxErrorKind> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let token = lexer.next_token().map_err(|e| e.kind)?;
            if token.kind == TokenKind::Eof {
                return Ok(out);
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
        assert_eq!(
            kinds("18446744073709551616u"),
            Err(SyntaxErrorKind::UintOverflow("18446744073709551616u".into()))
        );
        assert_eq!(
            kinds("9223372036854775809"),
            Err(SyntaxErrorKind::IntOverflow("9223372036854775809".into()))
        );
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
        assert_eq!(kinds("'a\nb'"), Err(SyntaxErrorKind::UnterminatedString("'")));
        assert_eq!(kinds("\"abc"), Err(SyntaxErrorKind::UnterminatedString("\"")));
        assert_eq!(kinds("'''abc''"), Err(SyntaxErrorKind::UnterminatedString("'''")));
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
        assert_eq!(kinds("a & b"), Err(SyntaxErrorKind::UnrecognizedToken("&".into())));
        assert_eq!(kinds("`a+b`"), Err(SyntaxErrorKind::InvalidQuotedIdent('+')));
        assert_eq!(kinds("é"), Err(SyntaxErrorKind::UnrecognizedToken("é".into())));
    }

    #[test]
    fn spans_are_byte_ranges() {
        let mut lexer = Lexer::new("  ab 'ü'");
        assert_eq!(lexer.next_token().map(|t| t.span), Ok(Span::new(2, 4)));
        assert_eq!(lexer.next_token().map(|t| t.span), Ok(Span::new(5, 9)));
        assert_eq!(lexer.next_token().map(|t| t.span), Ok(Span::new(9, 9)));
    }
}
