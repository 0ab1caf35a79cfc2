//! cert-manager's `Certificate`, `Issuer` and `ClusterIssuer` (`cert-manager.io/v1`),
//! API-compatible with upstream. Their CRDs are [`crate::crd::cert_manager`]; clusters with
//! cert-manager have upstream's own, and only the sandbox and `certgate dev` install these
//! (when absent). The `CertificateRequest` of the same group is [`crate::certificate_request`].
//!
//! Every field upstream's schema declares for a `Certificate` is typed here, and so are the
//! `ca` and `selfSigned` issuers and the issuers' status. The other issuer types (`acme`,
//! `vault`, `venafi`) are kept as written, objects of any shape: certgate does not act on
//! them, and a manifest for them decodes, validates and encodes back unchanged.
//!
//! As in [`crate::ocm`], field names are upstream's JSON names, an optional field is an
//! `Option` (absent when unset), and fields with an enumerated set of values are `String`s
//! whose schema carries upstream's `enum`, so an object written by a newer upstream with a
//! value this version does not know still decodes. The known values are the constants below.
//! A field upstream's schema requires is a plain value; the two a `Certificate`'s spec
//! requires (`secretName`, `issuerRef`) decode as Go's zero value when absent, like a
//! `CertificateRequest`'s, because upstream's CRD accepts a `Certificate` without `spec`
//! ([`crate::validation::zero_spec`] gives such an object the empty spec).
//!
//! The effective value of a field left unset is what upstream documents for it; the
//! `*_or_default` methods return those values ([`defaults`]).

mod certificate;
mod cluster_issuer;
mod condition;
mod issuer;
mod issuer_spec;

pub use certificate::{
    AcmeCertificateStatus, AdditionalOutputFormat, AriStatus, Certificate, CertificateKeystores,
    CertificatePrivateKey, CertificateRenewal, CertificateSecretTemplate, CertificateSpec,
    CertificateStatus, JksKeystore, NameConstraintItem, NameConstraints, OtherName, Pkcs12Keystore,
    RenewalWindow, SecretKeySelector, SuggestedWindow, X509Subject,
};
pub use cluster_issuer::{ClusterIssuer, ClusterIssuerSpec};
pub use condition::{Condition, condition_type};
pub use issuer::{Issuer, IssuerSpec};
pub use issuer_spec::{AcmeIssuerStatus, CaIssuer, IssuerConfig, IssuerStatus, SelfSignedIssuer};

pub use crate::IssuerReference;
pub use crate::certificate_request::{GROUP, KEY_USAGES};

/// `spec.privateKey.algorithm` values, in upstream's schema order.
pub const PRIVATE_KEY_ALGORITHMS: [&str; 3] = ["RSA", "ECDSA", "Ed25519"];
/// `spec.privateKey.encoding` values.
pub const PRIVATE_KEY_ENCODINGS: [&str; 2] = ["PKCS1", "PKCS8"];
/// `spec.privateKey.rotationPolicy` values.
pub const ROTATION_POLICIES: [&str; 2] = ["Never", "Always"];
/// `spec.additionalOutputFormats[].type` values.
pub const ADDITIONAL_OUTPUT_FORMATS: [&str; 2] = ["DER", "CombinedPEM"];
/// `spec.keystores.pkcs12.profile` values.
pub const PKCS12_PROFILES: [&str; 4] = ["LegacyRC2", "LegacyDES", "Modern2023", "Modern2026"];
/// `spec.signatureAlgorithm` values.
pub const SIGNATURE_ALGORITHMS: [&str; 7] = [
    "SHA256WithRSA",
    "SHA384WithRSA",
    "SHA512WithRSA",
    "ECDSAWithSHA256",
    "ECDSAWithSHA384",
    "ECDSAWithSHA512",
    "PureEd25519",
];
/// `spec.renewal.policy` values.
pub const RENEWAL_POLICIES: [&str; 2] = ["RenewBefore", "Disabled"];
/// A condition's `status` values.
pub const CONDITION_STATUSES: [&str; 3] = ["True", "False", "Unknown"];

/// What upstream documents as the effective value of a field left unset (the CRDs declare no
/// `default`s: cert-manager applies these itself).
pub mod defaults {
    /// `spec.duration`: 90 days.
    pub const DURATION: &str = "2160h";
    /// `spec.privateKey.algorithm`.
    pub const PRIVATE_KEY_ALGORITHM: &str = "RSA";
    /// `spec.privateKey.size` for an RSA key.
    pub const RSA_KEY_SIZE: i64 = 2048;
    /// `spec.privateKey.size` for an ECDSA key.
    pub const ECDSA_KEY_SIZE: i64 = 256;
    /// `spec.privateKey.encoding`.
    pub const PRIVATE_KEY_ENCODING: &str = "PKCS1";
    /// `spec.privateKey.rotationPolicy` (`Never` before cert-manager 1.18).
    pub const ROTATION_POLICY: &str = "Always";
    /// `spec.revisionHistoryLimit`.
    pub const REVISION_HISTORY_LIMIT: i32 = 1;
    /// `spec.usages`.
    pub const USAGES: [&str; 2] = ["digital signature", "key encipherment"];
    /// `spec.encodeUsagesInRequest`.
    pub const ENCODE_USAGES_IN_REQUEST: bool = true;
    /// `spec.keystores.jks.alias`.
    pub const JKS_ALIAS: &str = "certificate";
    /// `spec.keystores.pkcs12.profile`.
    pub const PKCS12_PROFILE: &str = "LegacyRC2";
    /// `spec.issuerRef.kind`.
    pub const ISSUER_KIND: &str = "Issuer";
    /// `spec.issuerRef.group`.
    pub const ISSUER_GROUP: &str = super::GROUP;
}

#[cfg(test)]
mod tests;
