//! Syntax and literal errors: certgate's text must be cel-go's, every `ERROR:` block of
//! it. The tables hold cel-go's answers as the oracle gave them; each case is asked of
//! the oracle again, so a row that no longer matches upstream fails.

use super::{Answer, Case, Vars, ask, compare};
use certgate_cel::PolicyCel;
use certgate_oracles::{Oracle, Verdict};

/// The `ERROR:` blocks of a compile error.
fn blocks(error: &str) -> Vec<&str> {
    let mut starts: Vec<usize> = error.match_indices("ERROR: ").map(|(i, _)| i).collect();
    starts.push(error.len());
    starts
        .windows(2)
        .filter_map(|w| error.get(w[0]..w[1]).map(|b| b.trim_end_matches('\n')))
        .collect()
}

/// The one listed exception: after a syntax error it cannot recover from by skipping or
/// assuming a single token, cel-go's ANTLR parser resynchronises on the follow sets of
/// every rule being parsed and may report further errors; certgate stops there. Its
/// errors must then be upstream's first ones, in order, with nothing of its own.
pub(super) fn stops_where_antlr_resynchronises(ours: &Answer, upstream: &Answer) -> bool {
    let (ours, theirs) = (blocks(&ours.error), blocks(&upstream.error));
    let syntax = |b: &[&str]| b.iter().any(|b| b.contains(": Syntax error: "));
    if ours.is_empty() || ours.len() >= theirs.len() || !syntax(&ours) || !syntax(&theirs) {
        return false;
    }
    let mut rest = theirs.iter();
    ours.iter().all(|block| rest.any(|t| t == block))
}

