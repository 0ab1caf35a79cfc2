//! Error texts: documents both yaml.v3 and certgate reject, with yaml.v3's exact message.
//!
//! `FIXED` holds one or more documents per class of message certgate once worded or placed
//! differently (libyaml's 0-based parser lines and 1-based scanner lines, context marks,
//! content after a quoted scalar, `{a:[b]}`, `[ , x]`, duplicate keys stopping the
//! mapping, tabs, lines past 1024 characters, quoted scalars continued at any indentation,
//! block scalars with longer leading blank lines), each with the answer recorded from the
//! oracle. Since certgate-goyaml is a port of libyaml, no difference in wording or place is
//! excused: any fails the generated runs.

/// A document both reject, with yaml.v3's message as the test shows it (`err <message>`).
pub struct ErrorCase {
    pub yaml: &'static str,
    pub upstream: &'static str,
}

pub const FIXED: &[ErrorCase] = &[
    // Parser errors: libyaml's 0-based context line (the collection's start), nothing on 0.
    ErrorCase { yaml: "- &a0 *a0\n", upstream: "err yaml: did not find expected '-' indicator" },
    ErrorCase {
        yaml: "c1:\n    - &a0 *a0\na: x\n",
        upstream: "err yaml: line 1: did not find expected '-' indicator",
    },
    ErrorCase {
        yaml: "%YAML 1.1\n---\nb: &a0 *a0\n",
        upstream: "err yaml: line 2: did not find expected key",
    },
    ErrorCase { yaml: "a: 'x'\n  b: c\n", upstream: "err yaml: line 1: did not find expected key" },
    // Scanner errors: 1-based, nothing when the mark is on the first line.
    ErrorCase {
        yaml: "a: b: c\n",
        upstream: "err yaml: mapping values are not allowed in this context",
    },
    ErrorCase {
        yaml: "a: b\nc: d: e\n",
        upstream: "err yaml: line 2: mapping values are not allowed in this context",
    },
    ErrorCase { yaml: "@x\n", upstream: "err yaml: found character that cannot start any token" },
    ErrorCase {
        yaml: "a: b\nc: |x\n  b\n",
        upstream: "err yaml: line 2: did not find expected comment or line break",
    },
    ErrorCase {
        yaml: "a: b\nc: !<x>y z\n",
        upstream: "err yaml: line 2: did not find expected whitespace or line break",
    },
    // Quoted scalars: the scalar's start, else the end of the stream or the indicator.
    ErrorCase { yaml: "a: \"x\n", upstream: "err yaml: line 2: found unexpected end of stream" },
    ErrorCase { yaml: "c1: \"---\\\"", upstream: "err yaml: found unexpected end of stream" },
    ErrorCase {
        yaml: "b: \"x\n---\n'\n\"\n",
        upstream: "err yaml: line 2: found unexpected document indicator",
    },
    ErrorCase {
        yaml: "a: x\nb: \"x\n---\ny\"\n",
        upstream: "err yaml: line 2: found unexpected document indicator",
    },
    ErrorCase {
        yaml: "a: x\nb: \"x\n\\q\"\n",
        upstream: "err yaml: line 2: found unknown escape character",
    },
    // Content right after a closing quote.
    ErrorCase {
        yaml: "a: x\nb: \"x\n y\"z\nc: d\n",
        upstream: "err yaml: line 2: did not find expected key",
    },
    ErrorCase {
        yaml: "a: x\nb: \"x\"z: w\n",
        upstream: "err yaml: line 2: mapping values are not allowed in this context",
    },
    ErrorCase {
        yaml: "- \"x\" y\n- z\n",
        upstream: "err yaml: did not find expected '-' indicator",
    },
    ErrorCase {
        yaml: "a: b\n\"x\" y\nc: d\n",
        upstream: "err yaml: line 2: could not find expected ':'",
    },
    ErrorCase { yaml: "{a: \"x\" y}\n", upstream: "err yaml: did not find expected ',' or '}'" },
    // Flow collections: a leading comma, `a:` right before `[` or `{`.
    ErrorCase { yaml: "[ , x]\n", upstream: "err yaml: did not find expected node content" },
    ErrorCase {
        yaml: "a:\n  [\n , 1: x]\n",
        upstream: "err yaml: line 2: did not find expected node content",
    },
    ErrorCase {
        yaml: "# c\n{ 'q': x,\n c:[], c: y}\n",
        upstream: "err yaml: line 1: did not find expected ',' or '}'",
    },
    ErrorCase { yaml: "[a, b:{c: d}]\n", upstream: "err yaml: did not find expected ',' or ']'" },
    // A tab after a sequence entry's `-` (formerly a listed class).
    ErrorCase {
        yaml: "a:\n  - b\n  -\tc: d\n  - e: \"\n",
        upstream: "err yaml: line 3: found character that cannot start any token",
    },
    // A mapping with duplicate keys is not decoded further.
    ErrorCase {
        yaml: "a: 1\na: 2\nb:\n  c: 1\n  c: 2\n",
        upstream: "err yaml: unmarshal errors:\n  line 2: mapping key \"a\" already defined at line 1",
    },
    ErrorCase {
        yaml: "a:\n  {p: q}: 1\n  {r: s}: 2\n",
        upstream: "err yaml: unmarshal errors:\n  line 3: mapping key \"\" already defined at line 2",
    },
    ErrorCase {
        yaml: "a:\n  b: &x [1, 2]\n  b: 2\n  c: !!binary x\n",
        upstream: "err yaml: unmarshal errors:\n  line 3: mapping key \"b\" already defined at line 2",
    },
    // Once listed exceptions (certgate's YAML 1.2 parser failed elsewhere): a tab, and a
    // duplicate key that is an empty block scalar, placed on its header's line.
    ErrorCase {
        yaml: "---\n'': >\n   \n \ta b\n\n[1, 2]:\n- ?x\n  \n \n",
        upstream: "err yaml: line 2: found a tab character where an indentation space is expected",
    },
    ErrorCase {
        yaml: "? |2+\n: 1\n? |2+\n: 2\n",
        upstream: "err yaml: unmarshal errors:\n  line 3: mapping key \"\" already defined at line 1",
    },
];
