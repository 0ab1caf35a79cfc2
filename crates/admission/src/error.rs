//! Why `spec.usages` or `spec.request` is invalid.

use certgate_pki::CsrError;

use crate::usages::{UnknownUsages, UsageList};

/// A `spec.usages` / `spec.request` failure. The texts are upstream's, byte for byte,
/// because users and tooling match on them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RequestError {
    #[error("unknown key usages: {0}")]
    UnknownUsages(UnknownUsages),
    #[error(transparent)]
    Csr(#[from] CsrError),
    #[error("encoded CSR error: IsCA {encoded} does not match expected value {expected}")]
    IsCaMismatch { encoded: bool, expected: bool },
    #[error(
        "encoded CSR error: the KeyUsages {encoded} do not match the expected KeyUsages {expected}"
    )]
    KeyUsageMismatch { encoded: UsageList, expected: UsageList },
    #[error(
        "encoded CSR error: the ExtKeyUsages {encoded} do not match the expected ExtKeyUsages {expected}"
    )]
    ExtKeyUsageMismatch { encoded: UsageList, expected: UsageList },
}
