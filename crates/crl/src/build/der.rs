//! DER writing for the CRL builder: sizes computed before writing, so the whole CRL is written
//! once into a buffer of its final size (no nested temporary vectors per entry).

use crate::time::Timestamp;

pub(crate) const INTEGER: u8 = 0x02;
pub(crate) const OCTET_STRING: u8 = 0x04;
pub(crate) const OID: u8 = 0x06;
pub(crate) const ENUMERATED: u8 = 0x0a;
pub(crate) const UTC_TIME: u8 = 0x17;
pub(crate) const GENERALIZED_TIME: u8 = 0x18;
pub(crate) const SEQUENCE: u8 = 0x30;
pub(crate) const BIT_STRING: u8 = 0x03;
pub(crate) const CONTEXT_0: u8 = 0xa0;

/// Bytes of a definite length field for `len` content bytes.
pub(crate) fn length_len(len: usize) -> usize {
    if len < 0x80 { 1 } else { 1 + (usize::BITS - len.leading_zeros()).div_ceil(8) as usize }
}

/// Total bytes of a TLV with `len` content bytes.
pub(crate) fn tlv_len(len: usize) -> usize {
    1 + length_len(len) + len
}

/// Writes a tag and a minimal definite length.
pub(crate) fn put_header(out: &mut Vec<u8>, tag: u8, len: usize) {
    out.push(tag);
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes = len.to_be_bytes();
        let skip = bytes.iter().take_while(|b| **b == 0).count();
        let significant = bytes.get(skip..).unwrap_or_default();
        out.push(0x80 | significant.len() as u8);
        out.extend_from_slice(significant);
    }
}

pub(crate) fn put_tlv(out: &mut Vec<u8>, tag: u8, content: &[u8]) {
    put_header(out, tag, content.len());
    out.extend_from_slice(content);
}

/// A TLV as a new vector (for the few small fixed structures).
pub(crate) fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(tlv_len(content.len()));
    put_tlv(&mut out, tag, content);
    out
}

/// Leading zero octets removed: the unsigned big-endian magnitude.
pub(crate) fn magnitude(bytes: &[u8]) -> &[u8] {
    let zeros = bytes.iter().take_while(|b| **b == 0).count();
    bytes.get(zeros..).unwrap_or_default()
}

/// Content length of the DER INTEGER of a non-negative magnitude (a sign octet when the top
/// bit is set; zero is one octet).
pub(crate) fn integer_len(magnitude: &[u8]) -> usize {
    match magnitude.first() {
        None => 1,
        Some(b) if *b >= 0x80 => magnitude.len() + 1,
        Some(_) => magnitude.len(),
    }
}

/// Writes the DER INTEGER of a non-negative magnitude.
pub(crate) fn put_integer(out: &mut Vec<u8>, magnitude: &[u8]) {
    put_header(out, INTEGER, integer_len(magnitude));
    match magnitude.first() {
        None => out.push(0),
        Some(b) if *b >= 0x80 => {
            out.push(0);
            out.extend_from_slice(magnitude);
        }
        Some(_) => out.extend_from_slice(magnitude),
    }
}

/// The minimal DER INTEGER content of a non-negative magnitude (the form
/// [`crate::Crl::lookup`] and certificates' serials use).
pub(crate) fn integer_content(magnitude: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(magnitude.len() + 1);
    if magnitude.first().is_none_or(|b| *b >= 0x80) {
        out.push(0);
    }
    out.extend_from_slice(magnitude);
    out
}

/// 0001-01-01T00:00:00Z, the first instant a four-digit GeneralizedTime year can hold.
pub(crate) const MIN_TIME: i64 = -62_135_596_800;
/// 9999-12-31T23:59:59Z, the last.
pub(crate) const MAX_TIME: i64 = 253_402_300_799;
/// 1950-01-01T00:00:00Z and 2050-01-01T00:00:00Z: RFC 5280 §5.1.2.4 wants UTCTime in between.
const UTC_FROM: i64 = -631_152_000;
const UTC_UNTIL: i64 = 2_524_608_000;

/// Whether `t` can be written as an RFC 5280 time.
pub(crate) fn time_in_range(t: Timestamp) -> bool {
    (MIN_TIME..=MAX_TIME).contains(&t.unix())
}

fn is_utc_time(t: Timestamp) -> bool {
    (UTC_FROM..UTC_UNTIL).contains(&t.unix())
}

/// Total bytes of the encoded time (only for times in range).
pub(crate) fn time_len(t: Timestamp) -> usize {
    if is_utc_time(t) { 2 + 13 } else { 2 + 15 }
}

/// Civil date and time of a Unix time in UTC: (year, month, day, hour, minute, second). The
/// days-to-date step is the classic era arithmetic of proleptic Gregorian calendars (400-year
/// eras of 146,097 days, years starting in March); it replaces chrono on the per-entry path,
/// where chrono's conversions took about a quarter of the time of building a 100,000-entry CRL.
fn civil(t: i64) -> (i64, u32, u32, u32, u32, u32) {
    let days = t.div_euclid(86_400);
    let secs = t.rem_euclid(86_400) as u32;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, secs / 3600, secs / 60 % 60, secs % 60)
}

