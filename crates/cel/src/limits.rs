//! Size and nesting bounds checked before a rule reaches the parser.
//!
//! The `cel` crate's parser and interpreter both recurse once per level of the
//! expression, with large frames (tens of KiB per level in debug builds): a deeply
//! nested rule, or a long chain such as `a + a + ... + a`, overflows the stack and
//! aborts the process. The parser's own limit only counts bracket-like nesting, not
//! left-recursive chains. So before parsing, [`check_source`] estimates the nesting
//! from the tokens, erring high; after parsing, the exact AST depth is checked too
//! (`analysis`).

use crate::CompileError;

/// Longest rule accepted, in bytes.
pub const MAX_RULE_BYTES: usize = 32 * 1024;

/// Deepest nesting accepted, counted both on the source (an over-estimate, see
/// [`check_source`]) and on the parsed expression tree.
///
/// Policy rules in practice nest fewer than ten levels; cel-go allows 250 but its
/// interpreter is not recursive in the same way.
pub const MAX_NESTING_DEPTH: usize = 32;

/// Rejects rules that are too long or, by a token-level estimate, nested too deeply.
///
/// The estimate counts, along the innermost path at each point of the rule: every
/// opening bracket, `?`, binary operator and `.` since the last `&&`, `||` or `,`
/// (which separate independent operands), and the depth of the balanced tree the
/// parser builds for `&&`/`||` chains. Every way the grammar nests is one of these,
/// so the estimate is never below the parser's recursion depth.
pub(crate) fn check_source(rule: &str) -> Result<(), CompileError> {
    if rule.len() > MAX_RULE_BYTES {
        return Err(CompileError::new(format!(
            "rule is {} bytes long, more than the {MAX_RULE_BYTES} bytes allowed; \
             split it into several validations",
            rule.len()
        )));
    }
    let depth = estimate_depth(rule);
    if depth > MAX_NESTING_DEPTH {
        return Err(too_deep(depth));
    }
    Ok(())
}

pub(crate) fn too_deep(depth: usize) -> CompileError {
    CompileError::new(format!(
        "rule nests {depth} levels deep, more than the {MAX_NESTING_DEPTH} allowed; \
         flatten it, e.g. split it into several validations"
    ))
}

/// One bracket level of the estimate.
#[derive(Clone, Copy, Default)]
struct Level {
    /// Depth at which this level's operands start.
    base: usize,
    /// `?` seen at this level: each nests the rest of the level one deeper.
    conditionals: usize,
    /// Operators and member accesses since the last `&&`, `||` or `,`.
    chain: usize,
    /// `&&` and `||` since the last `,`.
    logical: usize,
}

impl Level {
    fn depth(&self) -> usize {
        // `&&`/`||` operands are balanced into a tree of depth log2(operands).
        let logical = (usize::BITS - self.logical.leading_zeros()) as usize;
        self.base + self.conditionals + self.chain + logical
    }
}

fn estimate_depth(rule: &str) -> usize {
    let mut levels = vec![Level { base: 1, ..Level::default() }];
    let mut max = 1;
    let mut tokens = Tokens::new(rule);
    while let Some(token) = tokens.next_token() {
        let Some(level) = levels.last_mut() else {
            break;
        };
        match token {
            Token::Open => {
                // A bracket is itself a step of the chain it follows (call, index or
                // grouping), and opens a level one deeper.
                level.chain += 1;
                let base = level.depth();
                levels.push(Level { base, ..Level::default() });
            }
            Token::Close => {
                // An unbalanced closer is the parser's error to report.
                if levels.len() > 1 {
                    levels.pop();
                }
            }
            Token::Conditional => level.conditionals += 1,
            Token::Operator => level.chain += 1,
            Token::Logical => {
                level.logical += 1;
                level.chain = 0;
            }
            Token::Separator => {
                level.logical = 0;
                level.chain = 0;
            }
            Token::Operand => {}
        }
        if let Some(level) = levels.last() {
            max = max.max(level.depth());
        }
    }
    max
}

/// What the estimate needs to know of a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    Conditional,
    Operator,
    Logical,
    Separator,
    Operand,
}

/// A lexer just precise enough not to count what is inside string literals and
/// comments; anything it does not recognise is an operand, left to the parser.
struct Tokens<'a> {
    rest: &'a str,
}

impl<'a> Tokens<'a> {
    fn new(rule: &'a str) -> Self {
        Self { rest: rule }
    }

    fn next_token(&mut self) -> Option<Token> {
        loop {
            self.rest = self.rest.trim_start();
            if let Some(comment) = self.rest.strip_prefix("//") {
                self.rest = comment.split_once('\n').map_or("", |(_, after)| after);
                continue;
            }
            break;
        }
        let mut chars = self.rest.chars();
        let first = chars.next()?;
        let second = chars.next();
        let (token, len) = match (first, second) {
            ('(' | '[' | '{', _) => (Token::Open, 1),
            (')' | ']' | '}', _) => (Token::Close, 1),
            ('&', Some('&')) | ('|', Some('|')) => (Token::Logical, 2),
            ('=' | '!' | '<' | '>', Some('=')) => (Token::Operator, 2),
            (',', _) => (Token::Separator, 1),
            ('?', _) => (Token::Conditional, 1),
            ('.' | '+' | '-' | '*' | '/' | '%' | '<' | '>' | '!' | ':' | '=', _) => {
                (Token::Operator, 1)
            }
            ('\'' | '"', _) => (Token::Operand, string_len(self.rest, false)),
            (c, _) if c.is_ascii_digit() => (Token::Operand, number_len(self.rest)),
            (c, _) if is_ident_char(c) => self.word(),
            (c, _) => (Token::Operand, c.len_utf8()),
        };
        self.rest = self.rest.get(len..).unwrap_or("");
        Some(token)
    }

