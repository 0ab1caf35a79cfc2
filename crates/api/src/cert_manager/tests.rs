use kube::Resource;
use serde_json::json;

use super::*;

#[test]
fn kinds_have_upstream_paths_and_scopes() {
    assert_eq!(
        Certificate::url_path(&(), Some("ns")),
        "/apis/cert-manager.io/v1/namespaces/ns/certificates"
    );
    assert_eq!(Issuer::url_path(&(), Some("ns")), "/apis/cert-manager.io/v1/namespaces/ns/issuers");
    assert_eq!(ClusterIssuer::url_path(&(), None), "/apis/cert-manager.io/v1/clusterissuers");
    fn cluster_scoped<K: Resource<Scope = k8s_openapi::ClusterResourceScope>>() {}
    fn namespaced<K: Resource<Scope = k8s_openapi::NamespaceResourceScope>>() {}
    namespaced::<Certificate>();
    namespaced::<Issuer>();
    cluster_scoped::<ClusterIssuer>();
    assert_eq!(Certificate::api_version(&()), "cert-manager.io/v1");
}

#[test]
fn objects_encode_type_meta_and_only_what_is_set() {
    let certificate = Certificate::new(
        "web",
        CertificateSpec {
            secret_name: "web-tls".into(),
            issuer_ref: IssuerReference { name: "ca".into(), ..Default::default() },
            dns_names: Some(vec!["web.example.com".into()]),
            ..Default::default()
        },
    );
    assert_eq!(
        serde_json::to_value(&certificate).unwrap(),
        json!({
            "apiVersion": "cert-manager.io/v1",
            "kind": "Certificate",
            "metadata": {"name": "web"},
            "spec": {
                "secretName": "web-tls",
                "issuerRef": {"name": "ca"},
                "dnsNames": ["web.example.com"],
            },
        })
    );
    let issuer = Issuer::new(
        "self",
        IssuerSpec {
            config: IssuerConfig {
                self_signed: Some(SelfSignedIssuer::default()),
                ..Default::default()
            },
        },
    );
    assert_eq!(
        serde_json::to_value(&issuer).unwrap(),
        json!({
            "apiVersion": "cert-manager.io/v1",
            "kind": "Issuer",
            "metadata": {"name": "self"},
            "spec": {"selfSigned": {}},
        })
    );
}

#[test]
fn the_issuer_configuration_is_inlined_in_both_specs_and_other_types_round_trip() {
    let spec = json!({
        "ca": {"secretName": "root", "ocspServers": ["http://ocsp"]},
        "vault": {"server": "https://vault", "auth": {"tokenSecretRef": {"name": "t", "key": "k"}}},
        "venafi": {"zone": "z", "unknownToCertgate": [1, {"x": null}]},
    });
    let namespaced: IssuerSpec = serde_json::from_value(spec.clone()).unwrap();
    let cluster: ClusterIssuerSpec = serde_json::from_value(spec.clone()).unwrap();
    assert_eq!(namespaced.config, cluster.config);
    assert_eq!(namespaced.config.ca.as_ref().unwrap().secret_name, "root");
    assert_eq!(namespaced.config.issuer_type(), Some("ca"));
    assert_eq!(
        namespaced.config.venafi.as_ref().unwrap()["unknownToCertgate"][1],
        json!({"x": null})
    );
    assert_eq!(serde_json::to_value(&namespaced).unwrap(), spec);
    assert_eq!(serde_json::to_value(&cluster).unwrap(), spec);
    assert_eq!(IssuerConfig::default().issuer_type(), None);
}

#[test]
fn unknown_enum_values_decode_as_written() {
    // The schema holds the known values; the types take a newer upstream's too.
    let spec: CertificateSpec = serde_json::from_value(json!({
        "secretName": "s",
        "issuerRef": {"name": "ca"},
        "privateKey": {"algorithm": "MLDSA65", "rotationPolicy": "Sometimes"},
        "usages": ["some future usage"],
    }))
    .unwrap();
    let key = spec.private_key_or_default();
    assert_eq!(key.algorithm.as_deref(), Some("MLDSA65"));
    // No documented default size for an algorithm this version does not know.
    assert_eq!(key.size, None);
    assert_eq!(key.rotation_policy.as_deref(), Some("Sometimes"));
    assert_eq!(spec.usages_or_default(), ["some future usage"]);
}

#[test]
fn private_key_defaults_follow_the_algorithm() {
    let key = |algorithm: Option<&str>, size: Option<i64>| {
        let key = CertificatePrivateKey {
            algorithm: algorithm.map(str::to_owned),
            size,
            ..Default::default()
        }
        .or_defaults();
        (key.algorithm.unwrap(), key.size)
    };
    assert_eq!(key(None, None), ("RSA".to_owned(), Some(2048)));
    assert_eq!(key(Some("RSA"), Some(4096)), ("RSA".to_owned(), Some(4096)));
    assert_eq!(key(Some("ECDSA"), None), ("ECDSA".to_owned(), Some(256)));
    assert_eq!(key(Some("Ed25519"), None), ("Ed25519".to_owned(), None));
    let set = CertificatePrivateKey {
        rotation_policy: Some("Never".into()),
        encoding: Some("PKCS8".into()),
        ..Default::default()
    }
    .or_defaults();
    assert_eq!(
        (set.rotation_policy.as_deref(), set.encoding.as_deref()),
        (Some("Never"), Some("PKCS8"))
    );
}

#[test]
fn spec_defaults_are_upstreams_documented_ones() {
    let spec = CertificateSpec::default();
    assert_eq!(spec.duration_or_default(), "2160h");
    assert_eq!(spec.usages_or_default(), ["digital signature", "key encipherment"]);
    assert_eq!(spec.revision_history_limit_or_default(), 1);
    assert!(spec.encode_usages_in_request_or_default());
    assert!(!spec.is_ca());
    let set = CertificateSpec {
        duration: Some("24h".into()),
        revision_history_limit: Some(5),
        encode_usages_in_request: Some(false),
        is_ca: Some(true),
        ..Default::default()
    };
    assert_eq!(set.duration_or_default(), "24h");
    assert_eq!(set.revision_history_limit_or_default(), 5);
    assert!(!set.encode_usages_in_request_or_default());
    assert!(set.is_ca());
}

#[test]
fn a_spec_without_its_required_fields_decodes_as_gos_zero_value() {
    let spec: CertificateSpec = serde_json::from_value(json!({})).unwrap();
    assert_eq!(spec, CertificateSpec::default());
    // A nested required field has no such leniency: the schema always requires it.
    assert!(serde_json::from_value::<CaIssuer>(json!({})).is_err());
    assert!(serde_json::from_value::<JksKeystore>(json!({"alias": "a"})).is_err());
}

#[test]
fn conditions_are_found_by_type() {
    let status: CertificateStatus = serde_json::from_value(json!({
        "conditions": [
            {"type": "Ready", "status": "False", "reason": "DoesNotExist"},
            {"type": "Issuing", "status": "True", "observedGeneration": 4},
        ],
    }))
    .unwrap();
    assert!(!status.is_ready());
    let issuing = status.condition(condition_type::ISSUING).unwrap();
    assert!(issuing.is_true());
    assert_eq!(issuing.observed_generation, Some(4));
    assert!(status.condition("Other").is_none());
    assert!(!IssuerStatus::default().is_ready());
}
