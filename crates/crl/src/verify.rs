//! Which CA of the bundle signed a CRL.

use serde::Serialize;

use crate::bundle::CaBundle;
use crate::cert::Cert;
use crate::parse::Crl;
use crate::sigalg;

/// Result of checking one CRL's signature against a CA bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum SignatureStatus {
    /// CA `ca` (1-based number in the CA bundle) has the CRL's issuer name and its key verifies.
    Verified { ca: usize, subject: String },
    /// No CA in the bundle has the CRL's issuer as subject.
    NoIssuerInBundle { issuer: String },
    /// CAs with the right name exist, but none verified: (CA number, why) for each.
    Failed { issuer: String, attempts: Vec<(usize, String)> },
}

impl SignatureStatus {
    /// Whether some CA verified the CRL.
    pub fn is_verified(&self) -> bool {
        matches!(self, SignatureStatus::Verified { .. })
    }
}

/// Checks `crl` against every CA whose subject is the CRL's issuer (byte-equal DER names).
pub fn verify_crl(crl: &Crl, cas: &CaBundle) -> SignatureStatus {
    let issuer = crl.info().issuer.clone();
    let mut attempts = Vec::new();
    for (number, ca) in cas.parsed() {
        if ca.subject_der != crl.issuer_der() {
            continue;
        }
        match verify_with(crl, ca) {
            Ok(()) => return SignatureStatus::Verified { ca: number, subject: ca.subject.clone() },
            Err(why) => attempts.push((number, why)),
        }
    }
    if attempts.is_empty() {
        SignatureStatus::NoIssuerInBundle { issuer }
    } else {
        SignatureStatus::Failed { issuer, attempts }
    }
}

/// Verifies the CRL's signature with `issuer`'s key (no name check).
pub fn verify_with(crl: &Crl, issuer: &Cert) -> Result<(), String> {
    if !crl.algorithms_agree() {
        return Err("the inner and outer signature algorithms of the CRL differ".into());
    }
    sigalg::verify(&crl.info().signature_algorithm, &issuer.spki, crl.tbs(), crl.signature_value())
}
