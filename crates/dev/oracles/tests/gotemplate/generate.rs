//! Generated text/template cases: a data document of every value kind plus a template built
//! from a few generated actions (builtins, control structures, printf verbs, sprig calls).

use proptest::prelude::*;
use serde_json::{Value, json};

/// How JSON numbers reach the template (see the oracle's header).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Numbers {
    /// certgate's `to_value`: integers stay integers.
    Typed,
    /// `encoding/json`'s plain decoding: every number is a float64.
    Float64,
}

#[derive(Clone, Debug)]
pub struct GenCase {
    pub template: String,
    pub data: Value,
    pub sprig: bool,
    pub numbers: Numbers,
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-c]{1,4}",
        "[A-Za-z0-9 _.-]{0,8}",
        Just("héllo wörld".to_owned()),
        Just("1.2.3".to_owned()),
        Just("42".to_owned()),
        Just("-7".to_owned()),
        Just("3.5".to_owned()),
        Just("<a href='x'>&\"</a>".to_owned()),
        Just("a,b,,c".to_owned()),
        Just("line1\nline2".to_owned()),
    ]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        prop_oneof![Just(0.5), Just(-2.25), Just(1e21), Just(3.0), Just(0.1), Just(1e-7)]
            .prop_map(Value::from),
        word().prop_map(Value::from),
    ]
}

fn data() -> impl Strategy<Value = Value> {
    (
        word(),
        -50i64..50,
        prop_oneof![Just(1.5), Just(-0.25), Just(2.0), Just(1e6), Just(123456789.0)],
        any::<bool>(),
        prop::collection::vec(scalar(), 0..4),
        prop::collection::btree_map("[a-d]", scalar(), 0..4),
        prop::collection::vec(-5i64..20, 0..5),
    )
        .prop_map(|(s, n, f, b, l, m, nums)| {
            json!({"s": s, "n": n, "f": f, "b": b, "l": l, "m": m, "z": null, "e": "",
                   "nums": nums, "strs": ["b", "a", "c", "a"],
                   "d": {"x": 1, "y": {"z": "deep"}}})
        })
}

/// Operands: fields of every kind, literals, variables and parenthesised calls.
fn operand() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        ".s",
        ".n",
        ".f",
        ".b",
        ".l",
        ".m",
        ".z",
        ".e",
        ".nums",
        ".strs",
        ".d",
        ".d.x",
        ".d.y.z",
        ".m.a",
        ".missing",
        "$",
        "$.n",
        "1",
        "0",
        "-3",
        "2.5",
        "1e3",
        "0x1F",
        "'a'",
        "\"ab\"",
        "\"\"",
        "true",
        "false",
        "\"3\"",
        "(len .strs)",
        "(index .strs 1)",
    ])
    .prop_map(str::to_owned)
}

const VERBS: &[&str] = &[
    "%v", "%+v", "%#v", "%T", "%d", "%s", "%q", "%x", "%X", "%5.2f", "%e", "%g", "%t", "%c", "%o",
    "%b", "%8s", "%-6v|", "%05d", "%.3s", "%U", "%%", "%v %v", "%!", "%z",
];

const BUILTINS: &[(&str, usize, usize)] = &[
    ("eq", 2, 4),
    ("ne", 2, 2),
    ("lt", 2, 2),
    ("le", 2, 2),
    ("gt", 2, 2),
    ("ge", 2, 2),
    ("and", 1, 3),
    ("or", 1, 3),
    ("not", 1, 1),
    ("len", 1, 1),
    ("index", 1, 3),
    ("slice", 1, 3),
    ("print", 0, 3),
    ("println", 0, 2),
    ("html", 1, 2),
    ("js", 1, 2),
    ("urlquery", 1, 2),
];

