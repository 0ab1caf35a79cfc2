//! One CRL: header fields, extensions and the serial index, read from its DER without
//! materialising the revoked entries (they stay in the DER, addressed by the index).

use serde::Serialize;

use certgate_pki::der::{self, DerError, Reader, Tlv, minimal_integer};

use crate::Limits;
use crate::error::CrlParseError;
use crate::index::{MAX_SERIAL_LEN, SerialIndex};
use crate::oid;
use crate::sigalg::{self, SignatureAlgorithm};
use crate::time::{Timestamp, decode_time};

/// A CRL number (or delta base), as minimal big-endian bytes of a non-negative INTEGER.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(into = "String")]
pub struct CrlNumber(Vec<u8>);

impl CrlNumber {
    /// Minimal big-endian bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

impl Ord for CrlNumber {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Non-negative minimal encodings: more bytes means larger.
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.cmp(&other.0))
    }
}

impl PartialOrd for CrlNumber {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for CrlNumber {
    /// Decimal when it fits in 128 bits, else `0x` + hex.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.len() <= 16 {
            let v = self.0.iter().fold(0u128, |acc, b| (acc << 8) | u128::from(*b));
            write!(f, "{v}")
        } else {
            write!(f, "0x{}", crate::name::hex(&self.0))
        }
    }
}

impl From<CrlNumber> for String {
    fn from(n: CrlNumber) -> String {
        n.to_string()
    }
}

/// One CRL extension as found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrlExtension {
    /// Dotted OID.
    pub oid: String,
    /// Known name, e.g. `cRLNumber`.
    pub name: Option<&'static str>,
    pub critical: bool,
}

/// The header of a CRL: what `certgate crl` prints and the checks reason about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrlInfo {
    /// 1 for a v1 CRL (version field absent), 2 for v2.
    pub version: u8,
    /// Issuer as an RFC 4514 string.
    pub issuer: String,
    pub this_update: Timestamp,
    pub next_update: Option<Timestamp>,
    /// Number of revoked entries.
    pub entries: usize,
    pub crl_number: Option<CrlNumber>,
    /// `deltaCRLIndicator` base CRL number, when this is a delta CRL.
    pub delta_base: Option<CrlNumber>,
    /// Key identifier of the `authorityKeyIdentifier` extension, hex.
    pub authority_key_id: Option<String>,
    /// Whether an `issuingDistributionPoint` extension is present (its scope is not evaluated).
    pub issuing_distribution_point: bool,
    /// Whether the `[0] crlExtensions` block is present at all (rustls-webpki requires it).
    pub has_extensions: bool,
    pub extensions: Vec<CrlExtension>,
    pub signature_algorithm: SignatureAlgorithm,
    /// Two entries with the same serial.
    pub duplicate_serials: bool,
}

impl CrlInfo {
    /// Critical extensions BoringSSL does not handle (it handles IDP and AKID): a CRL with one
    /// fails every check that uses it with `UNHANDLED_CRITICAL_CRL_EXTENSION`.
    pub fn unhandled_critical_extensions(&self) -> impl Iterator<Item = &CrlExtension> {
        self.extensions.iter().filter(|e| {
            e.critical
                && !matches!(e.name, Some("issuingDistributionPoint" | "authorityKeyIdentifier"))
        })
    }
}

/// A revoked entry, decoded on demand from the DER.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RevokedEntry {
    /// Minimal DER INTEGER bytes of the serial, hex.
    pub serial: String,
    pub revocation_date: Option<Timestamp>,
    /// `CRLReason` code (RFC 5280 §5.3.1), when present.
    pub reason_code: Option<u8>,
}

/// A parsed CRL that owns its DER; the revoked list is indexed, not copied.
#[derive(Debug, Clone)]
pub struct Crl {
    der: Vec<u8>,
    tbs: (usize, usize),
    signature_alg_outer: (usize, usize),
    signature_alg_inner: (usize, usize),
    signature: (usize, usize),
    issuer_raw: (usize, usize),
    /// The `revokedCertificates` SEQUENCE (whole TLV), when present.
    revoked_raw: Option<(usize, usize)>,
    authority_key_id: Option<Vec<u8>>,
    info: CrlInfo,
    index: SerialIndex,
}

fn malformed(field: &'static str) -> impl Fn(DerError) -> CrlParseError {
    move |e| CrlParseError::Malformed { field, detail: e.to_string() }
}

