//! certgate-api's `field` rendering (`field.Error`, `ErrorBody`, `ToAggregate`) against
//! k8s.io/apimachinery v0.36.3 (the version approver-policy pins), through the `fielderrors`
//! oracle. Generated cases cover every constructor, values of every Go type the renderer
//! distinguishes (strings needing `%q` escapes, sized ints, bools, `float64`, untyped nil,
//! JSON maps and slices with `<`, `>`, `&` and big floats) and paths with indices, keys
//! with dots and empty names, plus lists with repeated errors for the aggregate.

use certgate_api::field::{BadValue, FieldError, Path, aggregate};
use certgate_oracles::{Mismatch, Oracle, Settings, Verdict, run_generated};
use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One path element, as the oracle takes it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
enum Step {
    Child(String),
    Index(usize),
    Key(String),
}

/// One error to build, as the oracle takes it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Spec {
    #[serde(rename = "type")]
    kind: &'static str,
    path: Vec<Step>,
    go_type: &'static str,
    value: Value,
    detail: String,
    supported: Vec<String>,
    max: i64,
    actual: usize,
}

#[derive(Clone, Debug, Serialize)]
struct Case {
    errors: Vec<Spec>,
}

#[derive(Debug, Default, Deserialize, PartialEq)]
#[serde(default)]
struct Answer {
    errors: Vec<String>,
    bodies: Vec<String>,
    aggregate: String,
    panic: String,
}

fn path(steps: &[Step]) -> Path {
    let mut path: Option<Path> = None;
    for step in steps {
        let base = || path.clone().unwrap_or_else(|| Path::new(""));
        path = Some(match step {
            Step::Child(name) => match &path {
                None => Path::new(name),
                Some(p) => p.child(name),
            },
            Step::Index(i) => base().index(*i),
            Step::Key(k) => base().key(k),
        });
    }
    path.unwrap_or_else(|| Path::new(""))
}

/// The value as certgate's callers tag it, by the Go type it has upstream.
fn bad_value(spec: &Spec) -> BadValue {
    match spec.go_type {
        "string" => BadValue::Str(spec.value.as_str().unwrap_or_default().to_owned()),
        "bool" => BadValue::Bool(spec.value.as_bool().unwrap_or_default()),
        "int64" | "int32" => BadValue::Int(spec.value.as_i64().unwrap_or_default()),
        "float64" => BadValue::float(spec.value.as_f64().unwrap_or_default()),
        // Untyped nil marshals as JSON `null`, like any other untyped value.
        "nil" => BadValue::Json(Value::Null),
        _ => json_bad_value(&spec.value),
    }
}

/// An unstructured JSON value: at the top level a string is a Go `string` (`%q`), a bool
/// or a number a `bool`, `int64` or `float64` (`%v`); maps and slices are marshalled as JSON.
fn json_bad_value(value: &Value) -> BadValue {
    match value {
        Value::String(s) => BadValue::Str(s.clone()),
        Value::Bool(b) => BadValue::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => BadValue::Int(i),
            None => BadValue::float(n.as_f64().unwrap_or_default()),
        },
        other => BadValue::Json(other.clone()),
    }
}

fn certgate_error(spec: &Spec) -> FieldError {
    let at = path(&spec.path);
    let value = bad_value(spec);
    match spec.kind {
        "Invalid" => FieldError::invalid(at, value, spec.detail.clone()),
        "Required" => FieldError::required(at, spec.detail.clone()),
        "Forbidden" => FieldError::forbidden(at, spec.detail.clone()),
        "NotSupported" => {
            let supported: Vec<&str> = spec.supported.iter().map(String::as_str).collect();
            FieldError::not_supported(at, value, &supported)
        }
        "Duplicate" => FieldError::duplicate(at, value),
        "NotFound" => FieldError::not_found(at, value),
        "TooLong" => FieldError::too_long(at, usize::try_from(spec.max).ok()),
        "TooMany" => FieldError::too_many(at, spec.actual, usize::try_from(spec.max).unwrap_or(0)),
        "Internal" => FieldError::internal(at, &spec.detail),
        other => panic!("generator produced unknown type {other}"),
    }
}

