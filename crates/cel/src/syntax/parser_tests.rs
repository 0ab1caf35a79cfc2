//! Unit tests of the parser, one group per production, through a compact rendering.

use super::ast::{Expr, ExprKind, Literal};
use super::{ParserOptions, SyntaxErrorKind, parse, parse_with};

/// Renders a tree compactly: calls as `f(args)`, test-only selects as `has(a.b)`,
/// comprehensions as `fold(var, var2, range, accu, init, cond, step, result)`.
fn render(e: &Expr) -> String {
    let list = |items: Vec<String>| items.join(", ");
    match &e.kind {
        ExprKind::Literal(l) => match l {
            Literal::Null => "null".into(),
            Literal::Bool(b) => b.to_string(),
            Literal::Int(i) => i.to_string(),
            Literal::Uint(u) => format!("{u}u"),
            Literal::Double(d) => format!("{d:?}"),
            Literal::String(s) => format!("{s:?}"),
            Literal::Bytes(b) => format!("b{b:?}"),
        },
        ExprKind::Ident(name) => name.clone(),
        ExprKind::Select { operand, field, test_only: true, .. } => {
            format!("has({}.{field})", render(operand))
        }
        ExprKind::Select { operand, field, optional, .. } => {
            format!("{}.{}{field}", render(operand), if *optional { "?" } else { "" })
        }
        ExprKind::Call { target, function, args } => {
            let receiver = target.as_ref().map_or(String::new(), |t| format!("{}.", render(t)));
            format!("{receiver}{function}({})", list(args.iter().map(render).collect()))
        }
        ExprKind::Index { operand, index, optional } => {
            format!("{}[{}{}]", render(operand), if *optional { "?" } else { "" }, render(index))
        }
        ExprKind::Conditional { condition, then, otherwise } => {
            format!("({} ? {} : {})", render(condition), render(then), render(otherwise))
        }
        ExprKind::List(elements) => format!(
            "[{}]",
            list(
                elements
                    .iter()
                    .map(|el| format!(
                        "{}{}",
                        if el.optional { "?" } else { "" },
                        render(&el.value)
                    ))
                    .collect()
            )
        ),
        ExprKind::Map(entries) => format!(
            "{{{}}}",
            list(
                entries
                    .iter()
                    .map(|en| format!(
                        "{}{}: {}",
                        if en.optional { "?" } else { "" },
                        render(&en.key),
                        render(&en.value)
                    ))
                    .collect()
            )
        ),
        ExprKind::Struct { type_name, fields } => format!(
            "{type_name}{{{}}}",
            list(
                fields
                    .iter()
                    .map(|f| format!(
                        "{}{}: {}",
                        if f.optional { "?" } else { "" },
                        f.field,
                        render(&f.value)
                    ))
                    .collect()
            )
        ),
        ExprKind::Comprehension(c) => format!(
            "fold({}, {}, {}, {}, {}, {}, {}, {})",
            c.iter_var,
            c.iter_var2.as_deref().unwrap_or("-"),
            render(&c.iter_range),
            c.accu_var,
            render(&c.accu_init),
            render(&c.loop_condition),
            render(&c.loop_step),
            render(&c.result)
        ),
    }
}

fn ok(src: &str) -> String {
    match parse(src) {
        Ok(ast) => render(&ast.root),
        Err(e) => format!("unexpected error: {e}"),
    }
}

fn err(src: &str) -> SyntaxErrorKind {
    match parse(src) {
        Ok(ast) => SyntaxErrorKind::NoViableAlternative(format!("parsed: {}", render(&ast.root))),
        Err(e) => e.kind,
    }
}

/// Every error's message, one per line, without locations.
fn messages(src: &str) -> String {
    match parse(src) {
        Ok(ast) => format!("unexpectedly parsed: {}", render(&ast.root)),
        Err(e) => e.all().map(|e| e.kind.to_string()).collect::<Vec<_>>().join("\n"),
    }
}

/// cel-go's set of tokens that can start an expression.
const EXPR: &str = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

