//! Building CRLs for certgate's CA issuer (issue #22): what it publishes into a Secret's
//! `crl.pem` for a Contour `crlSecret`, so that Envoy (BoringSSL) enforces revocations. Pure:
//! times are arguments, nothing is read or written; the only outside call is the OS random
//! number generator ring uses for ECDSA and RSA signatures.
//!
//! - [`CaSigner::new`]`(ca_cert_der, key_pkcs8_der)`: the CA certificate and its key, checked
//!   to belong together and to be allowed to sign CRLs.
//! - [`build_crl`]`(&CaSigner, &CrlParams, &BuildLimits) -> BuiltCrl`: a signed v2 CRL
//!   ([`BuiltCrl::der`], [`BuiltCrl::to_pem`]).
//! - [`decide_refresh`]`(&RefreshInput) -> RefreshDecision`: whether to publish a new CRL now
//!   and when to look again, with [`RefreshPolicy`] (validity, refresh margin, backdating).
//!
//! What a built CRL holds, and why, is in [`build_crl`]; the choices are the ones BoringSSL,
//! rustls-webpki and [`crate::check_bundle`] want, so a built CRL draws no warning.
//!
//! # Why the DER is written here and not by `rcgen::CertificateRevocationListParams`
//!
//! rcgen parses and signs with the CA key (ring), but its CRL writer re-encodes the issuer
//! name from its `DistinguishedName` model, and `Issuer::from_ca_cert_der` cannot model every
//! CA subject: an attribute type that appears twice (`DC=example, DC=com`, two `OU`s) keeps one
//! value, silently, so the CRL names another issuer and BoringSSL never uses it (every client
//! fails with "unable to get certificate CRL"); a multi-valued RDN (`CN=a+O=b`) or a string
//! type outside its six fails the parse. `tests/build_openssl.rs` shows both with a CA made by
//! OpenSSL. Here the CA's subject DER is copied as it is, so the names are equal by
//! construction. Writing the DER here also takes one buffer of the final size instead of a tree
//! of per-entry objects (the bench in `docs/performance.md` compares both).

mod builder;
mod der;
mod entry;
mod error;
mod refresh;
mod revocations;
mod signer;

pub use builder::{BuildLimits, BuiltCrl, CrlParams, DEFAULT_MAX_ENTRIES, build_crl};
pub use entry::{MAX_SERIAL_OCTETS, Reason, RevokedCert};
pub use error::{BuildError, SignerError};
pub use refresh::{
    PolicyError, RefreshDecision, RefreshInput, RefreshPolicy, Trigger, decide_refresh,
    next_crl_number,
};
pub use revocations::{
    Added, DEFAULT_MAX_REVOCATIONS, DEFAULT_MAX_REVOCATIONS_BYTES, MAX_CERTIFICATE_REF_CHARS,
    REVOCATIONS_KEY, Revocation, RevocationLimits, RevocationsError, active_revocations,
    add_revocation, parse_reason, parse_revocations, parse_rfc3339, parse_serial_hex, reason_name,
    reason_names, revocations_to_json,
};
pub use signer::CaSigner;
