//! What cert-manager's Certificate controllers generate before a request exists: the private
//! key (`pkg/controller/certificates/keymanager`, `pki.GeneratePrivateKeyForCertificate`) and
//! the PKCS#10 request made from the Certificate's spec with that key
//! (`pkg/controller/certificates/requestmanager`, `pki.GenerateCSR`).
//!
//! Keys come from the operating system's random source (ring for ECDSA and Ed25519, the
//! `rsa` crate for RSA, which ring cannot generate); nothing else is read or written.
//! The request is written by rcgen: it encodes exactly the subject, the alternative names,
//! keyUsage, extKeyUsage and basicConstraints given here, and signs with the key through ring.

mod csr;
mod key;

pub use csr::{CsrError, CsrSpec, SubjectSpec, build_csr};
pub use key::{
    GeneratedKey, KeyEncoding, KeyError, KeySpec, KeyType, generate_private_key, key_to_pkcs8,
};
