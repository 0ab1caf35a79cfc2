//! A CSR's self-signature, verified under [`Policy::Go`] and reported as [`CsrError`]s.

use super::{Algorithm, Policy, VerifyError, verify};
use crate::csr::CsrError;
use crate::key::PublicKey;

/// Verifies `signature` over `signed` with the request's own key.
pub(crate) fn verify_request(
    algorithm: &Algorithm<'_>,
    key: &PublicKey<'_>,
    signed: &[u8],
    signature: &[u8],
) -> Result<(), CsrError> {
    let name = algorithm.display_name();
    let bad = |reason: String| CsrError::BadSignatureAlgorithm { algorithm: name.clone(), reason };
    let Some(scheme) = algorithm.scheme().map_err(&bad)? else {
        return Err(CsrError::UnsupportedSignatureAlgorithm { algorithm: name });
    };
    match verify(Policy::Go, scheme, key, signed, signature) {
        Ok(()) => Ok(()),
        Err(VerifyError::Unsupported(reason)) => Err(bad(reason)),
        Err(VerifyError::WrongKey { needs }) => Err(bad(format!(
            "it needs {needs} public key, but the request has {} key",
            with_article(&key.kind())
        ))),
        Err(VerifyError::Invalid) => Err(CsrError::InvalidSignature { algorithm: name }),
    }
}

pub(super) fn with_article(kind: &str) -> String {
    let vowel = kind.starts_with(['A', 'E', 'I', 'O', 'U', 'R']);
    format!("{} {kind}", if vowel { "an" } else { "a" })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_in_mismatch_messages() {
        assert_eq!(with_article("RSA"), "an RSA");
        assert_eq!(with_article("ECDSA P-256"), "an ECDSA P-256");
        assert_eq!(with_article("Ed25519"), "an Ed25519");
        assert_eq!(with_article("1.2.3 (unsupported type)"), "a 1.2.3 (unsupported type)");
    }
}
