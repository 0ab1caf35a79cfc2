//! Generated hub templates: policy-like objects whose string fields hold `{{hub … hub}}`
//! templates, single- and multi-line, plus `object-templates-raw` style YAML text. Only
//! functions that need no cluster are used, so both sides resolve them from the context alone.

use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value, json};

/// A Go string literal (`"…"`) holding `text`.
pub fn go_quote(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Short texts with the characters that matter to YAML: indicators, quotes, line breaks,
/// leading/trailing spaces, things that look like numbers or booleans.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{1,8}",
        1 => select(vec![
            "", " ", "42", "-7", "0x1F", "3.5", "true", "yes", "no", "null", "~", "1e3", "010",
            "a: b", "- x", "# c", "'q'", "\"d\"", "{x}", "[1]", "a\nb", "a\nb\n", "\n", "x  \ny",
            "  lead", "trail  ", "a\n\nb", "key: v\nother: w", "- 1\n- 2", "a\n  b", "tab\there",
        ]).prop_map(str::to_owned),
        1 => "[a-z0-9 :#'\\-\\n]{0,12}",
    ]
}

/// A pipeline producing a value, without the delimiters.
fn value_expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        select(vec![
            ".ManagedClusterName",
            ".PolicyMetadata.name",
            ".PolicyMetadata.namespace",
            "index .PolicyMetadata.labels \"app\"",
            "index .ManagedClusterLabels \"env\"",
            "index .PolicyMetadata.annotations \"note\"",
        ])
        .prop_map(str::to_owned),
        text().prop_map(|t| go_quote(&t)),
        (text(), 0..100i32).prop_map(|(t, n)| format!("printf \"%s-%d\" {} {n}", go_quote(&t))),
        (text(), text()).prop_map(|(a, b)| format!(
            "dict \"a\" {} \"b\" {} | toYaml",
            go_quote(&a),
            go_quote(&b)
        )),
        (text(), 0..9i32).prop_map(|(a, n)| format!("list {} {n} | toYaml", go_quote(&a))),
        text().prop_map(|a| format!("list {} | toJSON", go_quote(&a))),
        text().prop_map(|a| format!("{} | fromYaml | toJSON", go_quote(&a))),
        text().prop_map(|a| format!("{} | fromYaml | toYaml", go_quote(&a))),
    ];
    (leaf, proptest::collection::vec(filter(), 0..3)).prop_map(|(leaf, filters)| {
        let mut out = leaf;
        for f in filters {
            out = format!("{out} | {f}");
        }
        out
    })
}

fn filter() -> impl Strategy<Value = String> {
    prop_oneof![
        select(vec![
            "upper",
            "trim",
            "b64enc",
            "b64enc | b64dec",
            "quote",
            "squote",
            "toYaml",
            "toString"
        ])
        .prop_map(str::to_owned),
        (-2..6i32).prop_map(|n| format!("indent {n}")),
    ]
}

/// Templates whose output keeps its type (§7.2 step 7).
fn typed_expr() -> impl Strategy<Value = String> {
    prop_oneof![
        text().prop_map(|t| format!("{} | toInt", go_quote(&t))),
        select(vec!["\"7\"", "\"1e3\"", "\"0x10\"", "\"-3\"", "\"3.9\"", ".PolicyMetadata.name"])
            .prop_map(|t| format!("{t} | toInt")),
        text().prop_map(|t| format!("{} | toBool", go_quote(&t))),
        select(vec!["\"true\"", "\"T\"", "\"0\""]).prop_map(|t| format!("{t} | toBool")),
        text().prop_map(|t| format!("{} | toLiteral", go_quote(&t))),
        text().prop_map(|t| format!("{} | atoi", go_quote(&t))),
    ]
}

/// Templates that fail, at parse or execution time.
fn failing() -> impl Strategy<Value = String> {
    select(vec![
        "{{hub fail \"boom\" hub}}",
        "{{hub env \"HOME\" hub}}",
        "{{hub expandenv \"$HOME\" hub}}",
        "{{hub nosuchfunc hub}}",
        "{{hub .ManagedClusterName",
        "{{hub \"a\\nb\" | toLiteral hub}}",
        "{{hub \"x\" | autoindent | upper hub}}",
        "{{hub protect \"x\" hub}}",
        "{{hub index .PolicyMetadata 1 hub}}",
        "{{hub deny \"x\" hub}}",
        "{{hub end hub}}",
    ])
    .prop_map(str::to_owned)
}