#[test]
fn literals() {
    assert_eq!(ok("null"), "null");
    assert_eq!(
        ok("[true, false, 1, 1u, 1.5, 'a', b'a']"),
        r#"[true, false, 1, 1u, 1.5, "a", b[97]]"#
    );
    assert_eq!(ok("-9223372036854775808"), "-9223372036854775808");
    assert_eq!(ok("-1.5e1"), "-15.0");
    // cel-go's words, located at the sign.
    assert_eq!(messages("9223372036854775808"), "invalid int literal");
    assert_eq!(parse("-9223372036854775809").map_err(|e| e.column).err(), Some(1), "at the sign");
    assert_eq!(messages("18446744073709551616u"), "invalid uint literal");
    assert_eq!(messages("1e400"), "invalid double literal");
    assert_eq!(messages("b'\\u0041'"), "unable to unescape string");
    assert_eq!(messages("'\\uD800'"), "invalid unicode code point");
    // A literal error does not stop parsing: both are reported, as cel-go does.
    assert_eq!(
        messages("9223372036854775808 +"),
        format!("invalid int literal\nSyntax error: mismatched input '<EOF>' expecting {EXPR}")
    );
}

#[test]
fn precedence_and_associativity() {
    assert_eq!(ok("a || b && c"), "_||_(a, _&&_(b, c))");
    assert_eq!(ok("a || b || c"), "_||_(a, _||_(b, c))");
    assert_eq!(ok("a && b && c && d"), "_&&_(_&&_(a, b), _&&_(c, d))");
    assert_eq!(ok("a && b == c"), "_&&_(a, _==_(b, c))");
    assert_eq!(ok("a < b + c"), "_<_(a, _+_(b, c))");
    assert_eq!(ok("a in b + c"), "@in(a, _+_(b, c))");
    assert_eq!(ok("a + b * c % d"), "_+_(a, _%_(_*_(b, c), d))");
    assert_eq!(ok("a - b - c"), "_-_(_-_(a, b), c)");
    assert_eq!(ok("a / b * c"), "_*_(_/_(a, b), c)");
    assert_eq!(ok("a != b <= c >= d > e"), "_>_(_>=_(_<=_(_!=_(a, b), c), d), e)");
    assert_eq!(ok("(a + b) * c"), "_*_(_+_(a, b), c)");
}

#[test]
fn conditional_is_right_associative() {
    assert_eq!(ok("a ? b : c ? d : e"), "(a ? b : (c ? d : e))");
    assert_eq!(ok("a || b ? c + 1 : d"), "(_||_(a, b) ? _+_(c, 1) : d)");
    assert_eq!(ok("a ? (b ? c : d) : e"), "(a ? (b ? c : d) : e)");
    assert_eq!(messages("a ? b"), "Syntax error: mismatched input '<EOF>' expecting ':'");
    assert_eq!(messages("1 ? 2 3"), "Syntax error: missing ':' at '3'");
    assert_eq!(messages("1 ? 2 ]"), "Syntax error: mismatched input ']' expecting ':'");
}

#[test]
fn unary_operators() {
    assert_eq!(ok("!a"), "!_(a)");
    assert_eq!(ok("!!a"), "a");
    assert_eq!(ok("!!!a"), "!_(a)");
    assert_eq!(ok("-a"), "-_(a)");
    assert_eq!(ok("--a"), "a");
    // As cel-go: only a single `-` is a literal's sign (`--9223372036854775808` is an
    // invalid literal there, found by the differential test).
    assert_eq!(ok("--1"), "1");
    assert_eq!(ok("---1"), "-_(1)");
    assert_eq!(ok("-1u"), "-_(1u)");
    assert_eq!(ok("a - -1"), "_-_(a, -1)");
    assert_eq!(ok("-a.b"), "-_(a.b)");
    // The grammar's choices fail at the token after the `-` (oracle answers).
    assert_eq!(messages("!-a"), "Syntax error: no viable alternative at input '-a'");
    assert_eq!(messages("!--3"), "Syntax error: no viable alternative at input '--'");
    assert_eq!(messages("!-5u"), "Syntax error: no viable alternative at input '-5u'");
    // After it cel-go reads the `-` as a binary minus and goes on.
    assert_eq!(
        messages("-"),
        format!(
            "Syntax error: no viable alternative at input '-'\nSyntax error: mismatched input '<EOF>' expecting {EXPR}"
        )
    );
    assert_eq!(
        messages("-)"),
        format!(
            "Syntax error: no viable alternative at input '-)'\nSyntax error: mismatched input ')' expecting {EXPR}"
        )
    );
    // After `!`, ANTLR's loop check calls the token extraneous.
    assert_eq!(messages("!)"), format!("Syntax error: extraneous input ')' expecting {EXPR}"));
    assert_eq!(messages("!"), format!("Syntax error: extraneous input '<EOF>' expecting {EXPR}"));
}

