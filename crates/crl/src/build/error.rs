//! Errors of CRL building. Each names the input at fault and what to do.

use crate::time::Timestamp;

/// The CA certificate and key cannot sign CRLs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignerError {
    #[error("the CA certificate does not parse: {detail}")]
    Certificate { detail: String },
    #[error(
        "the CA certificate ({subject}) is not a CA (basicConstraints cA is not set): only the CA that issued the client certificates can sign their CRL"
    )]
    NotACa { subject: String },
    #[error(
        "the CA certificate ({subject}) has a keyUsage without cRLSign: BoringSSL and webpki refuse CRLs it signs; re-issue the CA with cRLSign"
    )]
    NoCrlSign { subject: String },
    #[error(
        "the CA key is not a PKCS#8 ECDSA P-256, ECDSA P-384, RSA (2048 to 8192 bits) or Ed25519 private key ({detail}); convert PKCS#1/SEC1 keys to PKCS#8 first"
    )]
    Key { detail: String },
    #[error(
        "the CA key does not belong to the CA certificate ({subject}): a CRL it signs would not verify; use the key of the CA's Secret"
    )]
    KeyMismatch { subject: String },
}

/// The CRL cannot be built from these parameters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error(
        "{entries} revoked certificates exceed the limit of {limit}: raise `BuildLimits::max_entries` (a Kubernetes Secret holds about 20,000 entries)"
    )]
    TooManyEntries { entries: usize, limit: usize },
    #[error("revoked entry {entry} has serial zero (or no bytes): serials are positive")]
    ZeroSerial { entry: usize },
    #[error(
        "revoked entry {entry} has a {octets}-octet serial, more than the {limit} RFC 5280 allows"
    )]
    SerialTooLong { entry: usize, octets: usize, limit: usize },
    #[error(
        "serial {serial} is listed twice (entries {first} and {second}): pass each revoked certificate once"
    )]
    DuplicateSerial { serial: String, first: usize, second: usize },
    #[error("the CRL number has {octets} octets, more than the {limit} RFC 5280 allows")]
    CrlNumberTooLong { octets: usize, limit: usize },
    #[error(
        "nextUpdate {next_update} is not after thisUpdate {this_update}: the CRL would be expired when issued"
    )]
    NextUpdateNotAfterThisUpdate { this_update: Timestamp, next_update: Timestamp },
    #[error("{field} {time} cannot be written as an RFC 5280 time (years 0001 to 9999)")]
    TimeOutOfRange { field: String, time: Timestamp },
    #[error("the CRL would be {bytes} bytes, more than certgate-crl reads back (4 GiB)")]
    TooLarge { bytes: usize },
    #[error("signing the CRL failed: {detail}")]
    Signing { detail: String },
    /// A bug: the DER written differs from its computed size. Nothing is returned rather than
    /// a malformed CRL.
    #[error("certgate-crl wrote a malformed CRL ({detail}); this is a bug, please report it")]
    Internal { detail: String },
}
