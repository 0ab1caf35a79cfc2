//! PEM / PKCS#10 / X.509 decoding for certgate. Every input is hostile: sizes are bounded,
//! nothing panics, and errors say what was wrong and where.
#![forbid(unsafe_code)]

pub mod csr;

pub use csr::{
    AttributeValue, CsrError, DecodedCsr, KeyAlgorithm, MAX_CSR_BYTES, OtherName, PublicKeyInfo,
    SanEntries, SubjectAttribute, UnsupportedSan, decode_csr, parse_csr,
};
