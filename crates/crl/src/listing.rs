//! The revoked entries of a CRL in the order it lists them, as `openssl crl -text` prints
//! them: serial, revocation date and reason, decoded lazily from the CRL's own DER.

use certgate_pki::der::{self, Reader};

use crate::parse::entry_reason;
use crate::time::{Timestamp, decode_time};

/// One revoked entry, borrowed from the CRL's DER.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListedEntry<'a> {
    serial: &'a [u8],
    /// `revocationDate`; `None` when its text is not a valid time.
    pub revocation_date: Option<Timestamp>,
    /// `CRLReason` code (RFC 5280 §5.3.1), when the entry has a reasonCode extension.
    pub reason_code: Option<u8>,
}

impl ListedEntry<'_> {
    /// The serial as minimal DER INTEGER content bytes (sign octet included, as
    /// [`crate::Crl::lookup`] takes it).
    pub fn serial_der(&self) -> &[u8] {
        self.serial
    }

    /// The serial as `openssl crl -text` prints it: uppercase hex of the magnitude, two
    /// digits per octet, no colons, `-` before a negative one (`00` for zero).
    pub fn openssl_serial(&self) -> String {
        openssl_serial(self.serial)
    }

    /// The reason's RFC 5280 name (`keyCompromise`, ...), when there is a reason code.
    pub fn reason_name(&self) -> Option<&'static str> {
        self.reason_code.and_then(reason_name)
    }
}

/// RFC 5280 §5.3.1 `CRLReason` names by code; `None` for 7 (unused) and codes above 10.
pub fn reason_name(code: u8) -> Option<&'static str> {
    Some(match code {
        0 => "unspecified",
        1 => "keyCompromise",
        2 => "cACompromise",
        3 => "affiliationChanged",
        4 => "superseded",
        5 => "cessationOfOperation",
        6 => "certificateHold",
        8 => "removeFromCRL",
        9 => "privilegeWithdrawn",
        10 => "aACompromise",
        _ => return None,
    })
}

/// Uppercase hex of a DER INTEGER's content as OpenSSL's `i2a_ASN1_INTEGER` writes it (the
/// magnitude, without a sign octet; negative values as `-` and their magnitude).
pub fn openssl_serial(content: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let negative = content.first().is_some_and(|b| *b >= 0x80);
    let magnitude: Vec<u8> = if negative {
        // Two's complement: invert and add one, from the last octet.
        let mut bytes: Vec<u8> = content.iter().map(|b| !b).collect();
        for b in bytes.iter_mut().rev() {
            let (sum, carry) = b.overflowing_add(1);
            *b = sum;
            if !carry {
                break;
            }
        }
        bytes
    } else {
        content.to_vec()
    };
    let first = magnitude.iter().position(|b| *b != 0).unwrap_or(magnitude.len());
    let digits = magnitude.get(first..).unwrap_or_default();
    let mut out = String::with_capacity(digits.len() * 2 + 1);
    if negative {
        out.push('-');
    }
    if digits.is_empty() {
        out.push_str("00");
    }
    for b in digits {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// Iterator over a CRL's revoked entries in DER order; see [`crate::Crl::revoked_entries`].
/// Entries were checked when the CRL was parsed; should one not decode anyway, the
/// iteration ends there.
#[derive(Debug, Clone)]
pub struct RevokedEntries<'a> {
    reader: Reader<'a>,
}

impl<'a> RevokedEntries<'a> {
    pub(crate) fn new(list_content: &'a [u8]) -> Self {
        RevokedEntries { reader: Reader::new(list_content) }
    }
}

impl<'a> Iterator for RevokedEntries<'a> {
    type Item = ListedEntry<'a>;

    fn next(&mut self) -> Option<ListedEntry<'a>> {
        if self.reader.is_empty() {
            return None;
        }
        let Ok(entry) = self.reader.read(der::SEQUENCE) else {
            // Leave nothing to read so a broken entry ends the iteration for good.
            self.reader = Reader::new(&[]);
            return None;
        };
        let mut e = Reader::nested(&entry);
        let serial = e.read(der::INTEGER).ok()?;
        let date = e.read_any().ok()?;
        let reason_code =
            e.read_optional(der::SEQUENCE).ok().flatten().and_then(|exts| entry_reason(&exts));
        Some(ListedEntry {
            serial: der::minimal_integer(serial.content),
            revocation_date: decode_time(date.tag, date.content),
            reason_code,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serials_are_printed_as_openssl_prints_them() {
        assert_eq!(openssl_serial(&[0x0a]), "0A");
        assert_eq!(openssl_serial(&[0x00, 0x80, 0x01]), "8001");
        assert_eq!(openssl_serial(&[0x01, 0x00]), "0100");
        assert_eq!(openssl_serial(&[0x00]), "00");
        assert_eq!(openssl_serial(&[]), "00");
        assert_eq!(openssl_serial(&[0xff]), "-01");
        assert_eq!(openssl_serial(&[0xff, 0x00]), "-0100");
        assert_eq!(openssl_serial(&[0x80]), "-80");
    }

    #[test]
    fn reason_names_follow_rfc_5280() {
        assert_eq!(reason_name(1), Some("keyCompromise"));
        assert_eq!(reason_name(10), Some("aACompromise"));
        assert_eq!(reason_name(7), None);
        assert_eq!(reason_name(11), None);
    }

    #[test]
    fn an_empty_list_yields_nothing_and_a_broken_one_stops() {
        assert_eq!(RevokedEntries::new(&[]).count(), 0);
        // A SEQUENCE header claiming more bytes than there are.
        let mut broken = RevokedEntries::new(&[0x30, 0x10, 0x02]);
        assert_eq!(broken.next(), None);
        assert_eq!(broken.next(), None);
    }
}
