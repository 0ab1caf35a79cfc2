//! Unknown fields under `fieldValidation` (kubectl `--validate=strict|warn|false`), with
//! the texts kube-apiserver 1.37 answers: a 400 naming every unknown field under Strict
//! (metadata's first, then the schema's, each sorted), one warning per field under Warn,
//! nothing under Ignore; the fields are dropped whenever the object is written.

mod support;

use support::Harness;

const CRD: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
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
            properties:
              items:
                type: array
                items:
                  type: object
                  properties:
                    x: {type: string}
";

const GADGET: &str = "\
apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g
  namespace: default
  zz: 1
bogus: 1
spec:
  zeta: 2
  items: [{x: a, extra: 1}, {other: 2}]
";

fn create(h: &Harness, validate: &str) -> std::process::Output {
    h.kubectl_with_input(&["create", &format!("--validate={validate}"), "-f", "-"], Some(GADGET))
}

#[test]
fn strict_refuses_every_unknown_field_in_the_api_servers_order() {
    let h = Harness::start();
    h.apply(CRD);
    let created = create(&h, "strict");
    assert!(!created.status.success());
    assert_eq!(
        String::from_utf8_lossy(&created.stderr),
        "Error from server (BadRequest): error when creating \"STDIN\": Gadget in version \"v1\" \
         cannot be handled as a Gadget: strict decoding error: unknown field \"metadata.zz\", \
         unknown field \"bogus\", unknown field \"spec.items[0].extra\", unknown field \
         \"spec.items[1].other\", unknown field \"spec.zeta\"\n"
    );
}

#[test]
fn warn_creates_the_object_without_the_fields_and_names_each_one() {
    let h = Harness::start();
    h.apply(CRD);
    let created = create(&h, "warn");
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let stderr = String::from_utf8_lossy(&created.stderr);
    for field in ["metadata.zz", "bogus", "spec.items[0].extra", "spec.items[1].other", "spec.zeta"]
    {
        assert!(stderr.contains(&format!("Warning: unknown field \"{field}\"\n")), "{stderr}");
    }
    assert_eq!(
        h.ok(&["get", "gadget", "g", "-o", "jsonpath={.spec}"]),
        r#"{"items":[{"x":"a"},{}]}"#
    );
}

#[test]
fn ignore_creates_the_object_silently() {
    let h = Harness::start();
    h.apply(CRD);
    let created = create(&h, "false");
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    assert_eq!(String::from_utf8_lossy(&created.stderr), "");
    assert_eq!(h.ok(&["get", "gadget", "g", "-o", "jsonpath={.bogus}{.spec.zeta}"]), "");
}

#[test]
fn server_side_apply_reports_the_undeclared_field_whatever_the_validation() {
    let h = Harness::start();
    h.apply(CRD);
    let applied = h.kubectl_with_input(
        &["apply", "--server-side", "--validate=false", "-f", "-"],
        Some("apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: default\nspec:\n  zeta: 2\n"),
    );
    assert!(!applied.status.success());
    assert!(
        String::from_utf8_lossy(&applied.stderr).contains(
            "failed to create typed patch object (default/g; example.com/v1, Kind=Gadget): \
             .spec.zeta: field not declared in schema"
        ),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
}

/// The typed decoder reports fields in the order of the body, which kubectl sends with
/// its keys sorted.
#[test]
fn config_maps_report_top_level_fields_in_document_order() {
    let h = Harness::start();
    let created = h.kubectl_with_input(
        &["create", "--validate=strict", "-f", "-"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n  zz: 1\nbogus: 1\ndata: {a: b}\naaa: {x: 1}\n"),
    );
    assert!(!created.status.success());
    assert!(
        String::from_utf8_lossy(&created.stderr).contains(
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: \
             unknown field \"aaa\", unknown field \"bogus\", unknown field \"metadata.zz\""
        ),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
}
