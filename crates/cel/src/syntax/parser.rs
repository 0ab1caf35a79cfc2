//! Recursive-descent parser for the CEL grammar.
//!
//! Depth is bounded exactly as cel-go bounds it, with its two counters and messages:
//!
//! - the grammar's nesting, which cel-go's parse listener counts per grammar rule: every
//!   nested expression (parentheses, arguments, list and map elements, indexes) is one
//!   level of every rule; the right operand of a relation adds one `relation` level,
//!   that of `+ - * / %` one `calc` level per pending operator, and each `? :` else
//!   branch one `expr` level. Beyond the limit: `expression recursion limit exceeded`.
//! - chains, which cel-go's tree walk counts after parsing: relations and arithmetic,
//!   ternaries, selections, member calls (macros included) and indexes each count one
//!   along a path of the tree; parentheses, lists, maps, global calls, `!`, `-`, `&&`
//!   and `||` do not. Beyond the limit: `max recursion depth exceeded`.
//!
//! Every recursive production passes through [`Parser::expr`], so the first counter
//! bounds the parser's own recursion; chains are parsed with loops. Together the two
//! bound the height of the tree, so later recursive passes are bounded too
//! (`tests/bounds.rs` runs every stage of the deepest accepted rules on a 2 MiB stack).

use super::ast::{
    Ast, Expr, ExprKind, FieldInit, ListElement, Literal, MapEntry, NodeId, Span, operators,
};
use super::error::{ParseError, SyntaxErrorKind};
use super::expected::TokenSet;
use super::lexer::{Lexer, Token, TokenKind};
use super::macros::{Builder, Macro, expand};

/// Words reserved for embedding CEL in host languages: not allowed as identifiers,
/// but allowed as field names and receiver function names.
const RESERVED: [&str; 17] = [
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// Limits and features of a parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParserOptions {
    /// Maximum nesting of the grammar and of chains (cel-go's recursion limit).
    pub max_depth: u32,
    /// Maximum source length in Unicode code points.
    pub max_code_points: usize,
    /// Expand macros (`has`, `all`, `map`, `cel.bind`, ...); when off they stay calls.
    pub macros: bool,
}

impl Default for ParserOptions {
    fn default() -> Self {
        ParserOptions { max_depth: 250, max_code_points: 100_000, macros: true }
    }
}

/// Parses `source` with the default options.
pub fn parse(source: &str) -> Result<Ast, ParseError> {
    parse_with(source, &ParserOptions::default())
}

/// Parses `source` with `options`.
pub fn parse_with(source: &str, options: &ParserOptions) -> Result<Ast, ParseError> {
    parse_boxed(source, options).map_err(|e| *e)
}

fn parse_boxed(source: &str, options: &ParserOptions) -> Result<Ast, Box<ParseError>> {
    // Checked on bytes first so a huge input is rejected without counting it.
    if source.len() > options.max_code_points.saturating_mul(4)
        || source.chars().count() > options.max_code_points
    {
        let kind = SyntaxErrorKind::TooLarge {
            size: source.chars().count(),
            limit: options.max_code_points,
        };
        return Err(ParseError::new(kind, Span::default(), source));
    }
    let mut lexer = Lexer::new(source);
    let token = lexer.next_token();
    let mut parser = Parser {
        source,
        lexer,
        token,
        peeked: None,
        builder: Builder::default(),
        depth: 0,
        extra: Extra::default(),
        chain_exceeded: false,
        options,
        errors: Vec::new(),
        recovering: false,
        closers: vec![TokenSet::EOF],
    };
    let parsed = parser.expr().and_then(|root| parser.end_of_input().map(|()| root));
    match parsed {
        // cel-go reports no syntax error while it is recovering from one (which it
        // has reported).
        Err(error) if parser.recovering && is_syntax(&error.kind) && !parser.errors.is_empty() => {}
        Err(error) => parser.errors.push(*error),
        Ok((root, _)) if parser.errors.is_empty() && parser.lexer.errors.is_empty() => {
            // cel-go walks the tree after parsing, so a grammar-nesting error wins over
            // this one.
            if parser.chain_exceeded {
                let kind = SyntaxErrorKind::ChainTooDeep;
                return Err(ParseError::new(kind, Span::default(), source));
            }
            return Ok(Ast { root, node_count: parser.builder.node_count() });
        }
        Ok(_) => {}
    }
    // cel-go's lexer reaches the end of the input whatever the parser met.
    while parser.peek() != &TokenKind::Eof {
        parser.peeked = None;
    }
    let mut errors = std::mem::take(&mut parser.lexer.errors);
    errors.append(&mut parser.errors);
    // Not empty: the parse failed or reported an error.
    let unknown = || {
        ParseError::new(
            SyntaxErrorKind::Mismatched { found: String::new(), expected: TokenSet::EOF },
            Span::default(),
            source,
        )
    };
    Err(ParseError::combine(errors).unwrap_or_else(unknown))
}

/// Errors the grammar finds, as opposed to limits and checks on what it built.
fn is_syntax(kind: &SyntaxErrorKind) -> bool {
    matches!(
        kind,
        SyntaxErrorKind::Mismatched { .. }
            | SyntaxErrorKind::Extraneous { .. }
            | SyntaxErrorKind::Missing { .. }
            | SyntaxErrorKind::NoViableAlternative(_)
    )
}

