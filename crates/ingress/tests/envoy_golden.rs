//! Golden Envoy JSON and YAML of the downstream TLS context for the main cases. Regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p certgate-ingress --test envoy_golden`.

mod common;

use certgate_ingress::NamespacedName;
use certgate_ingress::envoy::{TranslateOptions, downstream_tls_context, to_json, to_yaml};
use certgate_ingress::validate::{PeerValidation, ValidatedVhost};
use common::*;
use serde_json::{Value, json};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");

fn compare(name: &str, actual: &str) {
    let path = format!("{GOLDEN}/{name}");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected =
        std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing golden {path}"));
    pretty_assertions::assert_eq!(expected, actual, "golden {name}");
}

fn golden_case(name: &str, validation: Value, extra: Vec<Value>) {
    let mut objects = vec![
        serving_secret("default", "server"),
        ca_secret("default", "ca"),
        crl_secret("default", "crl"),
    ];
    objects.extend(extra);
    objects.push(proxy_with_validation(validation));
    let report = run(&objects);
    let envoy = &report.results[0].envoy;
    assert!(envoy.is_object(), "{name}: {:?}", report.results[0].status);
    compare(&format!("{name}.json"), &(serde_json::to_string_pretty(envoy).unwrap() + "\n"));
    let yaml = serde_saphyr::to_string(envoy).unwrap();
    compare(&format!("{name}.yaml"), &yaml);
    // The YAML reads back to the same document.
    let back: Value = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(&back, envoy);
}

#[test]
fn ca_and_crl_full_chain() {
    golden_case("ca-crl", json!({"caSecret": "ca", "crlSecret": "crl"}), vec![]);
}

#[test]
fn ca_and_crl_leaf_only_optional() {
    golden_case(
        "ca-crl-leaf-only-optional",
        json!({"caSecret": "ca", "crlSecret": "crl", "crlOnlyVerifyLeafCert": true, "optionalClientCertificate": true}),
        vec![],
    );
}

#[test]
fn skip_validation_with_crl() {
    golden_case("skip-crl", json!({"skipClientCertValidation": true, "crlSecret": "crl"}), vec![]);
}

#[test]
fn ca_only() {
    golden_case("ca-only", json!({"caSecret": "ca"}), vec![]);
}

#[test]
fn api_rendering_matches_check_output() {
    let vhost = ValidatedVhost {
        fqdn: "example.com".into(),
        serving_secret: NamespacedName::new("default", "server"),
        serving_certificate: fixture("tls.crt").into_bytes(),
        serving_private_key: Vec::new(),
        min_tls_version: "1.3".into(),
        max_tls_version: "1.3".into(),
        peer_validation: Some(PeerValidation {
            crl: Some((NamespacedName::new("default", "crl"), b"not pem".to_vec())),
            ..PeerValidation::default()
        }),
    };
    let context = downstream_tls_context(&vhost, &TranslateOptions::default());
    let json = to_json(&context).unwrap();
    assert_eq!(
        json["@type"],
        "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.DownstreamTlsContext"
    );
    assert_eq!(json["commonTlsContext"]["tlsParams"]["tlsMinimumProtocolVersion"], "TLSv1_3");
    assert_eq!(json["commonTlsContext"]["validationContext"]["crl"]["inlineBytes"], "bm90IHBlbQ==");
    assert_eq!(json["commonTlsContext"]["alpnProtocols"], json!(["h2", "http/1.1"]));
    let sds = &json["commonTlsContext"]["tlsCertificateSdsSecretConfigs"][0]["sdsConfig"];
    assert_eq!(
        sds,
        &json!({"apiConfigSource": {"apiType": "GRPC", "transportApiVersion": "V3",
            "grpcServices": [{"envoyGrpc": {"clusterName": "contour", "authority": "contour"}}]},
            "resourceApiVersion": "V3"})
    );
    assert!(
        to_yaml(&context).unwrap().contains("'@type'")
            || to_yaml(&context).unwrap().contains("\"@type\"")
    );
}
