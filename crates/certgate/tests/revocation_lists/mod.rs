//! Signed test CRLs, shared by the CRL tests (`crl.rs`) and the Envoy end-to-end test
//! (`envoy_edge.rs`): fixed dates, so every run builds the same lists.

use rcgen::{
    CertificateRevocationListParams, Issuer, KeyIdMethod, KeyPair, RevocationReason,
    RevokedCertParams, SerialNumber, date_time_ymd,
};

/// A PEM CRL valid from `from` to `to`, revoking `serials` (key compromise, at `from`), with
/// `kid` as its authority key identifier and CRL number `number`, signed by `signer`
/// (normally the CA itself).
pub fn crl(
    signer: &Issuer<'_, &KeyPair>,
    kid: Vec<u8>,
    serials: &[u64],
    from: (i32, u8, u8),
    to: (i32, u8, u8),
    number: u64,
) -> String {
    CertificateRevocationListParams {
        this_update: date_time_ymd(from.0, from.1, from.2),
        next_update: date_time_ymd(to.0, to.1, to.2),
        crl_number: SerialNumber::from(number),
        issuing_distribution_point: None,
        revoked_certs: serials
            .iter()
            .map(|serial| RevokedCertParams {
                serial_number: SerialNumber::from(*serial),
                revocation_time: date_time_ymd(from.0, from.1, from.2),
                reason_code: Some(RevocationReason::KeyCompromise),
                invalidity_date: None,
            })
            .collect(),
        key_identifier_method: KeyIdMethod::PreSpecified(kid),
    }
    .signed_by(signer)
    .unwrap()
    .pem()
    .unwrap()
}
