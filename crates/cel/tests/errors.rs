//! What is rejected when compiling, and what fails when evaluating.

use certgate_cel::{CompileError, CrVariable, EvalError, PolicyCel};

fn compile_error(rule: &str) -> String {
    match PolicyCel::default().compile(rule) {
        Ok(_) => panic!("{rule:?} compiles"),
        Err(CompileError { message }) => message,
    }
}

fn eval_error(rule: &str) -> String {
    let program = PolicyCel::default()
        .compile(rule)
        .unwrap_or_else(|err| panic!("{rule:?} does not compile: {err}"));
    match program.eval("api.sandbox.svc", &CrVariable::default()) {
        Ok(result) => panic!("{rule:?} evaluates to {result}"),
        Err(EvalError { message }) => message,
    }
}

/// Upstream's own compile test cases.
#[test]
fn upstream_compile_cases() {
    let cel = PolicyCel::default();
    for rule in [
        "'www.example.com'.endsWith('.com')",
        "size(cr.namespace) < 24",
        "[1,2,3].all(i, i % 2 > 0)",
        "self.startsWith('spiffe://trust-domain.com/')",
        "['.svc', '.svc.cluster.local'].exists(d, self.endsWith(cr.namespace + d))",
        "size(cr.username) > 0",
    ] {
        assert!(cel.compile(rule).is_ok(), "{rule}");
    }
    for rule in ["", "foo = bar", "size('foo')", "size(cr.foo) < 24"] {
        assert!(cel.compile(rule).is_err(), "{rule}");
    }
}

#[test]
fn a_result_that_is_certainly_not_bool_is_a_compile_error() {
    for (rule, got) in [
        ("'a'", "string"),
        ("42", "int"),
        ("1u", "uint"),
        ("null", "null_type"),
        ("size('foo')", "int"),
        ("self.lowerAscii()", "string"),
        ("self + '.svc'", "string"),
        ("cr.name", "string"),
        ("cr.groups", "list(string)"),
        ("cr", "cm.io.policy.pkg.internal.approver.validation.CertificateRequest"),
        ("[1, 2]", "list(int)"),
        ("{'a': 1}", "map(string, int)"),
        ("self.split('.')", "list(string)"),
        ("true ? 'a' : 'b'", "string"),
        ("dyn(true)", "dyn"),
        (
            "serviceAccount(cr.username)",
            "cm.io.policy.pkg.internal.approver.validation.ServiceAccount",
        ),
    ] {
        assert_eq!(compile_error(rule), format!("got {got}, wanted bool result type"), "{rule}");
    }
}

/// cel-go knows these types when compiling; without a type checker they are only
/// found when evaluating, with the same text.
#[test]
fn other_non_bool_results_fail_when_evaluating() {
    for (rule, got) in [
        ("cr.groups.map(g, size(g))", "list(dyn)"),
        ("['a', 'b'].map(g, size(g))", "list(int)"),
        ("[1][0]", "int"),
        ("{'a': 'b'}['a']", "string"),
        ("[1, 'a']", "list(dyn)"),
        ("{'a': cr}['a']", "cm.io.policy.pkg.internal.approver.validation.CertificateRequest"),
    ] {
        assert_eq!(eval_error(rule), format!("got {got}, wanted bool result type"), "{rule}");
    }
}

#[test]
fn a_syntax_error_points_at_the_mistake() {
    assert_eq!(
        compile_error("self = 'a'"),
        "ERROR: <input>:1:6: Syntax error: token recognition error at: '= '\n \
         | self = 'a'\n \
         | .....^\n\
         ERROR: <input>:1:8: Syntax error: extraneous input ''a'' expecting <EOF>\n \
         | self = 'a'\n \
         | .......^"
    );
}

/// The `cel` crate only finds an undeclared variable when evaluating; this crate
/// checks the expression when compiling, as cel-go does.
#[test]
fn an_undeclared_variable_is_a_compile_error() {
    assert_eq!(
        compile_error("self == foo"),
        "ERROR: <input>:1:9: undeclared reference to 'foo' (in container '')\n \
         | self == foo\n \
         | ........^"
    );
    assert_eq!(
        compile_error("foo.bar.baz == 'a'"),
        "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')\n \
         | foo.bar.baz == 'a'\n \
         | ^"
    );
    // A comprehension variable is declared only inside its comprehension.
    assert_eq!(
        compile_error("[1].all(x, x > 0) && x > 0"),
        "ERROR: <input>:1:22: undeclared reference to 'x' (in container '')\n \
         | [1].all(x, x > 0) && x > 0\n \
         | .....................^"
    );
    assert!(compile_error("has(foo.bar)").contains("undeclared reference to 'foo'"));
    // The first of several is reported.
    assert!(compile_error("foo == bar").contains("undeclared reference to 'foo'"));
    assert!(compile_error("f(a, b)").contains("undeclared reference to 'a'"));
    // Not part of upstream's environment, as the optional syntax is not.
    assert!(compile_error("optional.of(1).hasValue()").contains("undeclared reference"));
}

#[test]
fn an_unknown_cr_field_is_a_compile_error() {
    assert_eq!(
        compile_error("size(cr.foo) < 24"),
        "ERROR: <input>:1:8: undefined field 'foo'\n \
         | size(cr.foo) < 24\n \
         | .......^"
    );
    assert!(compile_error("has(cr.spec)").contains("undefined field 'spec'"));
}

/// Functions are resolved when evaluating: an unknown one is a runtime error.
#[test]
fn an_undeclared_function_fails_when_evaluating() {
    assert_eq!(eval_error("foo(self)"), "Undeclared reference to 'foo'");
    assert_eq!(eval_error("self.foo()"), "Undeclared reference to 'foo'");
}

#[test]
fn runtime_errors_keep_the_interpreter_wording() {
    assert_eq!(eval_error("cr.groups[0] == 'a'"), "Index out of bounds: Int(0)");
    assert_eq!(
        eval_error("self.charAt(100) == 'a'"),
        "Error executing function 'charAt': index out of range: 100"
    );
    assert_eq!(
        eval_error("self > 1"),
        "found no matching overload for '_>_' applied to '(string, int)'"
    );
}
