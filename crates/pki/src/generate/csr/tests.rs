use super::*;
use crate::generate::{KeySpec, generate_private_key};
use crate::issue::{RequestSpec, template_from_request};

fn key(algorithm: &str) -> Vec<u8> {
    let spec = KeySpec::from_fields(Some(algorithm), None, None).unwrap();
    generate_private_key(&spec).unwrap().pkcs8_der
}

fn spec() -> CsrSpec {
    CsrSpec {
        common_name: Some("app.example.com".to_owned()),
        subject: SubjectSpec { organizations: vec!["Example".to_owned()], ..Default::default() },
        dns_names: vec!["app.example.com".to_owned(), "www.example.com".to_owned()],
        ip_addresses: vec!["10.0.0.1".to_owned()],
        uris: vec!["spiffe://cluster.local/ns/a/sa/b".to_owned()],
        email_addresses: vec!["ops@example.com".to_owned()],
        usages: vec![],
        is_ca: false,
        encode_usages: true,
    }
}

#[test]
fn the_request_carries_the_names_subject_and_default_usages() {
    let pem = build_csr(&spec(), &key("ECDSA")).unwrap();
    let decoded = crate::decode_csr(pem.as_bytes()).unwrap();
    assert_eq!(decoded.san.dns_names, ["app.example.com", "www.example.com"]);
    assert_eq!(decoded.san.ip_addresses, ["10.0.0.1"]);
    assert_eq!(decoded.san.uris, ["spiffe://cluster.local/ns/a/sa/b"]);
    assert_eq!(decoded.san.email_addresses, ["ops@example.com"]);
    assert_eq!(decoded.key_usages, ["digital signature", "key encipherment"]);
    assert!(decoded.ext_key_usages.is_empty());
    let subject: Vec<_> = decoded.subject.iter().map(|a| a.oid.as_str()).collect();
    assert_eq!(subject, ["2.5.4.10", "2.5.4.3"]);
}

#[test]
fn a_ca_request_asks_for_cert_sign_and_basic_constraints() {
    let mut spec = spec();
    spec.is_ca = true;
    spec.usages = vec!["server auth".to_owned(), "client auth".to_owned()];
    let pem = build_csr(&spec, &key("RSA")).unwrap();
    let decoded = crate::decode_csr(pem.as_bytes()).unwrap();
    assert_eq!(decoded.basic_constraints_ca, Some(true));
    assert_eq!(decoded.key_usages, ["cert sign"]);
    assert_eq!(decoded.ext_key_usages, ["server auth", "client auth"]);
}

#[test]
fn usages_are_left_out_when_asked() {
    let mut spec = spec();
    spec.encode_usages = false;
    let pem = build_csr(&spec, &key("Ed25519")).unwrap();
    let decoded = crate::decode_csr(pem.as_bytes()).unwrap();
    assert!(!decoded.usage_extensions_present);
}

#[test]
fn the_ca_issuer_accepts_what_the_request_manager_makes() {
    for (usages, is_ca) in [
        (vec![], false),
        (vec!["client auth".to_owned(), "digital signature".to_owned()], false),
        (vec!["cert sign".to_owned()], true),
    ] {
        let mut spec = spec();
        spec.usages = usages.clone();
        spec.is_ca = is_ca;
        let pem = build_csr(&spec, &key("ECDSA")).unwrap();
        let request =
            RequestSpec { request: pem.as_bytes(), duration: None, usages: &usages, is_ca };
        template_from_request(&request, std::time::SystemTime::now())
            .unwrap_or_else(|e| panic!("{usages:?} {is_ca}: {e}"));
    }
}

#[test]
fn bad_names_and_usages_are_named() {
    let mut bad_ip = spec();
    bad_ip.ip_addresses = vec!["not-an-ip".to_owned()];
    assert_eq!(
        build_csr(&bad_ip, &key("ECDSA")).unwrap_err().to_string(),
        r#"spec.ipAddresses: "not-an-ip" is not valid: not an IP address"#
    );
    let mut bad_usage = spec();
    bad_usage.usages = vec!["flying".to_owned()];
    assert_eq!(
        build_csr(&bad_usage, &key("ECDSA")).unwrap_err().to_string(),
        r#"spec.usages: unknown usage "flying""#
    );
}
