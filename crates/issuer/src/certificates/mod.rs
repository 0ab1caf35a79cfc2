//! The `certificates` controller: cert-manager's Certificate controllers (readiness,
//! trigger, key manager, request manager, issuing) as one, off by default. A Certificate
//! becomes a private key, a CertificateRequest of the next revision (which an approver and
//! an issuer then decide and sign), and finally its Secret, renewed before it expires and
//! retried with cert-manager's backoff when the request is denied or fails.
//!
//! - [`plan`]: the pure decision, one write per pass;
//! - [`wanted`]: what the spec asks for; [`inspect`]: what the objects hold;
//! - [`controller`]: the watches and the writes.

pub mod controller;
mod inspect;
mod plan;
mod wanted;

pub use controller::{BACKOFF, CERTIFICATES, NAME, set_backoff};

/// How the CertificateRequest of the next revision compares with the Certificate's spec, as
/// the controller's backoff reads it: a request that no longer matches (or does not decode)
/// means a changed spec, issued at once without waiting for the backoff.
pub fn next_request(
    certificate: &certgate_api::cert_manager::Certificate,
    request: Option<&certgate_api::CertificateRequest>,
) -> certgate_issuance::backoff::NextRequest {
    plan::next_request_state(certificate, request)
}

/// The annotations cert-manager writes on requests and Secrets.
pub mod annotations {
    /// On requests and Secrets: the Certificate's name.
    pub const CERTIFICATE_NAME: &str = "cert-manager.io/certificate-name";
    /// On requests: the revision the request is for.
    pub const REVISION: &str = "cert-manager.io/certificate-revision";
    /// On requests: the Secret holding the request's private key.
    pub const PRIVATE_KEY_SECRET: &str = certgate_pki::issue::PRIVATE_KEY_SECRET_ANNOTATION;
    /// On Secrets: the issuer that signed the certificate.
    pub const ISSUER_NAME: &str = "cert-manager.io/issuer-name";
    pub const ISSUER_KIND: &str = "cert-manager.io/issuer-kind";
    pub const ISSUER_GROUP: &str = "cert-manager.io/issuer-group";
    /// On Secrets: the issued certificate's names, comma-separated.
    pub const COMMON_NAME: &str = "cert-manager.io/common-name";
    pub const ALT_NAMES: &str = "cert-manager.io/alt-names";
    pub const IP_SANS: &str = "cert-manager.io/ip-sans";
    pub const URI_SANS: &str = "cert-manager.io/uri-sans";
    pub const EMAIL_SANS: &str = "cert-manager.io/email-sans";
    pub const SUBJECT_ORGANIZATIONS: &str = "cert-manager.io/subject-organizations";
}

/// The labels cert-manager writes.
pub mod labels {
    /// On Secrets the controller writes ("for attention of"): cert-manager watches them.
    pub const FAO: &str = "controller.cert-manager.io/fao";
    /// On next private key Secrets.
    pub const NEXT_PRIVATE_KEY: &str = "cert-manager.io/next-private-key";
}
