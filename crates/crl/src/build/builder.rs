//! Writing and signing one CRL.

use super::der::{self, length_len, put_header, put_integer, put_time, tlv, tlv_len};
use super::entry::{self, MAX_SERIAL_OCTETS, RevokedCert};
use super::error::BuildError;
use super::signer::CaSigner;
use crate::time::Timestamp;

/// Default of [`BuildLimits::max_entries`]. A Kubernetes Secret (1 MiB) holds about 20,000
/// entries with 16-octet serials, so a CRL published into a Secret meets that bound first;
/// 100,000 entries are about 4 MB of DER, built and signed in tens of milliseconds.
pub const DEFAULT_MAX_ENTRIES: usize = 100_000;

/// Bounds of [`build_crl`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildLimits {
    /// Most revoked certificates in one CRL.
    pub max_entries: usize,
}

impl Default for BuildLimits {
    fn default() -> Self {
        BuildLimits { max_entries: DEFAULT_MAX_ENTRIES }
    }
}

/// What one CRL says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrlParams<'a> {
    /// Issue time. BoringSSL refuses a CRL whose thisUpdate is after its own clock, so backdate
    /// it a little ([`super::RefreshPolicy::window`] does).
    pub this_update: Timestamp,
    /// When the CRL expires; must be after `this_update`.
    pub next_update: Timestamp,
    /// The `cRLNumber` as unsigned big-endian bytes (leading zeros ignored, at most 20 octets,
    /// zero allowed): increase it with every CRL ([`super::next_crl_number`]).
    pub crl_number: Vec<u8>,
    /// The revoked certificates, in any order (they are written in ascending serial order).
    /// A serial listed twice is refused.
    pub revoked: &'a [RevokedCert],
}

/// A signed CRL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltCrl {
    der: Vec<u8>,
    entries: usize,
}

impl BuiltCrl {
    /// The `CertificateList` DER.
    pub fn der(&self) -> &[u8] {
        &self.der
    }

    /// The DER, without copying.
    pub fn into_der(self) -> Vec<u8> {
        self.der
    }

    /// One `X509 CRL` PEM block (64-column base64, trailing newline): the `crl.pem` of a
    /// Contour `crlSecret`.
    pub fn to_pem(&self) -> String {
        certgate_pki::pem::encode(crate::pem::CRL_LABEL, &self.der)
    }

    /// Number of revoked entries.
    pub fn entries(&self) -> usize {
        self.entries
    }
}

/// Room kept in front of the TBSCertList for the outer SEQUENCE header (tag + 5 length
/// octets), so the TBS is written once in the final buffer and signed in place.
const HEADER_ROOM: usize = 6;