#[test]
fn member_call_and_index() {
    assert_eq!(ok("a.b.c"), "a.b.c");
    assert_eq!(ok(".a.b"), ".a.b");
    assert_eq!(ok("a.b(c, d).e[f][?g]"), "a.b(c, d).e[f][?g]");
    assert_eq!(ok("f()"), "f()");
    assert_eq!(ok(".f(x)"), ".f(x)");
    assert_eq!(ok("a.?b.c"), "a.?b.c");
    assert_eq!(ok("a.`b-c`"), "a.b-c");
    assert_eq!(ok("{'as': 1}.as"), r#"{"as": 1}.as"#);
    assert_eq!(ok("a.if() || a.`in`"), "_||_(a.if(), a.in)");
    assert_eq!(messages("f(a,)"), format!("Syntax error: mismatched input ')' expecting {EXPR}"));
    assert_eq!(messages("a."), "Syntax error: no viable alternative at input '.'");
    assert_eq!(messages("a.)"), "Syntax error: no viable alternative at input '.)'");
    // ANTLR skips to an operator or closer and goes on (oracle answers).
    assert_eq!(
        messages("self.in"),
        format!(
            "Syntax error: no viable alternative at input '.in'\nSyntax error: mismatched input '<EOF>' expecting {EXPR}"
        )
    );
    assert_eq!(messages("a. + 1"), "Syntax error: no viable alternative at input '. +'");
    assert_eq!(messages(".)"), "Syntax error: no viable alternative at input '.)'");
    assert_eq!(messages("f(1"), "Syntax error: missing ')' at '<EOF>'");
    assert_eq!(messages("f(1 2)"), "Syntax error: extraneous input '2' expecting ')'");
    assert_eq!(
        messages("f(,)"),
        "Syntax error: extraneous input ',' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
    );
    assert_eq!(messages("a[1"), "Syntax error: missing ']' at '<EOF>'");
    assert_eq!(
        messages("a["),
        "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
    );
}

#[test]
fn reserved_identifiers() {
    assert_eq!(err("if"), SyntaxErrorKind::ReservedIdentifier("if".into()));
    assert_eq!(messages("if + while"), "reserved identifier: if\nreserved identifier: while");
    assert_eq!(err("a + namespace"), SyntaxErrorKind::ReservedIdentifier("namespace".into()));
    assert_eq!(err("while(1)"), SyntaxErrorKind::ReservedIdentifier("while".into()));
    assert!(matches!(err("in"), SyntaxErrorKind::Mismatched { .. }));
}

#[test]
fn aggregates() {
    assert_eq!(ok("[]"), "[]");
    assert_eq!(ok("[1, ?a, 3,]"), "[1, ?a, 3]");
    assert_eq!(ok("{}"), "{}");
    assert_eq!(ok("{'a': 1, ?b: c,}"), r#"{"a": 1, ?b: c}"#);
    assert_eq!(ok("T{}"), "T{}");
    assert_eq!(ok(".a.b.T{f: 1, ?g: x, `in`: 2, if: 3,}"), ".a.b.T{f: 1, ?g: x, in: 2, if: 3}");
    assert_eq!(ok("a.T{f: 1}.f"), "a.T{f: 1}.f");
    assert_eq!(messages("f().T{}"), "Syntax error: mismatched input '{' expecting <EOF>");
    assert_eq!(messages("(a).T{}"), "Syntax error: mismatched input '{' expecting <EOF>");
    // cel-go's grammar allows a lone comma in an empty aggregate.
    assert_eq!(ok("[,]"), "[]");
    assert_eq!(ok("{,}"), "{}");
    assert_eq!(messages("[1, 2"), "Syntax error: mismatched input '<EOF>' expecting {']', ','}");
    assert_eq!(messages("[1,"), "Syntax error: missing ']' at '<EOF>'");
    assert_eq!(messages("[1 2]"), "Syntax error: extraneous input '2' expecting {']', ','}");
    assert_eq!(messages("[1, )"), "Syntax error: mismatched input ')' expecting ']'");
    assert_eq!(messages("{1 2}"), "Syntax error: missing ':' at '2'");
    assert_eq!(messages("{1:2,"), "Syntax error: missing '}' at '<EOF>'");
    assert_eq!(
        messages("{"),
        "Syntax error: mismatched input '<EOF>' expecting {'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
    );
    assert_eq!(
        messages("a{"),
        "Syntax error: mismatched input '<EOF>' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}"
    );
    assert_eq!(messages("a{b 1}"), "Syntax error: missing ':' at '1'");
}

#[test]
fn comments_and_whitespace() {
    assert_eq!(ok("a // one\n\t+\r\x0cb // two"), "_+_(a, b)");
}

#[test]
fn error_positions() {
    let e = parse("a +\n  )").err();
    assert_eq!(
        e.map(|e| e.to_string()).as_deref(),
        Some(
            "ERROR: <input>:2:3: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n |   )\n | ..^"
        )
    );
    let e = parse("a + ").err();
    assert_eq!(e.map(|e| (e.line, e.column)), Some((1, 5)));
}

#[test]
fn macros_expand_to_comprehensions() {
    assert_eq!(ok("has(a.b)"), "has(a.b)");
    assert_eq!(
        ok("l.all(x, x > 0)"),
        "fold(x, -, l, @result, true, @not_strictly_false(@result), _&&_(@result, _>_(x, 0)), @result)"
    );
    assert_eq!(
        ok("l.exists(x, p)"),
        "fold(x, -, l, @result, false, @not_strictly_false(!_(@result)), _||_(@result, p), @result)"
    );
    assert_eq!(
        ok("l.exists_one(x, p)"),
        "fold(x, -, l, @result, 0, true, (p ? _+_(@result, 1) : @result), _==_(@result, 1))"
    );
    assert_eq!(ok("l.map(x, t)"), "fold(x, -, l, @result, [], true, _+_(@result, [t]), @result)");
    assert_eq!(
        ok("l.map(x, p, t)"),
        "fold(x, -, l, @result, [], true, (p ? _+_(@result, [t]) : @result), @result)"
    );
    assert_eq!(
        ok("l.filter(x, p)"),
        "fold(x, -, l, @result, [], true, (p ? _+_(@result, [x]) : @result), @result)"
    );
    assert_eq!(ok("cel.bind(v, 1, v + 1)"), "fold(#unused, -, [], v, 1, false, v, _+_(v, 1))");
    assert_eq!(
        ok("o.optMap(v, v + 1)"),
        "(o.hasValue() ? optional.of(fold(#unused, -, [], v, o.value(), false, v, _+_(v, 1))) : optional.none())"
    );
    assert_eq!(
        ok("o.optFlatMap(v, f(v))"),
        "(o.hasValue() ? fold(#unused, -, [], v, o.value(), false, v, f(v)) : optional.none())"
    );
}

#[test]
fn two_variable_macros() {
    assert_eq!(
        ok("m.all(k, v, p)"),
        "fold(k, v, m, @result, true, @not_strictly_false(@result), _&&_(@result, p), @result)"
    );
    assert_eq!(
        ok("m.existsOne(k, v, p)"),
        "fold(k, v, m, @result, 0, true, (p ? _+_(@result, 1) : @result), _==_(@result, 1))"
    );
    assert_eq!(
        ok("l.transformList(i, v, t)"),
        "fold(i, v, l, @result, [], true, _+_(@result, [t]), @result)"
    );
    assert_eq!(
        ok("m.transformMap(k, v, p, t)"),
        "fold(k, v, m, @result, {}, true, (p ? cel.@mapInsert(@result, k, t) : @result), @result)"
    );
    assert_eq!(
        ok("m.transformMapEntry(k, v, e)"),
        "fold(k, v, m, @result, {}, true, cel.@mapInsert(@result, e), @result)"
    );
}

#[test]
fn macro_argument_errors() {
    assert_eq!(err("has(a)"), SyntaxErrorKind::Macro("invalid argument to has() macro"));
    assert_eq!(err("has(a.?b)"), SyntaxErrorKind::Macro("invalid argument to has() macro"));
    assert_eq!(err("l.all(x.y, true)"), SyntaxErrorKind::Macro("argument must be a simple name"));
    assert_eq!(err("m.all(k, k, true)"), SyntaxErrorKind::Macro("duplicate variable name"));
    assert_eq!(
        err("cel.bind(a.b, 1, 2)"),
        SyntaxErrorKind::Macro("cel.bind() variable names must be simple identifiers")
    );
    // Other arities and receivers are ordinary calls.
    assert_eq!(ok("has(a, b)"), "has(a, b)");
    assert_eq!(ok("x.bind(a, 1, 2)"), "x.bind(a, 1, 2)");
}

#[test]
fn macros_can_be_disabled() {
    let options = ParserOptions { macros: false, ..ParserOptions::default() };
    let ast = parse_with("l.all(x, x)", &options).map(|a| render(&a.root));
    assert_eq!(ast.as_deref(), Ok("l.all(x, x)"));
}

#[test]
fn node_ids_are_unique_and_bounded_by_node_count() {
    let ast = parse("o.optMap(v, [v, {1: 2}][0])");
    let Ok(ast) = ast else {
        panic!("parse failed: {ast:?}");
    };
    let mut ids = Vec::new();
    collect_ids(&ast.root, &mut ids);
    ids.sort_unstable();
    let count = ids.len();
    ids.dedup();
    // Map entries carry ids too; the macro's copy of `o` has fresh ones.
    assert_eq!(ids.len(), count);
    assert_eq!(ids.first(), Some(&1));
    assert_eq!(ids.last(), Some(&ast.node_count));
    assert!(count >= 18);
}

fn collect_ids(e: &Expr, ids: &mut Vec<u32>) {
    ids.push(e.id.0);
    match &e.kind {
        ExprKind::Literal(_) | ExprKind::Ident(_) => {}
        ExprKind::Select { operand, .. } => collect_ids(operand, ids),
        ExprKind::Call { target, args, .. } => {
            target.iter().for_each(|t| collect_ids(t, ids));
            args.iter().for_each(|a| collect_ids(a, ids));
        }
        ExprKind::Index { operand, index, .. } => {
            collect_ids(operand, ids);
            collect_ids(index, ids);
        }
        ExprKind::Conditional { condition, then, otherwise } => {
            [condition, then, otherwise].iter().for_each(|x| collect_ids(x, ids))
        }
        ExprKind::List(elements) => elements.iter().for_each(|x| collect_ids(&x.value, ids)),
        ExprKind::Map(entries) => entries.iter().for_each(|x| {
            ids.push(x.id.0);
            collect_ids(&x.key, ids);
            collect_ids(&x.value, ids);
        }),
        ExprKind::Struct { fields, .. } => fields.iter().for_each(|x| {
            ids.push(x.id.0);
            collect_ids(&x.value, ids);
        }),
        ExprKind::Comprehension(c) => {
            [&c.iter_range, &c.accu_init, &c.loop_condition, &c.loop_step, &c.result]
                .iter()
                .for_each(|x| collect_ids(x, ids))
        }
    }
}

#[test]
fn size_limit() {
    let options = ParserOptions { max_code_points: 5, ..ParserOptions::default() };
    assert_eq!(
        parse_with("ééééé", &options).err().map(|e| e.kind),
        Some(SyntaxErrorKind::UnrecognizedToken("é".into()))
    );
    let e = parse_with("a + bcd", &options).err();
    assert_eq!(
        e.map(|e| e.to_string()).as_deref(),
        // cel-go v0.31.0 (the cel oracle): no location, no source line.
        Some("ERROR: <input>:-1:0: expression code point size exceeds limit: size: 7, limit 5")
    );
}

#[test]
fn an_empty_source_reports_column_zero_without_a_source_line() {
    let e = parse_with("", &ParserOptions::default()).err().map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some(
            "ERROR: <input>:1:0: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}"
        )
    );
}

#[test]
fn trailing_tokens_and_several_errors_read_as_cel_go() {
    assert_eq!(messages("1 2"), "Syntax error: extraneous input '2' expecting <EOF>");
    assert_eq!(messages("1 2 3"), "Syntax error: mismatched input '2' expecting <EOF>");
    assert_eq!(messages("1 + ) 2"), format!("Syntax error: extraneous input ')' expecting {EXPR}"));
    assert_eq!(messages("1 + ) )"), format!("Syntax error: mismatched input ')' expecting {EXPR}"));
    // Lexer errors do not stop the parse; each error has its own block, in source order
    // (cel-go v0.31.0 through the cel oracle).
    assert_eq!(
        parse("@").err().map(|e| e.to_string()).as_deref(),
        Some(&*format!(
            "ERROR: <input>:1:1: Syntax error: token recognition error at: '@'\n | @\n | ^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {EXPR}\n | @\n | .^"
        ))
    );
    assert_eq!(messages("self == 'a' &&& true"), "Syntax error: token recognition error at: '& '");
}
