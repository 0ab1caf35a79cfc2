//! Hostile input never panics: random JSON into the check API, random bytes into the PEM walk.

use certgate_ingress::pem::{contains_pem_header, decode};
use certgate_ingress::secrets::{validate_ca_bundle, validate_crl_bundle};
use certgate_ingress::{CheckOptions, NoCrlInspection, check};
use proptest::prelude::*;
use serde_json::{Value, json};

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        prop::sample::select(vec![
            "HTTPProxy",
            "Secret",
            "v1",
            "projectcontour.io/v1",
            "TLSCertificateDelegation",
            "List",
            "x/y",
            "/",
            "kubernetes.io/tls",
            "Opaque",
            "AAAA",
            "-----BEGIN X509 CRL-----",
            "1.3",
            "",
        ])
        .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(5, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "apiVersion",
                        "kind",
                        "metadata",
                        "spec",
                        "name",
                        "namespace",
                        "virtualhost",
                        "fqdn",
                        "tls",
                        "secretName",
                        "clientValidation",
                        "caSecret",
                        "crlSecret",
                        "passthrough",
                        "routes",
                        "includes",
                        "tcpproxy",
                        "data",
                        "type",
                        "items",
                        "delegations",
                        "targetNamespaces",
                        "enableFallbackCertificate",
                        "skipClientCertValidation",
                        "generation",
                        "stringData",
                    ]),
                    inner
                ),
                0..6
            )
            .prop_map(|pairs| Value::Object(
                pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn check_never_panics(objects in prop::collection::vec(arb_json(), 0..6)) {
        let report = check(&objects, &NoCrlInspection, &CheckOptions::default());
        // Whatever came in, the report serializes.
        prop_assert!(serde_json::to_string(&report).is_ok());
    }

    #[test]
    fn structured_proxies_never_panic(
        ca in prop::option::of(".{0,8}"), crl in prop::option::of(".{0,8}"),
        pass in any::<bool>(), fallback in any::<bool>(), secret_name in ".{0,8}", data in ".{0,64}",
    ) {
        let objects = vec![
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"crl.pem": data, "ca.crt": data}}),
            json!({"apiVersion": "projectcontour.io/v1", "kind": "HTTPProxy", "metadata": {"name": "p"},
                "spec": {"virtualhost": {"fqdn": "a", "tls": {"secretName": secret_name, "passthrough": pass,
                "enableFallbackCertificate": fallback, "clientValidation": {"caSecret": ca, "crlSecret": crl}}},
                "routes": [{}]}}),
        ];
        let report = check(&objects, &NoCrlInspection, &CheckOptions::default());
        prop_assert_eq!(report.results.len(), 1);
    }

    #[test]
    fn pem_walk_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256), pick in 0usize..4) {
        let pieces: [&[u8]; 4] = [b"-----BEGIN X509 CRL-----\n", b"\n-----END X509 CRL-----\n", b"-----BEGIN", b"-----"];
        let mut data = bytes.clone();
        data.extend_from_slice(pieces[pick]);
        data.extend_from_slice(&bytes);
        let _ = contains_pem_header(&data);
        let _ = decode(&data);
        let _ = validate_ca_bundle(&data);
        let _ = validate_crl_bundle(&data);
    }
}
