//! The scanner's tokens as libyaml's scanner produces them.
//!
//! The parser crate emits a token per comment when its `comments` feature is on, and Cargo
//! turns that feature on for the whole build as soon as any crate asks for it (serde-saphyr
//! does). libyaml has no comment tokens, so the feature is always on here (the workspace
//! asks for it) and every token walk that emulates libyaml goes through [`tokens`], which
//! leaves them out: the answers are the same whichever crates are built together.

use granit_parser::{ScanError, Scanner, StrInput, Token, TokenType};

/// The tokens of `text`, comments left out, up to and including the first scanner error.
pub(crate) fn tokens(text: &str) -> impl Iterator<Item = Result<Token<'_>, ScanError>> {
    Scanner::new(StrInput::new(text)).filter(
        |token| !matches!(token, Ok(token) if matches!(token.token_type(), TokenType::Comment(_))),
    )
}
