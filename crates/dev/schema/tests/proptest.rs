//! `validate` never panics, whatever JSON object it is given, against every upstream and
//! certgate schema; and it is idempotent: a second pass changes nothing further.

mod common;

use std::sync::LazyLock;

use certgate_schema::Schema;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Compiled once: every upstream and certgate schema.
static SCHEMAS: LazyLock<Vec<Schema>> = LazyLock::new(compile_all);

fn compile_all() -> Vec<Schema> {
    let mut schemas = Vec::new();
    for file in common::upstream_files() {
        for crd in common::upstream_crds(&file) {
            for (_, schema) in common::version_schemas(&crd) {
                schemas.push(Schema::compile(&schema).expect("upstream schema compiles"));
            }
        }
    }
    for crd in certgate_api::crd::all() {
        let crd = serde_json::to_value(&crd).expect("CRD serializes");
        for (_, schema) in common::version_schemas(&crd) {
            schemas.push(Schema::compile(&schema).expect("certgate schema compiles"));
        }
    }
    schemas
}

/// Keys the schemas use, so generated objects reach deep into them.
const KEYS: &[&str] = &[
    "spec",
    "status",
    "metadata",
    "request",
    "issuerRef",
    "name",
    "kind",
    "group",
    "usages",
    "conditions",
    "type",
    "allowed",
    "constraints",
    "selector",
    "dnsNames",
    "values",
    "validations",
    "rule",
    "privateKey",
    "minSize",
    "duration",
    "isCA",
    "extra",
    "ca",
    "acme",
    "vault",
    "routes",
    "services",
    "port",
    "x",
];

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "[a-zA-Z0-9 %.:=-]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(6, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|entries| {
                Value::Object(
                    entries.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn validate_never_panics_and_is_idempotent(spec in json_value(), status in json_value(), extra in json_value()) {
        let object = json!({"apiVersion": "g/v1", "kind": "K", "metadata": {"name": "n"},
            "spec": spec, "status": status, "x": extra});
        for schema in SCHEMAS.iter() {
            let mut once = object.clone();
            let first = schema.validate(&mut once);
            let mut twice = once.clone();
            let second = schema.validate(&mut twice);
            prop_assert_eq!(&once, &twice);
            prop_assert_eq!(first, second);
        }
    }

    #[test]
    fn validate_never_panics_on_any_root(root in json_value()) {
        for schema in SCHEMAS.iter() {
            let mut value = root.clone();
            let _ = schema.validate(&mut value);
        }
    }
}
