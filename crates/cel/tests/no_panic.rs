//! Compiling and evaluating arbitrary input never panics (nor overflows the stack):
//! every outcome is a value or an error with a message.

use certgate_cel::check::Type;
use certgate_cel::eval::Environment;
use certgate_cel::value::Value;
use certgate_cel::{CrVariable, PolicyCel};
use proptest::prelude::*;
use std::sync::LazyLock;

static CEL: LazyLock<PolicyCel> = LazyLock::new(|| PolicyCel::new(64));

/// The whole library with `self`, `cr` and `d` as `dyn`, compiled without the type
/// checker: every call reaches its implementations with arguments of any kind.
static UNCHECKED: LazyLock<Environment> = LazyLock::new(|| {
    let vars = ["self", "cr", "d"].map(|name| (name.to_owned(), Type::Dyn));
    Environment::with_full_library(vars).expect("the library declares")
});

const LEAVES: &[&str] = &[
    "self",
    "cr",
    "cr.name",
    "cr.namespace",
    "cr.username",
    "cr.groups",
    "cr.foo",
    "x",
    "true",
    "false",
    "null",
    "0",
    "1",
    "-1",
    "2",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615u",
    "0u",
    "1u",
    "1.5",
    "1e308",
    "-0.0",
    "0.0",
    "'a'",
    "''",
    "'%s'",
    "'%d %s'",
    "'%.3f'",
    "'%x'",
    "'%e'",
    "'%b'",
    "'%o'",
    "'%'",
    "'ǅé😀'",
    "b'\\xff'",
    "b''",
    "r'\\d+'",
    "'\\u00e9'",
    "'system:serviceaccount:ns:sa'",
    "'1h'",
    "'-1.5s'",
    "'2020-01-01T00:00:00Z'",
    "'9999-12-31T23:59:59Z'",
    "'UTC'",
    "'+99:00'",
    "'Europe/Paris'",
    "'[a-z'",
    "'^a.*$'",
    "[]",
    "{}",
    "int",
    "string",
    "type",
    "google.protobuf.Timestamp",
    "'10.0.0.1'",
    "'::ffff:1.2.3.4'",
    "'10.0.0.0/8'",
    "'https://user@host:8443/p?q=1&q=2'",
    "optional.none()",
    "optional.of(1)",
    "{'a': 1}.?a",
    "[1, 'a', 2u, 1.5]",
    "d",
];

const UNARY: &[&str] = &["!", "-"];
const BINARY: &[&str] =
    &["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in"];
const GLOBALS: &[&str] = &[
    "size",
    "int",
    "uint",
    "double",
    "string",
    "bytes",
    "bool",
    "dyn",
    "type",
    "has",
    "timestamp",
    "duration",
    "matches",
    "serviceAccount",
    "isServiceAccount",
    "strings.quote",
    "ip",
    "cidr",
    "url",
    "isIP",
    "isCIDR",
    "isURL",
    "optional.of",
    "optional.ofNonZeroValue",
    "sets.contains",
    "sets.intersects",
    "undeclared",
];
const MEMBERS: &[&str] = &[
    "size",
    "startsWith",
    "endsWith",
    "contains",
    "matches",
    "lowerAscii",
    "upperAscii",
    "trim",
    "replace",
    "split",
    "substring",
    "charAt",
    "indexOf",
    "lastIndexOf",
    "join",
    "format",
    "reverse",
    "getName",
    "getNamespace",
    "getHours",
    "getFullYear",
    "all",
    "exists",
    "exists_one",
    "map",
    "filter",
    "find",
    "findAll",
    "family",
    "containsIP",
    "containsCIDR",
    "prefixLength",
    "getHost",
    "getQuery",
    "isSorted",
    "sum",
    "min",
    "max",
    "orValue",
    "value",
    "hasValue",
    "transformList",
    "transformMap",
    "existsOne",
    "undeclared",
];

