//! Conversion, encoding, denylist and `protect` functions, and the session rules.

#[path = "functions_common.rs"]
mod common;

use std::sync::Arc;

use certgate_gotemplate::Value;
use certgate_templates::access::{Access, InMemoryObjects};
use certgate_templates::encryption::EncryptionKeys;
use certgate_templates::functions::{FunctionConfig, hub_functions};
use certgate_templates::session::{Session, run_in_session};
use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn run_with(
    config: &FunctionConfig,
    name: &str,
    args: &[Value],
) -> Result<serde_json::Value, String> {
    let map = hub_functions(config);
    json_or_error(call_in(&map, session(default_access()), name, args).0)
}

fn run(name: &str, args: &[Value]) -> Result<serde_json::Value, String> {
    run_with(&FunctionConfig::default(), name, args)
}

#[test]
fn to_int_follows_cast() {
    #[rustfmt::skip]
    let cases: Vec<(Value, i64)> = vec![
        (s("42"), 42), (s("-7"), -7), (s("+7"), 7), (s("0x1F"), 31), (s("010"), 8), (s("0b11"), 3),
        (s("0o17"), 15), (s("1_000"), 1000), (s("3.0"), 3), (s("3.99"), 3), (s("-2.5"), -2), (s(".5"), 0),
        (s(""), 0), (s("abc"), 0), (s(" 5"), 0), (s("1e3"), 0), (s("09"), 0),
        (s("9223372036854775808"), 0), (Value::Int(5), 5), (Value::Uint(7), 7), (Value::Uint(u64::MAX), 0),
        (Value::Float(2.9), 2), (Value::Float(-2.9), -2), (Value::Float(f64::NAN), 0), (Value::Bool(true), 1),
        (Value::Bool(false), 0), (Value::Nil, 0), (Value::from(vec![Value::Int(1)]), 0),
    ];
    for (input, want) in cases {
        assert_eq!(run("toInt", std::slice::from_ref(&input)), Ok(json!(want)), "{input:?}");
    }
}

#[test]
fn atoi_to_bool_to_literal() {
    #[rustfmt::skip]
    let atoi = [("12", 12), ("-3", -3), ("+4", 4), ("0x10", 0), ("010", 10), ("1_0", 0), ("", 0), ("x", 0),
        ("99999999999999999999", i64::MAX), ("-99999999999999999999", i64::MIN)];
    for (input, want) in atoi {
        assert_eq!(run("atoi", &[s(input)]), Ok(json!(want)), "{input}");
    }
    for (input, want) in [
        ("true", true),
        ("1", true),
        ("t", true),
        ("T", true),
        ("TRUE", true),
        ("True", true),
        ("false", false),
        ("0", false),
        ("yes", false),
        ("tRUE", false),
        ("", false),
    ] {
        assert_eq!(run("toBool", &[s(input)]), Ok(json!(want)), "{input}");
    }
    assert_eq!(
        run("toBool", &[Value::Bool(true)]),
        Err("wrong type for value; expected string; got bool".into())
    );
    assert_eq!(run("toLiteral", &[s("[a, b]")]), Ok(json!("[a, b]")));
    assert_eq!(
        run("toLiteral", &[s("a\nb")]),
        Err("new lines are not allowed in the string passed to the toLiteral function".into())
    );
}

#[test]
fn indent_and_autoindent() {
    assert_eq!(run("indent", &[Value::Int(2), s("a\nb\n")]), Ok(json!("a\n          b")));
    assert_eq!(run("indent", &[Value::Int(0), s("  x  ")]), Ok(json!("x")));
    assert_eq!(run("indent", &[Value::Int(-8), s("a\nb")]), Ok(json!("a\nb")));
    assert_eq!(
        run("indent", &[Value::Int(-9), s("a")]),
        Err("strings: negative Repeat count".into())
    );
    assert_eq!(
        run("indent", &[s("2"), s("a")]),
        Err("wrong type for value; expected int; got string".into())
    );
    let no_extra = FunctionConfig { additional_indentation: 0, ..FunctionConfig::default() };
    assert_eq!(run_with(&no_extra, "indent", &[Value::Int(2), s("a\nb")]), Ok(json!("a\n  b")));
    assert_eq!(
        run("autoindent", &[s("x")]),
        Err("an unexpected error occurred where autoindent could not be processed".into())
    );
}