/// Sprig functions (name, min args, max args); the operands are generated.
const SPRIG: &[(&str, usize, usize)] = &[
    ("upper", 1, 1),
    ("lower", 1, 1),
    ("title", 1, 1),
    ("trim", 1, 1),
    ("trimAll", 2, 2),
    ("trimPrefix", 2, 2),
    ("trimSuffix", 2, 2),
    ("repeat", 2, 2),
    ("substr", 3, 3),
    ("trunc", 2, 2),
    ("abbrev", 2, 2),
    ("abbrevboth", 3, 3),
    ("wrap", 2, 2),
    ("nospace", 1, 1),
    ("initials", 1, 1),
    ("contains", 2, 2),
    ("hasPrefix", 2, 2),
    ("hasSuffix", 2, 2),
    ("quote", 1, 3),
    ("squote", 1, 3),
    ("cat", 0, 3),
    ("indent", 2, 2),
    ("nindent", 2, 2),
    ("replace", 3, 3),
    ("plural", 3, 3),
    ("snakecase", 1, 1),
    ("camelcase", 1, 1),
    ("kebabcase", 1, 1),
    ("swapcase", 1, 1),
    ("splitList", 2, 2),
    ("split", 2, 2),
    ("join", 2, 2),
    ("sortAlpha", 1, 1),
    ("toString", 1, 1),
    ("toStrings", 1, 1),
    ("atoi", 1, 1),
    ("int", 1, 1),
    ("int64", 1, 1),
    ("float64", 1, 1),
    ("toJson", 1, 1),
    ("toPrettyJson", 1, 1),
    ("fromJson", 1, 1),
    ("ternary", 3, 3),
    ("until", 1, 1),
    ("untilStep", 3, 3),
    ("seq", 1, 3),
    ("add", 1, 3),
    ("sub", 2, 2),
    ("mul", 1, 3),
    ("div", 2, 2),
    ("mod", 2, 2),
    ("max", 1, 3),
    ("min", 1, 3),
    ("add1", 1, 1),
    ("floor", 1, 1),
    ("ceil", 1, 1),
    ("round", 2, 2),
    ("addf", 1, 3),
    ("subf", 1, 3),
    ("mulf", 1, 3),
    ("divf", 1, 3),
    ("maxf", 1, 3),
    ("minf", 1, 3),
    ("default", 2, 2),
    ("empty", 1, 1),
    ("coalesce", 1, 3),
    ("all", 0, 3),
    ("any", 0, 3),
    ("list", 0, 3),
    ("first", 1, 1),
    ("last", 1, 1),
    ("rest", 1, 1),
    ("initial", 1, 1),
    ("reverse", 1, 1),
    ("uniq", 1, 1),
    ("compact", 1, 1),
    ("has", 2, 2),
    ("without", 1, 3),
    ("append", 2, 2),
    ("prepend", 2, 2),
    ("concat", 1, 3),
    ("dict", 0, 4),
    ("get", 2, 2),
    ("set", 3, 3),
    ("unset", 2, 2),
    ("hasKey", 2, 2),
    ("pluck", 2, 3),
    ("keys", 1, 2),
    ("values", 1, 1),
    ("pick", 1, 3),
    ("omit", 1, 3),
    ("merge", 1, 3),
    ("dig", 3, 4),
    ("semver", 1, 1),
    ("semverCompare", 2, 2),
    ("regexMatch", 2, 2),
    ("regexFindAll", 3, 3),
    ("regexReplaceAll", 3, 3),
    ("regexSplit", 3, 3),
    ("regexQuoteMeta", 1, 1),
    ("b64enc", 1, 1),
    ("b64dec", 1, 1),
    ("b32enc", 1, 1),
    ("sha256sum", 1, 1),
    ("adler32sum", 1, 1),
    ("kindOf", 1, 1),
    ("typeOf", 1, 1),
    ("kindIs", 2, 2),
    ("deepEqual", 2, 2),
    ("base", 1, 1),
    ("dir", 1, 1),
    ("ext", 1, 1),
    ("clean", 1, 1),
    ("toDecimal", 1, 1),
    ("biggest", 1, 3),
    ("chunk", 2, 2),
    ("sortAlpha", 1, 1),
];

