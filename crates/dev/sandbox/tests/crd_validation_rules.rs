//! `x-kubernetes-validations` of a CRD applied by the sandbox, with kube-apiserver 1.37's
//! texts: objects and lists are not shown as values, a rule without a message reads
//! `failed rule: <rule>`, transition rules run on updates only, and no rule runs on a value
//! of the wrong type.

mod support;

use support::Harness;

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo, listKind: GizmoList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "!has(self.a) || has(self.b)", reason: FieldValueRequired, fieldPath: ".b", message: "b is needed"}
            properties:
              a: {type: string}
              b: {type: string}
              ratio:
                type: number
                x-kubernetes-validations:
                - {rule: "self <= 1.0", message: "at most one"}
              tier:
                type: string
                x-kubernetes-validations:
                - {rule: "self == oldSelf || oldSelf == 'free'", message: "tier can only leave free"}
"#;

fn gizmo(name: &str, spec: &str) -> String {
    format!(
        "apiVersion: example.com/v1\nkind: Gizmo\nmetadata:\n  name: {name}\n  namespace: default\nspec: {spec}\n"
    )
}

fn refused(h: &Harness, args: &[&str], input: Option<&str>) -> String {
    let output = h.kubectl_with_input(args, input);
    assert!(!output.status.success(), "kubectl {} should have failed", args.join(" "));
    String::from_utf8(output.stderr).unwrap()
}

#[test]
fn rules_refuse_with_reason_field_path_and_typed_self() {
    let h = Harness::start();
    h.apply(CRD);
    let err = refused(&h, &["create", "-f", "-"], Some(&gizmo("g", "{a: x, ratio: 2}")));
    assert!(
        err.contains(
            "The Gizmo \"g\" is invalid: \n* spec.b: Required value: b is needed\n\
             * spec.ratio: Invalid value: 2: at most one\n"
        ),
        "{err}"
    );
    // A value of the wrong type: rules are not run.
    let err = refused(&h, &["create", "-f", "-"], Some(&gizmo("g", "{ratio: x}")));
    assert!(
        err.contains("* <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"),
        "{err}"
    );
}

#[test]
fn transition_rules_run_on_updates_only() {
    let h = Harness::start();
    h.apply(CRD);
    h.apply(&gizmo("g", "{tier: gold}"));
    let err = refused(
        &h,
        &["patch", "gizmo", "g", "--type=merge", "-p", r#"{"spec":{"tier":"free"}}"#],
        None,
    );
    assert!(
        err.contains(r#"The Gizmo "g" is invalid: spec.tier: Invalid value: "free": tier can only leave free"#),
        "{err}"
    );
    h.apply(&gizmo("f", "{tier: free}"));
    h.ok(&["patch", "gizmo", "f", "--type=merge", "-p", r#"{"spec":{"tier":"gold"}}"#]);
}

#[test]
fn a_crd_whose_rule_does_not_compile_is_refused() {
    let h = Harness::start();
    let broken = CRD.replace("self <= 1.0", "self <=");
    let output = h.kubectl_with_input(&["create", "-f", "-"], Some(&broken));
    assert!(!output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        "The CustomResourceDefinition \"gizmos.example.com\" is invalid: \
         spec.validation.openAPIV3Schema.properties[spec].properties[ratio].x-kubernetes-validations[0].rule: \
         Invalid value: {\"Rule\":\"self \\u003c=\",\"Message\":\"at most one\",\"MessageExpression\":\"\",\"Reason\":null,\"FieldPath\":\"\",\"OptionalOldSelf\":null}: \
         compilation failed: ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self <=\n | .......^"
    );
    // Nothing was stored.
    let err = h.fails(&["get", "crd", "gizmos.example.com"]);
    assert!(err.contains("NotFound"), "{err}");
}

#[test]
fn a_crd_update_naming_an_unknown_field_is_refused() {
    let h = Harness::start();
    h.apply(CRD);
    let broken = CRD.replace("self <= 1.0", "self.value <= 1.0");
    let output = h.kubectl_with_input(&["apply", "-f", "-"], Some(&broken));
    assert!(!output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains(
            "compilation failed: ERROR: <input>:1:5: type 'double' does not support field selection\n | self.value <= 1.0\n | ....^"
        ),
        "{err}"
    );
}
