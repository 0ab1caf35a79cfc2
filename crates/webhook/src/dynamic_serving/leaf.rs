//! The serving (leaf) certificate each replica signs for itself, in memory: a new ECDSA P-256
//! key every time, never stored. It is renewed at 2/3 of its lifetime, and as soon as the CA
//! changes.

use std::time::{Duration, SystemTime};

use rcgen::{
    CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, Issuer, KeyPair,
    KeyUsagePurpose,
};
use rustls::pki_types::CertificateDer;
use x509_parser::prelude::{FromDer, X509Certificate};

use super::error::GenerateError;
use super::names::ServingNames;
use super::secret::Authority;
use super::validity::Validity;
use certgate_serving::PemPair;

/// The longest common name X.509 allows; longer first names are left out of the subject.
const MAX_COMMON_NAME: usize = 64;

/// A signed serving certificate and what it was signed with.
#[derive(Clone, Debug)]
pub struct Leaf {
    /// The certificate (PEM) and its key, for the server. Its `Debug` hides the key.
    pub pair: PemPair,
    pub validity: Validity,
    /// Hexadecimal serial number, for logs.
    pub serial: String,
    ca_der: Vec<u8>,
}

impl Leaf {
    /// The DER of the CA certificate that signed this leaf.
    pub fn ca_der(&self) -> &[u8] {
        &self.ca_der
    }
}

/// Why a new leaf is signed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeafReason {
    /// None was signed yet.
    First,
    /// The CA is not the one that signed the current leaf.
    CaChanged,
    /// 2/3 of the current leaf's lifetime have passed.
    RenewalDue,
}

impl LeafReason {
    pub fn as_str(self) -> &'static str {
        match self {
            LeafReason::First => "first",
            LeafReason::CaChanged => "the CA changed",
            LeafReason::RenewalDue => "2/3 of its lifetime passed",
        }
    }
}

/// Whether `current` must be replaced at `now`, given the CA now in use.
pub fn leaf_due(
    current: Option<&Leaf>,
    authority: &Authority,
    now: SystemTime,
) -> Option<LeafReason> {
    match current {
        None => Some(LeafReason::First),
        Some(leaf) if leaf.ca_der != authority.certificate().der => Some(LeafReason::CaChanged),
        Some(leaf) if leaf.validity.renewal_due(now) => Some(LeafReason::RenewalDue),
        Some(_) => None,
    }
}

/// Signs a serving certificate for `names` with `authority`, valid from `now` (backdated)
/// for `duration` but never past the CA's own expiry.
pub fn sign_leaf(
    authority: &Authority,
    names: &ServingNames,
    now: SystemTime,
    duration: Duration,
) -> Result<Leaf, GenerateError> {
    let rcgen = |what| move |source| GenerateError::Rcgen { what, source };
    let ca = authority.certificate();
    let issuer =
        Issuer::from_ca_cert_der(&CertificateDer::from(ca.der.as_slice()), authority.key_pair()?)
            .map_err(|source| GenerateError::Issuer { source })?;

    let mut params =
        CertificateParams::new(names.as_slice().to_vec()).map_err(rcgen("serving certificate"))?;
    params.distinguished_name = DistinguishedName::new();
    if let Some(first) = names.as_slice().first().filter(|n| n.len() <= MAX_COMMON_NAME) {
        params.distinguished_name.push(DnType::CommonName, first.as_str());
    }
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.use_authority_key_identifier_extension = true;
    let validity = Validity::issued(now, duration, Some(ca.validity.not_after));
    params.not_before = validity.not_before.into();
    params.not_after = validity.not_after.into();

    let key = KeyPair::generate().map_err(rcgen("serving key"))?;
    let cert = params.signed_by(&key, &issuer).map_err(rcgen("serving certificate"))?;
    let serial = X509Certificate::from_der(cert.der())
        .map(|(_, parsed)| parsed.raw_serial_as_string())
        .unwrap_or_default();
    Ok(Leaf {
        pair: PemPair { cert: cert.pem().into_bytes(), key: key.serialize_pem().into_bytes() },
        validity,
        serial,
        ca_der: ca.der.clone(),
    })
}