fn span(t: &Tlv<'_>) -> (usize, usize) {
    let start = t.content_offset.saturating_sub(t.raw.len() - t.content.len());
    (start, start + t.raw.len())
}

impl Crl {
    /// Parses a DER `CertificateList`, taking ownership of the buffer.
    pub fn from_der(der: Vec<u8>, limits: &Limits) -> Result<Crl, CrlParseError> {
        if der.len() > limits.max_bundle_bytes || u32::try_from(der.len()).is_err() {
            return Err(CrlParseError::TooLarge {
                size: der.len(),
                limit: limits.max_bundle_bytes,
            });
        }
        let mut outer = Reader::new(&der);
        let list = outer.read(der::SEQUENCE).map_err(malformed("CertificateList"))?;
        if !outer.is_empty() {
            return Err(CrlParseError::TrailingData { trailing: der.len() - list.raw.len() });
        }
        let mut l = Reader::nested(&list);
        let tbs = l.read(der::SEQUENCE).map_err(malformed("tbsCertList"))?;
        let alg = l.read(der::SEQUENCE).map_err(malformed("signatureAlgorithm"))?;
        let sig = l.read(der::BIT_STRING).map_err(malformed("signatureValue"))?;
        if !l.is_empty() {
            return Err(CrlParseError::Malformed {
                field: "CertificateList",
                detail: "unexpected element after signatureValue".into(),
            });
        }
        let (sig_start, sig_end) = match sig.content.first() {
            Some(0) => (sig.content_offset + 1, sig.content_offset + sig.content.len()),
            _ => {
                return Err(CrlParseError::Malformed {
                    field: "signatureValue",
                    detail: "BIT STRING with unused bits or empty".into(),
                });
            }
        };

        let mut t = Reader::nested(&tbs);
        let version = match t.read_optional(der::INTEGER).map_err(malformed("version"))? {
            None => 1,
            Some(v) if v.content == [1] => 2,
            Some(v) => {
                return Err(CrlParseError::Malformed {
                    field: "version",
                    detail: format!(
                        "version value 0x{} (only v1 and v2 exist)",
                        v.content.iter().take(8).map(|b| format!("{b:02x}")).collect::<String>()
                    ),
                });
            }
        };
        let inner_alg = t.read(der::SEQUENCE).map_err(malformed("signature"))?;
        let issuer = t.read(der::SEQUENCE).map_err(malformed("issuer"))?;
        let this_update = read_time(&mut t, "thisUpdate")?
            .ok_or(CrlParseError::BadTime { field: "thisUpdate" })?;
        let next_update = read_time(&mut t, "nextUpdate")?;

        let mut index = SerialIndex::default();
        let mut entries = 0usize;
        let mut revoked_raw = None;
        if t.peek_tag() == Some(der::SEQUENCE) {
            let revoked = t.read_any().map_err(malformed("revokedCertificates"))?;
            revoked_raw = Some(span(&revoked));
            // An entry is at least 2 + 3 + 15 bytes; size the index once instead of regrowing.
            index = SerialIndex::with_capacity(
                (revoked.content.len() / 20).min(limits.max_entries_per_crl),
            );
            let mut r = Reader::nested(&revoked);
            while !r.is_empty() {
                if entries >= limits.max_entries_per_crl {
                    return Err(CrlParseError::TooManyEntries {
                        limit: limits.max_entries_per_crl,
                    });
                }
                let entry_start = r.offset();
                let entry =
                    r.read(der::SEQUENCE).map_err(malformed("revokedCertificates entry"))?;
                let mut e = Reader::nested(&entry);
                let serial = e.read(der::INTEGER).map_err(malformed("revoked serial"))?;
                let minimal = minimal_integer(serial.content);
                if minimal.is_empty() {
                    return Err(CrlParseError::Malformed {
                        field: "revoked serial",
                        detail: format!("entry {entries} has an empty INTEGER"),
                    });
                }
                if minimal.len() > MAX_SERIAL_LEN {
                    return Err(CrlParseError::SerialTooLong {
                        entry: entries,
                        len: minimal.len(),
                        limit: MAX_SERIAL_LEN,
                    });
                }
                let off = serial.content_offset + (serial.content.len() - minimal.len());
                let date = e.read_any().map_err(malformed("revocationDate"))?;
                if !matches!(date.tag, der::UTC_TIME | der::GENERALIZED_TIME) {
                    return Err(CrlParseError::BadTime { field: "revocationDate" });
                }
                if !index.push(minimal, off, off - entry_start) {
                    return Err(CrlParseError::TooLarge {
                        size: der.len(),
                        limit: u32::MAX as usize,
                    });
                }
                entries += 1;
            }
        }

        let mut info_ext = Extensions::default();
        let mut has_extensions = false;
        if let Some(exts) =
            t.read_optional(der::CONTEXT_0_CONSTRUCTED).map_err(malformed("crlExtensions"))?
        {
            has_extensions = true;
            info_ext = read_extensions(&exts)?;
        }
        if !t.is_empty() {
            return Err(CrlParseError::Malformed {
                field: "tbsCertList",
                detail: "unexpected element after crlExtensions".into(),
            });
        }

        index.finish(&der);
        let duplicate_serials = index.has_duplicates(&der);
        let info = CrlInfo {
            version,
            issuer: crate::name::rfc4514(issuer.raw),
            this_update,
            next_update,
            entries,
            crl_number: info_ext.crl_number,
            delta_base: info_ext.delta_base,
            authority_key_id: info_ext.akid.as_deref().map(crate::name::hex),
            issuing_distribution_point: info_ext.idp,
            has_extensions,
            extensions: info_ext.list,
            signature_algorithm: sigalg::classify(alg.raw),
            duplicate_serials,
        };
        Ok(Crl {
            tbs: span(&tbs),
            signature_alg_outer: span(&alg),
            signature_alg_inner: span(&inner_alg),
            signature: (sig_start, sig_end),
            issuer_raw: span(&issuer),
            revoked_raw,
            authority_key_id: info_ext.akid,
            info,
            index,
            der,
        })
    }

