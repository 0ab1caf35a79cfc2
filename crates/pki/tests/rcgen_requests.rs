//! Requests built and signed by rcgen, one per key type, with every SAN kind rcgen can write.

mod common;

use certgate_pki::{
    AttributeValue, CsrError, KeyAlgorithm, OtherName, PublicKeyInfo, SubjectAttribute, decode_csr,
    parse_csr,
};
use common::fixture_text;
use rcgen::string::{BmpString, Ia5String, PrintableString, TeletexString, UniversalString};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, DnValue,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose, OtherNameValue, SanType,
    SignatureAlgorithm,
};

fn ia5(s: &str) -> Ia5String {
    Ia5String::try_from(s).unwrap()
}

fn params() -> CertificateParams {
    let mut params = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, "svc.example.com");
    dn.push(DnType::OrganizationName, "Example");
    params.distinguished_name = dn;
    params.subject_alt_names = vec![
        SanType::DnsName(ia5("svc.example.com")),
        SanType::Rfc822Name(ia5("ops@example.com")),
        SanType::URI(ia5("HTTPS://Example.com/a b")),
        SanType::IpAddress("10.1.2.3".parse().unwrap()),
        SanType::IpAddress("::ffff:10.9.8.7".parse().unwrap()),
        SanType::IpAddress("FE80:0:0:0:0:0:0:1".parse().unwrap()),
        SanType::OtherName((
            vec![1, 3, 6, 1, 4, 1, 311, 20, 2, 3],
            OtherNameValue::Utf8String("upn@corp.example".into()),
        )),
        SanType::DnsName(ia5("*.svc.example.com")),
    ];
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
        ExtendedKeyUsagePurpose::CodeSigning,
        ExtendedKeyUsagePurpose::EmailProtection,
        ExtendedKeyUsagePurpose::TimeStamping,
        ExtendedKeyUsagePurpose::OcspSigning,
        ExtendedKeyUsagePurpose::Any,
        ExtendedKeyUsagePurpose::Other(vec![1, 3, 6, 1, 5, 5, 7, 3, 17]),
    ];
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params
}

fn request_pem(params: &CertificateParams, key: &KeyPair) -> String {
    params.serialize_request(key).unwrap().pem().unwrap()
}

fn rsa_key(file: &str, alg: &'static SignatureAlgorithm) -> KeyPair {
    KeyPair::from_pem_and_sign_algo(&fixture_text(file), alg).unwrap()
}

fn keys() -> Vec<(&'static str, KeyPair, PublicKeyInfo)> {
    let info = |algorithm, size| PublicKeyInfo { algorithm, size };
    vec![
        (
            "RSA-2048/SHA-256",
            rsa_key("rsa2048.key", &rcgen::PKCS_RSA_SHA256),
            info(KeyAlgorithm::Rsa, 2048),
        ),
        (
            "RSA-3072/SHA-384",
            rsa_key("rsa3072.key", &rcgen::PKCS_RSA_SHA384),
            info(KeyAlgorithm::Rsa, 3072),
        ),
        (
            "RSA-4096/SHA-512",
            rsa_key("rsa4096.key", &rcgen::PKCS_RSA_SHA512),
            info(KeyAlgorithm::Rsa, 4096),
        ),
        (
            "P-256",
            KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap(),
            info(KeyAlgorithm::Ecdsa, 256),
        ),
        (
            "P-384",
            KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384).unwrap(),
            info(KeyAlgorithm::Ecdsa, 384),
        ),
        (
            "Ed25519",
            KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap(),
            info(KeyAlgorithm::Ed25519, -1),
        ),
    ]
}

