//! Syntax layer of certgate's CEL engine: source text to an expression tree.
//!
//! [`parse`] lexes and parses a CEL expression following the CEL language
//! definition's grammar and precedence, expands macros into [`ast::Comprehension`]
//! nodes, and bounds both the source size and the nesting depth so that no input can
//! exhaust the stack. Errors carry a line, a column and a cel-go style caret snippet.

pub mod ast;
mod error;
mod expected;
pub(crate) mod folds;
mod lexer;
mod literal;
pub mod macros;
mod parser;
#[cfg(test)]
mod parser_tests;
#[cfg(test)]
mod robustness_tests;

pub use ast::{Ast, Expr, ExprKind, Literal, NodeId, Span};
pub use error::{ParseError, SyntaxErrorKind};
pub use expected::TokenSet;
pub use parser::{ParserOptions, parse, parse_with};