    /// Header fields.
    pub fn info(&self) -> &CrlInfo {
        &self.info
    }

    /// The whole DER.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// The serial index.
    pub fn index(&self) -> &SerialIndex {
        &self.index
    }

    /// DER of the issuer Name (compared byte for byte with certificate issuer/subject names).
    pub fn issuer_der(&self) -> &[u8] {
        self.slice(self.issuer_raw)
    }

    pub(crate) fn authority_key_id(&self) -> Option<&[u8]> {
        self.authority_key_id.as_deref()
    }

    pub(crate) fn tbs(&self) -> &[u8] {
        self.slice(self.tbs)
    }

    pub(crate) fn signature_value(&self) -> &[u8] {
        self.slice(self.signature)
    }

    /// Whether the inner and outer signature AlgorithmIdentifiers agree (RFC 5280 §5.1.1.2).
    pub(crate) fn algorithms_agree(&self) -> bool {
        self.slice(self.signature_alg_inner) == self.slice(self.signature_alg_outer)
    }

    fn slice(&self, (a, b): (usize, usize)) -> &[u8] {
        self.der.get(a..b).unwrap_or_default()
    }

    /// The revoked entries in the order the CRL lists them (as `openssl crl -text` prints
    /// them), decoded one at a time from the DER: nothing is collected, so listing a
    /// million-entry CRL costs constant memory.
    pub fn revoked_entries(&self) -> crate::listing::RevokedEntries<'_> {
        let content = self
            .revoked_raw
            .and_then(|span| Reader::new(self.slice(span)).read(der::SEQUENCE).ok())
            .map_or(&[][..], |list| list.content);
        crate::listing::RevokedEntries::new(content)
    }

    /// Whether `serial` is listed; any INTEGER encoding of the serial is accepted (it is
    /// reduced to minimal DER bytes first).
    pub fn is_revoked(&self, serial: &[u8]) -> bool {
        self.index.find(&self.der, minimal_integer(serial)).is_some()
    }

    /// The entry listing `serial`, with its date and reason decoded.
    pub fn lookup(&self, serial: &[u8]) -> Option<RevokedEntry> {
        let minimal = minimal_integer(serial);
        let (_, entry_off) = self.index.find(&self.der, minimal)?;
        let mut r = Reader::new(self.der.get(entry_off..)?);
        let entry = r.read(der::SEQUENCE).ok()?;
        let mut e = Reader::nested(&entry);
        let _ = e.read(der::INTEGER).ok()?;
        let date = e.read_any().ok()?;
        let reason_code =
            e.read_optional(der::SEQUENCE).ok().flatten().and_then(|exts| entry_reason(&exts));
        Some(RevokedEntry {
            serial: crate::name::hex(minimal),
            revocation_date: decode_time(date.tag, date.content),
            reason_code,
        })
    }
}

