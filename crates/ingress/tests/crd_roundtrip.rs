//! The upstream CRD (shared/upstream-crds/projectcontour.io_crds.yaml) is the reference: an
//! instance with every schema field set must parse and serialize back unchanged, and every
//! `clientValidation` field of the schema must land in a typed field.

use certgate_ingress::{HttpProxy, TlsCertificateDelegation};
use serde_json::{Map, Value, json};

const CRDS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/upstream-crds/projectcontour.io_crds.yaml"
);

fn crd_schema(kind: &str) -> Option<Value> {
    let text = std::fs::read_to_string(CRDS).ok()?;
    let docs: Vec<Value> = serde_saphyr::from_str_multiple(&text).ok()?;
    docs.into_iter()
        .find(|d| d["spec"]["names"]["kind"] == kind)
        .map(|d| d["spec"]["versions"][0]["schema"]["openAPIV3Schema"].clone())
}

/// An instance that sets every property the schema declares.
fn maximal(schema: &Value, depth: usize) -> Value {
    if depth > 40 {
        return Value::Null;
    }
    if schema.get("x-kubernetes-int-or-string").is_some() {
        return json!(80);
    }
    if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
        return first.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") => {
            let mut object = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    object.insert(name.clone(), maximal(sub, depth + 1));
                }
            } else if let Some(additional) =
                schema.get("additionalProperties").filter(|a| a.is_object())
            {
                object.insert("key".into(), maximal(additional, depth + 1));
            } else {
                // `metadata` and free-form objects.
                object.insert("name".into(), json!("n"));
                object.insert("namespace".into(), json!("ns"));
            }
            Value::Object(object)
        }
        Some("array") => json!([maximal(&schema["items"], depth + 1)]),
        Some("integer") => schema.get("minimum").cloned().unwrap_or(json!(1)),
        Some("boolean") => json!(true),
        Some("string") => json!("x"),
        _ => json!({}),
    }
}

#[test]
fn httpproxy_maximal_instance_round_trips() {
    let Some(schema) = crd_schema("HTTPProxy") else {
        eprintln!("upstream CRDs not available; skipping");
        return;
    };
    let mut instance = maximal(&schema, 0);
    instance["apiVersion"] = json!("projectcontour.io/v1");
    instance["kind"] = json!("HTTPProxy");
    let proxy = HttpProxy::from_value(&instance).expect("schema-valid instance parses");
    pretty_assertions::assert_eq!(serde_json::to_value(&proxy).unwrap(), instance);

    // The fields this crate reasons about are typed, not left in `extra`.
    let vhost = proxy.spec.virtualhost.as_ref().unwrap();
    let tls = vhost.tls.as_ref().unwrap();
    assert!(tls.extra.is_empty(), "untyped tls fields: {:?}", tls.extra.keys());
    let cv = tls.client_validation.as_ref().unwrap();
    assert!(cv.extra.is_empty(), "untyped clientValidation fields: {:?}", cv.extra.keys());
    let fwd = cv.forward_client_certificate.as_ref().unwrap();
    assert!(fwd.extra.is_empty());
    let cv_fields: Vec<&String> = schema["properties"]["spec"]["properties"]["virtualhost"]["properties"]["tls"]
        ["properties"]["clientValidation"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        cv_fields,
        [
            "caSecret",
            "crlOnlyVerifyLeafCert",
            "crlSecret",
            "forwardClientCertificate",
            "optionalClientCertificate",
            "skipClientCertValidation"
        ]
    );
    assert_eq!(cv.ca_secret(), "x");
    assert_eq!(cv.crl_secret(), "x");
    assert!(
        cv.crl_only_verify_leaf_cert()
            && cv.optional_client_certificate()
            && cv.skip_client_cert_validation()
    );
    let status = proxy.status.as_ref().unwrap();
    assert!(status.extra.is_empty());
    assert_eq!(status.conditions.as_ref().unwrap()[0].errors.len(), 1);
}

#[test]
fn delegation_maximal_instance_round_trips() {
    let Some(schema) = crd_schema("TLSCertificateDelegation") else {
        return;
    };
    let mut instance = maximal(&schema, 0);
    instance["apiVersion"] = json!("projectcontour.io/v1");
    instance["kind"] = json!("TLSCertificateDelegation");
    let parsed = TlsCertificateDelegation::from_value(&instance).unwrap();
    assert_eq!(parsed.spec.delegations[0].target_namespaces, vec!["x".to_string()]);
    pretty_assertions::assert_eq!(serde_json::to_value(&parsed).unwrap(), instance);
}
