//! Parse-time errors as Go's `text/template/parse` words and places them, recorded from the
//! oracle (Go 1.26.8): a character that starts no token, named by where Go's parser stood
//! (`in command`, `in operand`, `in if`, ...); lexer errors (`bad character`, unterminated
//! literals, comments, actions, parens), with `in action started at` for an action that spans
//! lines; malformed character constants; and the earlier parser error (an empty pipeline, an
//! undefined function or variable) that Go reports before a later lexical one; tokens out
//! of place; numbers Go's parser refuses; and the first redefinition in Go's order. Each row is
//! asserted against the oracle and against certgate-gotemplate (engine/parse_lex).

use serde_json::Value;

use crate::generate::Numbers;
use crate::{Outcome, Sides};

/// (template, Go's error) for templates that fail to parse.
const CASES: &[(&str, &str)] = &[
    ("{{\\}}", "template: t:1: unexpected \"\\\\\" in command"),
    ("{{.x \\}}", "template: t:1: unexpected \"\\\\\" in operand"),
    ("{{.x\\}}", "template: t:1: bad character U+005C '\\'"),
    ("{{if \\}}{{end}}", "template: t:1: unexpected \"\\\\\" in if"),
    ("{{(\\)}}", "template: t:1: unexpected \"\\\\\" in parenthesized pipeline"),
    ("{{template \\}}", "template: t:1: unexpected \"\\\\\" in template clause"),
    ("{{template \"x\" \\}}", "template: t:1: unexpected \"\\\\\" in template clause"),
    ("{{.x'}}", "template: t:1: bad character U+0027 '''"),
    ("{{print'}}", "template: t:1: bad character U+0027 '''"),
    ("{{'ab'}}", "template: t:1: malformed character constant: 'ab'"),
    ("{{'\\q'}}", "template: t:1: invalid syntax"),
    ("{{\"a}}", "template: t:1: unterminated quoted string"),
    ("{{ .x\n\n\"a}}", "template: t:3: unterminated quoted string in action started at t:1"),
    ("{{.x\n", "template: t:2: unclosed action started at t:1"),
    ("{{/* x }}", "template: t:1: unclosed comment"),
    ("{{/* x */ x}}", "template: t:1: comment ends before closing delimiter"),
    ("{{}} {{\\}}", "template: t:1: missing value for command"),
    ("{{if}}{{end}}", "template: t:1: missing value for if"),
    ("{{$x := \\}}", "template: t:1: unexpected \"\\\\\" in command"),
    ("{{€}}", "template: t:1: unrecognized character in action: U+20AC '€'"),
    ("{{1a}}", "template: t:1: bad number syntax: \"1a\""),
    ("{{x \\}}", "template: t:1: function \"x\" not defined"),
    ("{{ `abc }}", "template: t:1: unterminated raw quoted string"),
    ("{{ ) }}", "template: t:1: unexpected right paren"),
    ("{{ (1 }}", "template: t:1: unclosed left paren"),
    ("{{.x | \\}}", "template: t:1: unexpected \"\\\\\" in command"),
    ("{{if .x}}{{else \\}}{{end}}", "template: t:1: unexpected \"\\\\\" in else"),
    ("{{if .x}}\n{{/* a", "template: t:2: unclosed comment in action started at t:1"),
    ("{{with .x}}{{else with \\}}{{end}}", "template: t:1: unexpected \"\\\\\" in with"),
    ("{{print 1 #}}", "template: t:1: unexpected \"#\" in operand"),
    ("{{range $i, $v := .l}}{{$v \\}}{{end}}", "template: t:1: unexpected \"\\\\\" in operand"),
    ("{{print (len \\)}}", "template: t:1: unexpected \"\\\\\" in operand"),
    ("{{block \"b\" \\}}{{end}}", "template: t:1: unexpected \"\\\\\" in block clause"),
    ("{{define \\}}{{end}}", "template: t:1: unexpected \"\\\\\" in define clause"),
    ("{{print 'c' \\}}", "template: t:1: unexpected \"\\\\\" in operand"),
    ("{{.x.y\\}}", "template: t:1: bad character U+005C '\\'"),
    ("{{\"s\"\\}}", "template: t:1: unexpected \"\\\\\" in operand"),
    ("a\n{{print\n\\}}", "template: t:3: unexpected \"\\\\\" in operand"),
    ("{{hub \\\"3\\\" | toInt hub}}", "template: t:1: function \"hub\" not defined"),
    ("{{`a`\n\\}}", "template: t:2: unexpected \"\\\\\" in operand"),
    ("{{ $.x \\}}", "template: t:1: unexpected \"\\\\\" in operand"),
    ("{{.x := 1}}", "template: t:1: unexpected \":=\" in operand"),
    ("{{print ''}}", "template: t:1: invalid syntax"),
    ("{{print '\\x41' \\}}", "template: t:1: unexpected \"\\\\\" in operand"),
    ("{{1.2.3}}", "template: t:1: unexpected \".3\" in operand"),
    ("{{\"s\"eq}}", "template: t:1: unexpected \"eq\" in operand"),
    ("{{.. .x}}", "template: t:1: unexpected <.> in operand"),
    ("{{if range}}{{end}}", "template: t:1: unexpected <range> in if"),
    ("{{\"s\".x}}", "template: t:1: unexpected . after term \"\\\"s\\\"\""),
    ("{{print \"abcdefghijkl\"(1)}}", "template: t:1: unexpected \"(\" in operand"),
    ("{{if 1}}{{end .x}}", "template: t:1: unexpected \".x\" in end"),
    ("{{if 1}}{{else print}}{{end}}", "template: t:1: unexpected \"print\" in else"),
    ("{{block}}", "template: t:1: unexpected \"}}\" in block clause"),
    ("{{template .x}}", "template: t:1: unexpected \".x\" in template clause"),
    ("{{define \"d\" 1}}{{end}}", "template: t:1: unexpected \"1\" in define clause"),
    ("{{-}}", "template: t:1: illegal number syntax: \"-\""),
    ("{{print 0x}}", "template: t:1: illegal number syntax: \"0x\""),
    ("{{089}}", "template: t:1: integer overflow: \"089\""),
    ("{{3x}}", "template: t:1: bad number syntax: \"3x\""),
    ("{{with .x}}{{else with}}{{end}}", "template: t:1: missing value for with"),
    ("{{print ()}}", "template: t:1: missing value for parenthesized pipeline"),
    // Go adds definitions as their `{{end}}` is read and the top level last.
    (
        "{{define \"t\"}}x{{end}}\ny",
        "template: t:2: template: multiple definition of template \"t\"",
    ),
];

#[test]
fn parse_errors_match_go() {
    let mut sides = Sides::start();
    let data = Value::Object(serde_json::Map::new());
    for (template, go) in CASES {
        let want = Outcome::Error((*go).to_owned());
        let theirs = sides.upstream(template, &data, false, Numbers::Typed);
        assert_eq!(theirs, want, "upstream changed for {template:?}");
        let ours = sides.certgate(template, &data, false, Numbers::Typed);
        assert_eq!(ours, want, "certgate differs on {template:?}");
    }
}