/// An expression and its chain depth: the most chain nodes (see the module comment) on
/// a path from it to a leaf.
type Parsed = Result<(Expr, u32), Box<ParseError>>;

struct Parser<'a, 'o> {
    source: &'a str,
    lexer: Lexer<'a>,
    token: Token<'a>,
    /// The token after `token`, once looked at.
    peeked: Option<Token<'a>>,
    builder: Builder,
    /// Nested expressions being parsed: one level of every grammar rule each.
    depth: u32,
    extra: Extra,
    /// A chain went beyond the limit (reported once the whole rule is parsed).
    chain_exceeded: bool,
    options: &'o ParserOptions,
    /// Errors reported so far from which parsing went on, as cel-go's does.
    errors: Vec<ParseError>,
    /// A syntax error was reported and no token has been matched since: ANTLR reports
    /// nothing more until one is.
    recovering: bool,
    /// What may close each expression being parsed, innermost last: with the
    /// operators, what may follow a complete operand, for ANTLR's missing-token test.
    closers: Vec<TokenSet>,
}

/// Grammar levels beyond `depth` that single rules have, summed over the nested
/// expressions being parsed.
#[derive(Clone, Copy, Default)]
struct Extra {
    /// `expr`: else branches of `? :`.
    conditional: u32,
    /// `relation`: right operands of relations.
    relation: u32,
    /// `calc`: right operands of arithmetic operators.
    calc: u32,
}

impl Extra {
    fn most(self) -> u32 {
        self.conditional.max(self.relation).max(self.calc)
    }
}

/// An operator chain being parsed: `or_terms || (and_terms && (operands ops...))`.
#[derive(Default)]
struct Chain {
    or_terms: Vec<(Expr, u32)>,
    and_terms: Vec<(Expr, u32)>,
    operands: Vec<(Expr, u32)>,
    ops: Vec<BinaryOp>,
}

#[derive(Clone, Copy)]
struct BinaryOp {
    function: &'static str,
    precedence: u8,
}

/// The precedence of relations; `+ -` and `* / %` are above it.
const RELATION: u8 = 3;

fn binary_op(kind: &TokenKind<'_>) -> Option<BinaryOp> {
    let (function, precedence) = match kind {
        TokenKind::EqEq => (operators::EQUALS, 3),
        TokenKind::NotEq => (operators::NOT_EQUALS, 3),
        TokenKind::Less => (operators::LESS, 3),
        TokenKind::LessEq => (operators::LESS_EQUALS, 3),
        TokenKind::Greater => (operators::GREATER, 3),
        TokenKind::GreaterEq => (operators::GREATER_EQUALS, 3),
        TokenKind::In => (operators::IN, 3),
        TokenKind::Plus => (operators::ADD, 4),
        TokenKind::Minus => (operators::SUBTRACT, 4),
        TokenKind::Star => (operators::MULTIPLY, 5),
        TokenKind::Slash => (operators::DIVIDE, 5),
        TokenKind::Percent => (operators::MODULO, 5),
        _ => return None,
    };
    Some(BinaryOp { function, precedence })
}

