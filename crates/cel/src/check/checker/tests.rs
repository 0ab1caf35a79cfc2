//! The checker over a small policy-like environment: root types and cel-go error texts.

use super::{CheckErrors, CheckedAst, Reference, check, expect_bool};
use crate::check::{Declarations, Type, full_library};
use crate::syntax::parse;

fn env() -> Declarations {
    let mut decls = full_library().unwrap_or_default();
    let vars = [
        ("self", Type::String),
        ("cr", Type::map(Type::String, Type::Dyn)),
        ("names", Type::list(Type::String)),
        ("labels", Type::map(Type::String, Type::String)),
        ("nested", Type::map(Type::String, Type::map(Type::String, Type::Int))),
        ("n", Type::Int),
    ];
    for (name, ty) in vars {
        assert!(decls.add_variable(name, ty).is_ok());
    }
    decls
}

fn run(source: &str) -> Result<CheckedAst, CheckErrors> {
    let ast = parse(source).unwrap_or_else(|e| panic!("{source}: {e}"));
    check(&ast, &env())
}

fn root_type(source: &str) -> Type {
    match run(source) {
        Ok(checked) => checked.root_type().clone(),
        Err(errors) => panic!("{source}: {}", errors.render(source)),
    }
}

fn error_text(source: &str) -> String {
    match run(source) {
        Ok(checked) => panic!("{source} checked as {}", checked.root_type()),
        Err(errors) => errors.render(source),
    }
}

#[test]
fn root_types() {
    let opt = |t| Type::optional(t);
    let cases: &[(&str, Type)] = &[
        ("1", Type::Int),
        ("1u + 2u", Type::Uint),
        ("1.5 * 2.0", Type::Double),
        ("b'x'", Type::Bytes),
        ("null", Type::Null),
        ("self.endsWith(cr.namespace + '.svc')", Type::Bool),
        ("cr.name", Type::Dyn),
        ("labels.app", Type::String),
        ("nested.a.b", Type::Int),
        ("has(labels.app)", Type::Bool),
        ("labels.?app", opt(Type::String)),
        ("labels[?'app'].orValue('x')", Type::String),
        ("names[0]", Type::String),
        ("[1, 2]", Type::list(Type::Int)),
        ("[1, 'a']", Type::list(Type::Dyn)),
        ("[]", Type::list(Type::Dyn)),
        ("{'a': 1, 'b': 2}", Type::map(Type::String, Type::Int)),
        ("{'a': 1, 2: 'b'}", Type::map(Type::Dyn, Type::Dyn)),
        ("n > 1 ? 'a' : 'b'", Type::String),
        ("names.all(x, x.startsWith('a'))", Type::Bool),
        ("names.map(x, size(x))", Type::list(Type::Int)),
        ("labels.map(k, k + '=')", Type::list(Type::String)),
        ("labels.filter(k, labels[k] == 'v')", Type::list(Type::String)),
        ("names.transformList(i, v, i + size(v))", Type::list(Type::Int)),
        ("labels.transformMap(k, v, v + k)", Type::map(Type::String, Type::String)),
        ("cr.groups.exists(g, g == 'admins')", Type::Bool),
        // The iteration variable shadows the declared `self` inside the macro only.
        ("[1, 2].exists(self, self > 1) && self == 'x'", Type::Bool),
        ("cel.bind(x, 2, x * n)", Type::Int),
        ("strings.quote(self)", Type::String),
        ("sets.contains(names, ['a'])", Type::Bool),
        ("type(n) == int", Type::Bool),
        ("optional.of(1).value()", Type::Int),
        ("[?optional.of(1), 2]", Type::list(Type::Int)),
        // Selecting on an optional chains: the result is optional too.
        ("optional.of(labels).app", opt(Type::String)),
        ("nested.?a.b", opt(Type::Int)),
        ("type(ip('10.0.0.1')) == net.IP", Type::Bool),
        ("type(optional.none()) == optional_type", Type::Bool),
        ("[1].exists(self, .self == 'a')", Type::Bool),
    ];
    for (source, want) in cases {
        assert_eq!(&root_type(source), want, "{source}");
    }
}

