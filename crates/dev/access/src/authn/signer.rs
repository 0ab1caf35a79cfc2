//! The sandbox's service-account signing key: ECDSA P-256 (ES256) with ring, persisted by the
//! caller as PKCS#8 so that tokens survive restarts.

use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{
    ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair,
    UnparsedPublicKey,
};

/// `SubjectPublicKeyInfo` DER prefix of an uncompressed P-256 public key: algorithm
/// id-ecPublicKey with the prime256v1 curve, then a 66-byte BIT STRING.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// Why a signing key could not be made, read or used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignerError {
    #[error(
        "could not generate the service-account signing key: the system random number \
         generator failed; check that the OS provides randomness and retry"
    )]
    Generate,
    #[error(
        "the service-account signing key is not an unencrypted PKCS#8 ECDSA P-256 key \
         ({reason}); restore the key file written by `certgate dev`, or delete it to start \
         with a new key (tokens issued with the old key then stop working)"
    )]
    InvalidKey { reason: String },
    #[error(
        "signing a service-account token failed: the system random number generator failed; \
         retry"
    )]
    Sign,
}

/// An ES256 key pair with the key ID kube-apiserver would derive for it.
pub struct TokenSigner {
    key_pair: EcdsaKeyPair,
    /// Kept to hand back to the caller for persistence; never printed.
    pkcs8: Vec<u8>,
    key_id: String,
    rng: SystemRandom,
}

impl TokenSigner {
    /// A new random key.
    pub fn generate() -> Result<Self, SignerError> {
        let rng = SystemRandom::new();
        let document = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| SignerError::Generate)?;
        Self::from_pkcs8(document.as_ref())
    }

    /// A key previously saved from [`Self::pkcs8`].
    pub fn from_pkcs8(pkcs8: &[u8]) -> Result<Self, SignerError> {
        let rng = SystemRandom::new();
        let key_pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8, &rng)
            .map_err(|rejected| SignerError::InvalidKey { reason: rejected.to_string() })?;
        let key_id = key_id(key_pair.public_key().as_ref());
        Ok(TokenSigner { key_pair, pkcs8: pkcs8.to_vec(), key_id, rng })
    }

    /// The private key as unencrypted PKCS#8 DER, for the caller to store (with owner-only
    /// permissions: whoever has it can mint tokens for any ServiceAccount).
    pub fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }

    /// The `kid` header of issued tokens: base64url (unpadded) of the SHA-256 of the public
    /// key's PKIX DER, as kube-apiserver derives it.
    pub fn key_id(&self) -> &str {
        &self.key_id
    }

    /// The public key as PKIX `SubjectPublicKeyInfo` DER (for a JWKS or OIDC discovery
    /// document).
    pub fn public_key_der(&self) -> Vec<u8> {
        spki(self.key_pair.public_key().as_ref())
    }

    /// A fixed-size (r ‖ s) ES256 signature, as JWS wants it.
    pub(crate) fn sign(&self, message: &[u8]) -> Result<Vec<u8>, SignerError> {
        let signature = self.key_pair.sign(&self.rng, message).map_err(|_| SignerError::Sign)?;
        Ok(signature.as_ref().to_vec())
    }

    pub(crate) fn verify(&self, message: &[u8], signature: &[u8]) -> bool {
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, self.key_pair.public_key().as_ref())
            .verify(message, signature)
            .is_ok()
    }

    /// 16 random bytes, for token IDs.
    pub(crate) fn random_bytes(&self) -> Result<[u8; 16], SignerError> {
        let mut bytes = [0u8; 16];
        self.rng.fill(&mut bytes).map_err(|_| SignerError::Sign)?;
        Ok(bytes)
    }
}

impl fmt::Debug for TokenSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSigner")
            .field("algorithm", &"ES256")
            .field("key_id", &self.key_id)
            .field("private_key", &"<redacted>")
            .finish()
    }
}

fn spki(public_key: &[u8]) -> Vec<u8> {
    let mut der = P256_SPKI_PREFIX.to_vec();
    der.extend_from_slice(public_key);
    der
}

fn key_id(public_key: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, &spki(public_key));
    URL_SAFE_NO_PAD.encode(digest.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_pkcs8() {
        let signer = TokenSigner::generate().expect("key");
        let again = TokenSigner::from_pkcs8(signer.pkcs8()).expect("reload");
        assert_eq!(signer.key_id(), again.key_id());
        let signature = signer.sign(b"message").expect("sign");
        assert_eq!(signature.len(), 64);
        assert!(again.verify(b"message", &signature));
        assert!(!again.verify(b"other", &signature));
        let other = TokenSigner::generate().expect("key");
        assert_ne!(other.key_id(), signer.key_id());
        assert!(!other.verify(b"message", &signature));
    }

    #[test]
    fn key_id_is_the_hash_of_the_pkix_key() {
        let signer = TokenSigner::generate().expect("key");
        let der = signer.public_key_der();
        assert_eq!(der.len(), 91);
        let digest = ring::digest::digest(&ring::digest::SHA256, &der);
        assert_eq!(signer.key_id(), URL_SAFE_NO_PAD.encode(digest.as_ref()));
        assert_eq!(signer.key_id().len(), 43);
    }

    #[test]
    fn rejects_garbage_and_never_prints_the_key() {
        let error = TokenSigner::from_pkcs8(b"not a key").unwrap_err();
        assert!(matches!(error, SignerError::InvalidKey { .. }), "{error}");
        let signer = TokenSigner::generate().expect("key");
        let debug = format!("{signer:?}");
        assert!(debug.contains("<redacted>"));
        assert!(!debug.contains(&URL_SAFE_NO_PAD.encode(signer.pkcs8())));
    }
}
