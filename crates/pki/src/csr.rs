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
    /// Set when a SAN extension is present but cannot be decoded (policy denies with this text):
    /// the first failure, e.g. `entry 0 (dNSName): non-ASCII byte at offset 3`. Entries of a
    /// failed extension are left out of `san`; those of other SAN extensions are kept.
    pub san_decode_error: Option<String>,
    pub public_key: PublicKeyInfo,
    /// `basicConstraints.cA` when the extension is present.
    pub basic_constraints_ca: Option<bool>,
    /// keyUsage bits as cert-manager names (`digital signature`, `key encipherment`, ...).
    pub key_usages: Vec<String>,
    /// extKeyUsage as cert-manager names (`server auth`, ...); unknown OIDs as dotted strings.
    pub ext_key_usages: Vec<String>,
    /// Whether a keyUsage or extKeyUsage extension was requested at all, even one naming
    /// no usage: cert-manager compares usages exactly when one is present.
    pub usage_extensions_present: bool,
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
    #[error("certificate request is empty; provide a PEM-encoded PKCS#10 certificate request")]
    Empty,
    #[error(
        "certificate request is neither PEM (no valid \"-----BEGIN CERTIFICATE REQUEST-----\" block) \
         nor DER (does not start with an ASN.1 SEQUENCE); provide a PEM-encoded PKCS#10 certificate request"
    )]
    NotPemOrDer,
    /// The first PEM block is not a certificate request; `found` is its label (at most 64
    /// characters).
    #[error(
        "PEM block is {found:?}, expected \"CERTIFICATE REQUEST\" or \"NEW CERTIFICATE REQUEST\"; \
         provide a PKCS#10 certificate request, not another kind of PEM object"
    )]
    WrongPemType { found: String },
    #[error("PEM block {label:?} does not contain valid base64: {reason}")]
    InvalidBase64 { label: String, reason: String },
    /// The PKCS#10 structure is malformed; `reason` names the field and the problem.
    #[error("certificate request is not valid PKCS#10 DER: {reason}")]
    Der { reason: String },
    #[error(
        "certificate request has {bytes} bytes of trailing data after the PKCS#10 structure; \
         remove them"
    )]
    TrailingData { bytes: usize },
    /// A Subject value of a string type has content Go rejects (e.g. `_` in a
    /// PrintableString).
    #[error("certificate request subject cannot be decoded: {reason}")]
    Subject { reason: String },
    #[error("certificate request public key is invalid: {reason}")]
    PublicKey { reason: String },
    /// A requested keyUsage, extKeyUsage or basicConstraints extension is malformed.
    /// (A malformed subjectAltName is not an error: see [`DecodedCsr::san_decode_error`].)
    #[error("requested {extension} extension cannot be decoded: {reason}")]
    Extension { extension: String, reason: String },
    #[error(
        "certificate request signature algorithm {algorithm} is not supported; sign the request \
         with RSA (PKCS#1 v1.5 or PSS), ECDSA or Ed25519"
    )]
    UnsupportedSignatureAlgorithm { algorithm: String },
    /// A supported algorithm that cannot be used here: wrong key type, unsupported
    /// parameters, key size or curve/hash combination.
    #[error("certificate request signature algorithm {algorithm} cannot be verified: {reason}")]
    BadSignatureAlgorithm { algorithm: String, reason: String },
    #[error(
        "certificate request signature ({algorithm}) does not verify with the request's own \
         public key; the request was altered or signed with a different key"
    )]
    InvalidSignature { algorithm: String },
}

/// Decodes a PEM or DER PKCS#10 request and verifies its self-signature.
pub fn decode_csr(input: &[u8]) -> Result<DecodedCsr, CsrError> {
    crate::decode::decode(input, true)
}

/// Decodes without verifying the signature (for callers that verified already, and benches).
pub fn parse_csr(input: &[u8]) -> Result<DecodedCsr, CsrError> {
    crate::decode::decode(input, false)
}