/// Builds and signs a v2 CRL: version 2, the CA's subject as issuer (its DER bytes as they
/// are), `thisUpdate`, `nextUpdate`, the entries (serial, `revocationDate`, a `reasonCode`
/// extension when there is a reason) in ascending serial order (the list is omitted when
/// empty, RFC 5280 §5.1.2.6), and two non-critical extensions: `authorityKeyIdentifier` (the
/// CA's key identifier) and `cRLNumber`. No issuingDistributionPoint: the CRL covers every
/// certificate of the CA, which is what BoringSSL and rustls-webpki expect of a complete CRL.
///
/// Times are UTCTime for 1950–2049 and GeneralizedTime otherwise (RFC 5280 §5.1.2.4).
pub fn build_crl(
    signer: &CaSigner,
    params: &CrlParams<'_>,
    limits: &BuildLimits,
) -> Result<BuiltCrl, BuildError> {
    if params.revoked.len() > limits.max_entries {
        return Err(BuildError::TooManyEntries {
            entries: params.revoked.len(),
            limit: limits.max_entries,
        });
    }
    for (field, time) in [("thisUpdate", params.this_update), ("nextUpdate", params.next_update)] {
        if !der::time_in_range(time) {
            return Err(BuildError::TimeOutOfRange { field: field.into(), time });
        }
    }
    if params.next_update <= params.this_update {
        return Err(BuildError::NextUpdateNotAfterThisUpdate {
            this_update: params.this_update,
            next_update: params.next_update,
        });
    }
    let number = der::magnitude(&params.crl_number);
    if number.len() > MAX_SERIAL_OCTETS {
        return Err(BuildError::CrlNumberTooLong {
            octets: number.len(),
            limit: MAX_SERIAL_OCTETS,
        });
    }
    let entries = entry::prepare(params.revoked)?;

    // Sizes first, so that everything is written once into a buffer of the final size.
    let entry_len = |e: &entry::Prepared| {
        tlv_len(der::integer_len(e.serial()))
            + der::time_len(e.revoked_at)
            + entry::extensions_len(e.reason)
    };
    let list_len = entries.iter().map(|e| tlv_len(entry_len(e))).sum::<usize>();
    let extensions = crl_extensions(signer.authority_key_id(), number);
    let alg = signer.algorithm_id();
    let tbs_len = 3
        + alg.len()
        + signer.subject_der().len()
        + der::time_len(params.this_update)
        + der::time_len(params.next_update)
        + if entries.is_empty() { 0 } else { tlv_len(list_len) }
        + extensions.len();
    let signature_room = tlv_len(1 + signer.max_signature_len());
    let capacity = HEADER_ROOM + tlv_len(tbs_len) + alg.len() + signature_room;
    if u32::try_from(capacity).is_err() {
        return Err(BuildError::TooLarge { bytes: capacity });
    }

    let mut out = Vec::with_capacity(capacity);
    out.resize(HEADER_ROOM, 0);
    put_header(&mut out, der::SEQUENCE, tbs_len);
    out.extend_from_slice(&[der::INTEGER, 1, 1]);
    out.extend_from_slice(alg);
    out.extend_from_slice(signer.subject_der());
    put_time(&mut out, params.this_update);
    put_time(&mut out, params.next_update);
    if !entries.is_empty() {
        put_header(&mut out, der::SEQUENCE, list_len);
        for e in &entries {
            put_header(&mut out, der::SEQUENCE, entry_len(e));
            put_integer(&mut out, e.serial());
            put_time(&mut out, e.revoked_at);
            if let Some(reason) = e.reason {
                entry::put_reason(&mut out, reason);
            }
        }
    }
    out.extend_from_slice(&extensions);
    if out.len() != HEADER_ROOM + tlv_len(tbs_len) {
        return Err(BuildError::Internal {
            detail: format!(
                "tbsCertList is {} bytes, {} were computed",
                out.len() - HEADER_ROOM,
                tlv_len(tbs_len)
            ),
        });
    }

    let signature = signer.sign(out.get(HEADER_ROOM..).unwrap_or_default())?;
    out.extend_from_slice(alg);
    put_header(&mut out, der::BIT_STRING, 1 + signature.len());
    out.push(0);
    out.extend_from_slice(&signature);

    // The outer SEQUENCE header goes right before the TBS; the unused room is dropped.
    let content_len = out.len() - HEADER_ROOM;
    let header_len = 1 + length_len(content_len);
    let start = HEADER_ROOM.saturating_sub(header_len);
    let mut header = Vec::with_capacity(header_len);
    put_header(&mut header, der::SEQUENCE, content_len);
    if let Some(slot) = out.get_mut(start..HEADER_ROOM) {
        slot.copy_from_slice(&header);
    }
    out.drain(..start);
    Ok(BuiltCrl { der: out, entries: entries.len() })
}

/// `[0] { SEQUENCE { authorityKeyIdentifier, cRLNumber } }`, both non-critical.
fn crl_extensions(key_id: &[u8], number: &[u8]) -> Vec<u8> {
    // AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING, ... }
    let akid_value = tlv(der::SEQUENCE, &tlv(0x80, key_id));
    let akid = tlv(
        der::SEQUENCE,
        &[tlv(der::OID, &[0x55, 0x1d, 0x23]), tlv(der::OCTET_STRING, &akid_value)].concat(),
    );
    let mut number_der = Vec::new();
    put_integer(&mut number_der, number);
    let crl_number = tlv(
        der::SEQUENCE,
        &[tlv(der::OID, &[0x55, 0x1d, 0x14]), tlv(der::OCTET_STRING, &number_der)].concat(),
    );
    tlv(der::CONTEXT_0, &tlv(der::SEQUENCE, &[akid, crl_number].concat()))
}
