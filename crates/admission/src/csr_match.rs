//! Whether what a CSR encodes agrees with what the CertificateRequest spec asks for.
//!
//! Upstream only compares what the CSR actually encodes: basic constraints when that
//! extension is present, key usages when a keyUsage or extKeyUsage extension is present.
//! The first disagreement is reported, basic constraints before key usages.

use certgate_pki::DecodedCsr;

use crate::error::RequestError;
use crate::usages::{self, KeyUsageBits, Requested};

/// Checks `csr` against the requested usages and `is_ca`.
pub(crate) fn check(
    csr: &DecodedCsr,
    requested: &Requested,
    is_ca: bool,
) -> Result<(), RequestError> {
    if let Some(encoded) = csr.basic_constraints_ca
        && encoded != is_ca
    {
        return Err(RequestError::IsCaMismatch { encoded, expected: is_ca });
    }

    if !csr.usage_extensions_present {
        return Ok(());
    }

    let encoded_key_usage = KeyUsageBits::from_names(csr.key_usages.iter().map(String::as_str));
    if encoded_key_usage != requested.key_usage {
        return Err(RequestError::KeyUsageMismatch {
            encoded: encoded_key_usage.names(),
            expected: requested.key_usage.names(),
        });
    }

    // Order matters: upstream compares the two lists element by element.
    let encoded_ext =
        usages::ext_key_usages_from_csr(csr.ext_key_usages.iter().map(String::as_str));
    if encoded_ext != requested.ext_key_usages {
        return Err(RequestError::ExtKeyUsageMismatch {
            encoded: usages::ext_key_usage_names(&encoded_ext),
            expected: usages::ext_key_usage_names(&requested.ext_key_usages),
        });
    }
    Ok(())
}
