//! PKCS#10 certificate signing requests, decoded into the attributes policy evaluation needs.

/// Largest `spec.request` accepted, PEM or DER.
pub const MAX_CSR_BYTES: usize = 64 * 1024;

/// A decoded CSR: the attributes approver-policy evaluates, in the forms Go renders them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedCsr {
    /// Subject RDN attributes in encoded order (multi-valued RDNs flattened in order).
    pub subject: Vec<SubjectAttribute>,
    /// Subject alternative names.
    pub san: SanEntries,
    /// Number of subjectAltName extensions in the extension request (policy denies > 1).
    pub san_extension_count: usize,
    /// Set when a SAN extension is present but cannot be decoded (policy denies with this text).
    pub san_decode_error: Option<String>,
    pub public_key: PublicKeyInfo,
    /// `basicConstraints.cA` when the extension is present.
    pub basic_constraints_ca: Option<bool>,
    /// keyUsage bits as cert-manager names (`digital signature`, `key encipherment`, ...).
    pub key_usages: Vec<String>,
    /// extKeyUsage as cert-manager names (`server auth`, ...); unknown OIDs as dotted strings.
    pub ext_key_usages: Vec<String>,
}

/// One Subject attribute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SubjectAttribute {
    /// Dotted OID, e.g. `2.5.4.3` for CN.
    pub oid: String,
    pub value: AttributeValue,
}

/// A Subject attribute value: a string when Go's `encoding/asn1` would decode it to one
/// (PrintableString, NumericString, IA5String, T61String, UTF8String, BMPString).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttributeValue {
    String(String),
    NonString,
}

/// SAN entries by kind, in encoded order within each kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SanEntries {
    pub dns_names: Vec<String>,
    /// Rendered like Go's `net.IP.String()` (IPv4-mapped IPv6 shown as IPv4, `::` compression).
    pub ip_addresses: Vec<String>,
    /// Rendered like Go's `url.URL.String()`.
    pub uris: Vec<String>,
    pub email_addresses: Vec<String>,
    pub other_names: Vec<OtherName>,
    /// Kinds policy always denies, in encoded order.
    pub unsupported: Vec<UnsupportedSan>,
}

/// A SAN otherName: OID plus value (text for UTF8/Printable/IA5/T61 strings inside the
/// `[0]` wrapper, else lowercase hex of the full DER of the inner value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OtherName {
    pub oid: String,
    pub value: String,
}

/// SAN GeneralName kinds that are never permitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnsupportedSan {
    DirectoryName,
    X400Address,
    EdiPartyName,
    RegisteredId,
}

impl UnsupportedSan {
    /// The name upstream uses in paths and messages (`directoryName`, `x400Address`,
    /// `ediPartyName`, `registeredID`).
    pub fn as_str(self) -> &'static str {
        match self {
            UnsupportedSan::DirectoryName => "directoryName",
            UnsupportedSan::X400Address => "x400Address",
            UnsupportedSan::EdiPartyName => "ediPartyName",
            UnsupportedSan::RegisteredId => "registeredID",
        }
    }
}

/// Public key algorithm and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicKeyInfo {
    pub algorithm: KeyAlgorithm,
    /// RSA modulus bits, ECDSA curve bits, `-1` for Ed25519 (as approver-policy reports).
    pub size: i64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyAlgorithm {
    Rsa,
    Ecdsa,
    Ed25519,
    /// Anything else, by dotted algorithm OID.
    Other(String),
}

/// Why a CSR could not be used. Messages name the problem and, where useful, the fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CsrError {
    #[error("certificate request is {size} bytes, larger than the {limit} byte limit")]
    TooLarge { size: usize, limit: usize },
    // The pki crate owner adds the remaining variants (PEM, DER, signature, ...).
}

/// Decodes a PEM or DER PKCS#10 request and verifies its self-signature.
pub fn decode_csr(input: &[u8]) -> Result<DecodedCsr, CsrError> {
    let _ = input;
    todo!("pki crate owner")
}

/// Decodes without verifying the signature (for callers that verified already, and benches).
pub fn parse_csr(input: &[u8]) -> Result<DecodedCsr, CsrError> {
    let _ = input;
    todo!("pki crate owner")
}
