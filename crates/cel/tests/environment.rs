//! The approver-policy environment: `self`, `cr`, macros, the strings extension and
//! the service-account functions.

use certgate_cel::{CrVariable, EvalError, PolicyCel};

fn request() -> CrVariable {
    CrVariable {
        name: "my-cert".to_owned(),
        namespace: "sandbox".to_owned(),
        username: "system:serviceaccount:sandbox:issuer".to_owned(),
        groups: vec!["system:serviceaccounts".to_owned(), "system:authenticated".to_owned()],
    }
}

fn eval(rule: &str, self_value: &str, cr: &CrVariable) -> Result<bool, EvalError> {
    let program = PolicyCel::default()
        .compile(rule)
        .unwrap_or_else(|err| panic!("{rule:?} does not compile: {err}"));
    program.eval(self_value, cr)
}

#[test]
fn dns_name_in_the_request_namespace() {
    let rule = "self.endsWith(cr.namespace + '.svc') || \
                self.endsWith(cr.namespace + '.svc.cluster.local')";
    let cr = request();
    for (dns_name, allowed) in [
        ("api.sandbox.svc", true),
        ("api.sandbox.svc.cluster.local", true),
        ("api.other.svc", false),
        ("api.sandbox.svc.evil.example", false),
        ("sandbox.svc.cluster.local.example", false),
        ("", false),
    ] {
        assert_eq!(eval(rule, dns_name, &cr), Ok(allowed), "{dns_name}");
    }
}

#[test]
fn spiffe_id_in_the_request_namespace() {
    let rule = "self.startsWith('spiffe://cluster.local/ns/' + cr.namespace + '/sa/')";
    let cr = request();
    for (uri, allowed) in [
        ("spiffe://cluster.local/ns/sandbox/sa/app", true),
        ("spiffe://cluster.local/ns/other/sa/app", false),
        ("spiffe://cluster.local/ns/sandbox-2/sa/app", false),
        ("spiffe://evil.example/ns/sandbox/sa/app", false),
    ] {
        assert_eq!(eval(rule, uri, &cr), Ok(allowed), "{uri}");
    }
}

#[test]
fn the_upstream_documentation_example() {
    let rule = "['.svc', '.svc.cluster.local'].exists(d, self.endsWith(cr.namespace + d))";
    assert_eq!(eval(rule, "a.sandbox.svc.cluster.local", &request()), Ok(true));
    assert_eq!(eval(rule, "a.sandbox.com", &request()), Ok(false));
}

#[test]
fn every_field_of_cr() {
    let cr = request();
    for rule in [
        "cr.name == 'my-cert'",
        "cr.namespace == 'sandbox'",
        "cr.username == 'system:serviceaccount:sandbox:issuer'",
        "cr.groups == ['system:serviceaccounts', 'system:authenticated']",
        "'system:authenticated' in cr.groups",
        "size(cr.groups) == 2",
        "cr.groups.all(g, g.startsWith('system:'))",
        "has(cr.name)",
        "type(cr) == cm.io.policy.pkg.internal.approver.validation.CertificateRequest",
        "cr == cr",
    ] {
        assert_eq!(eval(rule, "", &cr), Ok(true), "{rule}");
    }
    assert_eq!(eval("size(cr.groups) == 0", "", &CrVariable::default()), Ok(true));
    // `cr` is an object, not a map: as with cel-go, it cannot be indexed.
    let error = PolicyCel::default().compile("cr['name'] == cr.name").unwrap_err();
    assert!(
        error.message.contains(
            "found no matching overload for '_[_]' applied to \
             '(cm.io.policy.pkg.internal.approver.validation.CertificateRequest, string)'"
        ),
        "{error}"
    );
}

#[test]
fn comprehension_variables_shadow_the_environment() {
    assert_eq!(eval("[1, 2].all(self, self > 0)", "x", &request()), Ok(true));
    assert_eq!(
        eval("['a'].exists(cr, cr == 'a') && cr.name == 'my-cert'", "", &request()),
        Ok(true)
    );
}

#[test]
fn standard_macros() {
    let cr = request();
    for rule in [
        "[1, 2, 3].all(i, i % 2 > 0) == false",
        "[1, 2, 3].exists(i, i == 2)",
        "[1, 2, 3].exists_one(i, i > 2)",
        "[1, 2, 3].map(i, i * 2) == [2, 4, 6]",
        "[1, 2, 3].filter(i, i > 1) == [2, 3]",
        "has({'a': 1}.a) && !has({'a': 1}.b)",
    ] {
        assert_eq!(eval(rule, "", &cr), Ok(true), "{rule}");
    }
}