/// Writes `t` as UTCTime (1950–2049) or GeneralizedTime (other years), seconds precision, `Z`.
/// Callers check [`time_in_range`] first; out-of-range times write nothing.
pub(crate) fn put_time(out: &mut Vec<u8>, t: Timestamp) {
    if !time_in_range(t) {
        return;
    }
    let (year, month, day, hour, minute, second) = civil(t.unix());
    let year = year.clamp(0, 9999) as u32;
    let two = |v: u32| [b'0' + (v / 10 % 10) as u8, b'0' + (v % 10) as u8];
    if is_utc_time(t) {
        out.extend_from_slice(&[UTC_TIME, 13]);
    } else {
        out.extend_from_slice(&[GENERALIZED_TIME, 15]);
        out.extend_from_slice(&two(year / 100));
    }
    for v in [year % 100, month, day, hour, minute, second] {
        out.extend_from_slice(&two(v));
    }
    out.push(b'Z');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn time(t: i64) -> Vec<u8> {
        let mut out = Vec::new();
        put_time(&mut out, Timestamp::from_unix(t));
        assert_eq!(out.len(), time_len(Timestamp::from_unix(t)));
        out
    }

    #[test]
    fn lengths_match_what_is_written() {
        for len in [0usize, 1, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x1_0000, 0xff_ffff, 0x100_0000] {
            let mut out = Vec::new();
            put_header(&mut out, SEQUENCE, len);
            assert_eq!(out.len(), 1 + length_len(len), "{len}");
            assert_eq!(out, certgate_pki::der::tlv(SEQUENCE, &vec![0; len])[..out.len()]);
        }
    }

    #[test]
    fn integers_are_minimal_and_non_negative() {
        for (mag, want) in [
            (&[][..], &[0x02, 0x01, 0x00][..]),
            (&[0x01], &[0x02, 0x01, 0x01]),
            (&[0x7f], &[0x02, 0x01, 0x7f]),
            (&[0x80], &[0x02, 0x02, 0x00, 0x80]),
            (&[0x13, 0x88], &[0x02, 0x02, 0x13, 0x88]),
        ] {
            let mut out = Vec::new();
            put_integer(&mut out, mag);
            assert_eq!(out, want);
            assert_eq!(out.len(), tlv_len(integer_len(mag)));
            assert_eq!(&out[2..], integer_content(mag));
        }
        assert_eq!(magnitude(&[0, 0, 1, 0]), &[1, 0]);
        assert_eq!(magnitude(&[0, 0]), &[] as &[u8]);
    }

    #[test]
    fn civil_dates_agree_with_chrono() {
        use chrono::{Datelike, Timelike};
        let mut t = MIN_TIME;
        let step = 7_919 * 3_607; // a prime number of hours, plus some seconds
        while t <= MAX_TIME {
            let dt = chrono::DateTime::from_timestamp(t, 0).unwrap();
            let want =
                (i64::from(dt.year()), dt.month(), dt.day(), dt.hour(), dt.minute(), dt.second());
            assert_eq!(civil(t), want, "{t}");
            t += step;
        }
        for t in [MIN_TIME, -1, 0, 951_782_400, 4_107_542_400, MAX_TIME] {
            let dt = chrono::DateTime::from_timestamp(t, 0).unwrap();
            assert_eq!(civil(t).0, i64::from(dt.year()), "{t}");
            assert_eq!((civil(t).1, civil(t).2), (dt.month(), dt.day()), "{t}");
        }
    }

    #[test]
    fn times_switch_form_at_1950_and_2050() {
        assert_eq!(time(0), b"\x17\x0d700101000000Z");
        assert_eq!(time(UTC_FROM), b"\x17\x0d500101000000Z");
        assert_eq!(time(UTC_FROM - 1), b"\x18\x0f19491231235959Z");
        assert_eq!(time(UTC_UNTIL - 1), b"\x17\x0d491231235959Z");
        assert_eq!(time(UTC_UNTIL), b"\x18\x0f20500101000000Z");
        assert_eq!(time(MIN_TIME), b"\x18\x0f00010101000000Z");
        assert_eq!(time(MAX_TIME), b"\x18\x0f99991231235959Z");
        assert!(!time_in_range(Timestamp::from_unix(MAX_TIME + 1)));
        assert!(!time_in_range(Timestamp::from_unix(MIN_TIME - 1)));
        for t in [MIN_TIME, UTC_FROM - 1, 0, 1_800_000_000, UTC_UNTIL, MAX_TIME] {
            let enc = time(t);
            assert_eq!(
                crate::time::decode_time(enc[0], &enc[2..]),
                Some(Timestamp::from_unix(t)),
                "{t}"
            );
        }
    }
}