impl<'a> Parser<'a, '_> {
    /// Matches the current token and moves to the next.
    fn advance(&mut self) -> Result<Token<'a>, Box<ParseError>> {
        let next = match self.peeked.take() {
            Some(token) => token,
            None => self.lexer.next_token(),
        };
        self.recovering = false;
        Ok(std::mem::replace(&mut self.token, next))
    }

    /// The kind of the token after the current one.
    fn peek(&mut self) -> &TokenKind<'a> {
        let lexer = &mut self.lexer;
        &self.peeked.get_or_insert_with(|| lexer.next_token()).kind
    }

    /// Records an error parsing goes on from; while recovering, ANTLR drops it.
    fn report(&mut self, kind: SyntaxErrorKind) {
        if !self.recovering {
            let error = self.error_here(kind);
            self.errors.push(*error);
        }
        self.recovering = true;
    }

    /// An error cel-go reports after parsing (literals, reserved words): it does not
    /// stop parsing and is no syntax error.
    fn report_value(&mut self, kind: SyntaxErrorKind, span: Span) {
        let error = ParseError::new(kind, span, self.source);
        self.errors.push(*error);
    }

    /// ANTLR's sync before a choice: the current token must be in `expected`; if the
    /// one after it is, the current one is reported as extraneous and skipped.
    fn sync(&mut self, expected: TokenSet) -> Result<(), Box<ParseError>> {
        if expected.contains(&self.token.kind) {
            return Ok(());
        }
        if !self.recovering && expected.contains(self.peek()) {
            self.report(SyntaxErrorKind::Extraneous { found: self.describe(), expected });
            self.advance()?;
            return Ok(());
        }
        Err(self.mismatched(expected))
    }

    /// What may follow a closing `)`, `]` or `}` here.
    fn operand_follow(&self) -> TokenSet {
        TokenSet::OPERAND_FOLLOW.union(self.closers.last().copied().unwrap_or(TokenSet::EOF))
    }

    /// Parses an expression that `closers` may end.
    fn expr_in(&mut self, closers: TokenSet) -> Parsed {
        self.closers.push(closers);
        let parsed = self.expr()?;
        self.closers.pop();
        Ok(parsed)
    }

    /// The whole rule has been read: only the end of input may follow.
    fn end_of_input(&mut self) -> Result<(), Box<ParseError>> {
        if self.token.kind == TokenKind::Eof {
            return Ok(());
        }
        if !self.recovering && self.peek() == &TokenKind::Eof {
            let found = self.describe();
            self.report(SyntaxErrorKind::Extraneous { found, expected: TokenSet::EOF });
            return Ok(());
        }
        Err(self.mismatched(TokenSet::EOF))
    }

    /// After a `.` no field name follows: cel-go reports no viable alternative, then
    /// skips tokens up to one that may follow an operand in some rule being parsed (an
    /// operator or a closer; not `.` or `[`), and goes on with the operand it has.
    fn resynchronise(&mut self, dot: Span) -> Result<(), Box<ParseError>> {
        let error = self.no_viable(dot);
        self.errors.push(*error);
        self.recovering = true;
        let closers = self.closers.iter().fold(TokenSet::default(), |all, c| all.union(*c));
        let stop = TokenSet::OPERATORS.union(closers);
        while !stop.contains(&self.token.kind) {
            let next = match self.peeked.take() {
                Some(token) => token,
                None => self.lexer.next_token(),
            };
            // Skipping is no match: ANTLR stays in recovery.
            self.token = next;
        }
        Ok(())
    }

    /// ANTLR's `no viable alternative`: the tokens from `start` to the current one.
    fn no_viable(&self, start: Span) -> Box<ParseError> {
        let end = if self.token.kind == TokenKind::Eof {
            self.token.span.start
        } else {
            self.token.span.end
        };
        let text = self.source.get(start.start as usize..end as usize).unwrap_or("");
        self.error_here(SyntaxErrorKind::NoViableAlternative(super::lexer::escape_ws(text)))
    }

    fn eat(&mut self, kind: &TokenKind<'_>) -> Result<bool, Box<ParseError>> {
        if &self.token.kind == kind {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Matches `kind` (whose set is `expected`) as ANTLR does: an extra token before it
    /// is skipped, a missing one is assumed when the current token may follow it
    /// (`follow`); either is reported and parsing goes on.
    fn expect(
        &mut self,
        kind: &TokenKind<'_>,
        expected: TokenSet,
        follow: TokenSet,
    ) -> Result<Span, Box<ParseError>> {
        if &self.token.kind == kind {
            return Ok(self.advance()?.span);
        }
        if self.recovering {
            return Err(self.mismatched(expected));
        }
        if self.peek() == kind {
            self.report(SyntaxErrorKind::Extraneous { found: self.describe(), expected });
            self.advance()?;
            return Ok(self.advance()?.span);
        }
        if follow.contains(&self.token.kind) {
            self.report(SyntaxErrorKind::Missing { missing: expected, found: self.describe() });
            return Ok(Span::new(self.token.span.start, self.token.span.start));
        }
        Err(self.mismatched(expected))
    }

    fn expect_closer(
        &mut self,
        kind: &TokenKind<'_>,
        expected: TokenSet,
    ) -> Result<Span, Box<ParseError>> {
        let follow = self.operand_follow();
        self.expect(kind, expected, follow)
    }

    fn describe(&self) -> String {
        self.token.kind.describe(self.source, self.token.span)
    }

    fn error_here(&self, kind: SyntaxErrorKind) -> Box<ParseError> {
        ParseError::new(kind, self.token.span, self.source)
    }

    fn mismatched(&self, expected: TokenSet) -> Box<ParseError> {
        self.error_here(SyntaxErrorKind::Mismatched { found: self.describe(), expected })
    }

    /// A node and its chain depth.
    fn node(&mut self, span: Span, kind: ExprKind, chain: u32) -> Parsed {
        if chain > self.options.max_depth {
            return Ok(self.chain_too_deep(span));
        }
        Ok((self.builder.expr(span, kind), chain))
    }

    /// cel-go finds an over-long chain only after parsing the whole rule, so a nesting
    /// or syntax error further on wins: parsing goes on, with a leaf in place of the
    /// chain so that the tree (and dropping it) stays shallow.
    fn chain_too_deep(&mut self, span: Span) -> (Expr, u32) {
        self.chain_exceeded = true;
        (self.builder.expr(span, ExprKind::Literal(Literal::Null)), 0)
    }

    /// Fails when a grammar rule would be nested deeper than the limit.
    fn check_nesting(&self) -> Result<(), Box<ParseError>> {
        if self.depth.saturating_add(self.extra.most()) > self.options.max_depth {
            return Err(self.error_here(SyntaxErrorKind::NestingTooDeep(self.options.max_depth)));
        }
        Ok(())
    }

    /// Sets the extra grammar levels of what is parsed next.
    fn set_extra(&mut self, extra: Extra) -> Result<(), Box<ParseError>> {
        self.extra = extra;
        self.check_nesting()
    }

    /// `expr: or ('?' or ':' expr)?`, the else branch chained with a loop.
    fn expr(&mut self) -> Parsed {
        self.nested(Self::conditional)
    }

    /// Runs a recursive production one nesting level deeper, failing cleanly at the
    /// limit. Every cycle of recursive calls passes through here.
    fn nested(&mut self, production: fn(&mut Self) -> Parsed) -> Parsed {
        self.depth += 1;
        self.check_nesting()?;
        let result = crate::stack::guarded(|| production(self));
        self.depth -= 1;
        result
    }

    /// The frames on recursion paths are kept small (debug builds allocate every
    /// temporary separately): operands go into `parts`, folding happens afterwards.
    fn conditional(&mut self) -> Parsed {
        let first = self.binary()?;
        if self.token.kind != TokenKind::Question {
            return Ok(first);
        }
        self.conditional_chain(first)
    }

    /// The else branches nest in the grammar (`a ? b : (c ? d : e)`), one `expr`
    /// level each.
    fn conditional_chain(&mut self, first: (Expr, u32)) -> Parsed {
        let outer = self.extra;
        let mut parts = vec![first];
        while self.token.kind == TokenKind::Question {
            self.advance()?;
            self.closers.push(TokenSet::COLON);
            self.push_binary(&mut parts)?;
            self.closers.pop();
            self.expect(&TokenKind::Colon, TokenSet::COLON, TokenSet::EXPR)?;
            let conditional = self.extra.conditional + 1;
            self.set_extra(Extra { conditional, ..self.extra })?;
            self.push_binary(&mut parts)?;
        }
        self.extra = outer;
        self.fold_conditional(parts)
    }

    fn push_binary(&mut self, parts: &mut Vec<(Expr, u32)>) -> Result<(), Box<ParseError>> {
        parts.push(self.binary()?);
        Ok(())
    }

    /// `[c1, t1, c2, t2, ..., else]` into `c1 ? t1 : (c2 ? t2 : else)`.
    fn fold_conditional(&mut self, mut parts: Vec<(Expr, u32)>) -> Parsed {
        let Some((mut expr, mut chain)) = parts.pop() else {
            return Err(self.mismatched(TokenSet::EXPR));
        };
        while let (Some((t, th)), Some((c, ch))) = (parts.pop(), parts.pop()) {
            let span = c.span.to(expr.span);
            let kind = ExprKind::Conditional {
                condition: Box::new(c),
                then: Box::new(t),
                otherwise: Box::new(expr),
            };
            (expr, chain) = self.node(span, kind, 1 + ch.max(th).max(chain))?;
        }
        Ok((expr, chain))
    }

    /// All binary operators. Relations, `+ -` and `* / %` are reduced by precedence
    /// climbing; like cel-go, chains of `&&` and `||` become balanced trees so long
    /// chains stay shallow (CEL's logical operators are commutative, so the shape does
    /// not change the result). The loop only reads operands; [`Chain`] does the rest.
    fn binary(&mut self) -> Parsed {
        let first = self.unary()?;
        let operator_follows = matches!(self.token.kind, TokenKind::AndAnd | TokenKind::OrOr)
            || binary_op(&self.token.kind).is_some();
        if !operator_follows {
            return Ok(first);
        }
        self.binary_chain(first)
    }

    fn binary_chain(&mut self, first: (Expr, u32)) -> Parsed {
        let outer = self.extra;
        let mut chain = Chain::default();
        let mut operand = first;
        while self.chain_operand(&mut chain, operand)? {
            // The grammar nests a right operand in one `relation` or `calc` level per
            // pending operator of that kind.
            let relation = chain.ops.iter().filter(|op| op.precedence == RELATION).count();
            let calc = chain.ops.len() - relation;
            self.set_extra(Extra {
                relation: outer.relation + u32::try_from(relation).unwrap_or(u32::MAX),
                calc: outer.calc + u32::try_from(calc).unwrap_or(u32::MAX),
                ..outer
            })?;
            operand = self.unary()?;
        }
        self.extra = outer;
        self.finish_chain(chain)
    }

    /// Adds `operand` and the operator after it, if any; says whether one followed.
    fn chain_operand(
        &mut self,
        chain: &mut Chain,
        operand: (Expr, u32),
    ) -> Result<bool, Box<ParseError>> {
        chain.operands.push(operand);
        let logical = match self.token.kind {
            TokenKind::AndAnd => Some(false),
            TokenKind::OrOr => Some(true),
            _ => None,
        };
        if let Some(or) = logical {
            self.flush_arithmetic(chain)?;
            if or {
                let and_terms = std::mem::take(&mut chain.and_terms);
                let term = self.balance(operators::LOGICAL_AND, and_terms)?;
                chain.or_terms.push(term);
            }
            self.advance()?;
            return Ok(true);
        }
        let Some(op) = binary_op(&self.token.kind) else {
            return Ok(false);
        };
        while chain.ops.last().is_some_and(|top| top.precedence >= op.precedence) {
            self.reduce(&mut chain.operands, &mut chain.ops)?;
        }
        chain.ops.push(op);
        self.advance()?;
        Ok(true)
    }

    /// Reduces the pending arithmetic and relations into one `&&` term.
    fn flush_arithmetic(&mut self, chain: &mut Chain) -> Result<(), Box<ParseError>> {
        while !chain.ops.is_empty() {
            self.reduce(&mut chain.operands, &mut chain.ops)?;
        }
        let term = chain.operands.pop().ok_or_else(|| self.mismatched(TokenSet::EXPR))?;
        chain.and_terms.push(term);
        Ok(())
    }

    fn finish_chain(&mut self, mut chain: Chain) -> Parsed {
        self.flush_arithmetic(&mut chain)?;
        let term = self.balance(operators::LOGICAL_AND, chain.and_terms)?;
        chain.or_terms.push(term);
        self.balance(operators::LOGICAL_OR, chain.or_terms)
    }

    /// Joins `terms` (at least one) with `function`: the first half on the left, the
    /// rest on the right. Recursion depth is log2 of the term count.
    fn balance(&mut self, function: &'static str, mut terms: Vec<(Expr, u32)>) -> Parsed {
        if terms.len() <= 1 {
            return terms.pop().ok_or_else(|| self.mismatched(TokenSet::EXPR));
        }
        let right = terms.split_off(terms.len() / 2);
        let lhs = self.balance(function, terms)?;
        let rhs = self.balance(function, right)?;
        self.binary_node(function, lhs, rhs)
    }

    fn reduce(
        &mut self,
        operands: &mut Vec<(Expr, u32)>,
        ops: &mut Vec<BinaryOp>,
    ) -> Result<(), Box<ParseError>> {
        let (Some(op), Some(rhs), Some(lhs)) = (ops.pop(), operands.pop(), operands.pop()) else {
            return Err(self.mismatched(TokenSet::EXPR));
        };
        operands.push(self.binary_node(op.function, lhs, rhs)?);
        Ok(())
    }

    fn binary_node(
        &mut self,
        function: &'static str,
        (lhs, lh): (Expr, u32),
        (rhs, rh): (Expr, u32),
    ) -> Parsed {
        let span = lhs.span.to(rhs.span);
        // cel-go's tree walk counts relations and arithmetic, not `&&` and `||`, whose
        // terms it visits in a loop.
        let own =
            u32::from(function != operators::LOGICAL_AND && function != operators::LOGICAL_OR);
        let kind =
            ExprKind::Call { target: None, function: function.to_owned(), args: vec![lhs, rhs] };
        self.node(span, kind, own + lh.max(rh))
    }

    /// `unary: member | '!'+ member | '-'+ member`; pairs of the same operator cancel,
    /// as in cel-go, and a `-` right before a number is the number's sign.
    fn unary(&mut self) -> Parsed {
        self.sync(TokenSet::EXPR)?;
        match self.token.kind {
            TokenKind::Bang => self.prefixed(TokenKind::Bang, operators::LOGICAL_NOT),
            TokenKind::Minus => self.prefixed(TokenKind::Minus, operators::NEGATE),
            _ => self.member(),
        }
    }

    fn prefixed(&mut self, op: TokenKind<'static>, function: &'static str) -> Parsed {
        let start = self.token.span;
        let mut count = 0usize;
        let mut last = start;
        while self.token.kind == op {
            last = self.advance()?.span;
            count += 1;
        }
        // cel-go's grammar reads `-5` as a signed literal but `--5` and `---5` as prefix
        // operators on the unsigned `5`, so `--9223372036854775808` is an invalid literal.
        let signed_number = op == TokenKind::Minus && count == 1 && self.signable();
        let (operand, chain) = if signed_number {
            count -= 1;
            self.member_from_negative_literal(last)?
        } else if op == TokenKind::Minus && !TokenSet::PRIMARY_NOT_SIGN.contains(&self.token.kind) {
            // Neither a negation nor a signed literal: the grammar's choice fails at the
            // token after the last `-`.
            return self.minus_recovery(last);
        } else if op == TokenKind::Bang && self.token.kind == TokenKind::Minus {
            // The grammar's literal carries its sign, so `!-5` is `!(-5)`; any other `-`
            // after `!` is a syntax error at the token after it.
            let minus = self.advance()?.span;
            if !self.signable() {
                return self.minus_recovery(minus);
            }
            self.member_from_negative_literal(minus)?
        } else if op == TokenKind::Bang && !TokenSet::EXPR.contains(&self.token.kind) {
            // ANTLR's check after each `!` of the run reports the token as extraneous.
            let found = self.describe();
            return Err(
                self.error_here(SyntaxErrorKind::Extraneous { found, expected: TokenSet::EXPR })
            );
        } else {
            self.member()?
        };
        self.finish_prefixed(start, count, function, (operand, chain))
    }

    /// Whether the current token is a number the grammar lets carry a sign.
    fn signable(&self) -> bool {
        matches!(
            self.token.kind,
            TokenKind::Int(_) | TokenKind::Double(_) | TokenKind::BadInt | TokenKind::BadDouble
        )
    }

    /// A `-` (at `minus`) that starts neither a negation nor a signed literal: cel-go
    /// reports no viable alternative, then takes the `-` as a binary minus and parses
    /// the operand after it.
    fn minus_recovery(&mut self, minus: Span) -> Parsed {
        let error = self.no_viable(minus);
        self.errors.push(*error);
        self.recovering = false;
        let (operand, _) = self.unary()?;
        Ok((operand, 0))
    }

    /// Applies `count` prefix operators, of which pairs cancel.
    fn finish_prefixed(
        &mut self,
        start: Span,
        count: usize,
        function: &'static str,
        (operand, chain): (Expr, u32),
    ) -> Parsed {
        if count.is_multiple_of(2) {
            return Ok((operand, chain));
        }
        let span = start.to(operand.span);
        let kind =
            ExprKind::Call { target: None, function: function.to_owned(), args: vec![operand] };
        // Not a chain node for cel-go.
        self.node(span, kind, chain)
    }

    /// The number after the `-` at `minus`; cel-go locates its errors at the sign.
    fn member_from_negative_literal(&mut self, minus: Span) -> Parsed {
        let token = self.advance()?;
        let span = minus.to(token.span);
        let literal = match token.kind {
            TokenKind::Int(magnitude) => match 0i64.checked_sub_unsigned(magnitude) {
                Some(value) => Literal::Int(value),
                None => {
                    self.report_value(SyntaxErrorKind::IntOverflow(format!("-{magnitude}")), span);
                    Literal::Int(0)
                }
            },
            TokenKind::Double(value) => Literal::Double(-value),
            TokenKind::BadDouble => {
                self.report_value(SyntaxErrorKind::InvalidDouble(self.text(span)), span);
                Literal::Double(0.0)
            }
            _ => {
                self.report_value(SyntaxErrorKind::IntOverflow(self.text(span)), span);
                Literal::Int(0)
            }
        };
        let primary = self.node(span, ExprKind::Literal(literal), 0)?;
        self.postfix(primary, false)
    }

    fn text(&self, span: Span) -> String {
        self.source.get(span.start as usize..span.end as usize).unwrap_or("").to_owned()
    }

    fn member(&mut self) -> Parsed {
        let plain_name = matches!(self.token.kind, TokenKind::Ident(_) | TokenKind::Dot);
        let primary = self.primary()?;
        // Only `a.b.C{...}` written as bare dotted names constructs a struct.
        let plain_name = plain_name && matches!(primary.0.kind, ExprKind::Ident(_));
        self.postfix(primary, plain_name)
    }

    /// Selections, receiver calls, indexing and struct construction, in a loop. Each
    /// step is its own function updating `node` in place, so the frames on recursion
    /// paths stay small.
    fn postfix(&mut self, mut node: (Expr, u32), mut plain_name: bool) -> Parsed {
        loop {
            match self.token.kind {
                TokenKind::Dot => self.select_or_call(&mut node, &mut plain_name)?,
                TokenKind::LBracket => {
                    plain_name = false;
                    self.index(&mut node)?;
                }
                TokenKind::LBrace if plain_name => {
                    plain_name = false;
                    self.struct_literal(&mut node)?;
                }
                _ => return Ok(node),
            }
        }
    }

    /// `.field`, `.?field` or `.function(args)`; clears `plain_name` unless the result
    /// is still a plain dotted name.
    fn select_or_call(
        &mut self,
        node: &mut (Expr, u32),
        plain_name: &mut bool,
    ) -> Result<(), Box<ParseError>> {
        let dot = self.advance()?.span;
        let optional = self.eat(&TokenKind::Question)?;
        if !optional && !TokenSet::FIELD.contains(&self.token.kind) {
            return self.resynchronise(dot);
        }
        let quoted = matches!(self.token.kind, TokenKind::QuotedIdent(_));
        let (field, field_span) = self.field_name()?;
        if self.token.kind == TokenKind::LParen && !optional && !quoted {
            *plain_name = false;
            return self.receiver_call(node, field, field_span);
        }
        *plain_name &= !optional && !quoted;
        self.select(node, field, field_span, optional)
    }

    fn receiver_call(
        &mut self,
        node: &mut (Expr, u32),
        function: String,
        name_span: Span,
    ) -> Result<(), Box<ParseError>> {
        let target = take(node);
        let span = target.0.span.to(name_span);
        *node = self.call(Some(target), function, span)?;
        Ok(())
    }

    fn select(
        &mut self,
        node: &mut (Expr, u32),
        field: String,
        field_span: Span,
        optional: bool,
    ) -> Result<(), Box<ParseError>> {
        let (expr, chain) = take(node);
        let span = expr.span.to(field_span);
        let kind = ExprKind::Select { operand: Box::new(expr), field, test_only: false, optional };
        *node = self.node(span, kind, chain + 1)?;
        Ok(())
    }

    /// `operand[index]` or `operand[?index]`.
    fn index(&mut self, node: &mut (Expr, u32)) -> Result<(), Box<ParseError>> {
        self.advance()?;
        self.sync(TokenSet::EXPR.union(TokenSet::QUESTION))?;
        let optional = self.eat(&TokenKind::Question)?;
        let index = self.expr_in(TokenSet::RBRACKET)?;
        let close = self.expect_closer(&TokenKind::RBracket, TokenSet::RBRACKET)?;
        self.finish_index(node, index, close, optional)
    }

    fn finish_index(
        &mut self,
        node: &mut (Expr, u32),
        (index, index_chain): (Expr, u32),
        close: Span,
        optional: bool,
    ) -> Result<(), Box<ParseError>> {
        let (expr, chain) = take(node);
        let span = expr.span.to(close);
        let kind = ExprKind::Index { operand: Box::new(expr), index: Box::new(index), optional };
        *node = self.node(span, kind, 1 + chain.max(index_chain))?;
        Ok(())
    }

    fn struct_literal(&mut self, node: &mut (Expr, u32)) -> Result<(), Box<ParseError>> {
        let type_name = qualified_name(&node.0).ok_or_else(|| {
            ParseError::new(SyntaxErrorKind::InvalidStructName, node.0.span, self.source)
        })?;
        let span = node.0.span;
        *node = self.struct_body(type_name, span)?;
        Ok(())
    }

    /// A field or receiver-function name: any identifier, reserved words included, or
    /// a backquoted name.
    fn field_name(&mut self) -> Result<(String, Span), Box<ParseError>> {
        let name = match self.token.kind {
            TokenKind::Ident(name) | TokenKind::QuotedIdent(name) => name.to_owned(),
            _ => return Err(self.mismatched(TokenSet::FIELD)),
        };
        let span = self.advance()?.span;
        Ok((name, span))
    }

    fn primary(&mut self) -> Parsed {
        match self.token.kind {
            TokenKind::Ident(_) => {
                let span = self.token.span;
                self.identifier(String::new(), span)
            }
            TokenKind::Dot => self.root_identifier(),
            TokenKind::LParen => {
                self.advance()?;
                let inner = self.expr_in(TokenSet::RPAREN)?;
                self.expect_closer(&TokenKind::RParen, TokenSet::RPAREN)?;
                Ok(inner)
            }
            TokenKind::LBracket => self.list(),
            TokenKind::LBrace => self.map(),
            _ => self.literal(),
        }
    }

    /// `.name` or `.function(args)`, resolved in the root scope.
    fn root_identifier(&mut self) -> Parsed {
        let start = self.advance()?.span;
        if !matches!(self.token.kind, TokenKind::Ident(_)) {
            return Err(self.no_viable(start));
        }
        self.identifier(".".to_owned(), start)
    }

    fn literal(&mut self) -> Parsed {
        let span = self.token.span;
        let literal = match self.token.kind {
            TokenKind::Int(magnitude) => match i64::try_from(magnitude) {
                Ok(value) => Literal::Int(value),
                Err(_) => {
                    self.report_value(SyntaxErrorKind::IntOverflow(self.text(span)), span);
                    Literal::Int(0)
                }
            },
            TokenKind::BadInt => {
                self.report_value(SyntaxErrorKind::IntOverflow(self.text(span)), span);
                Literal::Int(0)
            }
            TokenKind::BadUint => {
                self.report_value(SyntaxErrorKind::UintOverflow(self.text(span)), span);
                Literal::Uint(0)
            }
            TokenKind::BadDouble => {
                self.report_value(SyntaxErrorKind::InvalidDouble(self.text(span)), span);
                Literal::Double(0.0)
            }
            TokenKind::BadString(message) | TokenKind::BadBytes(message) => {
                self.report_value(SyntaxErrorKind::Unescape(message), span);
                Literal::Null
            }
            TokenKind::Uint(v) => Literal::Uint(v),
            TokenKind::Double(v) => Literal::Double(v),
            TokenKind::True => Literal::Bool(true),
            TokenKind::False => Literal::Bool(false),
            TokenKind::Null => Literal::Null,
            TokenKind::String(_) | TokenKind::Bytes(_) => match self.advance()?.kind {
                TokenKind::String(s) => {
                    return self.node(span, ExprKind::Literal(Literal::String(s)), 0);
                }
                TokenKind::Bytes(b) => {
                    return self.node(span, ExprKind::Literal(Literal::Bytes(b)), 0);
                }
                _ => return Err(self.mismatched(TokenSet::EXPR)),
            },
            _ => return Err(self.mismatched(TokenSet::EXPR)),
        };
        self.advance()?;
        self.node(span, ExprKind::Literal(literal), 0)
    }

    /// An identifier or global call; `prefix` is `.` for root-scoped names.
    fn identifier(&mut self, prefix: String, start: Span) -> Parsed {
        let TokenKind::Ident(name) = self.token.kind else {
            return Err(self.mismatched(TokenSet::FIELD));
        };
        if RESERVED.contains(&name) {
            // cel-go reports it after parsing, so parsing goes on.
            let span = self.token.span;
            self.report_value(SyntaxErrorKind::ReservedIdentifier(name.to_owned()), span);
        }
        let name = prefix + name;
        let span = start.to(self.advance()?.span);
        if self.token.kind == TokenKind::LParen {
            return self.call(None, name, span);
        }
        self.node(span, ExprKind::Ident(name), 0)
    }

    /// Arguments of a call whose name has been read; expands macros.
    /// A member call (macro or not) is a chain node for cel-go, a global call is not.
    fn call(&mut self, target: Option<(Expr, u32)>, function: String, span: Span) -> Parsed {
        let (args, args_chain, close) = self.arguments()?;
        let chain =
            target.as_ref().map_or(0, |t| t.1 + 1).max(args_chain + u32::from(target.is_some()));
        self.finish_call(target.map(|t| t.0), function, args, chain, span.to(close))
    }

    /// `(expr, ...)`: the arguments, their greatest chain depth and the closing span.
    fn arguments(&mut self) -> Result<(Vec<Expr>, u32, Span), Box<ParseError>> {
        self.advance()?;
        let mut args = Vec::new();
        let mut chain = 0;
        self.sync(TokenSet::EXPR.union(TokenSet::RPAREN))?;
        if self.token.kind != TokenKind::RParen {
            loop {
                let (arg, h) = self.expr_in(TokenSet::COMMA.union(TokenSet::RPAREN))?;
                chain = chain.max(h);
                args.push(arg);
                if !self.eat(&TokenKind::Comma)? {
                    break;
                }
            }
        }
        let close = self.expect_closer(&TokenKind::RParen, TokenSet::RPAREN)?;
        Ok((args, chain, close))
    }

    fn finish_call(
        &mut self,
        target: Option<Expr>,
        function: String,
        args: Vec<Expr>,
        chain: u32,
        span: Span,
    ) -> Parsed {
        if self.options.macros
            && let Some(mac) = Macro::find(target.as_ref(), &function, args.len())
        {
            if chain > self.options.max_depth {
                return Ok(self.chain_too_deep(span));
            }
            let expr = expand(&mut self.builder, mac, span, target, args)
                .map_err(|(kind, at)| ParseError::new(kind, at, self.source))?;
            return Ok((expr, chain));
        }
        let kind = ExprKind::Call { target: target.map(Box::new), function, args };
        self.node(span, kind, chain)
    }

    fn list(&mut self) -> Parsed {
        let start = self.advance()?.span;
        let mut elements = Vec::new();
        let mut chain = 0;
        let element = TokenSet::EXPR.union(TokenSet::QUESTION);
        let close = TokenSet::RBRACKET;
        let mut more = self.first_item(element, close)?;
        while more {
            let optional = self.eat(&TokenKind::Question)?;
            let (value, h) = self.expr_in(TokenSet::COMMA.union(close))?;
            chain = chain.max(h);
            elements.push(ListElement { value, optional });
            more = self.next_item(element, close)?;
        }
        let span = start.to(self.expect_closer(&TokenKind::RBracket, close)?);
        self.node(span, ExprKind::List(elements), chain)
    }

    /// After the opening bracket of `[items ,? ]` (and the map and message forms):
    /// whether an item follows. A lone `,` is the optional trailing comma.
    fn first_item(&mut self, item: TokenSet, close: TokenSet) -> Result<bool, Box<ParseError>> {
        self.sync(item.union(close).union(TokenSet::COMMA))?;
        if self.token.kind == TokenKind::Comma {
            self.advance()?;
            return Ok(false);
        }
        Ok(item.contains(&self.token.kind))
    }

    /// After an item: whether another follows. A `,` not followed by an item is the
    /// trailing comma; anything but `,` and the closer is checked as ANTLR does.
    fn next_item(&mut self, item: TokenSet, close: TokenSet) -> Result<bool, Box<ParseError>> {
        if self.token.kind != TokenKind::Comma {
            if close.contains(&self.token.kind) {
                return Ok(false);
            }
            self.sync(close.union(TokenSet::COMMA))?;
            if self.token.kind != TokenKind::Comma {
                return Ok(false);
            }
            self.advance()?;
            return Ok(false);
        }
        let another = item.contains(self.peek());
        self.advance()?;
        Ok(another)
    }

    fn map(&mut self) -> Parsed {
        let start = self.advance()?.span;
        let mut entries = Vec::new();
        let mut chain = 0;
        let item = TokenSet::EXPR.union(TokenSet::QUESTION);
        let close = TokenSet::RBRACE;
        let mut more = self.first_item(item, close)?;
        while more {
            let optional = self.eat(&TokenKind::Question)?;
            let (key, kh) = self.expr_in(TokenSet::COLON)?;
            self.expect(&TokenKind::Colon, TokenSet::COLON, TokenSet::EXPR)?;
            let (value, vh) = self.expr_in(TokenSet::COMMA.union(close))?;
            chain = chain.max(kh).max(vh);
            let id = self.builder.id();
            entries.push(MapEntry { id, key, value, optional });
            more = self.next_item(item, close)?;
        }
        let span = start.to(self.expect_closer(&TokenKind::RBrace, close)?);
        self.node(span, ExprKind::Map(entries), chain)
    }

    fn struct_body(&mut self, type_name: String, start: Span) -> Parsed {
        self.advance()?;
        let mut fields = Vec::new();
        let mut chain = 0;
        let item = TokenSet::FIELD.union(TokenSet::QUESTION);
        let close = TokenSet::RBRACE;
        let mut more = self.first_item(item, close)?;
        while more {
            let field_start = self.token.span;
            let optional = self.eat(&TokenKind::Question)?;
            self.sync(TokenSet::FIELD)?;
            let (field, _) = self.field_name()?;
            self.expect(&TokenKind::Colon, TokenSet::COLON, TokenSet::EXPR)?;
            let (value, h) = self.expr_in(TokenSet::COMMA.union(close))?;
            chain = chain.max(h);
            let id = self.builder.id();
            fields.push(FieldInit { id, span: field_start.to(value.span), field, value, optional });
            more = self.next_item(item, close)?;
        }
        let span = start.to(self.expect_closer(&TokenKind::RBrace, close)?);
        self.node(span, ExprKind::Struct { type_name, fields }, chain)
    }
}

/// Moves the expression out of `node`, leaving a placeholder that is overwritten
/// before anyone reads it.
fn take(node: &mut (Expr, u32)) -> (Expr, u32) {
    let placeholder =
        Expr { id: NodeId(0), span: Span::default(), kind: ExprKind::Literal(Literal::Null) };
    std::mem::replace(node, (placeholder, 0))
}

/// `a.b.C` from the select chain the parser built for it.
fn qualified_name(expr: &Expr) -> Option<String> {
    let mut parts = Vec::new();
    let mut current = expr;
    loop {
        match &current.kind {
            ExprKind::Ident(name) => {
                parts.push(name.as_str());
                break;
            }
            ExprKind::Select { operand, field, .. } => {
                parts.push(field.as_str());
                current = operand;
            }
            _ => return None,
        }
    }
    parts.reverse();
    Some(parts.join("."))
}
