//! New CA certificates and keys (ECDSA P-256, PKCS#8), never written anywhere but the Secret.

use std::time::{Duration, SystemTime};

use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, IsCa, KeyPair, KeyUsagePurpose,
};

use super::error::GenerateError;
use super::validity::Validity;

/// The CA's common name, as cert-manager names its webhook's (`cert-manager-webhook-ca`).
pub const CA_COMMON_NAME: &str = "certgate-webhook-ca";

/// A freshly generated CA certificate and its private key, as PEM.
pub struct GeneratedCa {
    pub cert_pem: String,
    pub key_pem: String,
}

impl std::fmt::Debug for GeneratedCa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeneratedCa").field("cert_pem", &self.cert_pem).finish_non_exhaustive()
    }
}

/// A self-signed CA valid from `now` (backdated, see [`Validity::issued`]) for `duration`,
/// allowed to sign end-entity certificates only (path length 0).
pub fn generate_ca(now: SystemTime, duration: Duration) -> Result<GeneratedCa, GenerateError> {
    let rcgen = |what| move |source| GenerateError::Rcgen { what, source };
    let mut params =
        CertificateParams::new(Vec::<String>::new()).map_err(rcgen("CA certificate"))?;
    params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    params.distinguished_name = DistinguishedName::new();
    params.distinguished_name.push(DnType::CommonName, CA_COMMON_NAME);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let validity = Validity::issued(now, duration, None);
    params.not_before = validity.not_before.into();
    params.not_after = validity.not_after.into();
    let key = KeyPair::generate().map_err(rcgen("CA key"))?;
    let cert = params.self_signed(&key).map_err(rcgen("CA certificate"))?;
    Ok(GeneratedCa { cert_pem: cert.pem(), key_pem: key.serialize_pem() })
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use super::*;
    use crate::dynamic_serving::certs::first_ca;

    #[test]
    fn generates_a_self_signed_ca_for_the_duration() {
        let now = UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let ca = generate_ca(now, Duration::from_secs(8_760 * 3_600)).unwrap();
        let parsed = first_ca("tls.crt", ca.cert_pem.as_bytes()).unwrap();
        assert_eq!(
            parsed.validity,
            Validity::issued(now, Duration::from_secs(8_760 * 3_600), None)
        );
        assert!(ca.key_pem.starts_with("-----BEGIN PRIVATE KEY-----\n"));
        assert!(!format!("{ca:?}").contains("PRIVATE KEY"));
        let other = generate_ca(now, Duration::from_secs(60)).unwrap();
        assert_ne!(other.key_pem, ca.key_pem);
    }
}
