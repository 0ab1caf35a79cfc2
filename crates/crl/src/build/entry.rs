//! Revoked certificates as the builder takes them, and their normalisation: serials reduced to
//! their unsigned magnitude, checked, sorted, duplicates refused.

use std::cmp::Ordering;

use serde::Serialize;

use super::der::{self, magnitude};
use super::error::BuildError;
use crate::time::Timestamp;

/// Longest serial (and CRL number) accepted, in octets of its unsigned magnitude: RFC 5280
/// §4.1.2.2 and §5.2.3 allow 20. Go's `x509.CreateCertificate` (cert-manager) applies the bound
/// to the magnitude too, so a 20-octet serial with its top bit set (21 octets once DER adds the
/// sign octet) is accepted, as every certificate a Go CA issues can be revoked.
pub const MAX_SERIAL_OCTETS: usize = 20;

/// Why a certificate was revoked: RFC 5280 §5.3.1 `CRLReason`, written as the entry's
/// `reasonCode` extension.
///
/// `unspecified` (0) has no variant: RFC 5280 says the extension SHOULD then be absent, so it
/// is `reason: None`. `removeFromCRL` (8) has none either: it only belongs in delta CRLs, and a
/// verifier may treat such an entry as *not* revoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Reason {
    KeyCompromise = 1,
    CaCompromise = 2,
    AffiliationChanged = 3,
    Superseded = 4,
    CessationOfOperation = 5,
    /// Revoked while it lasts; removing the entry from a later CRL releases the hold.
    CertificateHold = 6,
    PrivilegeWithdrawn = 9,
    AaCompromise = 10,
}

impl Reason {
    /// Every variant, in code order.
    pub const ALL: [Reason; 8] = [
        Reason::KeyCompromise,
        Reason::CaCompromise,
        Reason::AffiliationChanged,
        Reason::Superseded,
        Reason::CessationOfOperation,
        Reason::CertificateHold,
        Reason::PrivilegeWithdrawn,
        Reason::AaCompromise,
    ];

    /// The `CRLReason` code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The variant of a `CRLReason` code; `None` for 0 (unspecified), 7 (unused), 8
    /// (removeFromCRL) and codes above 10.
    pub fn from_code(code: u8) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.code() == code)
    }
}

/// One revoked certificate.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RevokedCert {
    /// The certificate's serial as unsigned big-endian bytes, at most [`MAX_SERIAL_OCTETS`]
    /// once leading zero octets are dropped. Leading zero octets are ignored, so both the
    /// magnitude (`big.Int.Bytes()`, `u64::to_be_bytes`) and the DER INTEGER content of a
    /// certificate's (positive) serial, sign octet included, name the same certificate. Zero
    /// is refused (RFC 5280: serials are positive); negative serials cannot be expressed.
    pub serial: Vec<u8>,
    /// When the CA processed the revocation (`revocationDate`).
    pub revoked_at: Timestamp,
    /// `None`: no `reasonCode` extension (unspecified).
    pub reason: Option<Reason>,
}

impl RevokedCert {
    /// A revocation without a reason code.
    pub fn new(serial: impl Into<Vec<u8>>, revoked_at: Timestamp) -> Self {
        RevokedCert { serial: serial.into(), revoked_at, reason: None }
    }

    /// The same revocation with `reason`.
    pub fn with_reason(self, reason: Reason) -> Self {
        RevokedCert { reason: Some(reason), ..self }
    }
}

/// An entry ready to encode, its serial's magnitude copied inline, so that sorting moves each
/// entry once and the writer reads entries in order instead of following a pointer per entry
/// to the caller's scattered serials.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Prepared {
    serial: [u8; MAX_SERIAL_OCTETS],
    len: u8,
    pub reason: Option<Reason>,
    pub revoked_at: Timestamp,
    /// Position in the caller's slice (for error messages).
    pub index: usize,
}

impl Prepared {
    /// The serial's magnitude.
    pub fn serial(&self) -> &[u8] {
        self.serial.get(..usize::from(self.len)).unwrap_or_default()
    }
}

/// Sort key: the length in the top octet, then the first 7 octets, so that most comparisons
/// are of one integer.
fn sort_key(serial: &[u8]) -> u64 {
    let mut k = [0u8; 8];
    k[0] = u8::try_from(serial.len()).unwrap_or(u8::MAX);
    for (dst, src) in k.iter_mut().skip(1).zip(serial) {
        *dst = *src;
    }
    u64::from_be_bytes(k)
}

/// Numeric order of magnitudes (no leading zeros): shorter is smaller.
pub(crate) fn cmp_serials(a: &[u8], b: &[u8]) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Checks every entry and returns them in ascending serial order. Sorting makes the DER a
/// function of the set alone (not of the caller's order) and finds duplicates in one pass.
pub(crate) fn prepare(revoked: &[RevokedCert]) -> Result<Vec<Prepared>, BuildError> {
    let mut out = Vec::with_capacity(revoked.len());
    for (index, entry) in revoked.iter().enumerate() {
        let serial = magnitude(&entry.serial);
        if serial.is_empty() {
            return Err(BuildError::ZeroSerial { entry: index });
        }
        if serial.len() > MAX_SERIAL_OCTETS {
            return Err(BuildError::SerialTooLong {
                entry: index,
                octets: serial.len(),
                limit: MAX_SERIAL_OCTETS,
            });
        }
        if !der::time_in_range(entry.revoked_at) {
            return Err(BuildError::TimeOutOfRange {
                field: format!("revocationDate of entry {index}"),
                time: entry.revoked_at,
            });
        }
        let mut inline = [0u8; MAX_SERIAL_OCTETS];
        if let Some(dst) = inline.get_mut(..serial.len()) {
            dst.copy_from_slice(serial);
        }
        out.push(Prepared {
            serial: inline,
            len: serial.len() as u8,
            reason: entry.reason,
            revoked_at: entry.revoked_at,
            index,
        });
    }
    // Already sorted is the common case (a CA's store iterates in order): checking is linear.
    if !out.windows(2).all(|w| matches!(w, [a, b] if cmp_serials(a.serial(), b.serial()).is_le())) {
        out = sorted(out);
    }
    let duplicate = out.windows(2).find_map(|w| match w {
        [a, b] if a.serial() == b.serial() => Some((*a, *b)),
        _ => None,
    });
    if let Some((a, b)) = duplicate {
        return Err(BuildError::DuplicateSerial {
            serial: crate::name::hex(&der::integer_content(a.serial())),
            first: a.index.min(b.index),
            second: a.index.max(b.index),
        });
    }
    Ok(out)
}

