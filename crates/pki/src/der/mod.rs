//! The workspace's one set of DER helpers, in two layers over the same encoding rules:
//!
//! - [`Reader`] walks TLVs without allocating and reports absolute offsets, so a CRL of tens
//!   of megabytes is indexed in place (`certgate-crl` keeps offsets, not slices); sprig reads
//!   private keys with it and [`tlv`] writes DER.
//! - The field-named layer (crate-private) reads PKCS#10 requests and certificates on top of
//!   `asn1-rs`, with DER constraints as strict as Go's `encoding/asn1` and errors that name the
//!   field being read, because those texts reach users in CSR denials.

mod fields;
mod reader;
mod write;

pub(crate) use fields::{
    Element, boolean, end, octet_aligned_bits, oid_string, positive_integer, read, read_oid,
    read_universal,
};
pub use reader::{
    BIT_STRING, BOOLEAN, CONTEXT_0_CONSTRUCTED, DerError, ENUMERATED, GENERALIZED_TIME, INTEGER,
    OCTET_STRING, OID, Reader, SEQUENCE, Tlv, UTC_TIME, minimal_integer,
};
pub use write::tlv;