fn delimited(expr: &str, trim: bool) -> String {
    if trim { format!("{{{{hub- {expr} -hub}}}}") } else { format!("{{{{hub {expr} hub}}}}") }
}

/// One string field's value.
fn field_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        // The whole value.
        4 => (value_expr(), any::<bool>()).prop_map(|(e, t)| json!(delimited(&e, t))),
        // Inside surrounding text.
        2 => (text(), value_expr(), text()).prop_map(|(a, e, b)| json!(format!("{a}{}{b}", delimited(&e, false)))),
        // Typed: quotes removed before parsing.
        3 => typed_expr().prop_map(|e| json!(delimited(&e, false))),
        // A line of a multi-line value (a block scalar in the YAML), with or without a final
        // line break, piped into autoindent, indent or toYaml or not at all.
        4 => (text(), value_expr(), select(vec!["", " | autoindent", " | indent 2", " | toYaml | autoindent", " | toYaml"]), text(), any::<bool>())
            .prop_map(|(a, e, pipe, b, nl)| {
                let first = if a.is_empty() { "first".to_owned() } else { a.replace('\n', " ") };
                let last = if b.is_empty() { "last".to_owned() } else { b.replace('\n', " ") };
                let end = if nl { "\n" } else { "" };
                json!(format!("{first}\n{}\n{last}{end}", delimited(&format!("{e}{pipe}"), false)))
            }),
        // A multi-line value holding only the template.
        2 => (value_expr(), select(vec![" | autoindent", " | toYaml | autoindent", ""]), any::<bool>())
            .prop_map(|(e, pipe, nl)| json!(format!("{}{}", delimited(&format!("{e}{pipe}"), false), if nl { "\n" } else { "" }))),
        1 => failing().prop_map(Value::String),
        1 => text().prop_map(Value::String),
        1 => (0..5i64).prop_map(|n| json!(n)),
    ]
}

/// An `object-templates-raw` text: YAML with templates on their own lines, in block scalars
/// of every chomping, as a map value followed by the next key, and typed values quoted or not.
fn raw_object_templates() -> impl Strategy<Value = String> {
    let block = (
        select(vec!["|", "|-", "|+", ">", ">-"]),
        value_expr(),
        select(vec![
            "autoindent",
            "indent 4",
            "toYaml | autoindent",
            "toYaml | indent 4",
            "toYaml",
        ]),
    );
    let map_value = (
        text().prop_map(|t| go_quote(&t)),
        select(vec!["toYaml | autoindent", "toYaml | indent 2", "toYaml"]),
    );
    let typed = (typed_expr(), select(vec!["'", ""]));
    (value_expr(), block, map_value, typed).prop_map(
        |(a, (indicator, b, pipe), (m, map_pipe), (t, quote))| {
            format!(
                "- complianceType: musthave\n  objectDefinition:\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: {}\n      labels:\n        {}\n      namespace: default\n    data:\n      a: '{}'\n      n: {quote}{}{quote}\n      block: {indicator}\n        {}\n      next: x\n",
                delimited(".ManagedClusterName", false),
                delimited(&format!("dict \"k\" {m} | {map_pipe}"), false),
                delimited(&a, false),
                delimited(&t, false),
                delimited(&format!("{b} | {pipe}"), false),
            )
        },
    )
}

/// The raw JSON of one policy template.
pub fn policy_template() -> impl Strategy<Value = String> {
    let fields = proptest::collection::btree_map("[a-z]{1,6}", field_value(), 1..4);
    let raw = proptest::option::weighted(0.3, raw_object_templates());
    (fields, raw).prop_map(|(fields, raw)| {
        let data: Map<String, Value> = fields.into_iter().collect();
        let mut spec = json!({
            "remediationAction": "inform",
            "object-templates": [{
                "complianceType": "musthave",
                "objectDefinition": {"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "cm", "namespace": "default"}, "data": data},
            }],
        });
        if let Some(raw) = raw {
            spec["object-templates-raw"] = json!(raw);
        }
        let object = json!({
            "apiVersion": "policy.open-cluster-management.io/v1",
            "kind": "ConfigurationPolicy",
            "metadata": {"name": "generated"},
            "spec": spec,
        });
        serde_json::to_string(&object).expect("a JSON value serializes")
    })
}
