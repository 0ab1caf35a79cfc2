//! The CRL issuer: a CA certificate and its private key, checked once to belong together.

use certgate_pki::der::{self, Reader};
use rcgen::{KeyPair, PublicKeyData, SigningKey};

use super::error::{BuildError, SignerError};
use crate::cert::Cert;
use crate::sigalg::{self, SignatureAlgorithm};

const ECDSA_SHA256: &[u8] =
    &[0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];
const ECDSA_SHA384: &[u8] =
    &[0x30, 0x0a, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03];
/// sha256WithRSAEncryption with its NULL parameters (RFC 4055 §5).
const RSA_SHA256: &[u8] =
    &[0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b, 0x05, 0x00];
const ED25519: &[u8] = &[0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70];

/// Signs CRLs as a CA: its certificate (for the issuer name, key identifier and checks) and
/// its private key.
///
/// The signature algorithm follows the key: ECDSA P-256 → ecdsa-with-SHA256, P-384 →
/// ecdsa-with-SHA384, RSA → sha256WithRSAEncryption (PKCS#1 v1.5), Ed25519 → Ed25519. ECDSA
/// signatures are randomised (ring), so two CRLs of the same content differ in their last bytes;
/// everything before the signature is a function of the input.
pub struct CaSigner {
    cert: Cert,
    key: KeyPair,
    algorithm: SignatureAlgorithm,
    algorithm_id: &'static [u8],
    authority_key_id: Vec<u8>,
}

impl std::fmt::Debug for CaSigner {
    /// Names the CA and the algorithm; never the key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaSigner")
            .field("subject", &self.cert.subject)
            .field("algorithm", &self.algorithm)
            .field("authority_key_id", &crate::name::hex(&self.authority_key_id))
            .finish_non_exhaustive()
    }
}

/// The first 20 octets of SHA-256 over the subjectPublicKey bits (RFC 7093 §2 method 1), as
/// certgate's CA issuer computes subjectKeyIdentifiers.
fn computed_key_id(spki: &[u8]) -> Option<Vec<u8>> {
    let seq = Reader::new(spki).read(der::SEQUENCE).ok()?;
    let mut r = Reader::nested(&seq);
    r.read(der::SEQUENCE).ok()?;
    let bits = r.read(der::BIT_STRING).ok()?;
    let (0, key) = bits.content.split_first()? else { return None };
    let digest = ring::digest::digest(&ring::digest::SHA256, key);
    digest.as_ref().get(..20).map(<[u8]>::to_vec)
}

impl CaSigner {
    /// Checks that `ca_cert_der` is a CA allowed to sign CRLs (basicConstraints cA; keyUsage,
    /// when present, with cRLSign) and that `key_pkcs8_der` is its private key (PKCS#8; a
    /// probe signature must verify with the certificate's public key).
    pub fn new(ca_cert_der: &[u8], key_pkcs8_der: &[u8]) -> Result<CaSigner, SignerError> {
        let cert = Cert::from_der(ca_cert_der.to_vec())
            .map_err(|e| SignerError::Certificate { detail: e.detail })?;
        if !cert.is_ca {
            return Err(SignerError::NotACa { subject: cert.subject });
        }
        if cert.crl_sign == Some(false) {
            return Err(SignerError::NoCrlSign { subject: cert.subject });
        }
        let key = KeyPair::try_from(key_pkcs8_der)
            .map_err(|e| SignerError::Key { detail: e.to_string() })?;
        let alg = key.algorithm();
        let (algorithm, algorithm_id) = if alg == &rcgen::PKCS_ECDSA_P256_SHA256 {
            (SignatureAlgorithm::EcdsaSha256, ECDSA_SHA256)
        } else if alg == &rcgen::PKCS_ECDSA_P384_SHA384 {
            (SignatureAlgorithm::EcdsaSha384, ECDSA_SHA384)
        } else if alg == &rcgen::PKCS_RSA_SHA256 {
            (SignatureAlgorithm::RsaPkcs1Sha256, RSA_SHA256)
        } else if alg == &rcgen::PKCS_ED25519 {
            (SignatureAlgorithm::Ed25519, ED25519)
        } else {
            return Err(SignerError::Key {
                detail: "its algorithm is none of ECDSA P-256, ECDSA P-384, RSA (PKCS#1 SHA-256) \
                         and Ed25519"
                    .to_owned(),
            });
        };
        // Comparing encodings would refuse a CA whose certificate spells the same key
        // differently (a compressed point); a signature settles it.
        let probe = b"certgate-crl: does this key belong to the CA certificate?";
        let signature = key.sign(probe).map_err(|e| SignerError::Key { detail: e.to_string() })?;
        if sigalg::verify(&algorithm, &cert.spki, probe, &signature).is_err() {
            return Err(SignerError::KeyMismatch { subject: cert.subject });
        }
        // RFC 5280 §5.2.1: the CRL's key identifier is the CA's subjectKeyIdentifier. A CA
        // without one (or with an empty one) gets the identifier certgate's CA issuer
        // (certgate-pki `issue`) gives the CAs it makes.
        let authority_key_id = match &cert.subject_key_id {
            Some(ski) if !ski.is_empty() => ski.clone(),
            _ => computed_key_id(&cert.spki).ok_or_else(|| SignerError::Certificate {
                detail: "unreadable public key".into(),
            })?,
        };
        Ok(CaSigner { cert, key, algorithm, algorithm_id, authority_key_id })
    }

    /// The CA certificate, parsed.
    pub fn cert(&self) -> &Cert {
        &self.cert
    }

    /// DER of the CA's subject: written byte for byte as the CRL's issuer (BoringSSL matches
    /// CRLs to CAs by comparing these bytes after canonicalisation, certgate-crl by the bytes).
    pub fn subject_der(&self) -> &[u8] {
        &self.cert.subject_der
    }

    /// The `authorityKeyIdentifier` key identifier CRLs carry.
    pub fn authority_key_id(&self) -> &[u8] {
        &self.authority_key_id
    }

    /// Whether [`Self::authority_key_id`] is the certificate's own subjectKeyIdentifier (else
    /// it was computed).
    pub fn authority_key_id_from_certificate(&self) -> bool {
        self.cert.subject_key_id.as_ref().is_some_and(|ski| !ski.is_empty())
    }

    /// The signature algorithm CRLs are signed with.
    pub fn signature_algorithm(&self) -> &SignatureAlgorithm {
        &self.algorithm
    }

    /// DER of the AlgorithmIdentifier (inner and outer: RFC 5280 §5.1.1.2 wants them equal).
    pub(crate) fn algorithm_id(&self) -> &'static [u8] {
        self.algorithm_id
    }

    /// Largest signature the key produces (DER ECDSA signatures vary by a few octets).
    pub(crate) fn max_signature_len(&self) -> usize {
        match self.algorithm {
            SignatureAlgorithm::EcdsaSha256 => 72,
            SignatureAlgorithm::EcdsaSha384 => 104,
            SignatureAlgorithm::Ed25519 => 64,
            // The modulus length: the SPKI's RSAPublicKey holds the modulus plus a few octets.
            _ => self.key.der_bytes().len(),
        }
    }

    pub(crate) fn sign(&self, message: &[u8]) -> Result<Vec<u8>, BuildError> {
        self.key.sign(message).map_err(|e| BuildError::Signing { detail: e.to_string() })
    }
}