#[test]
fn error_texts() {
    let cases: &[(&str, &str)] = &[
        (
            "x == 1",
            "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x == 1\n | ^",
        ),
        (
            "1 + 'a'",
            "ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a'\n | ..^",
        ),
        (
            "self.startsWith(1)",
            "ERROR: <input>:1:16: found no matching overload for 'startsWith' applied to 'string.(int)'\n | self.startsWith(1)\n | ...............^",
        ),
        (
            "nope(1)",
            "ERROR: <input>:1:5: undeclared reference to 'nope' (in container '')\n | nope(1)\n | ....^",
        ),
        (
            "[1].exists(self, self.startsWith('a'))",
            "ERROR: <input>:1:33: found no matching overload for 'startsWith' applied to 'int.(string)'\n | [1].exists(self, self.startsWith('a'))\n | ................................^",
        ),
        (
            "[1].map(x, x) == ['a']",
            "ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(list(int), list(string))'\n | [1].map(x, x) == ['a']\n | ..............^",
        ),
        (
            "[?n]",
            "ERROR: <input>:1:3: expected type 'optional_type(_var0)' but found 'int'\n | [?n]\n | ..^",
        ),
        ("n.f", "ERROR: <input>:1:2: type 'int' does not support field selection\n | n.f\n | .^"),
        (
            "n.all(x, x)",
            "ERROR: <input>:1:1: expression of type 'int' cannot be the range of a comprehension (must be list, map, or dynamic)\n | n.all(x, x)\n | ^",
        ),
    ];
    for (source, want) in cases {
        assert_eq!(&error_text(source), want, "{source}");
    }
}

#[test]
fn collects_every_error_with_its_line() {
    let source = "x &&\n  y";
    let errors = run(source).err().unwrap_or_else(|| panic!("{source} checked"));
    assert_eq!(errors.errors().len(), 2);
    assert_eq!(
        errors.render(source),
        "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x &&\n | ^\n\
         ERROR: <input>:2:3: undeclared reference to 'y' (in container '')\n |   y\n | ..^"
    );
}

#[test]
fn records_references_and_node_types() {
    let source = "self.endsWith('a') || names[0] == 'b'";
    let checked = run(source).unwrap_or_else(|e| panic!("{}", e.render(source)));
    let refs: Vec<&Reference> = checked.references().map(|(_, r)| r).collect();
    assert!(refs.contains(&&Reference::Variable("self".into())));
    assert!(refs.contains(&&Reference::Call {
        function: "endsWith".into(),
        overload_ids: vec!["ends_with_string".into()],
    }));
    let ast = parse(source).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(checked.type_of(ast.root.id), Some(&Type::Bool));
}

#[test]
fn dyn_arguments_keep_every_candidate_overload() {
    let source = "cr.name + cr.namespace";
    let checked = run(source).unwrap_or_else(|e| panic!("{}", e.render(source)));
    let ast = parse(source).unwrap_or_else(|e| panic!("{e}"));
    match checked.reference(ast.root.id) {
        Some(Reference::Call { function, overload_ids }) => {
            assert_eq!(function, "_+_");
            assert!(overload_ids.len() > 1, "{overload_ids:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(checked.root_type(), &Type::Dyn);
}

#[test]
fn expect_bool_uses_the_approver_policy_message() {
    let bool_ok = |s: &str| {
        run(s).map_err(|e| e.render(s)).and_then(|c| expect_bool(&c).map_err(|e| e.render(s)))
    };
    assert_eq!(bool_ok("self == 'a'"), Ok(()));
    assert_eq!(bool_ok("cr.name"), Ok(()));
    assert_eq!(
        bool_ok("size(self)"),
        Err("ERROR: <input>:1:5: got int, wanted bool result type\n | size(self)\n | ....^"
            .to_owned())
    );
}

#[test]
fn errors_without_the_source_name_byte_offsets() {
    let errors = run("n + x").err().unwrap_or_else(|| panic!("n + x checked"));
    assert_eq!(errors.to_string(), "at byte 4: undeclared reference to 'x' (in container '')");
}

#[test]
fn comprehensions_over_empty_literals_check() {
    // The accumulator's parameter ends up bound to the element's; unifying the two
    // must succeed from either side instead of failing the occurs check.
    for source in ["[].map(x, x)", "[].filter(x, true)", "{}.map(k, k)"] {
        assert_eq!(root_type(source), Type::list(Type::Dyn), "{source}");
    }
    assert_eq!(root_type("[].map(x, x).size() == 0"), Type::Bool);
    assert_eq!(root_type("[].map(x, x + 1)"), Type::list(Type::Int));
}