/// Rules and cel-go's compile error for them, which certgate must give word for word.
const AGREE: &[(&str, &str)] = &[
    (
        "",
        "ERROR: <input>:1:0: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
    ),
    (
        "self ==",
        "ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self ==\n | .......^",
    ),
    ("(self", "ERROR: <input>:1:6: Syntax error: missing ')' at '<EOF>'\n | (self\n | .....^"),
    (
        "self.",
        "ERROR: <input>:1:6: Syntax error: no viable alternative at input '.'\n | self.\n | .....^",
    ),
    (
        "'abc",
        "ERROR: <input>:1:1: Syntax error: token recognition error at: ''abc'\n | 'abc\n | ^\nERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 'abc\n | ....^",
    ),
    (
        "1 ++ 2",
        "ERROR: <input>:1:4: Syntax error: extraneous input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 ++ 2\n | ...^",
    ),
    (
        "{1: }",
        "ERROR: <input>:1:5: Syntax error: mismatched input '}' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | {1: }\n | ....^",
    ),
    (
        "self == 'a' &&& true",
        "ERROR: <input>:1:15: Syntax error: token recognition error at: '& '\n | self == 'a' &&& true\n | ..............^",
    ),
    (
        "@",
        "ERROR: <input>:1:1: Syntax error: token recognition error at: '@'\n | @\n | ^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | @\n | .^",
    ),
    (
        "9223372036854775808",
        "ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808\n | ^",
    ),
    (
        "18446744073709551616u",
        "ERROR: <input>:1:1: invalid uint literal\n | 18446744073709551616u\n | ^",
    ),
    (
        "-9223372036854775809",
        "ERROR: <input>:1:1: invalid int literal\n | -9223372036854775809\n | ^",
    ),
    (
        "--9223372036854775808",
        "ERROR: <input>:1:3: invalid int literal\n | --9223372036854775808\n | ..^",
    ),
    ("1e400", "ERROR: <input>:1:1: invalid double literal\n | 1e400\n | ^"),
    (
        "!--3",
        "ERROR: <input>:1:3: Syntax error: no viable alternative at input '--'\n | !--3\n | ..^",
    ),
    (
        "!-5u",
        "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-5u'\n | !-5u\n | ..^",
    ),
    (
        "!-x",
        "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-x'\n | !-x\n | ..^",
    ),
    (
        "-",
        "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-'\n | -\n | .^\nERROR: <input>:1:2: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | -\n | .^",
    ),
    (
        "-)",
        "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-)'\n | -)\n | .^\nERROR: <input>:1:2: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | -)\n | .^",
    ),
    (
        "!",
        "ERROR: <input>:1:2: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !\n | .^",
    ),
    (
        "!)",
        "ERROR: <input>:1:2: Syntax error: extraneous input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !)\n | .^",
    ),
    (
        "1 2",
        "ERROR: <input>:1:3: Syntax error: extraneous input '2' expecting <EOF>\n | 1 2\n | ..^",
    ),
    (
        "1 2 3",
        "ERROR: <input>:1:3: Syntax error: mismatched input '2' expecting <EOF>\n | 1 2 3\n | ..^",
    ),
    (
        "[1 2]",
        "ERROR: <input>:1:4: Syntax error: extraneous input '2' expecting {']', ','}\n | [1 2]\n | ...^",
    ),
    ("[1,", "ERROR: <input>:1:4: Syntax error: missing ']' at '<EOF>'\n | [1,\n | ...^"),
    ("{1 2}", "ERROR: <input>:1:4: Syntax error: missing ':' at '2'\n | {1 2}\n | ...^"),
    ("{1:2,", "ERROR: <input>:1:6: Syntax error: missing '}' at '<EOF>'\n | {1:2,\n | .....^"),
    (
        "a.b(",
        "ERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a.b(\n | ....^",
    ),
    (
        "self.endsWith(",
        "ERROR: <input>:1:15: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.endsWith(\n | ..............^",
    ),
    (
        "f(,)",
        "ERROR: <input>:1:3: Syntax error: extraneous input ',' expecting {'[', '{', '(', ')', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | f(,)\n | ..^",
    ),
    (
        "a[",
        "ERROR: <input>:1:3: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | a[\n | ..^",
    ),
    ("a[1", "ERROR: <input>:1:4: Syntax error: missing ']' at '<EOF>'\n | a[1\n | ...^"),
    (
        "'\\q'",
        "ERROR: <input>:1:1: Syntax error: token recognition error at: ''\\q'\n | '\\q'\n | ^\nERROR: <input>:1:4: Syntax error: token recognition error at: '''\n | '\\q'\n | ...^\nERROR: <input>:1:5: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | '\\q'\n | ....^",
    ),
    (
        "\"\\u00ZZ\"",
        "ERROR: <input>:1:1: Syntax error: token recognition error at: '\"\\u00Z'\n | \"\\u00ZZ\"\n | ^\nERROR: <input>:1:8: Syntax error: token recognition error at: '\"'\n | \"\\u00ZZ\"\n | .......^",
    ),
    ("b'\\u0041'", "ERROR: <input>:1:1: unable to unescape string\n | b'\\u0041'\n | ^"),
    ("'\\uD800'", "ERROR: <input>:1:1: invalid unicode code point\n | '\\uD800'\n | ^"),
    (
        "`a`",
        "ERROR: <input>:1:1: Syntax error: mismatched input '`a`' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | `a`\n | ^",
    ),
    (
        "self.in",
        "ERROR: <input>:1:6: Syntax error: no viable alternative at input '.in'\n | self.in\n | .....^\nERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.in\n | .......^",
    ),
    (
        "if + while",
        "ERROR: <input>:1:1: reserved identifier: if\n | if + while\n | ^\nERROR: <input>:1:6: reserved identifier: while\n | if + while\n | .....^",
    ),
    (
        "0xg",
        "ERROR: <input>:1:2: Syntax error: extraneous input 'xg' expecting <EOF>\n | 0xg\n | .^",
    ),
    ("r'ab", "ERROR: <input>:1:2: Syntax error: token recognition error at: ''ab'\n | r'ab\n | .^"),
    (
        "'''ab",
        "ERROR: <input>:1:3: Syntax error: token recognition error at: ''ab'\n | '''ab\n | ..^",
    ),
    ("1 ? 2 3", "ERROR: <input>:1:7: Syntax error: missing ':' at '3'\n | 1 ? 2 3\n | ......^"),
    (
        "9223372036854775808 +",
        "ERROR: <input>:1:1: invalid int literal\n | 9223372036854775808 +\n | ^\nERROR: <input>:1:22: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 9223372036854775808 +\n | .....................^",
    ),
    (
        "a. + 1",
        "ERROR: <input>:1:4: Syntax error: no viable alternative at input '. +'\n | a. + 1\n | ...^",
    ),
    (
        "f(1 2 3)",
        "ERROR: <input>:1:5: Syntax error: mismatched input '2' expecting ')'\n | f(1 2 3)\n | ....^",
    ),
    (
        "a ? b c d : e",
        "ERROR: <input>:1:7: Syntax error: missing ':' at 'c'\n | a ? b c d : e\n | ......^\nERROR: <input>:1:9: Syntax error: mismatched input 'd' expecting <EOF>\n | a ? b c d : e\n | ........^",
    ),
    (
        "[1, 2 3 4, 5 6 7]",
        "ERROR: <input>:1:7: Syntax error: mismatched input '3' expecting {']', ','}\n | [1, 2 3 4, 5 6 7]\n | ......^",
    ),
    (
        "self.) == self.)",
        "ERROR: <input>:1:6: Syntax error: no viable alternative at input '.)'\n | self.) == self.)\n | .....^\nERROR: <input>:1:16: Syntax error: no viable alternative at input '.)'\n | self.) == self.)\n | ...............^",
    ),
    (
        "-!",
        "ERROR: <input>:1:2: Syntax error: no viable alternative at input '-!'\n | -!\n | .^\nERROR: <input>:1:3: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | -!\n | ..^",
    ),
    (
        "!-!",
        "ERROR: <input>:1:3: Syntax error: no viable alternative at input '-!'\n | !-!\n | ..^\nERROR: <input>:1:4: Syntax error: extraneous input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | !-!\n | ...^",
    ),
];

