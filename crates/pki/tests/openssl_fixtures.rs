//! Requests produced by `openssl req` (see tests/fixtures/README.md).

mod common;

use certgate_pki::{
    AttributeValue, CsrError, KeyAlgorithm, PublicKeyInfo, SanEntries, SubjectAttribute,
    decode_csr, parse_csr,
};
use common::fixture;

fn attr(oid: &str, value: &str) -> SubjectAttribute {
    SubjectAttribute { oid: oid.into(), value: AttributeValue::String(value.into()) }
}

#[test]
fn rsa_2048_with_every_common_san_kind() {
    let csr = decode_csr(&fixture("rsa2048-sans.csr")).unwrap();
    assert_eq!(
        csr.subject,
        [
            attr("2.5.4.6", "GB"),
            attr("2.5.4.10", "Example Org"),
            attr("2.5.4.11", "Team A"),
            attr("2.5.4.11", "Team B"),
            attr("2.5.4.3", "app.example.com"),
        ]
    );
    assert_eq!(
        csr.san,
        SanEntries {
            dns_names: vec!["app.example.com".into(), "*.app.example.com".into()],
            ip_addresses: vec!["192.0.2.10".into(), "2001:db8::1".into()],
            uris: vec!["spiffe://cluster.local/ns/default/sa/app".into()],
            email_addresses: vec!["ops@example.com".into()],
            other_names: vec![],
            unsupported: vec![],
        }
    );
    assert_eq!(csr.san_extension_count, 1);
    assert_eq!(csr.san_decode_error, None);
    assert_eq!(csr.public_key, PublicKeyInfo { algorithm: KeyAlgorithm::Rsa, size: 2048 });
    assert_eq!(csr.basic_constraints_ca, Some(false));
    assert_eq!(csr.key_usages, ["digital signature", "key encipherment"]);
    assert_eq!(csr.ext_key_usages, ["server auth", "client auth"]);
    assert!(csr.usage_extensions_present);
}

#[test]
fn rsa_pss_and_legacy_1024_bit_rsa_verify() {
    let pss = decode_csr(&fixture("rsa2048-pss.csr")).unwrap();
    assert_eq!(pss.public_key, PublicKeyInfo { algorithm: KeyAlgorithm::Rsa, size: 2048 });
    let legacy = decode_csr(&fixture("rsa1024.csr")).unwrap();
    assert_eq!(legacy.public_key, PublicKeyInfo { algorithm: KeyAlgorithm::Rsa, size: 1024 });
    assert_eq!(legacy.subject, [attr("2.5.4.3", "legacy.example.com")]);
}

#[test]
fn ecdsa_p384() {
    let csr = decode_csr(&fixture("p384.csr")).unwrap();
    assert_eq!(csr.public_key, PublicKeyInfo { algorithm: KeyAlgorithm::Ecdsa, size: 384 });
    assert_eq!(csr.san.dns_names, ["p384.example.com"]);
    assert_eq!(csr.key_usages, Vec::<String>::new());
    assert!(!csr.usage_extensions_present);
    assert_eq!(csr.basic_constraints_ca, None);
}

#[test]
fn ecdsa_p521_with_sha512_and_sha256() {
    for name in ["p521-sha512.csr", "p521-sha256.csr"] {
        let csr = decode_csr(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(csr.public_key, PublicKeyInfo { algorithm: KeyAlgorithm::Ecdsa, size: 521 });
    }
}

#[test]
fn ed25519() {
    let csr = decode_csr(&fixture("ed25519.csr")).unwrap();
    assert_eq!(csr.public_key, PublicKeyInfo { algorithm: KeyAlgorithm::Ed25519, size: -1 });
    assert_eq!(csr.san.dns_names, ["ed25519.example.com"]);
    assert_eq!(csr.subject, [attr("2.5.4.3", "ed25519.example.com")]);
}

#[test]
fn p256_with_sha512_parses_but_cannot_be_verified() {
    let input = fixture("p256-sha512.csr");
    assert_eq!(parse_csr(&input).unwrap().public_key.size, 256);
    let err = decode_csr(&input).unwrap_err();
    assert_eq!(
        err.to_string(),
        "certificate request signature algorithm ecdsa-with-SHA512 (1.2.840.10045.4.3.4) cannot be \
         verified: ECDSA with SHA-512 on a P-256 key is not supported; use SHA-256 or SHA-384 \
         (SHA-256, SHA-384 or SHA-512 on P-521)"
    );
}

#[test]
fn secp256k1_key_is_rejected_like_go() {
    let err = parse_csr(&fixture("secp256k1.csr")).unwrap_err();
    assert_eq!(
        err,
        CsrError::PublicKey { reason: "unsupported elliptic curve 1.3.132.0.10".into() }
    );
    assert_eq!(
        err.to_string(),
        "certificate request public key is invalid: unsupported elliptic curve 1.3.132.0.10"
    );
}