fn call(table: &'static [(&'static str, usize, usize)]) -> impl Strategy<Value = String> {
    prop::sample::select(table).prop_flat_map(|(name, lo, hi)| {
        prop::collection::vec(operand(), lo..=hi).prop_map(move |args| {
            std::iter::once(name.to_owned()).chain(args).collect::<Vec<_>>().join(" ")
        })
    })
}

fn printf() -> impl Strategy<Value = String> {
    (prop::sample::select(VERBS), prop::collection::vec(operand(), 0..3))
        .prop_map(|(verb, args)| format!("printf {verb:?} {}", args.join(" ")))
}

/// A pipeline: a call, possibly piped into a one-argument builtin or function.
fn pipeline(sprig: bool) -> BoxedStrategy<String> {
    let head = if sprig {
        prop_oneof![2 => operand(), 3 => call(BUILTINS), 2 => printf(), 6 => call(SPRIG)].boxed()
    } else {
        prop_oneof![2 => operand(), 3 => call(BUILTINS), 3 => printf()].boxed()
    };
    (
        head,
        prop::option::of(prop::sample::select(vec![
            "print",
            "len",
            "printf \"%v\"",
            "html",
            "not",
        ])),
    )
        .prop_map(|(h, tail)| match tail {
            Some(t) => format!("{h} | {t}"),
            None => h,
        })
        .boxed()
}

fn action(sprig: bool) -> BoxedStrategy<String> {
    let p = || pipeline(sprig);
    prop_oneof![
        6 => p().prop_map(|p| format!("{{{{{p}}}}}")),
        1 => p().prop_map(|p| format!("{{{{- {p} -}}}} x ")),
        2 => (p(), p(), p()).prop_map(|(c, a, b)| format!("{{{{if {c}}}}}[{{{{{a}}}}}]{{{{else}}}}<{{{{{b}}}}}>{{{{end}}}}")),
        1 => (p(), p()).prop_map(|(c, a)| format!("{{{{if {c}}}}}T{{{{else if {a}}}}}U{{{{else}}}}F{{{{end}}}}")),
        2 => (p(), p()).prop_map(|(c, a)| format!("{{{{with $x := {c}}}}}({{{{$x}}}}|{{{{{a}}}}}){{{{else}}}}none{{{{end}}}}")),
        2 => (operand(), p()).prop_map(|(c, a)| format!("{{{{range $i, $v := {c}}}}}{{{{$i}}}}={{{{$v}}}};{{{{else}}}}empty:{{{{{a}}}}}{{{{end}}}}")),
        1 => operand().prop_map(|c| format!("{{{{range {c}}}}}{{{{if eq (print .) \"a\"}}}}{{{{break}}}}{{{{end}}}}{{{{if not .}}}}{{{{continue}}}}{{{{end}}}}<{{{{.}}}}>{{{{end}}}}")),
        1 => (p(), operand()).prop_map(|(b, a)| format!("{{{{define \"t\"}}}}[{{{{{b}}}}}]{{{{end}}}}{{{{template \"t\" {a}}}}}")),
        1 => (p(), operand()).prop_map(|(b, a)| format!("{{{{block \"b\" {a}}}}}<{{{{{b}}}}}>{{{{end}}}}")),
        1 => p().prop_map(|p| format!("{{{{$y := {p}}}}}{{{{$y = 1}}}}{{{{$y}}}}")),
        1 => Just("{{/* a comment */}}c {{- /* trimmed */ -}} d".to_owned()),
    ]
    .boxed()
}

pub fn case() -> impl Strategy<Value = GenCase> {
    (any::<bool>(), prop_oneof![4 => Just(Numbers::Typed), 1 => Just(Numbers::Float64)], data())
        .prop_flat_map(|(sprig, numbers, data)| {
            (prop::collection::vec(action(sprig), 1..4), Just(sprig), Just(numbers), Just(data))
        })
        .prop_map(|(actions, sprig, numbers, data)| GenCase {
            template: actions.join(" "),
            data,
            sprig,
            numbers,
        })
}
