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
    let token = lexer.next_token()?;
    let mut parser = Parser {
        source,
        lexer,
        token,
        builder: Builder::default(),
        depth: 0,
        extra: Extra::default(),
        chain_exceeded: false,
        options,
    };
    let (root, _) = parser.expr()?;
    if parser.token.kind != TokenKind::Eof {
        let found = parser.describe();
        return Err(parser.error_here(SyntaxErrorKind::Trailing(found)));
    }
    // cel-go walks the tree after parsing, so a grammar-nesting error wins over this one.
    if parser.chain_exceeded {
        return Err(ParseError::new(SyntaxErrorKind::ChainTooDeep, Span::default(), source));
    }
    Ok(Ast { root, node_count: parser.builder.node_count() })
}

/// An expression and its chain depth: the most chain nodes (see the module comment) on
/// a path from it to a leaf.
type Parsed = Result<(Expr, u32), Box<ParseError>>;

struct Parser<'a, 'o> {
    source: &'a str,
    lexer: Lexer<'a>,
    token: Token<'a>,
    builder: Builder,
    /// Nested expressions being parsed: one level of every grammar rule each.
    depth: u32,
    extra: Extra,
    /// A chain went beyond the limit (reported once the whole rule is parsed).
    chain_exceeded: bool,
    options: &'o ParserOptions,
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
    fn advance(&mut self) -> Result<Token<'a>, Box<ParseError>> {
        let next = self.lexer.next_token()?;
        Ok(std::mem::replace(&mut self.token, next))
    }

    fn eat(&mut self, kind: &TokenKind<'_>) -> Result<bool, Box<ParseError>> {
        if &self.token.kind == kind {
            self.advance()?;
            return Ok(true);
        }
        Ok(false)
    }

    fn expect(
        &mut self,
        kind: &TokenKind<'_>,
        expected: &'static str,
    ) -> Result<Span, Box<ParseError>> {
        if &self.token.kind != kind {
            return Err(self.mismatched(expected));
        }
        let span = self.token.span;
        self.advance()?;
        Ok(span)
    }

    fn describe(&self) -> String {
        self.token.kind.describe(self.source, self.token.span)
    }

    fn error_here(&self, kind: SyntaxErrorKind) -> Box<ParseError> {
        ParseError::new(kind, self.token.span, self.source)
    }

    fn mismatched(&self, expected: &'static str) -> Box<ParseError> {
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
            self.push_binary(&mut parts)?;
            self.expect(&TokenKind::Colon, "':'")?;
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
            return Err(self.mismatched("an expression"));
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
        let term = chain.operands.pop().ok_or_else(|| self.mismatched("an expression"))?;
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
            return terms.pop().ok_or_else(|| self.mismatched("an expression"));
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
            return Err(self.mismatched("an expression"));
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
        match self.token.kind {
            TokenKind::Bang => self.prefixed(TokenKind::Bang, operators::LOGICAL_NOT),
            TokenKind::Minus => self.prefixed(TokenKind::Minus, operators::NEGATE),
            _ => self.member(),
        }
    }

    fn prefixed(&mut self, op: TokenKind<'static>, function: &'static str) -> Parsed {
        let start = self.token.span;
        let mut count = 0usize;
        while self.eat(&op)? {
            count += 1;
        }
        // cel-go's grammar reads `-5` as a signed literal but `--5` and `---5` as prefix
        // operators on the unsigned `5`, so `--9223372036854775808` is an invalid literal.
        let signed_number = op == TokenKind::Minus
            && count == 1
            && matches!(self.token.kind, TokenKind::Int(_) | TokenKind::Double(_));
        let (operand, chain) = if signed_number {
            count -= 1;
            self.member_from_negative_literal()?
        } else if op == TokenKind::Bang && self.token.kind == TokenKind::Minus {
            // The grammar's literal carries its sign, so `!-5` is `!(-5)`; any other `-`
            // after `!` is a syntax error at the token after it.
            self.advance()?;
            if !matches!(self.token.kind, TokenKind::Int(_) | TokenKind::Double(_)) {
                return Err(self.mismatched("a number"));
            }
            self.member_from_negative_literal()?
        } else {
            self.member()?
        };
        self.finish_prefixed(start, count, function, (operand, chain))
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

    fn member_from_negative_literal(&mut self) -> Parsed {
        let token = self.advance()?;
        let literal = match token.kind {
            TokenKind::Int(magnitude) => {
                let value = 0i64.checked_sub_unsigned(magnitude).ok_or_else(|| {
                    ParseError::new(
                        SyntaxErrorKind::IntOverflow(format!("-{magnitude}")),
                        token.span,
                        self.source,
                    )
                })?;
                Literal::Int(value)
            }
            TokenKind::Double(value) => Literal::Double(-value),
            _ => return Err(self.mismatched("a number")),
        };
        let primary = self.node(token.span, ExprKind::Literal(literal), 0)?;
        self.postfix(primary, false)
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
        self.advance()?;
        let optional = self.eat(&TokenKind::Question)?;
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
        let optional = self.eat(&TokenKind::Question)?;
        let index = self.expr()?;
        let close = self.expect(&TokenKind::RBracket, "']'")?;
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
            _ => return Err(self.mismatched("a field name")),
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
                let inner = self.expr()?;
                self.expect(&TokenKind::RParen, "')'")?;
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
            return Err(self.mismatched("an identifier"));
        }
        self.identifier(".".to_owned(), start)
    }

    fn literal(&mut self) -> Parsed {
        let span = self.token.span;
        let literal = match self.token.kind {
            TokenKind::Int(magnitude) => Literal::Int(i64::try_from(magnitude).map_err(|_| {
                self.error_here(SyntaxErrorKind::IntOverflow(magnitude.to_string()))
            })?),
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
                _ => return Err(self.mismatched("a literal")),
            },
            _ => return Err(self.mismatched("an expression")),
        };
        self.advance()?;
        self.node(span, ExprKind::Literal(literal), 0)
    }

    /// An identifier or global call; `prefix` is `.` for root-scoped names.
    fn identifier(&mut self, prefix: String, start: Span) -> Parsed {
        let TokenKind::Ident(name) = self.token.kind else {
            return Err(self.mismatched("an identifier"));
        };
        if RESERVED.contains(&name) {
            return Err(self.error_here(SyntaxErrorKind::ReservedIdentifier(name.to_owned())));
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
        if self.token.kind != TokenKind::RParen {
            loop {
                let (arg, h) = self.expr()?;
                chain = chain.max(h);
                args.push(arg);
                if !self.eat(&TokenKind::Comma)? {
                    break;
                }
            }
        }
        let close = self.expect(&TokenKind::RParen, "')' or ','")?;
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
        while self.token.kind != TokenKind::RBracket {
            let optional = self.eat(&TokenKind::Question)?;
            let (value, h) = self.expr()?;
            chain = chain.max(h);
            elements.push(ListElement { value, optional });
            if !self.eat(&TokenKind::Comma)? {
                break;
            }
        }
        let span = start.to(self.expect(&TokenKind::RBracket, "']' or ','")?);
        self.node(span, ExprKind::List(elements), chain)
    }

    fn map(&mut self) -> Parsed {
        let start = self.advance()?.span;
        let mut entries = Vec::new();
        let mut chain = 0;
        while self.token.kind != TokenKind::RBrace {
            let optional = self.eat(&TokenKind::Question)?;
            let (key, kh) = self.expr()?;
            self.expect(&TokenKind::Colon, "':'")?;
            let (value, vh) = self.expr()?;
            chain = chain.max(kh).max(vh);
            let id = self.builder.id();
            entries.push(MapEntry { id, key, value, optional });
            if !self.eat(&TokenKind::Comma)? {
                break;
            }
        }
        let span = start.to(self.expect(&TokenKind::RBrace, "'}' or ','")?);
        self.node(span, ExprKind::Map(entries), chain)
    }

    fn struct_body(&mut self, type_name: String, start: Span) -> Parsed {
        self.advance()?;
        let mut fields = Vec::new();
        let mut chain = 0;
        while self.token.kind != TokenKind::RBrace {
            let field_start = self.token.span;
            let optional = self.eat(&TokenKind::Question)?;
            let (field, _) = self.field_name()?;
            self.expect(&TokenKind::Colon, "':'")?;
            let (value, h) = self.expr()?;
            chain = chain.max(h);
            let id = self.builder.id();
            fields.push(FieldInit { id, span: field_start.to(value.span), field, value, optional });
            if !self.eat(&TokenKind::Comma)? {
                break;
            }
        }
        let span = start.to(self.expect(&TokenKind::RBrace, "'}' or ','")?);
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