fn read_time(r: &mut Reader<'_>, field: &'static str) -> Result<Option<Timestamp>, CrlParseError> {
    match r.peek_tag() {
        Some(tag @ (der::UTC_TIME | der::GENERALIZED_TIME)) => {
            let t = r.read_any().map_err(malformed(field))?;
            decode_time(tag, t.content).map(Some).ok_or(CrlParseError::BadTime { field })
        }
        _ => Ok(None),
    }
}

#[derive(Default)]
struct Extensions {
    crl_number: Option<CrlNumber>,
    delta_base: Option<CrlNumber>,
    akid: Option<Vec<u8>>,
    idp: bool,
    list: Vec<CrlExtension>,
}

/// Bound on CRL-level extensions: real CRLs carry a handful.
const MAX_EXTENSIONS: usize = 64;

fn read_extensions(wrapper: &Tlv<'_>) -> Result<Extensions, CrlParseError> {
    let mut out = Extensions::default();
    let mut w = Reader::nested(wrapper);
    let seq = w.read(der::SEQUENCE).map_err(malformed("crlExtensions"))?;
    let mut r = Reader::nested(&seq);
    while !r.is_empty() {
        if out.list.len() >= MAX_EXTENSIONS {
            return Err(CrlParseError::Malformed {
                field: "crlExtensions",
                detail: format!("more than {MAX_EXTENSIONS} extensions"),
            });
        }
        let ext = r.read(der::SEQUENCE).map_err(malformed("crlExtensions entry"))?;
        let mut e = Reader::nested(&ext);
        let id = e.read(der::OID).map_err(malformed("extension id"))?.content;
        let critical =
            match e.read_optional(der::BOOLEAN).map_err(malformed("extension critical"))? {
                Some(b) => b.content != [0],
                None => false,
            };
        let value = e.read(der::OCTET_STRING).map_err(malformed("extension value"))?.content;
        let bad = |field: &'static str| {
            move |e: DerError| CrlParseError::Malformed { field, detail: e.to_string() }
        };
        match id {
            oid::CRL_NUMBER => out.crl_number = Some(read_number(value).map_err(bad("cRLNumber"))?),
            oid::DELTA_CRL_INDICATOR => {
                out.delta_base = Some(read_number(value).map_err(bad("deltaCRLIndicator"))?)
            }
            oid::AUTHORITY_KEY_IDENTIFIER => {
                out.akid = read_akid(value).map_err(bad("authorityKeyIdentifier"))?
            }
            oid::ISSUING_DISTRIBUTION_POINT => out.idp = true,
            _ => {}
        }
        out.list.push(CrlExtension {
            oid: oid::dotted(id),
            name: oid::crl_extension_name(id),
            critical,
        });
    }
    Ok(out)
}

fn read_number(value: &[u8]) -> Result<CrlNumber, DerError> {
    let n = Reader::new(value).read(der::INTEGER)?;
    Ok(CrlNumber(minimal_integer(n.content).to_vec()))
}

fn read_akid(value: &[u8]) -> Result<Option<Vec<u8>>, DerError> {
    let seq = Reader::new(value).read(der::SEQUENCE)?;
    // keyIdentifier is `[0] IMPLICIT OCTET STRING`.
    Ok(Reader::nested(&seq).read_optional(0x80)?.map(|k| k.content.to_vec()))
}

pub(crate) fn entry_reason(exts: &Tlv<'_>) -> Option<u8> {
    let mut r = Reader::nested(exts);
    while !r.is_empty() {
        let ext = r.read(der::SEQUENCE).ok()?;
        let mut e = Reader::nested(&ext);
        let id = e.read(der::OID).ok()?.content;
        let _ = e.read_optional(der::BOOLEAN).ok()?;
        let value = e.read(der::OCTET_STRING).ok()?.content;
        if id == oid::REASON_CODE {
            // CRLReason ::= ENUMERATED
            let v = Reader::new(value).read(der::ENUMERATED).ok()?;
            return v.content.first().copied();
        }
    }
    None
}
