//! Keys and certificates: parseable PEM with the requested names; never fixed values.
mod common;
use common::*;

use certgate_gotemplate::Value;
use x509_parser::extensions::GeneralName;
use x509_parser::pem::parse_x509_pem;

fn field(v: &Value, k: &str) -> String {
    v.field(k).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn parse(pem_text: &str) -> x509_parser::pem::Pem {
    let (_, pem) = parse_x509_pem(pem_text.as_bytes()).expect("PEM");
    pem
}

#[test]
fn private_keys() {
    let ec = ok("genPrivateKey", &[s("ecdsa")]);
    let ec = ec.as_str().unwrap_or_default();
    assert!(ec.starts_with("-----BEGIN EC PRIVATE KEY-----\n"), "{ec}");
    let ed = ok("genPrivateKey", &[s("ed25519")]);
    assert!(ed.as_str().unwrap_or_default().starts_with("-----BEGIN PRIVATE KEY-----\n"));
    assert_eq!(ok("genPrivateKey", &[s("rsa2")]), s("Unknown type rsa2"));
    assert!(call_err("genPrivateKey", &[s("dsa")]).contains("not available in certgate"));
    // Generated keys are usable with the *WithKey functions.
    let ca = ok("genCAWithKey", &[s("ec-ca"), i(30), s(ec)]);
    assert_eq!(field(&ca, "Key"), ec);
    let pem = parse(&field(&ca, "Cert"));
    let cert = pem.parse_x509().expect("certificate");
    assert_eq!(cert.subject().to_string(), "CN=ec-ca");
    assert!(cert.is_ca());
}

#[test]
fn ca_and_signed_certificates() {
    let ca = ok("genCA", &[s("my-ca"), i(365)]);
    assert!(field(&ca, "Key").starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
    let ca_pem = parse(&field(&ca, "Cert"));
    let ca_cert = ca_pem.parse_x509().expect("ca");
    assert_eq!(ca_cert.subject().to_string(), "CN=my-ca");
    assert!(ca_cert.is_ca());
    let days = (ca_cert.validity().not_after.timestamp()
        - ca_cert.validity().not_before.timestamp())
        / 86_400;
    assert_eq!(days, 365);

    let ed = ok("genPrivateKey", &[s("ed25519")]);
    let leaf = ok(
        "genSignedCertWithKey",
        &[s("leaf"), l(vec![s("10.0.0.1")]), sl(&["a.example.com"]), i(10), ca.clone(), ed.clone()],
    );
    let leaf_pem = parse(&field(&leaf, "Cert"));
    let leaf_cert = leaf_pem.parse_x509().expect("leaf");
    assert_eq!(leaf_cert.issuer().to_string(), "CN=my-ca");
    assert!(!leaf_cert.is_ca());
    let san = leaf_cert.subject_alternative_name().ok().flatten().expect("SAN");
    let names: Vec<String> = san
        .value
        .general_names
        .iter()
        .map(|n| match n {
            GeneralName::DNSName(d) => d.to_string(),
            GeneralName::IPAddress(ip) => format!("{ip:?}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(names, vec!["[10, 0, 0, 1]".to_string(), "a.example.com".to_string()]);
    leaf_cert.verify_signature(Some(ca_cert.public_key())).expect("signed by the CA");

    let ed_key = ed.as_str().unwrap_or_default().to_string();
    let me = ok("genSelfSignedCertWithKey", &[s("me"), nil(), nil(), i(1), ed]);
    let me_pem = parse(&field(&me, "Cert"));
    assert_eq!(me_pem.parse_x509().expect("self-signed").issuer().to_string(), "CN=me");

    let b64 = |t: &str| {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD.encode(t)
    };
    let custom =
        ok("buildCustomCert", &[s(&b64(&field(&me, "Cert"))), s(&b64(&field(&me, "Key")))]);
    assert_eq!(field(&custom, "Cert"), field(&me, "Cert"));
    err_table(&[
        ("buildCustomCert", vec![s("!"), s("")], "unable to decode base64 certificate"),
        ("buildCustomCert", vec![s(&b64("x")), s(&b64("y"))], "unable to decode certificate"),
        (
            "genSelfSignedCert",
            vec![s("x"), sl(&["not-an-ip"]), nil(), i(1)],
            "error parsing ip: not-an-ip",
        ),
        (
            "genCAWithKey",
            vec![s("x"), i(1), s("junk")],
            "parsing private key: no PEM data in input",
        ),
        (
            "genSelfSignedCertWithKey",
            vec![s("x"), l(vec![i(1)]), nil(), i(1), s(ed_key.as_str())],
            "error parsing ip: 1 is not a string",
        ),
        (
            "genSelfSignedCertWithKey",
            vec![s("x"), nil(), l(vec![b(true)]), i(1), s(ed_key.as_str())],
            "error processing alternate dns name: true is not a string",
        ),
    ]);
}

#[test]
fn huge_validity_is_an_error() {
    let ed = ok("genPrivateKey", &[s("ed25519")]);
    assert_eq!(
        call_err("genCAWithKey", &[s("x"), i(i64::MAX), ed]),
        format!("daysValid {} is out of range", i64::MAX)
    );
}