fn certgate(case: &Case) -> Answer {
    let errors: Vec<FieldError> = case.errors.iter().map(certgate_error).collect();
    Answer {
        errors: errors.iter().map(ToString::to_string).collect(),
        bodies: errors.iter().map(FieldError::body).collect(),
        aggregate: aggregate(&errors).unwrap_or_default(),
        panic: String::new(),
    }
}

// ---- generators ----

/// Strings that exercise `%q`: quotes, backslashes, control and non-printable characters,
/// invalid-for-JSON-looking text, non-ASCII, and the HTML characters JSON escapes.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9.-]{0,8}",
        "[\"\\\\<>&'\\t\\n\\x00\\x7f\u{80}\u{a0}\u{2028}\u{fffd}\u{1f600}é a.]{0,6}",
        any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i32>().prop_map(|i| json!(i)),
        any::<i64>().prop_map(|i| json!(i)),
        (-1e25f64..1e25).prop_map(|f| json!(f)),
        prop::sample::select(vec![0.5, 1e6, 1e21, 1e20, 1e-7, 123456.0, -0.25, 3.0])
            .prop_map(|f| json!(f)),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A value with the Go type it carries, consistent with each other.
fn typed_value() -> impl Strategy<Value = (&'static str, Value)> {
    prop_oneof![
        text().prop_map(|s| ("string", json!(s))),
        any::<bool>().prop_map(|b| ("bool", json!(b))),
        any::<i64>().prop_map(|i| ("int64", json!(i))),
        any::<i32>().prop_map(|i| ("int32", json!(i))),
        any::<i32>().prop_map(|i| ("int", json!(i))),
        number().prop_map(|n| ("float64", json!(n.as_f64().unwrap_or_default()))),
        Just(("nil", Value::Null)),
        json_value().prop_map(|v| ("json", v)),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => prop_oneof!["[a-zA-Z]{1,6}", Just(String::new()), "[a-z.]{1,6}"].prop_map(Step::Child),
        1 => (0usize..20).prop_map(Step::Index),
        1 => prop_oneof!["[a-z0-9.]{0,8}", text()].prop_map(Step::Key),
    ]
}

const KINDS: [&str; 9] = [
    "Invalid",
    "Required",
    "Forbidden",
    "NotSupported",
    "Duplicate",
    "NotFound",
    "TooLong",
    "TooMany",
    "Internal",
];

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::sample::select(KINDS.to_vec()),
        prop::collection::vec(step(), 1..5),
        typed_value(),
        prop_oneof!["", text()],
        prop::collection::vec(text(), 0..4),
        prop_oneof![Just(1i64), 0i64..100, Just(-1i64)],
        0usize..1000,
    )
        .prop_map(|(kind, path, (go_type, value), detail, supported, max, actual)| {
            // certgate takes sizes as `usize`: Go's negative maximum exists only for TooLong.
            let max = if kind == "TooMany" { max.max(0) } else { max };
            Spec { kind, path, go_type, value, detail, supported, max, actual }
        })
}

/// Lists of 1–4 errors, sometimes with a repeat, which the aggregate must drop.
fn case() -> impl Strategy<Value = Case> {
    (prop::collection::vec(spec(), 1..4), any::<bool>()).prop_map(|(mut errors, repeat)| {
        if repeat {
            errors.push(errors[0].clone());
        }
        Case { errors }
    })
}

// ---- fixed cases ----

