//! The one-pass path must agree with the general path whenever it answers: same value (key
//! order included), same error text.

use proptest::prelude::*;
use serde_json::Value;

use crate::decode::decode_tree;

/// A result in a form where object key order matters (`Value`'s `==` ignores it).
fn shown(result: &Result<Value, crate::YamlError>) -> String {
    match result {
        Ok(value) => format!("ok {}", serde_json::to_string(value).unwrap_or_default()),
        Err(e) => format!("err {}", e.0),
    }
}

fn agrees(text: &str) -> Result<(), TestCaseError> {
    if let Some(fast) = super::decode(text) {
        prop_assert_eq!(shown(&fast), shown(&decode_tree(text)), "input {:?}", text);
    }
    Ok(())
}

/// Scalars the fast path decodes itself: every resolution rule and quoting style.
const SCALARS: &[&str] = &[
    "a",
    "x y",
    "'q'",
    "\"d\\tq\"",
    "''",
    "1",
    "-2",
    "+3",
    "0x1F",
    "0o7",
    "017",
    "08",
    "1_000",
    "1.5",
    "1.0",
    ".5",
    "1e3",
    "1e400",
    "~",
    "null",
    "",
    "true",
    "False",
    "yes",
    "2015-01-01",
    "2015-02-24 18:19:39.5",
    "2015-2-3T3:4:5Z",
    "2015-02-30",
    "<<",
    "'<<'",
    "[1, 2]",
    "{a: 1}",
    "[]",
    "{}",
    "9223372036854775808",
    "18446744073709551616",
    "-9223372036854775809",
    "héllo",
];

/// Scalars the fast path hands over: tags, anchors, aliases, values JSON cannot hold.
const ODD_SCALARS: &[&str] = &[
    ".nan",
    ".inf",
    "-.inf",
    "&a x",
    "*a",
    "&b {y: 2}",
    "*b",
    "!!str 1",
    "!!int 2",
    "!!float 'e'",
    "!custom x",
    "! 12",
    "!!binary aGVsbG8=",
    "{x: *a}",
    "{1: x}",
];

/// String keys, distinct from each other.
const KEYS: &[&str] =
    &["a", "b", "c", "d", "e", "f", "'g'", "\"h\"", "x y", "''", "k.io/name", "'<<'", "yes"];

/// Keys the fast path hands over: repeats, non-string keys, the merge key, anchors, aliases.
const ODD_KEYS: &[&str] =
    &["a", "'a'", "1", "true", "~", "<<", "&k a", "*k", "!!str 1", "[k]", "{k: v}", ""];

fn arb_key() -> impl Strategy<Value = &'static str> {
    prop_oneof![12 => prop::sample::select(KEYS), 1 => prop::sample::select(ODD_KEYS)]
}

#[derive(Clone, Debug)]
enum Doc {
    Scalar(&'static str),
    Map(Vec<(&'static str, Doc)>),
    Seq(Vec<Doc>),
}

fn arb_doc() -> impl Strategy<Value = Doc> {
    let leaf = prop_oneof![
        10 => prop::sample::select(SCALARS),
        1 => prop::sample::select(ODD_SCALARS),
    ]
    .prop_map(Doc::Scalar);
    leaf.prop_recursive(5, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec((arb_key(), inner.clone()), 0..5).prop_map(Doc::Map),
            prop::collection::vec(inner, 0..5).prop_map(Doc::Seq),
        ]
    })
}

/// Block-style text of a document, `indent` spaces deep.
fn write(doc: &Doc, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match doc {
        Doc::Scalar(s) => {
            out.push_str(&pad);
            out.push_str(s);
            out.push('\n');
        }
        Doc::Map(pairs) if pairs.is_empty() => out.push_str(&format!("{pad}{{}}\n")),
        Doc::Seq(items) if items.is_empty() => out.push_str(&format!("{pad}[]\n")),
        Doc::Map(pairs) => {
            for (key, value) in pairs {
                out.push_str(&format!("{pad}{key}:"));
                nested(value, indent + 2, out);
            }
        }
        Doc::Seq(items) => {
            for item in items {
                out.push_str(&format!("{pad}-"));
                nested(item, indent + 2, out);
            }
        }
    }
}

/// The value after `key:` or `-`: on the same line when it is a scalar.
fn nested(doc: &Doc, indent: usize, out: &mut String) {
    if let Doc::Scalar(s) = doc {
        out.push_str(&format!(" {s}\n"));
    } else {
        out.push('\n');
        write(doc, indent, out);
    }
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "[a-z0-9 :'\"#.\n-]{0,10}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec(("[a-z0-9 ._-]{0,6}", inner), 0..5)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn fast_path_agrees_on_block_documents(
        doc in arb_doc(),
        tail in prop::sample::select(&["", "---\nz: 1\n", "...\n}garbage\n", "a: [\n"][..]),
    ) {
        let mut text = String::new();
        write(&doc, 0, &mut text);
        text.push_str(tail);
        agrees(&text)?;
    }

    #[test]
    fn fast_path_agrees_on_yamlish_text(text in "[-:?&*!|>'\"{}\\[\\],# \n\ta-c0-9<.~%@`]{0,48}") {
        agrees(&text)?;
    }

    /// What `to_yaml` writes (the shape of executed templates) takes the fast path.
    #[test]
    fn fast_path_takes_emitted_json(value in arb_json()) {
        let text = crate::to_yaml(&value);
        prop_assert!(super::decode(&text).is_some(), "not taken: {:?}", text);
        agrees(&text)?;
    }
}

#[test]
fn fast_path_agrees_on_depth_limit() {
    for depth in [198, 199, 200, 201] {
        let flow = "[".repeat(depth) + "x" + &"]".repeat(depth);
        agrees(&flow).unwrap();
        let block: String = (0..depth).map(|i| format!("{}k:\n", " ".repeat(i))).collect();
        agrees(&(block + &" ".repeat(depth) + "v\n")).unwrap();
    }
}
