//! Token sets in the words of cel-go's ANTLR parser (`expecting {'[', '{', ...}`).
//!
//! Each token has ANTLR's token type from CEL's grammar; sets print in that order,
//! literal tokens quoted and the others by their grammar names, as ANTLR does.

use super::lexer::TokenKind;

/// The grammar's display names, indexed by token type (0 stands for `<EOF>`).
const NAMES: [&str; 38] = [
    "<EOF>",
    "'=='",
    "'!='",
    "'in'",
    "'<'",
    "'<='",
    "'>='",
    "'>'",
    "'&&'",
    "'||'",
    "'['",
    "']'",
    "'{'",
    "'}'",
    "'('",
    "')'",
    "'.'",
    "','",
    "'-'",
    "'!'",
    "'?'",
    "':'",
    "'+'",
    "'*'",
    "'/'",
    "'%'",
    "'true'",
    "'false'",
    "'null'",
    "WHITESPACE",
    "COMMENT",
    "NUM_FLOAT",
    "NUM_INT",
    "NUM_UINT",
    "STRING",
    "BYTES",
    "IDENTIFIER",
    "ESC_IDENTIFIER",
];

/// A set of token types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct TokenSet(u64);

const fn bits(types: &[u8]) -> TokenSet {
    let mut set = 0u64;
    let mut i = 0;
    while i < types.len() {
        set |= 1 << types[i];
        i += 1;
    }
    TokenSet(set)
}

impl TokenSet {
    pub const EOF: TokenSet = bits(&[0]);
    pub const RPAREN: TokenSet = bits(&[15]);
    pub const RBRACKET: TokenSet = bits(&[11]);
    pub const RBRACE: TokenSet = bits(&[13]);
    pub const COLON: TokenSet = bits(&[21]);
    pub const COMMA: TokenSet = bits(&[17]);
    pub const QUESTION: TokenSet = bits(&[20]);
    /// What can start an expression (`unary`).
    pub const EXPR: TokenSet = bits(&[10, 12, 14, 16, 18, 19, 26, 27, 28, 31, 32, 33, 34, 35, 36]);
    /// What can start a `primary` after a run of `-`: not `-` or `!`.
    pub const PRIMARY_NOT_SIGN: TokenSet =
        bits(&[10, 12, 14, 16, 26, 27, 28, 31, 32, 33, 34, 35, 36]);
    pub const FIELD: TokenSet = bits(&[36, 37]);
    /// What may follow a complete operand inside an expression: every binary operator,
    /// `?`, and member access.
    pub const OPERAND_FOLLOW: TokenSet =
        bits(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 18, 20, 22, 23, 24, 25]);

    /// Every binary operator and `?`: what may follow a rule of `expr` below `member`.
    pub const OPERATORS: TokenSet = bits(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 18, 20, 22, 23, 24, 25]);

    pub const fn union(self, other: TokenSet) -> TokenSet {
        TokenSet(self.0 | other.0)
    }

    pub fn contains(self, kind: &TokenKind<'_>) -> bool {
        self.0 & (1 << token_type(kind)) != 0
    }
}

impl std::fmt::Display for TokenSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, name)| *name)
            .collect();
        match names.as_slice() {
            [one] => f.write_str(one),
            many => write!(f, "{{{}}}", many.join(", ")),
        }
    }
}

/// ANTLR's token type of `kind`; invalid literals keep the type of their lexical form.
fn token_type(kind: &TokenKind<'_>) -> u8 {
    match kind {
        TokenKind::Eof => 0,
        TokenKind::EqEq => 1,
        TokenKind::NotEq => 2,
        TokenKind::In => 3,
        TokenKind::Less => 4,
        TokenKind::LessEq => 5,
        TokenKind::GreaterEq => 6,
        TokenKind::Greater => 7,
        TokenKind::AndAnd => 8,
        TokenKind::OrOr => 9,
        TokenKind::LBracket => 10,
        TokenKind::RBracket => 11,
        TokenKind::LBrace => 12,
        TokenKind::RBrace => 13,
        TokenKind::LParen => 14,
        TokenKind::RParen => 15,
        TokenKind::Dot => 16,
        TokenKind::Comma => 17,
        TokenKind::Minus => 18,
        TokenKind::Bang => 19,
        TokenKind::Question => 20,
        TokenKind::Colon => 21,
        TokenKind::Plus => 22,
        TokenKind::Star => 23,
        TokenKind::Slash => 24,
        TokenKind::Percent => 25,
        TokenKind::True => 26,
        TokenKind::False => 27,
        TokenKind::Null => 28,
        TokenKind::Double(_) | TokenKind::BadDouble => 31,
        TokenKind::Int(_) | TokenKind::BadInt => 32,
        TokenKind::Uint(_) | TokenKind::BadUint => 33,
        TokenKind::String(_) | TokenKind::BadString(_) => 34,
        TokenKind::Bytes(_) | TokenKind::BadBytes(_) => 35,
        TokenKind::Ident(_) => 36,
        TokenKind::QuotedIdent(_) => 37,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_print_in_token_type_order() {
        assert_eq!(
            TokenSet::EXPR.union(TokenSet::RPAREN).to_string(),
            "{'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
        );
        assert_eq!(TokenSet::COLON.to_string(), "':'");
        assert_eq!(TokenSet::EOF.to_string(), "<EOF>");
        assert_eq!(TokenSet::FIELD.to_string(), "{IDENTIFIER, ESC_IDENTIFIER}");
    }
}
