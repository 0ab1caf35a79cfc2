//! The decisions and messages of matchConditions, as kube-apiserver 1.37 gives them.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;
use crate::attributes::{GroupVersionKind, GroupVersionResource, Operation};

fn configmap_create() -> AdmissionAttributes {
    AdmissionAttributes {
        operation: Operation::Create,
        kind: GroupVersionKind::new("", "v1", "ConfigMap"),
        resource: GroupVersionResource::new("", "v1", "configmaps"),
        subresource: String::new(),
        namespaced: true,
        name: "probe".into(),
        namespace: "default".into(),
        user: certgate_rbac::UserInfo {
            username: "admin".into(),
            uid: String::new(),
            groups: vec!["system:masters".into()],
            extra: BTreeMap::new(),
        },
        object: Some(json!({ "metadata": { "name": "probe" }, "data": { "a": "1" } })),
        old_object: None,
        dry_run: false,
        options: json!({ "kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "kubectl-create" }),
        namespace_labels: Some(BTreeMap::new()),
    }
}

fn conditions(expressions: &[&str]) -> Vec<Condition> {
    expressions
        .iter()
        .enumerate()
        .map(|(i, e)| {
            Condition::compile(&MatchCondition {
                name: format!("c{i}"),
                expression: (*e).to_owned(),
            })
        })
        .collect()
}

fn decide_fail(expressions: &[&str], attributes: &AdmissionAttributes) -> Decision {
    decide(&conditions(expressions), FailurePolicy::Fail, attributes)
}

#[test]
fn all_true_calls_and_any_false_skips() {
    let a = configmap_create();
    assert_eq!(decide_fail(&[], &a), Decision::Call);
    assert_eq!(decide_fail(&["object.metadata.name == 'probe'", "true"], &a), Decision::Call);
    assert_eq!(decide_fail(&["true", "object.metadata.name == 'other'"], &a), Decision::Skip);
}

#[test]
fn the_request_variable_carries_the_admission_request() {
    let a = configmap_create();
    let everything = "request.operation == 'CREATE' && request.userInfo.username == 'admin' \
        && request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps' \
        && request.name == 'probe' && request.namespace == 'default' && oldObject == null \
        && !request.dryRun && request.options.kind == 'CreateOptions' \
        && !has(request.subResource) && request.subResource == '' \
        && has(request.options.fieldManager) && namespaceObject == null \
        && request.userInfo.groups == ['system:masters'] && request.requestKind == request.kind";
    assert_eq!(decide_fail(&[everything], &a), Decision::Call);
    let mut delete = a.clone();
    delete.operation = Operation::Delete;
    delete.old_object = delete.object.take();
    assert_eq!(
        decide_fail(
            &["request.operation == 'DELETE' && object == null && oldObject.data.a == '1'"],
            &delete
        ),
        Decision::Call
    );
}

#[test]
fn evaluation_errors_follow_the_failure_policy_and_lose_to_false() {
    let a = configmap_create();
    let missing = "object.data.missing == 'x'";
    assert_eq!(
        decide_fail(&[missing], &a),
        Decision::Refuse(
            "expression 'object.data.missing == 'x'' resulted in error: no such key: missing"
                .into()
        )
    );
    assert_eq!(decide(&conditions(&[missing]), FailurePolicy::Ignore, &a), Decision::Skip);
    assert_eq!(decide_fail(&[missing, "false"], &a), Decision::Skip);
    assert_eq!(
        decide_fail(&[missing, "object.data.other == 'y'", missing], &a),
        Decision::Refuse("[expression 'object.data.missing == 'x'' resulted in error: no such key: missing, expression 'object.data.other == 'y'' resulted in error: no such key: other]".into())
    );
    // namespaceObject is null for webhooks. kube-apiserver's cel-go says "no such key:
    // metadata" here; certgate-cel words the same failure differently (docs/dispatch.md).
    assert_eq!(
        decide_fail(&["namespaceObject.metadata.name == 'x'"], &a),
        Decision::Refuse("expression 'namespaceObject.metadata.name == 'x'' resulted in error: type 'null_type' does not support field selection".into())
    );
}

fn wide_configmap(keys: usize) -> AdmissionAttributes {
    let mut a = configmap_create();
    let data: serde_json::Map<String, Value> =
        (0..keys).map(|i| (format!("k{i}"), json!("v"))).collect();
    a.object = Some(json!({ "metadata": { "name": "probe" }, "data": data }));
    a
}

#[test]
fn one_expression_is_bounded_by_the_per_call_limit() {
    let a = wide_configmap(120);
    let cubic = "object.data.all(k, object.data.all(k2, object.data.all(k3, k != '')))";
    assert_eq!(
        decide_fail(&[cubic], &a),
        Decision::Refuse(format!(
            "expression '{cubic}' resulted in error: operation cancelled: actual cost limit exceeded"
        ))
    );
}

#[test]
fn all_conditions_share_one_budget() {
    let a = wide_configmap(400);
    let square = "object.data.all(k, object.data.all(k2, k2 != ''))";
    let program = compile(square).unwrap();
    let env = environment::environment().unwrap();
    let cost =
        program.eval_with_limit(&bind::variables(env, &a), PER_CALL_COST_LIMIT).unwrap().cost;
    assert!(cost < PER_CALL_COST_LIMIT && cost * 2 <= REQUEST_COST_BUDGET, "{cost}");
    let within = usize::try_from(REQUEST_COST_BUDGET / cost).unwrap();
    assert_eq!(decide_fail(&vec![square; within], &a), Decision::Call);
    let over = vec![square; within + 1];
    assert_eq!(decide_fail(&over, &a), Decision::Refuse(OUT_OF_BUDGET.into()));
    // Out of budget wins even over a false condition evaluated before it.
    let mut with_false = vec!["false"];
    with_false.extend(over.iter().copied());
    assert_eq!(decide_fail(&with_false, &a), Decision::Refuse(OUT_OF_BUDGET.into()));
    assert_eq!(decide(&conditions(&over), FailurePolicy::Ignore, &a), Decision::Skip);
}

#[test]
fn compile_errors_read_as_upstreams() {
    // cel-go lists the tokens it expected where certgate-cel says "an expression".
    let syntax = compile("request.x ==").unwrap_err();
    assert!(
        syntax.starts_with("compilation failed: ERROR: <input>:1:13: Syntax error: mismatched input '<EOF>' expecting ")
            && syntax.ends_with("\n | request.x ==\n | ............^"),
        "{syntax}"
    );
    assert_eq!(
        compile("request.foo == 'a'").unwrap_err(),
        "compilation failed: ERROR: <input>:1:8: undefined field 'foo'\n | request.foo == 'a'\n | .......^"
    );
    assert_eq!(
        compile("string(request.userInfo.groups) == 'x'").unwrap_err(),
        "compilation failed: ERROR: <input>:1:7: found no matching overload for 'string' applied to '(list(string))'\n | string(request.userInfo.groups) == 'x'\n | ......^"
    );
    assert_eq!(compile("'abc'").unwrap_err(), "must evaluate to bool but got string");
    assert_eq!(
        compile("params == null").unwrap_err(),
        "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params == null\n | ^"
    );
    assert!(compile("object.foo.bar == 1").is_ok());
}

#[test]
fn authorizer_expressions_are_refused_explicitly() {
    for expression in [
        "authorizer.group('').resource('configmaps').check('get').allowed()",
        "authorizer.requestResource.check('create').allowed()",
    ] {
        assert_eq!(
            compile(expression).unwrap_err(),
            environment::AUTHORIZER_UNSUPPORTED,
            "{expression}"
        );
    }
}

#[test]
fn stored_conditions_that_do_not_compile_are_evaluation_errors() {
    let a = configmap_create();
    assert_eq!(
        decide_fail(&["'abc'"], &a),
        Decision::Refuse("compilation error: must evaluate to bool but got string".into())
    );
}
