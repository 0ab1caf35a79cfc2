use super::*;
use crate::issue::parse_private_key;

fn generated(algorithm: Option<&str>, size: Option<i64>, encoding: Option<&str>) -> GeneratedKey {
    let spec = KeySpec::from_fields(algorithm, size, encoding).unwrap();
    generate_private_key(&spec).unwrap()
}

fn label(pem: &str) -> &str {
    pem.lines().next().unwrap()
}

#[test]
fn defaults_are_rsa_2048_pkcs1() {
    assert_eq!(
        KeySpec::from_fields(None, None, None),
        Ok(KeySpec { key_type: KeyType::Rsa(2048), encoding: KeyEncoding::Pkcs1 })
    );
    assert_eq!(
        KeySpec::from_fields(Some("ECDSA"), Some(0), Some("PKCS8")),
        Ok(KeySpec { key_type: KeyType::Ecdsa(256), encoding: KeyEncoding::Pkcs8 })
    );
}

#[test]
fn unsupported_specs_are_refused_with_cert_managers_words() {
    let err = |a, s, e| KeySpec::from_fields(a, s, e).unwrap_err().to_string();
    assert_eq!(err(Some("ECDSA"), Some(512), None), "unsupported ecdsa keysize specified: 512");
    assert_eq!(err(Some("DSA"), None, None), "unsupported private key algorithm specified: DSA");
    assert_eq!(
        err(None, Some(1024), None),
        "RSA key size must be between 2048 and 8192 bits, got 1024"
    );
    assert_eq!(err(None, None, Some("DER")), "unsupported private key encoding specified: DER");
}

#[test]
fn every_generated_key_reads_back_as_the_type_asked_for() {
    /// algorithm, size, encoding, PEM label, type read back.
    type Case =
        (Option<&'static str>, Option<i64>, Option<&'static str>, &'static str, &'static str);
    let cases: [Case; 6] = [
        (None, None, None, "-----BEGIN RSA PRIVATE KEY-----", "RSA 2048"),
        (None, None, Some("PKCS8"), "-----BEGIN PRIVATE KEY-----", "RSA 2048"),
        (Some("ECDSA"), None, None, "-----BEGIN EC PRIVATE KEY-----", "ECDSA P-256"),
        (Some("ECDSA"), Some(384), None, "-----BEGIN EC PRIVATE KEY-----", "ECDSA P-384"),
        (Some("ECDSA"), Some(384), Some("PKCS8"), "-----BEGIN PRIVATE KEY-----", "ECDSA P-384"),
        (Some("Ed25519"), None, None, "-----BEGIN PRIVATE KEY-----", "Ed25519"),
    ];
    for (algorithm, size, encoding, want_label, want_algorithm) in cases {
        let key = generated(algorithm, size, encoding);
        assert_eq!(label(&key.pem), want_label, "{algorithm:?} {size:?} {encoding:?}");
        let parsed = parse_private_key(key.pem.as_bytes()).unwrap();
        assert_eq!(parsed.algorithm(), want_algorithm);
        // The PKCS#8 form is the same key: the same public half.
        let again = parse_private_key(crate::pem::encode("PRIVATE KEY", &key.pkcs8_der).as_bytes())
            .unwrap();
        assert_eq!(parsed.public_key_info(), again.public_key_info());
    }
}

#[test]
fn two_keys_differ() {
    let a = generated(Some("ECDSA"), None, None);
    let b = generated(Some("ECDSA"), None, None);
    assert_ne!(a.pem, b.pem);
}

#[test]
fn debug_hides_the_key() {
    assert_eq!(format!("{:?}", generated(Some("Ed25519"), None, None)), "GeneratedKey { .. }");
}

#[test]
fn malformed_pkcs8_is_an_error_not_a_panic() {
    for input in [&[][..], &[0x30], &[0x30, 0x85, 1, 2, 3, 4, 5], &[0x30, 0x02, 0x02, 0x00]] {
        assert!(sec1_from_pkcs8(input, P256_OID).is_err());
        assert!(ed25519_seed(input).is_err());
    }
}

#[test]
fn every_encoding_converts_back_to_the_same_pkcs8_key() {
    for (algorithm, encoding) in [
        (None, None),
        (Some("ECDSA"), None),
        (Some("ECDSA"), Some("PKCS8")),
        (Some("Ed25519"), None),
    ] {
        let key = generated(algorithm, None, encoding);
        let pkcs8 = key_to_pkcs8(key.pem.as_bytes()).unwrap();
        let back = parse_private_key(crate::pem::encode("PRIVATE KEY", &pkcs8).as_bytes()).unwrap();
        let original = parse_private_key(key.pem.as_bytes()).unwrap();
        assert_eq!(
            back.public_key_info(),
            original.public_key_info(),
            "{algorithm:?} {encoding:?}"
        );
        // rcgen (ring) signs with it.
        rcgen::KeyPair::try_from(pkcs8.as_slice()).unwrap();
    }
}

#[test]
fn a_stored_key_that_is_not_a_key_is_an_error() {
    assert!(key_to_pkcs8(b"nothing").is_err());
    assert!(
        key_to_pkcs8(b"-----BEGIN EC PRIVATE KEY-----\nMAA=\n-----END EC PRIVATE KEY-----\n")
            .is_err()
    );
    assert!(
        key_to_pkcs8(b"-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n").is_err()
    );
}
