//! Errors. Each says what was wrong, where, and what to do about it.

/// A whole bundle could not be read (the individual blocks are reported per CRL or CA).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    #[error(
        "bundle is {size} bytes, above the limit of {limit} bytes: split the CRLs or raise `Limits::max_bundle_bytes`"
    )]
    TooLarge { size: usize, limit: usize },
    #[error(
        "bundle holds more than {limit} PEM blocks: remove unrelated blocks or raise `Limits::max_blocks`"
    )]
    TooManyBlocks { limit: usize },
}

/// One `X509 CRL` block whose DER could not be used. Envoy refuses to load such a bundle
/// ("Failed to load CRL"), rejecting the whole TLS context while the HTTPProxy stays `Valid`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CrlParseError {
    #[error("CRL DER is malformed in {field}: {detail}; re-export the CRL from its CA")]
    Malformed { field: &'static str, detail: String },
    #[error("CRL {field} is not a valid RFC 5280 UTCTime/GeneralizedTime; re-issue the CRL")]
    BadTime { field: &'static str },
    #[error("CRL entry {entry} has a {len}-byte serial (at most {limit}); the CRL is not usable")]
    SerialTooLong { entry: usize, len: usize, limit: usize },
    #[error(
        "CRL lists more than {limit} revoked certificates: raise `Limits::max_entries_per_crl`"
    )]
    TooManyEntries { limit: usize },
    #[error("CRL is {size} bytes; at most {limit} are supported")]
    TooLarge { size: usize, limit: usize },
    #[error("{trailing} bytes follow the CRL's DER; the block is not a single CRL")]
    TrailingData { trailing: usize },
}

/// One `CERTIFICATE` block of a CA bundle or client chain whose DER could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("certificate DER does not parse ({detail}); re-export the certificate")]
pub struct CertParseError {
    pub detail: String,
}