/// cel-go's grammar accepts a lone comma in an empty list or map.
const ACCEPTED: &[&str] = &["[,] == []", "{,} == {}"];

/// Rules where certgate reports only cel-go's first errors (the exception above).
const RESYNCHRONISED: &[(&str, &str)] = &[
    (
        "[1 2 3] + 1 2 3",
        "ERROR: <input>:1:4: Syntax error: mismatched input '2' expecting {']', ','}\n | [1 2 3] + 1 2 3\n | ...^\nERROR: <input>:1:13: Syntax error: mismatched input '2' expecting <EOF>\n | [1 2 3] + 1 2 3\n | ............^",
    ),
    (
        ".) + )",
        "ERROR: <input>:1:2: Syntax error: no viable alternative at input '.)'\n | .) + )\n | .^\nERROR: <input>:1:6: Syntax error: mismatched input ')' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | .) + )\n | .....^",
    ),
    (
        "f(1 2 3) == f(4 5 6)",
        "ERROR: <input>:1:5: Syntax error: mismatched input '2' expecting ')'\n | f(1 2 3) == f(4 5 6)\n | ....^\nERROR: <input>:1:17: Syntax error: mismatched input '5' expecting ')'\n | f(1 2 3) == f(4 5 6)\n | ................^",
    ),
    (
        "1 == == == 2 + + + 3",
        "ERROR: <input>:1:6: Syntax error: mismatched input '==' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 == == == 2 + + + 3\n | .....^\nERROR: <input>:1:9: Syntax error: extraneous input '==' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 == == == 2 + + + 3\n | ........^\nERROR: <input>:1:16: Syntax error: mismatched input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 == == == 2 + + + 3\n | ...............^\nERROR: <input>:1:18: Syntax error: extraneous input '+' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | 1 == == == 2 + + + 3\n | .................^",
    ),
];

fn compile_error(oracle: &mut Oracle, cel: &PolicyCel, rule: &str) -> (Answer, Answer) {
    let case = Case { rule: rule.to_owned(), vars: Vars::default() };
    ask(oracle, cel, &case)
}

#[test]
fn syntax_and_literal_errors_are_cel_go_s_word_for_word() {
    let mut oracle = Oracle::start("cel").expect("run tools/oracles/build first");
    let cel = PolicyCel::default();
    for (rule, expected) in AGREE {
        let (ours, upstream) = compile_error(&mut oracle, &cel, rule);
        let got = (upstream.phase.as_str(), upstream.error.as_str());
        assert_eq!(got, ("compile", *expected), "upstream on {rule:?}");
        assert_eq!(ours, upstream, "certgate on {rule:?}");
        assert!(matches!(compare(&ours, &upstream), Verdict::Agree), "{rule:?}");
    }
}

#[test]
fn after_an_unrecoverable_syntax_error_certgate_reports_upstream_s_first_errors() {
    let mut oracle = Oracle::start("cel").expect("run tools/oracles/build first");
    let cel = PolicyCel::default();
    for (rule, expected) in RESYNCHRONISED {
        let (ours, upstream) = compile_error(&mut oracle, &cel, rule);
        assert_eq!(upstream.error, *expected, "upstream on {rule:?}");
        assert!(stops_where_antlr_resynchronises(&ours, &upstream), "{rule:?}: {ours:?}");
        assert!(matches!(compare(&ours, &upstream), Verdict::Excepted), "{rule:?}");
    }
}

#[test]
fn a_lone_comma_in_an_empty_aggregate_is_accepted() {
    let mut oracle = Oracle::start("cel").expect("run tools/oracles/build first");
    let cel = PolicyCel::default();
    for rule in ACCEPTED {
        let (ours, upstream) = compile_error(&mut oracle, &cel, rule);
        assert_eq!(
            (upstream.phase.as_str(), upstream.value),
            ("ok", Some(true)),
            "upstream on {rule:?}"
        );
        assert_eq!(ours, upstream, "certgate on {rule:?}");
    }
}