/// `entries` in ascending serial order (then input order): a least-significant-digit radix
/// sort of (key, position) pairs, one pass per key octet that varies (the length octet and
/// the first octets of sequential serials usually do not), then each entry moved once. Only
/// serials sharing length and first 7 octets are compared as slices.
fn sorted(entries: Vec<Prepared>) -> Vec<Prepared> {
    let mut order: Vec<(u64, usize)> =
        entries.iter().enumerate().map(|(i, e)| (sort_key(e.serial()), i)).collect();
    let mut spare = vec![(0u64, 0usize); order.len()];
    for shift in (0..64).step_by(8) {
        let mut counts = [0usize; 256];
        for (key, _) in &order {
            counts[((key >> shift) & 0xff) as usize] += 1;
        }
        if counts.contains(&order.len()) {
            continue;
        }
        let mut next = [0usize; 256];
        let mut sum = 0;
        for (slot, count) in next.iter_mut().zip(counts) {
            *slot = sum;
            sum += count;
        }
        for item in &order {
            let bucket = &mut next[((item.0 >> shift) & 0xff) as usize];
            if let Some(dst) = spare.get_mut(*bucket) {
                *dst = *item;
            }
            *bucket += 1;
        }
        std::mem::swap(&mut order, &mut spare);
    }
    let serial = |i: usize| entries.get(i).map(Prepared::serial).unwrap_or_default();
    let mut start = 0;
    while let Some(&(key, _)) = order.get(start) {
        let run = order.get(start..).unwrap_or_default().iter().take_while(|(k, _)| *k == key);
        let end = start + run.count();
        if let Some(tied) = order.get_mut(start..end).filter(|t| t.len() > 1) {
            tied.sort_by(|a, b| cmp_serials(serial(a.1), serial(b.1)).then(a.1.cmp(&b.1)));
        }
        start = end;
    }
    order.iter().filter_map(|(_, i)| entries.get(*i).copied()).collect()
}

/// Encoded size of an entry's `crlEntryExtensions` (0 without a reason).
pub(crate) fn extensions_len(reason: Option<Reason>) -> usize {
    if reason.is_some() { REASON_EXTENSIONS_LEN } else { 0 }
}

/// `SEQUENCE { SEQUENCE { id-ce-cRLReasons, OCTET STRING { ENUMERATED code } } }`: 14 octets.
const REASON_EXTENSIONS_LEN: usize = 14;

/// Writes the `crlEntryExtensions` of an entry with a reason.
pub(crate) fn put_reason(out: &mut Vec<u8>, reason: Reason) {
    out.extend_from_slice(&[
        der::SEQUENCE,
        12,
        der::SEQUENCE,
        10,
        der::OID,
        3,
        0x55,
        0x1d,
        0x15,
        der::OCTET_STRING,
        3,
        der::ENUMERATED,
        1,
        reason.code(),
    ]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_codes_round_trip_and_skip_the_unusable_ones() {
        for r in Reason::ALL {
            assert_eq!(Reason::from_code(r.code()), Some(r));
        }
        for code in [0u8, 7, 8, 11, 255] {
            assert_eq!(Reason::from_code(code), None, "{code}");
        }
        let mut out = Vec::new();
        put_reason(&mut out, Reason::KeyCompromise);
        assert_eq!(out.len(), extensions_len(Some(Reason::KeyCompromise)));
    }

    #[test]
    fn serials_are_compared_as_numbers() {
        let t = Timestamp::from_unix(0);
        let input = vec![
            RevokedCert::new(vec![0x01, 0x00], t),
            RevokedCert::new(vec![0x00, 0x00, 0xff], t),
            RevokedCert::new(vec![0x02], t),
        ];
        let prepared = prepare(&input).unwrap();
        let order: Vec<&[u8]> = prepared.iter().map(Prepared::serial).collect();
        assert_eq!(order, [&[0x02][..], &[0xff], &[0x01, 0x00]]);
        // Same length and first 7 octets: the tie is broken on the full serial.
        let long = |last: u8| RevokedCert::new([[7u8; 9].as_slice(), &[last]].concat(), t);
        let tied = vec![long(3), long(1), RevokedCert::new(vec![9], t), long(2)];
        let order: Vec<u8> =
            prepare(&tied).unwrap().iter().map(|p| p.serial()[p.serial().len() - 1]).collect();
        assert_eq!(order, [9, 1, 2, 3]);
        let dup = vec![RevokedCert::new(vec![0x05], t), RevokedCert::new(vec![0, 0x05], t)];
        assert_eq!(
            prepare(&dup).unwrap_err(),
            BuildError::DuplicateSerial { serial: "05".into(), first: 0, second: 1 }
        );
    }
}
