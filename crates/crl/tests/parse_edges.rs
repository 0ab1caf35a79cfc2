//! Parser edge cases: PEM framing, wrong blocks, truncated DER, limits, field extraction.

mod common;

use certgate_crl::{
    BundleError, CaBundle, ContourPemError, Crl, CrlBundle, CrlParseError, Limits,
    SignatureAlgorithm, SignatureStatus, validate_ca_pem, validate_crl_pem, verify_crl,
};
use common::*;

fn one_crl_der(pem: &str) -> Vec<u8> {
    certgate_crl::parse_pem_bundle(pem.as_bytes(), &Limits::default()).unwrap().blocks.remove(0).der
}

#[test]
fn fields_are_extracted() {
    let root = root("root-ca");
    let pem = crl(&root, &[&[0x13, 0x88], &[0x80, 0x01]], -DAY, 7 * DAY, 42);
    let bundle = parse_crls(&[&pem]);
    let crl = bundle.items[0].crl.as_ref().unwrap();
    let info = crl.info();
    assert_eq!(info.version, 2);
    assert_eq!(info.issuer, "O=certgate tests,CN=root-ca");
    assert_eq!(info.this_update.unix(), NOW - DAY);
    assert_eq!(info.next_update.map(|t| t.unix()), Some(NOW + 7 * DAY));
    assert_eq!(info.entries, 2);
    assert_eq!(info.crl_number.as_ref().map(|n| n.to_string()).as_deref(), Some("42"));
    assert_eq!(info.delta_base, None);
    assert_eq!(info.signature_algorithm, SignatureAlgorithm::EcdsaSha256);
    assert!(info.unhandled_critical_extensions().next().is_none());
    assert!(info.authority_key_id.is_some());
    // Minimal DER serials: 5000 is [0x13, 0x88]; non-minimal input is normalised.
    assert!(crl.is_revoked(&[0x13, 0x88]));
    assert!(crl.is_revoked(&[0x00, 0x13, 0x88]));
    assert!(crl.is_revoked(&[0x00, 0x80, 0x01]));
    assert!(!crl.is_revoked(&[0x13, 0x89]));
    let entry = crl.lookup(&[0x13, 0x88]).unwrap();
    assert_eq!(entry.serial, "1388");
    assert_eq!(entry.reason_code, Some(1));
    assert_eq!(entry.revocation_date.map(|t| t.unix()), Some(NOW - DAY));
    let cas = parse_cas(&[&root.pem]);
    assert!(matches!(verify_crl(crl, &cas), SignatureStatus::Verified { ca: 1, .. }));
}

#[test]
fn garbage_between_blocks_and_other_block_types() {
    let root = root("root-ca");
    let a = fresh_crl(&root, &[]);
    let text = format!(
        "leading junk\n{}\nsome words -----BEGIN nonsense\n-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\n{a}trailing",
        "-----BEGIN PRIVATE KEY-----\nAAEC\n-----END PRIVATE KEY-----", "AAEC"
    );
    let bundle = CrlBundle::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert_eq!(bundle.items.len(), 1);
    assert!(bundle.items[0].crl.is_ok());
    let labels: Vec<_> = bundle.other_blocks.iter().map(|b| b.label.as_str()).collect();
    assert_eq!(labels, ["PRIVATE KEY", "CERTIFICATE"]);
    assert_eq!(validate_crl_pem(text.as_bytes()), Ok(()));
    // A CA bundle with a non-certificate block is rejected by Contour.
    assert_eq!(
        validate_ca_pem(text.as_bytes()),
        Err(ContourPemError::UnexpectedBlockType("PRIVATE KEY".into()))
    );
}

#[test]
fn empty_bundle() {
    let bundle = CrlBundle::parse(b"", &Limits::default()).unwrap();
    assert!(bundle.items.is_empty());
    assert_eq!(validate_crl_pem(b""), Err(ContourPemError::NoCrl));
    assert_eq!(validate_crl_pem(b"\n\n  \n"), Err(ContourPemError::NoCrl));
    let cas = CaBundle::parse(b"", &Limits::default()).unwrap();
    assert!(cas.items.is_empty());
}

#[test]
fn truncated_der_is_an_error_at_every_length() {
    let root = root("root-ca");
    let der = one_crl_der(&fresh_crl(&root, &[&[1], &[2], &[3]]));
    for len in 0..der.len() {
        let err = Crl::from_der(der[..len].to_vec(), &Limits::default()).unwrap_err();
        assert!(
            matches!(err, CrlParseError::Malformed { .. } | CrlParseError::BadTime { .. }),
            "{len}: {err}"
        );
    }
    let mut trailing = der.clone();
    trailing.push(0);
    assert_eq!(
        Crl::from_der(trailing, &Limits::default()).unwrap_err(),
        CrlParseError::TrailingData { trailing: 1 }
    );
}

#[test]
fn truncated_base64_block_is_malformed_for_envoy() {
    let root = root("root-ca");
    let pem = fresh_crl(&root, &[]);
    let cut = pem.replacen("\n-----END X509 CRL-----", "-----END X509 CRL-----", 1);
    let bundle = CrlBundle::parse(cut.as_bytes(), &Limits::default()).unwrap();
    assert!(bundle.items.is_empty());
    assert_eq!(bundle.malformed_offsets, vec![0]);
    assert_eq!(validate_crl_pem(cut.as_bytes()), Err(ContourPemError::FailedToParse));
}

#[test]
fn not_der_inside_a_crl_block() {
    let text = "-----BEGIN X509 CRL-----\naGVsbG8gd29ybGQ=\n-----END X509 CRL-----\n";
    // Contour accepts it (framing only); we report the DER error.
    assert_eq!(validate_crl_pem(text.as_bytes()), Ok(()));
    let bundle = CrlBundle::parse(text.as_bytes(), &Limits::default()).unwrap();
    assert!(bundle.items[0].crl.is_err());
}

#[test]
fn limits_are_enforced() {
    let root = root("root-ca");
    let pem = [fresh_crl(&root, &[&[1], &[2], &[3]]), fresh_crl(&root, &[])].concat();
    let tight = Limits { max_blocks: 1, ..Limits::default() };
    assert_eq!(
        CrlBundle::parse(pem.as_bytes(), &tight).unwrap_err(),
        BundleError::TooManyBlocks { limit: 1 }
    );
    let small = Limits { max_bundle_bytes: 10, ..Limits::default() };
    assert!(matches!(CrlBundle::parse(pem.as_bytes(), &small), Err(BundleError::TooLarge { .. })));
    let few = Limits { max_entries_per_crl: 2, ..Limits::default() };
    let bundle = CrlBundle::parse(pem.as_bytes(), &few).unwrap();
    assert_eq!(
        bundle.items[0].crl.as_ref().unwrap_err(),
        &CrlParseError::TooManyEntries { limit: 2 }
    );
    assert!(bundle.items[1].crl.is_ok());
}

#[test]
fn errors_say_what_to_do() {
    let e = CrlParseError::TooManyEntries { limit: 2 };
    assert!(e.to_string().contains("max_entries_per_crl"));
    let e = BundleError::TooLarge { size: 11, limit: 10 };
    assert!(e.to_string().contains("11 bytes"));
}
