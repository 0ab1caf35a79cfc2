//! `Crl::revoked_entries`: every entry in the CRL's own order, with its date and reason, and
//! the serial as `openssl crl -text` prints it.

mod common;

use certgate_crl::{Limits, Timestamp};
use common::*;
use rcgen::{KeyIdMethod, RevocationReason};

#[test]
fn entries_are_listed_in_the_crls_order_with_date_and_reason() {
    let ca = root("Listing Root");
    // Not in serial order: the listing keeps the CRL's order (the index sorts its own copy).
    let serials: [&[u8]; 4] = [&[0x30, 0x39], &[0x0a], &[0x80, 0x01], &[0x01, 0x00, 0x00]];
    let mut params =
        crl_params(&serials, -DAY, 30 * DAY, 7, KeyIdMethod::PreSpecified(ca.key_id()));
    params.revoked_certs[1].reason_code = None;
    params.revoked_certs[2].reason_code = Some(RevocationReason::CessationOfOperation);
    let pem = params.signed_by(&ca.issuer()).expect("crl").pem().expect("pem");
    let bundle = parse_crls(&[&pem]);
    let (_, crl) = bundle.parsed().next().expect("one CRL");

    let listed: Vec<(String, Option<Timestamp>, Option<&str>)> = crl
        .revoked_entries()
        .map(|e| (e.openssl_serial(), e.revocation_date, e.reason_name()))
        .collect();
    let date = Some(Timestamp::from_unix(NOW - DAY));
    assert_eq!(
        listed,
        [
            ("3039".to_owned(), date, Some("keyCompromise")),
            ("0A".to_owned(), date, None),
            ("8001".to_owned(), date, Some("cessationOfOperation")),
            ("010000".to_owned(), date, Some("keyCompromise")),
        ]
    );
    // Each listed serial is the one `lookup` finds.
    for entry in crl.revoked_entries() {
        let found = crl.lookup(entry.serial_der()).expect("listed serials are found");
        assert_eq!(
            (found.revocation_date, found.reason_code),
            (entry.revocation_date, entry.reason_code)
        );
    }
    assert_eq!(crl.revoked_entries().count(), crl.info().entries);
}

#[test]
fn a_crl_without_entries_lists_none() {
    let ca = root("Empty Root");
    let bundle = parse_crls(&[&fresh_crl(&ca, &[])]);
    let (_, crl) = bundle.parsed().next().expect("one CRL");
    assert_eq!(crl.revoked_entries().count(), 0);
}

#[test]
fn a_large_crl_is_listed_lazily_in_order() {
    let ca = root("Large Root");
    let serials: Vec<[u8; 3]> =
        (1u32..=5_000).rev().map(|n| [0x01, (n >> 8) as u8, n as u8]).collect();
    let refs: Vec<&[u8]> = serials.iter().map(|s| &s[..]).collect();
    let pem = fresh_crl(&ca, &refs);
    let bundle =
        certgate_crl::CrlBundle::parse(pem.as_bytes(), &Limits::default()).expect("bundle");
    let (_, crl) = bundle.parsed().next().expect("one CRL");
    let mut entries = crl.revoked_entries();
    assert_eq!(entries.next().map(|e| e.openssl_serial()).as_deref(), Some("011388"));
    assert_eq!(entries.nth(4_998).map(|e| e.openssl_serial()).as_deref(), Some("010001"));
    assert!(entries.next().is_none());
}