    /// An identifier, the `in` operator, or the prefix of a string literal.
    fn word(&self) -> (Token, usize) {
        let len = self.rest.find(|c: char| !is_ident_char(c)).unwrap_or(self.rest.len());
        let word = self.rest.get(..len).unwrap_or("");
        let after = self.rest.get(len..).unwrap_or("");
        let is_prefix = len <= 2 && word.chars().all(|c| matches!(c, 'r' | 'R' | 'b' | 'B'));
        if is_prefix && (after.starts_with('\'') || after.starts_with('"')) {
            let raw = word.contains(['r', 'R']);
            return (Token::Operand, len + string_len(after, raw));
        }
        if word == "in" {
            return (Token::Operator, len);
        }
        (Token::Operand, len)
    }
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Length of the number literal at the start of `s`: digits, letters (hex digits,
/// exponent, `u` suffix), `.` and an exponent's sign.
fn number_len(s: &str) -> usize {
    let mut len = 0;
    let mut previous = ' ';
    for c in s.chars() {
        let exponent_sign = matches!(c, '+' | '-') && matches!(previous, 'e' | 'E');
        if !(c.is_ascii_alphanumeric() || c == '.' || exponent_sign) {
            break;
        }
        len += c.len_utf8();
        previous = c;
    }
    len
}

/// Length of the string literal at the start of `s` (which starts with its quote),
/// up to the end of `s` when it is unterminated.
fn string_len(s: &str, raw: bool) -> usize {
    let Some(quote) = s.chars().next() else {
        return 0;
    };
    let triple: String = [quote; 3].iter().collect();
    let close = if s.starts_with(&triple) { triple } else { quote.to_string() };
    let open = close.len();
    let body = s.get(open..).unwrap_or("");
    let mut offset = 0;
    while offset < body.len() {
        let rest = body.get(offset..).unwrap_or("");
        if rest.starts_with(&close) {
            return open + offset + close.len();
        }
        let mut chars = rest.chars();
        let c = chars.next().map_or(1, char::len_utf8);
        // An escape hides the character after the backslash, e.g. `\'`.
        let escaped =
            if !raw && rest.starts_with('\\') { chars.next().map_or(0, char::len_utf8) } else { 0 };
        offset += c + escaped;
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_rules_are_shallow() {
        assert_eq!(estimate_depth("true"), 1);
        assert_eq!(estimate_depth("self == 'a' || self == 'b' || self == 'c'"), 4);
        let many = vec!["self == 'x'"; 1000].join(" || ");
        assert!(estimate_depth(&many) < 15, "{}", estimate_depth(&many));
        let list = format!("self in [{}]", vec!["'x'"; 1000].join(", "));
        assert_eq!(estimate_depth(&list), 3);
    }

    #[test]
    fn brackets_chains_and_conditionals_nest() {
        assert_eq!(estimate_depth("((((1))))"), 5);
        assert_eq!(estimate_depth("f(g(x)).h"), 3);
        assert_eq!(estimate_depth("1 + 1 + 1 + 1"), 4);
        assert_eq!(estimate_depth("a.b.c.d"), 4);
        assert_eq!(estimate_depth("a ? b : c || d ? e : f"), 5);
    }

    #[test]
    fn string_literals_and_comments_do_not_count() {
        let string = format!("'{}' == self", "((((.+".repeat(100));
        assert_eq!(estimate_depth(&string), 2);
        let escaped = r#"'\'((((' == "\"((((" && r'\' == self"#;
        assert_eq!(estimate_depth(escaped), 3);
        let triple = "'''a'(('''  + \"\"\"a\"((\"\"\"";
        assert_eq!(estimate_depth(triple), 2);
        let comment = "true // ((((((((((((((\n&& false";
        assert_eq!(estimate_depth(comment), 2);
    }

    #[test]
    fn numbers_are_one_operand() {
        assert_eq!(estimate_depth("1.5e-3 + 0x1F + 3u"), 3);
    }

    #[test]
    fn unbalanced_and_unterminated_input_is_estimated_without_failing() {
        assert_eq!(estimate_depth(")))"), 1);
        assert_eq!(estimate_depth("'unterminated ((((("), 1);
        assert_eq!(estimate_depth("r'"), 1);
    }

    #[test]
    fn rejects_long_and_deep_rules_with_the_limit_in_the_message() {
        let long = format!("'{}' == self", "a".repeat(MAX_RULE_BYTES));
        let err = check_source(&long).unwrap_err();
        assert_eq!(
            err.message,
            format!(
                "rule is {} bytes long, more than the 32768 bytes allowed; \
                 split it into several validations",
                long.len()
            )
        );
        let deep = format!("{}true{}", "(".repeat(40), ")".repeat(40));
        let err = check_source(&deep).unwrap_err();
        assert_eq!(
            err.message,
            "rule nests 41 levels deep, more than the 32 allowed; \
             flatten it, e.g. split it into several validations"
        );
        assert_eq!(check_source("self == 'a'"), Ok(()));
    }
}