#[cfg(test)]
mod tests {
    use std::time::UNIX_EPOCH;

    use certgate_pki::signature::Policy;

    use super::*;
    use crate::dynamic_serving::plan::{CaPlan, plan_ca};

    const HOUR: Duration = Duration::from_secs(3_600);

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    fn authority(at: SystemTime, duration: Duration) -> Authority {
        match plan_ca(None, at, duration).unwrap() {
            CaPlan::Write { authority, .. } => authority,
            CaPlan::Use(_) => unreachable!("no Secret means a new CA"),
        }
    }

    fn names() -> ServingNames {
        ServingNames::parse(&["webhook.certgate.svc", "127.0.0.1"]).unwrap()
    }

    #[test]
    fn is_signed_by_the_ca_for_the_names() {
        let ca = authority(now(), 100 * HOUR);
        let leaf = sign_leaf(&ca, &names(), now(), 10 * HOUR).unwrap();
        assert_eq!(leaf.ca_der(), ca.certificate().der);
        assert_eq!(leaf.validity, Validity::issued(now(), 10 * HOUR, None));
        let der = der_of(&leaf.pair.cert);
        let (_, cert) = X509Certificate::from_der(&der).unwrap();
        let (_, ca_cert) = X509Certificate::from_der(&ca.certificate().der).unwrap();
        let ca_key = Some(ca_cert.public_key().raw);
        certgate_pki::signature::verify_certificate(&der, ca_key, Policy::Ring).unwrap();
        assert_eq!(cert.issuer(), ca_cert.subject());
        let sans = cert.subject_alternative_name().unwrap().unwrap();
        assert_eq!(sans.value.general_names.len(), 2);
        assert!(!cert.is_ca());
        certgate_serving::server_config(&leaf.pair).unwrap();
        assert!(!format!("{leaf:?}").contains("PRIVATE KEY"));
    }

    #[test]
    fn never_outlives_its_ca() {
        let ca = authority(now(), HOUR);
        let leaf = sign_leaf(&ca, &names(), now(), 168 * HOUR).unwrap();
        assert_eq!(leaf.validity.not_after, ca.validity().not_after);
    }

    #[test]
    fn each_leaf_has_its_own_key() {
        let ca = authority(now(), 100 * HOUR);
        let a = sign_leaf(&ca, &names(), now(), HOUR).unwrap();
        let b = sign_leaf(&ca, &names(), now(), HOUR).unwrap();
        assert_ne!(a.pair.key, b.pair.key);
        assert_ne!(a.serial, b.serial);
    }

    #[test]
    fn is_renewed_at_two_thirds_or_when_the_ca_changes() {
        let ca = authority(now(), 100 * HOUR);
        assert_eq!(leaf_due(None, &ca, now()), Some(LeafReason::First));
        let leaf = sign_leaf(&ca, &names(), now(), 3 * HOUR).unwrap();
        // Issued 5 minutes back: lifetime 3h05m, renewal 2h03m20s after notBefore.
        let renew_at = leaf.validity.renew_at();
        assert_eq!(renew_at, leaf.validity.not_before + Duration::from_secs(7_400));
        assert_eq!(leaf_due(Some(&leaf), &ca, renew_at - Duration::from_secs(1)), None);
        assert_eq!(leaf_due(Some(&leaf), &ca, renew_at), Some(LeafReason::RenewalDue));
        let other = authority(now(), 100 * HOUR);
        assert_eq!(leaf_due(Some(&leaf), &other, now()), Some(LeafReason::CaChanged));
    }

    /// The first certificate of a PEM text, as DER.
    fn der_of(pem: &[u8]) -> Vec<u8> {
        certgate_pki::pem::decode(pem).unwrap().0.der
    }
}
