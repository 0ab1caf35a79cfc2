//! Regenerates the PEM fixtures in tests/fixtures (run with `--ignored`); the files are kept so
//! golden outputs stay byte-stable.

use rcgen::{
    BasicConstraints, CertificateParams, CertificateRevocationListParams, DnType, IsCa, Issuer,
    KeyIdMethod, KeyPair, KeyUsagePurpose, RevocationReason, RevokedCertParams, SerialNumber,
    date_time_ymd,
};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

#[test]
#[ignore = "writes fixtures; run on purpose"]
fn generate_fixtures() {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.distinguished_name.push(DnType::CommonName, "client-root-ca");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca_params.not_before = date_time_ymd(2026, 1, 1);
    ca_params.not_after = date_time_ymd(2036, 1, 1);
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);

    let crl = CertificateRevocationListParams {
        this_update: date_time_ymd(2026, 1, 1),
        next_update: date_time_ymd(2036, 1, 1),
        crl_number: SerialNumber::from(1u64),
        issuing_distribution_point: None,
        revoked_certs: vec![RevokedCertParams {
            serial_number: SerialNumber::from(5000u64),
            revocation_time: date_time_ymd(2026, 1, 2),
            reason_code: Some(RevocationReason::KeyCompromise),
            invalidity_date: None,
        }],
        key_identifier_method: KeyIdMethod::Sha256,
    }
    .signed_by(&issuer)
    .unwrap();

    let server_key = KeyPair::generate().unwrap();
    let mut server_params = CertificateParams::new(vec!["example.com".to_string()]).unwrap();
    server_params.distinguished_name.push(DnType::CommonName, "example.com");
    server_params.not_before = date_time_ymd(2026, 1, 1);
    server_params.not_after = date_time_ymd(2036, 1, 1);
    let server_cert = server_params.signed_by(&server_key, &issuer).unwrap();

    std::fs::create_dir_all(DIR).unwrap();
    std::fs::write(format!("{DIR}/ca.crt"), ca_cert.pem()).unwrap();
    std::fs::write(format!("{DIR}/crl.pem"), crl.pem().unwrap()).unwrap();
    std::fs::write(format!("{DIR}/tls.crt"), server_cert.pem()).unwrap();
    std::fs::write(format!("{DIR}/tls.key"), server_key.serialize_pem()).unwrap();
}
