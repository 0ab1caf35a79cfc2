//! PEM / PKCS#10 / X.509 decoding for certgate. Every input is hostile: sizes are bounded,
//! nothing panics, and errors say what was wrong and where.
#![forbid(unsafe_code)]

mod asn1_string;
pub mod csr;
mod decode;
mod der;
mod extensions;
mod input;
mod ip;
mod key;
mod pem;
mod pss;
mod request;
mod san;
mod signature;
mod subject;
#[cfg(test)]
mod test_der;
mod uri;
mod usages;

pub use csr::{
    AttributeValue, CsrError, DecodedCsr, KeyAlgorithm, MAX_CSR_BYTES, OtherName, PublicKeyInfo,
    SanEntries, SubjectAttribute, UnsupportedSan, decode_csr, parse_csr,
};
pub use usages::{EXT_KEY_USAGES, KEY_USAGE_NAMES, KnownExtKeyUsage};
