//! PEM / PKCS#10 / X.509 decoding for certgate. Every input is hostile: sizes are bounded,
//! nothing panics, and errors say what was wrong and where.
//!
//! This crate is the workspace's one implementation of three mechanisms; other crates call
//! it instead of carrying their own:
//! - [`pem`]: PEM decoding with Go's `encoding/pem.Decode` rules (cert-manager, Contour and
//!   sprig all read PEM with it) and encoding with 64-column lines.
//! - [`der`]: DER reading (a zero-allocation TLV walker with absolute offsets, and the
//!   field-named strict reader behind CSR decoding) and TLV writing.
//! - [`signature`]: signature verification (`ring`, plus `p521`), under a [`signature::Policy`]
//!   saying what the caller accepts: Go's `crypto/x509` for CSRs, ring's standard verifiers
//!   for CRLs and the webhook's CA.
//!
//! Built on them: [`decode_csr`] and [`parse_csr`] for PKCS#10 requests, and [`issue`]:
//! certificates signed from CertificateRequests as cert-manager's CA and SelfSigned issuers
//! sign them.
//!
//! One exception, on purpose: the serving certificate and key that certgate's own servers
//! load into rustls (`certgate-serving`'s `tls` and `dev_cert`, the sandbox's transport) are
//! read with rustls-pki-types' PEM reader, the input format rustls itself defines for its
//! key types. Those files are the operator's, not a tenant's; everything tenants write
//! (CSRs, CRLs, CA bundles, template input) is read here.
#![forbid(unsafe_code)]

mod asn1_string;
pub mod csr;
mod decode;
pub mod der;
mod extensions;
pub mod generate;
mod input;
mod ip;
pub mod issue;
mod key;
pub mod pem;
mod request;
mod san;
pub mod signature;
mod subject;
mod uri;
mod usages;

pub use csr::{
    AttributeValue, CsrError, DecodedCsr, KeyAlgorithm, MAX_CSR_BYTES, OtherName, PublicKeyInfo,
    SanEntries, SubjectAttribute, UnsupportedSan, decode_csr, parse_csr,
};
pub use usages::{EXT_KEY_USAGES, KEY_USAGE_NAMES, KnownExtKeyUsage};
