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
fn a_result_that_is_not_bool_is_a_compile_error() {
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
        // Found by the type checker, as cel-go finds them.
        ("cr.groups.map(g, size(g))", "list(int)"),
        ("[1][0]", "int"),
        ("{'a': 'b'}['a']", "string"),
        ("[1, 'a']", "list(dyn)"),
        ("{'a': cr}['a']", "cm.io.policy.pkg.internal.approver.validation.CertificateRequest"),
        (
            "serviceAccount(cr.username)",
            "cm.io.policy.pkg.internal.approver.validation.ServiceAccount",
        ),
    ] {
        assert_eq!(compile_error(rule), format!("got {got}, wanted bool result type"), "{rule}");
    }
}

#[test]
fn a_syntax_error_points_at_the_mistake() {
    assert_eq!(
        compile_error("self = 'a'"),
        // cel-go's words (ANTLR's), with its second error after recovery.
        "ERROR: <input>:1:6: Syntax error: token recognition error at: '= '\n \
         | self = 'a'\n \
         | .....^\n\
         ERROR: <input>:1:8: Syntax error: extraneous input ''a'' expecting <EOF>\n \
         | self = 'a'\n \
         | .......^"
    );
}

/// Found when compiling, as cel-go finds them.
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

#[test]
fn an_undeclared_function_or_mistyped_call_is_a_compile_error() {
    assert_eq!(
        compile_error("foo(self)"),
        "ERROR: <input>:1:4: undeclared reference to 'foo' (in container '')\n \
         | foo(self)\n \
         | ...^"
    );
    assert!(compile_error("self.foo()").contains("undeclared reference to 'foo'"));
    assert_eq!(
        compile_error("self > 1"),
        "ERROR: <input>:1:6: found no matching overload for '_>_' applied to '(string, int)'\n \
         | self > 1\n \
         | .....^"
    );
}

/// Runtime errors are worded as cel-go words them.
#[test]
fn runtime_errors_keep_cel_go_wording() {
    assert_eq!(eval_error("cr.groups[0] == 'a'"), "index out of bounds: 0");
    assert_eq!(eval_error("self.charAt(100) == 'a'"), "index out of range: 100");
    assert_eq!(eval_error("1 / (size(self) - 15) == 1"), "division by zero");
}

/// Beyond upstream: optionals, `cel.bind` and the Kubernetes libraries are available.
#[test]
fn libraries_beyond_upstream_compile() {
    let cel = PolicyCel::default();
    for rule in [
        "optional.of(1).hasValue()",
        "cel.bind(ns, cr.namespace, self.endsWith(ns + '.svc'))",
        "isIP(self) && ip(self).family() == 4",
        "url('https://' + self).getHostname() == self",
        "cr.groups.all(i, g, i >= 0 && g != '')",
    ] {
        assert!(cel.compile(rule).is_ok(), "{rule}: {:?}", cel.compile(rule).err());
    }
}