/// Every mismatch the generator found, with the answer apimachinery gave (recorded from the
/// oracle): (case, expected `Error()` texts).
fn fixed() -> Vec<(Value, Vec<&'static str>)> {
    vec![
        // A float64 bad value is printed with %v, not as JSON.
        (
            json!({"errors": [{"type": "Invalid", "path": [{"child": "spec"}], "goType": "float64",
                "value": 1e6, "detail": "d", "supported": [], "max": 0, "actual": 0}]}),
            vec!["spec: Invalid value: 1e+06: d"],
        ),
        // An unstructured string is a Go string: %q, not JSON (`\x00`, no `\u003c`).
        (
            json!({"errors": [{"type": "NotFound", "path": [{"child": "x"}], "goType": "json",
                "value": "\u{0}<", "detail": "", "supported": [], "max": 0, "actual": 0}]}),
            vec![r#"x: Not found: "\x00<""#],
        ),
        // An empty path element renders as an empty subscript.
        (
            json!({"errors": [{"type": "Required", "path": [{"child": "spec"}, {"child": ""}],
                "goType": "", "value": null, "detail": "", "supported": [], "max": 0, "actual": 0}]}),
            vec!["spec[]: Required value"],
        ),
        // TooLong without a bound, and inside JSON values big floats use exponent form.
        (
            json!({"errors": [{"type": "TooLong", "path": [{"key": "a.b"}], "goType": "",
                "value": null, "detail": "", "supported": [], "max": -1, "actual": 0},
                {"type": "Duplicate", "path": [{"child": "x"}, {"index": 3}], "goType": "json",
                "value": {"b": [1e21, "<&>"]}, "detail": "", "supported": [], "max": 0,
                "actual": 0}]}),
            vec![
                "[][a.b]: Too long: value is too long",
                r#"x[3]: Duplicate value: {"b":[1e+21,"\u003c\u0026\u003e"]}"#,
            ],
        ),
        // A character assigned after Go's Unicode version (U+113C7, Unicode 16) is not
        // printable to strconv.Quote in go1.26 (Unicode 15.0): escaped.
        (
            json!({"errors": [{"type": "Invalid", "path": [{"child": "x"}], "goType": "string",
                "value": "\u{113c7}", "detail": "", "supported": [], "max": 0, "actual": 0}]}),
            vec![r#"x: Invalid value: "\U000113c7""#],
        ),
    ]
}

fn decode_case(value: &Value) -> Case {
    let errors = value["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            let steps = e["path"]
                .as_array()
                .expect("path")
                .iter()
                .map(|s| match (s.get("child"), s.get("index"), s.get("key")) {
                    (Some(c), _, _) => Step::Child(c.as_str().unwrap_or_default().to_owned()),
                    (_, Some(i), _) => Step::Index(i.as_u64().unwrap_or_default() as usize),
                    (_, _, Some(k)) => Step::Key(k.as_str().unwrap_or_default().to_owned()),
                    _ => panic!("bad step {s}"),
                })
                .collect();
            let leak = |v: &Value| -> &'static str {
                Box::leak(v.as_str().unwrap_or_default().to_owned().into_boxed_str())
            };
            Spec {
                kind: leak(&e["type"]),
                path: steps,
                go_type: leak(&e["goType"]),
                value: e["value"].clone(),
                detail: e["detail"].as_str().unwrap_or_default().to_owned(),
                supported: Vec::new(),
                max: e["max"].as_i64().unwrap_or_default(),
                actual: e["actual"].as_u64().unwrap_or_default() as usize,
            }
        })
        .collect();
    Case { errors }
}

#[test]
fn fixed_cases_match_certgate_and_apimachinery() {
    let mut oracle = Oracle::start("fielderrors").expect("run tools/oracles/build first");
    for (raw, expected) in fixed() {
        let case = decode_case(&raw);
        let upstream: Answer = oracle.ask(&case).expect("oracle");
        assert_eq!(upstream.errors, expected, "the oracle no longer answers {raw}");
        assert_eq!(certgate(&case).errors, expected, "certgate on {raw}");
    }
}

#[test]
fn generated_field_errors_agree_with_apimachinery() {
    let settings = Settings::from_env(0x00F1_E1D5, 3000);
    let mut oracle = Oracle::start("fielderrors").expect("run tools/oracles/build first");
    let tally = run_generated(&settings, case(), |case| {
        let upstream: Answer = oracle.ask(case).expect("oracle");
        assert!(upstream.panic.is_empty(), "oracle panicked on {case:?}: {}", upstream.panic);
        let ours = certgate(case);
        if ours == upstream {
            Verdict::Agree
        } else {
            Verdict::Differ(Mismatch {
                case: serde_json::to_string(case).unwrap_or_default(),
                certgate: format!("{ours:?}"),
                upstream: format!("{upstream:?}"),
            })
        }
    });
    eprintln!("{}", tally.report("apimachinery field errors"));
    tally.assert_agreement("apimachinery field errors");
}
