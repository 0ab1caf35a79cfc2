//! Issuing certificates as cert-manager's CA and SelfSigned issuers do: an approved
//! CertificateRequest (`spec.request`, `spec.duration`, `spec.usages`, `spec.isCA`) becomes a
//! signed X.509 certificate. Pure: no I/O, the current time and the serial number's
//! randomness are parameters (signature nonces come from the operating system's random
//! source; see docs/decisions/0014-certificate-signing.md).
//!
//! Two steps, as in cert-manager:
//! 1. [`template_from_request`]: the CSR and the request's fields checked against each other
//!    and turned into a [`CertificateTemplate`] (`pki.CertificateTemplateFromCertificateRequest`).
//! 2. [`sign_with_ca`] with a [`CaKeyPair`] read from the CA issuer's Secret, or
//!    [`sign_self_signed`] with the [`PrivateKey`] the request's
//!    `cert-manager.io/private-key-secret-name` Secret holds; both return an [`Issued`]
//!    certificate with what goes into `status.certificate` and `status.ca`.
//!
//! Errors carry cert-manager's texts; [`IssueError`]'s `Display` is the condition message.
//! Inputs are bounded by cert-manager's own limits ([`MAX_REQUEST_PEM_BYTES`],
//! [`MAX_PRIVATE_KEY_PEM_BYTES`], [`MAX_CHAIN_PEM_BYTES`], [`MAX_BUNDLE_PEM_BYTES`]).

mod asn1;
mod ca;
mod certificate;
mod chain;
mod error;
mod name_constraints;
mod private_key;
mod request;
mod sign;
mod signer;
mod tbs;
mod template;
mod time;
mod usages;

pub use ca::{CaKeyPair, MAX_BUNDLE_PEM_BYTES, MAX_CHAIN_PEM_BYTES};
pub use error::{CaError, IssueError, IssuerKind, PrivateKeyError, SigningError, TemplateError};
pub use private_key::{MAX_PRIVATE_KEY_PEM_BYTES, PrivateKey, parse_private_key};
pub use request::MAX_REQUEST_PEM_BYTES;
pub use sign::{Issued, sign_self_signed, sign_with_ca};
pub use tbs::IssuerUrls;
pub use template::{
    CertificateTemplate, DEFAULT_CERTIFICATE_DURATION, RequestSpec, TemplateExtension,
    template_from_request,
};
pub use usages::DEFAULT_USAGES;

/// The annotation naming the SelfSigned issuer's private key Secret.
pub const PRIVATE_KEY_SECRET_ANNOTATION: &str = "cert-manager.io/private-key-secret-name";

/// The Warning event (reason `BadConfig`) cert-manager's SelfSigned issuer emits when the
/// subject is empty ([`CertificateTemplate::subject_is_empty`]).
pub const EMPTY_ISSUER_DN_MESSAGE: &str = "Certificate will be issued with an empty Issuer DN, which contravenes RFC 5280 and could break some strict clients";
