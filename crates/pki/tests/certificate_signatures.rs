//! `signature::verify_certificate`: the one verifier applied to X.509 certificates, as the
//! webhook checks its CA and tests check leaves.

use certgate_pki::signature::{Policy, SignatureError, verify_certificate};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair,
    PKCS_ECDSA_P384_SHA384, PKCS_ED25519,
};

fn ca_params(name: &str) -> CertificateParams {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params
}

fn spki_of(der: &[u8]) -> Vec<u8> {
    let (_, cert) = x509_parser::parse_x509_certificate(der).unwrap();
    cert.public_key().raw.to_vec()
}

#[test]
fn self_signed_certificates_verify_under_both_policies() {
    for key in [
        KeyPair::generate().unwrap(),
        KeyPair::generate_for(&PKCS_ECDSA_P384_SHA384).unwrap(),
        KeyPair::generate_for(&PKCS_ED25519).unwrap(),
    ] {
        let cert = ca_params("root").self_signed(&key).unwrap();
        for policy in [Policy::Go, Policy::Ring] {
            assert_eq!(verify_certificate(cert.der(), None, policy), Ok(()), "{policy:?}");
        }
    }
}

#[test]
fn an_issued_certificate_verifies_with_its_issuer_only() {
    let root =
        CertifiedIssuer::self_signed(ca_params("root"), KeyPair::generate().unwrap()).unwrap();
    let root_spki = spki_of(root.der());
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["a.example".to_string()])
        .unwrap()
        .signed_by(&key, &root)
        .unwrap();
    assert_eq!(verify_certificate(leaf.der(), Some(&root_spki), Policy::Ring), Ok(()));
    let err = verify_certificate(leaf.der(), None, Policy::Ring).unwrap_err();
    assert_eq!(
        err,
        SignatureError::Invalid { algorithm: "ecdsa-with-SHA256 (1.2.840.10045.4.3.2)".into() }
    );
    assert_eq!(
        err.to_string(),
        "the ecdsa-with-SHA256 (1.2.840.10045.4.3.2) signature does not verify with the \
         signer's public key"
    );
}

#[test]
fn wrong_keys_and_broken_certificates_are_named() {
    let cert = ca_params("root").self_signed(&KeyPair::generate().unwrap()).unwrap();
    let ed = ca_params("ed").self_signed(&KeyPair::generate_for(&PKCS_ED25519).unwrap()).unwrap();
    let err = verify_certificate(cert.der(), Some(&spki_of(ed.der())), Policy::Ring).unwrap_err();
    assert_eq!(
        err.to_string(),
        "signature algorithm ecdsa-with-SHA256 (1.2.840.10045.4.3.2) cannot be verified: it \
         needs an ECDSA public key, but the signer has an Ed25519 key"
    );
    let mut tampered = cert.der().to_vec();
    tampered.push(0);
    assert_eq!(
        verify_certificate(&tampered, None, Policy::Ring).unwrap_err().to_string(),
        "the certificate does not parse: 1 bytes follow the certificate"
    );
    assert!(matches!(
        verify_certificate(&cert.der()[..40], None, Policy::Ring),
        Err(SignatureError::Certificate { .. })
    ));
}