#[test]
fn base64_functions() {
    for name in ["base64enc", "b64enc"] {
        assert_eq!(run(name, &[s("hello")]), Ok(json!("aGVsbG8=")));
        assert_eq!(run(name, &[s("")]), Ok(json!("")));
    }
    for name in ["base64dec", "b64dec"] {
        assert_eq!(run(name, &[s("aGVsbG8=")]), Ok(json!("hello")));
        assert_eq!(
            run(name, &[s("not base64!")]),
            Ok(json!("illegal base64 data at input byte 3"))
        );
        assert_eq!(run(name, &[s("aGVsbG8")]), Ok(json!("illegal base64 data at input byte 4")));
        assert_eq!(run(name, &[s("aGVsbG8=\n")]), Ok(json!("hello")));
    }
}

#[test]
fn denylist_stubs_fail_when_called() {
    let config = FunctionConfig {
        denylist: vec!["lookup".into(), "env".into(), "now".into()],
        ..FunctionConfig::default()
    };
    let map = hub_functions(&config);
    for (name, want) in [
        (
            "env",
            "use of denylisted template function: function 'env' is considered a security risk",
        ),
        (
            "expandenv",
            "use of denylisted template function: function 'expandenv' is considered a security risk",
        ),
        ("lookup", "use of denylisted template function: function 'lookup' is not allowed"),
        ("now", "use of denylisted template function: function 'now' is not allowed"),
    ] {
        for args in [vec![], vec![s("x"), Value::Int(1)]] {
            let (result, outcome) = call_in(&map, session(default_access()), name, &args);
            let error = result.expect_err("denied");
            assert_eq!(error.message(), want);
            assert!(error.is_call_error());
            assert!(outcome.reads.is_empty());
        }
    }
    let default = hub_functions(&FunctionConfig::default());
    assert!(default.contains("env") && default.contains("expandenv"));
}

#[test]
fn function_map_contents() {
    let map = hub_functions(&FunctionConfig::default());
    for name in [
        "fromSecret",
        "fromConfigMap",
        "copySecretData",
        "copyConfigMapData",
        "lookup",
        "fromClusterClaim",
        "lookupClusterClaim",
        "getNodesWithExactRoles",
        "hasNodesWithExactRoles",
        "base64enc",
        "base64dec",
        "b64enc",
        "b64dec",
        "autoindent",
        "indent",
        "atoi",
        "toInt",
        "toBool",
        "toLiteral",
        "fromYAML",
        "fromYaml",
        "toYAML",
        "toYaml",
        "protect",
        "env",
        "expandenv",
    ] {
        assert!(map.contains(name), "{name}");
    }
    // The JSON aliases come from sprig's map whenever sprig defines the originals.
    let sprig = certgate_sprig::functions();
    for (alias, original) in
        [("fromJSON", "fromJson"), ("toJSON", "toJson"), ("mustToRawJSON", "mustToRawJson")]
    {
        assert_eq!(map.contains(alias), sprig.contains(original), "{alias}");
    }
    for name in sprig.names() {
        assert!(map.contains(name), "sprig's {name} is available");
    }
}

#[test]
fn yaml_functions() {
    assert_eq!(
        run("toYAML", &[Value::from(vec![s("a"), Value::Int(1)])])
            .map(|v| v.as_str().map(str::to_owned)),
        Ok(Some(certgate_goyaml::to_yaml(&json!(["a", 1])).trim_end_matches('\n').to_owned()))
    );
    let parsed = run("fromYAML", &[s("a: 1")]);
    assert_eq!(parsed, certgate_goyaml::from_yaml("a: 1").map_err(|e| e.to_string()));
    assert!(run("toYaml", &[s("x")]).is_ok() && run("fromYaml", &[s("x")]).is_ok());
}