#[test]
fn service_account_functions() {
    let cr = request();
    for rule in [
        "serviceAccount(cr.username).getNamespace() == cr.namespace",
        "serviceAccount(cr.username).getName() == 'issuer'",
        "self.startsWith('spiffe://acme.com/ns/%s/sa/%s'.format([\
           serviceAccount(cr.username).getNamespace(), serviceAccount(cr.username).getName()]))",
        "serviceAccount(cr.username) == serviceAccount('system:serviceaccount:sandbox:issuer')",
        "serviceAccount(cr.username) != serviceAccount('system:serviceaccount:sandbox:other')",
        "isServiceAccount(cr.username)",
        "!isServiceAccount(cr.name)",
        "!isServiceAccount('system:serviceaccount:Sandbox:issuer')",
        "!isServiceAccount('system:serviceaccount:sandbox:issuer:extra')",
        "type(serviceAccount(cr.username)) == \
           cm.io.policy.pkg.internal.approver.validation.ServiceAccount",
    ] {
        assert_eq!(eval(rule, "spiffe://acme.com/ns/sandbox/sa/issuer", &cr), Ok(true), "{rule}");
    }
}

#[test]
fn service_account_of_a_user_that_is_not_one_is_an_error() {
    let cr = CrVariable { username: "alice@example.com".to_owned(), ..request() };
    assert_eq!(
        eval("serviceAccount(cr.username).getNamespace() == cr.namespace", "", &cr),
        Err(EvalError {
            message: "Unable to convert to serviceaccount: err: Username must be in the form \
                      system:serviceaccount:namespace:name, username: alice@example.com"
                .to_owned()
        })
    );
    // Guarded by isServiceAccount, the rule is false instead.
    let guarded = "isServiceAccount(cr.username) && \
                   serviceAccount(cr.username).getNamespace() == cr.namespace";
    assert_eq!(eval(guarded, "", &cr), Ok(false));
}

#[test]
fn service_account_methods_need_a_service_account() {
    let error = PolicyCel::default().compile("cr.username.getName() == 'issuer'").unwrap_err();
    assert_eq!(
        error.message,
        "ERROR: <input>:1:20: found no matching overload for 'getName' applied to 'string.()'\n \
         | cr.username.getName() == 'issuer'\n \
         | ...................^"
    );
}

/// The strings extension functions that the `cel` crate implements (all of cel-go's
/// `ext.Strings()`).
#[test]
fn strings_extension() {
    let cr = request();
    for rule in [
        "'hello'.charAt(1) == 'e'",
        "'hello'.indexOf('l') == 2",
        "'hello'.indexOf('l', 3) == 3",
        "'hello'.lastIndexOf('l') == 3",
        "'hello'.lastIndexOf('l', 2) == 2",
        "'TacoCat'.lowerAscii() == 'tacocat'",
        "'TacoCat'.upperAscii() == 'TACOCAT'",
        "'a.b.c'.replace('.', '-') == 'a-b-c'",
        "'a.b.c'.replace('.', '-', 1) == 'a-b.c'",
        "'a.b.c'.split('.') == ['a', 'b', 'c']",
        "'a.b.c'.split('.', 2) == ['a', 'b.c']",
        "'hello'.substring(3) == 'lo'",
        "'hello'.substring(1, 3) == 'el'",
        "'  hi  '.trim() == 'hi'",
        "['a', 'b'].join() == 'ab'",
        "['a', 'b'].join('.') == 'a.b'",
        "'%s/%s'.format([cr.namespace, cr.name]) == 'sandbox/my-cert'",
        "strings.quote('a\"b') == '\"a\\\\\"b\"'",
        "'abc'.reverse() == 'cba'",
    ] {
        assert_eq!(eval(rule, "", &cr), Ok(true), "{rule}");
    }
}

#[test]
fn regular_expressions() {
    let rule = "self.matches('^[a-z0-9-]+\\\\.sandbox\\\\.svc$')";
    assert_eq!(eval(rule, "api-1.sandbox.svc", &request()), Ok(true));
    assert_eq!(eval(rule, "api.sandbox.svc.evil", &request()), Ok(false));
}

#[test]
fn a_program_keeps_its_rule_text() {
    let program = PolicyCel::default().compile("self == 'a'").unwrap();
    assert_eq!(program.rule(), "self == 'a'");
}

/// Every compiled rule carries its static cost estimate, with `self` bounded by the CSR
/// size limit and `cr` by Kubernetes' limits.
#[test]
fn compiled_rules_carry_a_bounded_cost_estimate() {
    let cel = PolicyCel::default();
    let estimate = |rule: &str| cel.compile(rule).unwrap().cost_estimate();
    // `self` ≤ 65,536 bytes: endsWith scans at most 1 + 6,554; `cr.namespace` ≤ 63 bytes.
    let suffix = estimate("self.endsWith(cr.namespace + '.svc')");
    assert!(suffix.max < 10_000, "{suffix:?}");
    assert!(suffix.min <= suffix.max);
    let ten = "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
    let runaway = estimate(&format!(
        "size({ten}.map(a, {ten}.map(b, {ten}.map(c, {ten}.map(d, {ten}.map(e, {ten}.map(f, 0))))))) > 0"
    ));
    assert!(runaway.min > certgate_cel::eval::DEFAULT_COST_LIMIT, "{runaway:?}");
}