/// Expressions built from CEL's grammar, mostly well-formed.
fn expression() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(LEAVES).prop_map(str::to_owned);
    leaf.prop_recursive(5, 48, 4, |inner| {
        let args = prop::collection::vec(inner.clone(), 0..4);
        prop_oneof![
            (prop::sample::select(UNARY), inner.clone()).prop_map(|(op, e)| format!("{op}{e}")),
            (inner.clone(), prop::sample::select(BINARY), inner.clone())
                .prop_map(|(l, op, r)| format!("({l} {op} {r})")),
            (prop::sample::select(GLOBALS), args.clone())
                .prop_map(|(f, args)| format!("{f}({})", args.join(", "))),
            (inner.clone(), prop::sample::select(MEMBERS), args.clone())
                .prop_map(|(t, f, args)| format!("{t}.{f}({})", args.join(", "))),
            (inner.clone(), prop::sample::select(MEMBERS), inner.clone())
                .prop_map(|(t, m, body)| format!("{t}.{m}(v, {body})")),
            (inner.clone(), inner.clone()).prop_map(|(t, i)| format!("{t}[{i}]")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("{c} ? {a} : {b}")),
            args.clone().prop_map(|items| format!("[{}]", items.join(", "))),
            prop::collection::vec((inner.clone(), inner), 0..3).prop_map(|entries| {
                let entries: Vec<String> =
                    entries.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", entries.join(", "))
            }),
        ]
    })
}

/// Token soup: mostly syntax errors, exercising the parser's error paths.
fn tokens() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        prop::sample::select(LEAVES),
        prop::sample::select(BINARY),
        prop::sample::select(MEMBERS),
        prop::sample::select(&["(", ")", "[", "]", "{", "}", ",", ":", "?", ".", "'", "\""][..]),
    ];
    prop::collection::vec(token, 0..24).prop_map(|tokens| tokens.join(" "))
}

fn request() -> impl Strategy<Value = CrVariable> {
    let text = prop_oneof![
        Just("system:serviceaccount:ns:sa".to_owned()),
        Just(String::new()),
        "\\PC{0,12}",
    ];
    (text.clone(), text.clone(), text.clone(), prop::collection::vec(text, 0..3)).prop_map(
        |(name, namespace, username, groups)| CrVariable { name, namespace, username, groups },
    )
}

/// Compiles and evaluates `rule`; any error must say what went wrong.
fn run(rule: &str, self_value: &str, cr: &CrVariable) -> Result<(), TestCaseError> {
    match CEL.compile(rule) {
        Ok(program) => {
            if let Err(err) = program.eval(self_value, cr) {
                prop_assert!(!err.message.is_empty(), "{rule:?}: empty evaluation error");
            }
        }
        Err(err) => prop_assert!(!err.message.is_empty(), "{rule:?}: empty compile error"),
    }
    Ok(())
}

/// Evaluates `rule` unchecked, with a small budget so generated loops end quickly.
fn run_unchecked(rule: &str, self_value: &str) -> Result<(), TestCaseError> {
    let env = &*UNCHECKED;
    if let Ok(program) = env.compile_unchecked(rule) {
        let mut values = vec![Value::Null; env.slots().len()];
        for (name, value) in [
            ("self", Value::string(self_value)),
            ("cr", Value::list(vec![Value::Int(1), Value::string("a")])),
            ("d", Value::Double(f64::NAN)),
        ] {
            if let Some(slot) = env.slot(name) {
                values[slot] = value;
            }
        }
        if let Err(err) = program.eval_with_limit(&values, 10_000) {
            prop_assert!(!err.message.is_empty(), "{rule:?}: empty evaluation error");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn grammatical_expressions_never_panic(rule in expression(), self_value in "\\PC{0,12}", cr in request()) {
        run(&rule, &self_value, &cr)?;
    }

    #[test]
    fn unchecked_expressions_never_panic(rule in expression(), self_value in "\\PC{0,12}") {
        run_unchecked(&rule, &self_value)?;
    }

    #[test]
    fn token_soup_never_panics(rule in tokens(), cr in request()) {
        run(&rule, "a.b.svc", &cr)?;
    }

    #[test]
    fn arbitrary_text_never_panics(rule in "\\PC{0,64}", cr in request()) {
        run(&rule, "", &cr)?;
    }
}
