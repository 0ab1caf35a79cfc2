//! A CustomResourceDefinition version's `selectableFields` in field selectors, as
//! kube-apiserver v1.37 answers them (probed): `=`, `==` and `!=` on the declared paths,
//! integers and booleans compared as their text, an absent field as the empty string, and
//! any other field refused with 400 `field label not supported: FIELD`.

mod support;

use support::Harness;

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.probe.example.com}
spec:
  group: probe.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    selectableFields: [{jsonPath: .spec.count}, {jsonPath: .spec.enabled}, {jsonPath: .spec.color}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties: {count: {type: integer}, enabled: {type: boolean}, color: {type: string}}
"#;

fn widgets(h: &Harness) {
    h.apply(CRD);
    h.ok(&["wait", "--for=condition=Established", "crd/widgets.probe.example.com"]);
    for (name, spec) in [
        ("one", "{count: 3, enabled: true, color: red}"),
        ("two", "{count: 10, enabled: false}"),
        ("three", "{}"),
    ] {
        h.apply(&format!(
            "apiVersion: probe.example.com/v1\nkind: Widget\nmetadata: {{name: {name}}}\nspec: {spec}\n"
        ));
    }
}

fn selected(h: &Harness, selector: &str) -> String {
    h.ok(&[
        "get",
        "widgets",
        "--field-selector",
        selector,
        "-o",
        "jsonpath={.items[*].metadata.name}",
    ])
}

#[test]
fn selectable_fields_select_by_their_text() {
    let h = Harness::start();
    widgets(&h);
    for (selector, names) in [
        ("spec.count=3", "one"),
        ("spec.count=03", ""),
        ("spec.count!=3", "three two"),
        ("spec.count==10", "two"),
        ("spec.enabled=true", "one"),
        ("spec.enabled=True", ""),
        ("spec.enabled!=true", "three two"),
        ("spec.color=red", "one"),
        ("spec.color=", "three two"),
        ("spec.color!=red", "three two"),
        ("spec.color=red,metadata.name=one", "one"),
        ("metadata.name=two", "two"),
    ] {
        assert_eq!(selected(&h, selector), names, "{selector}");
    }
}

#[test]
fn other_fields_are_refused_as_the_api_server_refuses_them() {
    let h = Harness::start();
    widgets(&h);
    let raw = |query: &str| {
        h.fails(&[
            "get",
            "--raw",
            &format!("/apis/probe.example.com/v1/namespaces/default/widgets?{query}"),
        ])
    };
    assert_eq!(
        raw("fieldSelector=spec.other%3D1"),
        "Error from server (BadRequest): field label not supported: spec.other\n"
    );
    // Watches refuse it before streaming, with the same answer.
    assert_eq!(
        raw("watch=true&fieldSelector=spec.other%3D1"),
        "Error from server (BadRequest): field label not supported: spec.other\n"
    );
    assert_eq!(
        raw("fieldSelector=spec.color+in+(a)"),
        "Error from server (BadRequest): invalid selector: 'spec.color in (a)'; can't understand 'spec.color in (a)'\n"
    );
    let kubectl = h.fails(&["get", "widgets", "--field-selector", "spec.other=1"]);
    assert!(
        kubectl
            .trim_end()
            .ends_with(r#"field selector "spec.other=1": field label not supported: spec.other"#),
        "{kubectl}"
    );
}