#[test]
fn every_key_type_verifies_and_decodes_every_san_kind() {
    for (label, key, expected_key) in keys() {
        let csr = decode_csr(request_pem(&params(), &key).as_bytes())
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(csr.public_key, expected_key, "{label}");
        assert_eq!(csr.san.dns_names, ["svc.example.com", "*.svc.example.com"], "{label}");
        assert_eq!(csr.san.email_addresses, ["ops@example.com"], "{label}");
        assert_eq!(csr.san.uris, ["https://Example.com/a%20b"], "{label}");
        assert_eq!(csr.san.ip_addresses, ["10.1.2.3", "10.9.8.7", "fe80::1"], "{label}");
        assert_eq!(
            csr.san.other_names,
            [OtherName { oid: "1.3.6.1.4.1.311.20.2.3".into(), value: "upn@corp.example".into() }],
            "{label}"
        );
        assert!(csr.san.unsupported.is_empty(), "{label}");
        assert_eq!(csr.san_extension_count, 1, "{label}");
        assert_eq!(csr.basic_constraints_ca, Some(true), "{label}");
        assert_eq!(csr.key_usages, ["digital signature", "cert sign"], "{label}");
        assert_eq!(
            csr.ext_key_usages,
            [
                "server auth",
                "client auth",
                "code signing",
                "email protection",
                "timestamping",
                "ocsp signing",
                "any",
                "1.3.6.1.5.5.7.3.17",
            ],
            "{label}"
        );
    }
}

#[test]
fn der_input_is_accepted_too() {
    let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let request = params().serialize_request(&key).unwrap();
    let from_der = decode_csr(request.der()).unwrap();
    let from_pem = decode_csr(request.pem().unwrap().as_bytes()).unwrap();
    assert_eq!(from_der, from_pem);
}

#[test]
fn subject_string_types_rcgen_can_write() {
    let mut params = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(
        DnType::CommonName,
        DnValue::PrintableString(PrintableString::try_from("p (1)").unwrap()),
    );
    dn.push(DnType::OrganizationName, DnValue::BmpString(BmpString::try_from("Bmp Ω").unwrap()));
    dn.push(DnType::OrganizationalUnitName, DnValue::Ia5String(ia5("ia5")));
    dn.push(DnType::LocalityName, DnValue::TeletexString(TeletexString::try_from("tele").unwrap()));
    dn.push(
        DnType::StateOrProvinceName,
        DnValue::UniversalString(UniversalString::try_from("u").unwrap()),
    );
    dn.push(DnType::CustomDnType(vec![0, 9, 2342, 19200300, 100, 1, 25]), "dc");
    params.distinguished_name = dn;
    let key = KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap();
    let csr = decode_csr(request_pem(&params, &key).as_bytes()).unwrap();
    let string = |oid: &str, v: &str| SubjectAttribute {
        oid: oid.into(),
        value: AttributeValue::String(v.into()),
    };
    assert_eq!(
        csr.subject,
        [
            string("2.5.4.3", "p (1)"),
            string("2.5.4.10", "Bmp Ω"),
            string("2.5.4.11", "ia5"),
            string("2.5.4.7", "tele"),
            // UniversalString is not a string for Go's encoding/asn1.
            SubjectAttribute { oid: "2.5.4.8".into(), value: AttributeValue::NonString },
            string("0.9.2342.19200300.100.1.25", "dc"),
        ]
    );
    // No extension request at all.
    assert_eq!(csr.san_extension_count, 0);
    assert_eq!(csr.basic_constraints_ca, None);
}

#[test]
fn signature_from_another_key_does_not_verify() {
    // Swap the public key of one request into another: same structure, wrong signer.
    let a = KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap();
    let b = KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap();
    let der = params().serialize_request(&a).unwrap().der().to_vec();
    let a_pub = a.public_key_raw().to_vec();
    let b_pub = b.public_key_raw().to_vec();
    let at = der.windows(a_pub.len()).position(|w| w == a_pub).unwrap();
    let mut swapped = der.clone();
    swapped[at..at + b_pub.len()].copy_from_slice(&b_pub);
    assert!(parse_csr(&swapped).is_ok());
    assert_eq!(
        decode_csr(&swapped).unwrap_err(),
        CsrError::InvalidSignature { algorithm: "Ed25519 (1.3.101.112)".into() }
    );
}