#[test]
fn protect_and_encrypted_reads() {
    let keys = EncryptionKeys { key: [7; 32], iv: [9; 16] };
    let encrypted_session = || session(default_access()).with_encryption(keys.clone());
    let off = hub_functions(&FunctionConfig::default());
    let on =
        hub_functions(&FunctionConfig { encryption_enabled: true, ..FunctionConfig::default() });
    const NOT_ENABLED: &str = "the protect template function is not enabled in this mode";

    let (result, _) = call_in(&off, encrypted_session(), "protect", &[s("x")]);
    assert_eq!(result.expect_err("disabled").message(), NOT_ENABLED);
    let (result, _) = call_in(&on, session(default_access()), "protect", &[s("x")]);
    assert_eq!(result.expect_err("no keys").message(), NOT_ENABLED);
    let (result, outcome) = call_in(&on, encrypted_session(), "protect", &[s("x")]);
    assert_eq!(json_or_error(result), Ok(json!(keys.encrypt("x"))));
    assert_eq!(outcome.encrypted_values, 1);
    let (result, outcome) = call_in(&on, encrypted_session(), "protect", &[s("")]);
    assert_eq!(json_or_error(result), Ok(json!("")));
    assert_eq!(outcome.encrypted_values, 0);

    let (result, outcome) =
        call_in(&on, encrypted_session(), "fromSecret", &[s(""), s("s"), s("k")]);
    let value = json_or_error(result).expect("reads");
    let text = value.as_str().expect("a string");
    assert!(text.starts_with("$ocm_encrypted:"), "{text}");
    assert_eq!(keys.decrypt(text).as_deref(), Ok("dmFsdWU="));
    assert_eq!(outcome.encrypted_values, 1);

    let (result, outcome) = call_in(&on, encrypted_session(), "copySecretData", &[s(""), s("s")]);
    let value = json_or_error(result).expect("reads");
    let data: serde_json::Value =
        serde_json::from_str(value.as_str().expect("JSON text")).expect("JSON");
    assert_eq!(data["empty"], json!(""));
    assert_eq!(keys.decrypt(data["k"].as_str().expect("string")).as_deref(), Ok("dmFsdWU="));
    assert_eq!(keys.decrypt(data["k2"].as_str().expect("string")).as_deref(), Ok("eA=="));
    assert_eq!(outcome.encrypted_values, 2);

    // fromConfigMap never encrypts.
    let (result, outcome) =
        call_in(&on, encrypted_session(), "fromConfigMap", &[s(""), s("cm"), s("a")]);
    assert_eq!(json_or_error(result), Ok(json!("1")));
    assert_eq!(outcome.encrypted_values, 0);
}

#[test]
fn sessions_nest_and_survive_panics() {
    let map = hub_functions(&FunctionConfig::default());
    let from_config_map = map.get("fromConfigMap").expect("defined").clone();
    let outside = from_config_map(&[s("policies"), s("cm"), s("a")]).expect_err("no session");
    assert_eq!(
        outside.message(),
        "the fromConfigMap template function can only run while a hub template is being resolved"
    );

    let other_reader = InMemoryObjects::new([json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "cm", "namespace": "policies"}, "data": {"a": "inner"}})])
    .expect("valid");
    let ((outer_before, inner, outer_after), outcome) =
        run_in_session(session(default_access()), || {
            let before = from_config_map(&[s(""), s("cm"), s("a")]);
            let (inner, inner_outcome) = run_in_session(
                Session::new(Arc::new(other_reader), Access::unrestricted()),
                || from_config_map(&[s("policies"), s("cm"), s("a")]),
            );
            assert_eq!(inner_outcome.reads.len(), 1);
            let after = from_config_map(&[s(""), s("cm"), s("b")]);
            (before, inner, after)
        });
    assert_eq!(json_or_error(outer_before), Ok(json!("1")));
    assert_eq!(json_or_error(inner), Ok(json!("inner")));
    assert_eq!(json_or_error(outer_after), Ok(json!("<x>&")));
    assert_eq!(outcome.reads.len(), 1, "the inner read is the inner session's");

    let panicked = std::panic::catch_unwind(|| {
        run_in_session(session(default_access()), || panic!("boom"));
    });
    assert!(panicked.is_err());
    assert!(
        from_config_map(&[s("policies"), s("cm"), s("a")]).is_err(),
        "no session leaks out of a panic"
    );
}
