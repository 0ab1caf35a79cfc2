//! Contour's shallow Secret checks (spec §2), called directly.

use certgate_ingress::secrets::{PemError, validate_crl_bundle};
use certgate_ingress::{
    Secret, SecretError, validate_ca_secret, validate_crl_secret, validate_tls_secret,
};

fn crl(data: &[u8]) -> Result<(), PemError> {
    validate_crl_bundle(data)
}

#[test]
fn crl_walk_edge_cases() {
    let good = b"-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n";
    assert_eq!(crl(good), Ok(()));
    // Malformed candidates are skipped by the decoder when a good block follows.
    let mut skipped = b"-----BEGIN X509 CRL-----\n@@\n-----END X509 CRL-----\n".to_vec();
    skipped.extend_from_slice(good);
    assert_eq!(crl(&skipped), Ok(()));
    // Nothing after the first CRL is examined.
    let mut trailing = good.to_vec();
    trailing.extend_from_slice(b"-----BEGIN BROKEN\n");
    assert_eq!(crl(&trailing), Ok(()));
    // Mismatched END label.
    assert_eq!(
        crl(b"-----BEGIN X509 CRL-----\nAAAA\n-----END CERTIFICATE-----\n"),
        Err(PemError::ParseBlock)
    );
    // A BEGIN line not at a line start is not a block.
    assert_eq!(
        crl(b"x-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n"),
        Err(PemError::ParseBlock)
    );
    // Headers are allowed; CRLF line ends too.
    assert_eq!(
        crl(b"-----BEGIN X509 CRL-----\r\nProc-Type: 4\r\n\r\nAAAA\r\n-----END X509 CRL-----\r\n"),
        Ok(())
    );
    assert_eq!(crl(b""), Err(PemError::NoCrl));
}

#[test]
fn secret_level_messages() {
    let wrong = Secret::new("ns", "s", "Opaque2").with_data("crl.pem", "x");
    assert_eq!(
        validate_crl_secret(&wrong).unwrap_err().to_string(),
        "secret type is not \"kubernetes.io/tls\" or \"Opaque\""
    );
    let empty = Secret::new("ns", "s", "Opaque").with_data("crl.pem", "");
    assert_eq!(validate_crl_secret(&empty).unwrap_err().to_string(), "empty \"crl.pem\" key");
    let ca = Secret::new("ns", "s", "Opaque").with_data(
        "ca.crt",
        "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n",
    );
    assert_eq!(
        validate_ca_secret(&ca).unwrap_err().to_string(),
        "invalid CA certificate bundle: unexpected block type 'RSA PRIVATE KEY'"
    );
    let tls = Secret::new("ns", "s", "kubernetes.io/tls").with_data("tls.key", "k");
    assert_eq!(validate_tls_secret(&tls).unwrap_err(), SecretError::MissingTlsCertificate);
    let tls = Secret::new("ns", "s", "kubernetes.io/tls").with_data("tls.crt", "");
    assert_eq!(
        validate_tls_secret(&tls).unwrap_err().to_string(),
        "invalid TLS certificate: failed to locate certificate"
    );
}

#[test]
fn secret_from_manifest_defaults() {
    let value = serde_json::json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"},
        "data": {"crl.pem": "eA=="}, "stringData": {"ca.crt": "plain"}});
    let secret = Secret::from_value(&value).unwrap();
    assert_eq!(secret.namespace, "default");
    assert_eq!(secret.type_, "Opaque");
    assert_eq!(secret.data["crl.pem"], b"x");
    assert_eq!(secret.data["ca.crt"], b"plain");
}
