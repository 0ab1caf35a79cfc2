//! Regression tests: the PEM walker follows Go's `encoding/pem.Decode` exactly, as Contour uses
//! it for `crl.pem` and `ca.crt`.
//!
//! Two behaviours are pinned down here:
//! - line ends: Go's `getLine` drops at most one `\r` right before the `\n` (none on a last line
//!   without `\n`) and then trims spaces and tabs only, so a stray `\r` ends up in the line;
//! - resuming after a rejected candidate: Go searches again from just past the lines it consumed
//!   (type line and header lines), not from just past the BEGIN line.

use certgate_crl::{
    ContourPemError, Limits, decode_pem_block, parse_pem_bundle, validate_ca_pem, validate_crl_pem,
};

/// `(label, der, rest)` of the first block, as `decode_pem_block` returns it.
fn decode(data: &[u8]) -> Option<(String, Vec<u8>, Vec<u8>)> {
    decode_pem_block(data).map(|(block, rest)| (block.label, block.der, rest.to_vec()))
}

fn labels(data: &[u8]) -> Vec<String> {
    parse_pem_bundle(data, &Limits::default())
        .unwrap()
        .blocks
        .into_iter()
        .map(|b| b.label)
        .collect()
}

/// The same framing for a CRL and for a certificate: `{}` stands for the label.
fn both(template: &str) -> (Vec<u8>, Vec<u8>) {
    (
        template.replace("{}", "X509 CRL").into_bytes(),
        template.replace("{}", "CERTIFICATE").into_bytes(),
    )
}

/// Asserts that Go (and so Contour) rejects the only block of `template`.
fn assert_rejected(template: &str) {
    let (crl, ca) = both(template);
    assert_eq!(decode(&crl), None, "{template:?}");
    assert_eq!(decode(&ca), None, "{template:?}");
    assert!(labels(&crl).is_empty(), "{template:?}");
    assert_eq!(validate_crl_pem(&crl), Err(ContourPemError::FailedToParse), "{template:?}");
    assert_eq!(validate_ca_pem(&ca), Err(ContourPemError::FailedToParse), "{template:?}");
}

/// Asserts that Go accepts the only block of `template` (body `AAAA`) and leaves `rest`.
fn assert_accepted(template: &str, rest: &[u8]) {
    let (crl, ca) = both(template);
    assert_eq!(
        decode(&crl),
        Some(("X509 CRL".into(), vec![0, 0, 0], rest.to_vec())),
        "{template:?}"
    );
    assert_eq!(
        decode(&ca),
        Some(("CERTIFICATE".into(), vec![0, 0, 0], rest.to_vec())),
        "{template:?}"
    );
    assert_eq!(validate_crl_pem(&crl), Ok(()), "{template:?}");
    assert_eq!(validate_ca_pem(&ca), Ok(()), "{template:?}");
}

#[test]
fn begin_line_with_two_carriage_returns_is_rejected() {
    // Only one `\r` is removed: the type line ends in `-----\r`.
    assert_rejected("-----BEGIN {}-----\r\r\nAAAA\n-----END {}-----\n");
    assert_rejected("-----BEGIN {}-----\r\r\nAAAA\r\r\n-----END {}-----\r\r\n");
}

#[test]
fn begin_line_with_carriage_return_then_space_is_rejected() {
    // The `\r` is not right before the `\n`, and trimming removes spaces and tabs only.
    assert_rejected("-----BEGIN {}-----\r \nAAAA\n-----END {}-----\n");
    assert_rejected("-----BEGIN {}-----\r\t\nAAAA\n-----END {}-----\n");
    assert_rejected("-----BEGIN {}----- \r \nAAAA\n-----END {}-----\n");
}

#[test]
fn end_line_with_carriage_return_at_end_of_file_is_rejected() {
    // A last line without `\n` keeps its `\r`, so the END line does not end after `-----`.
    assert_rejected("-----BEGIN {}-----\nAAAA\n-----END {}-----\r");
    assert_rejected("-----BEGIN {}-----\nAAAA\n-----END {}----- \r");
    assert_rejected("-----BEGIN {}-----\nAAAA\n-----END {}-----\r\r\n");
    assert_rejected("-----BEGIN {}-----\nAAAA\n-----END {}-----\r \n");
}

#[test]
fn single_carriage_return_and_trailing_blanks_are_accepted() {
    assert_accepted("-----BEGIN {}-----\r\nAAAA\r\n-----END {}-----\r\ntail", b"tail");
    assert_accepted("-----BEGIN {}----- \t\r\nAAAA\n-----END {}----- \r\ntail", b"tail");
    assert_accepted("-----BEGIN {}-----\nAAAA\n-----END {}-----  \t", b"");
    assert_accepted("-----BEGIN {}-----\nAAAA\n-----END {}-----", b"");
    // Extra `\r`s inside the body are skipped by the base64 decoder.
    assert_accepted("-----BEGIN {}-----\nAA\r\r\nAA\r\r\n-----END {}-----\n", b"");
}

#[test]
fn header_consumed_begin_line_is_not_a_block() {
    // `-----BEGIN B:C-----` is a header line of block `A` (it holds a colon). `A` is then
    // rejected (its END line does not match) and Go resumes after that header line: nothing else
    // starts a block.
    let data = b"-----BEGIN A-----\n-----BEGIN B:C-----\nAAAA\n-----END B:C-----\n";
    assert_eq!(decode(data), None);
    assert!(labels(data).is_empty());
    assert_eq!(validate_crl_pem(data), Err(ContourPemError::FailedToParse));
    assert_eq!(validate_ca_pem(data), Err(ContourPemError::FailedToParse));
}

#[test]
fn search_resumes_after_the_headers() {
    // The `X509 CRL:` block is swallowed as a header; the next real block is the first found.
    let data = b"-----BEGIN A-----\n-----BEGIN X509 CRL:-----\nAAAA\n-----END X509 CRL:-----\n\
-----BEGIN X509 CRL-----\nAAEC\n-----END X509 CRL-----\ntail";
    assert_eq!(decode(data), Some(("X509 CRL".into(), vec![0, 1, 2], b"tail".to_vec())));
    assert_eq!(labels(data), ["X509 CRL"]);
    assert_eq!(validate_crl_pem(data), Ok(()));
    assert_eq!(validate_ca_pem(data), Err(ContourPemError::UnexpectedBlockType("X509 CRL".into())));

    // Several header lines: all are consumed before the search resumes.
    let data = b"-----BEGIN A-----\nProc-Type: 4,ENCRYPTED\n-----BEGIN B:C-----\nAAAA\n\
-----END B:C-----\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    assert_eq!(decode(data), Some(("CERTIFICATE".into(), vec![0, 0, 0], Vec::new())));
    assert_eq!(validate_ca_pem(data), Ok(()));
    assert_eq!(validate_crl_pem(data), Err(ContourPemError::NoCrl));

    // A block that starts right after the headers is still found.
    let data = b"-----BEGIN A-----\nK: v\n-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n";
    assert_eq!(decode(data), Some(("X509 CRL".into(), vec![0, 0, 0], Vec::new())));
    assert_eq!(validate_crl_pem(data), Ok(()));
}

#[test]
fn data_ending_inside_the_headers_has_no_block() {
    let data = b"-----BEGIN A-----\nK: v\n-----BEGIN B:C-----\n";
    assert_eq!(decode(data), None);
    assert_eq!(validate_crl_pem(data), Err(ContourPemError::FailedToParse));
    assert_eq!(validate_ca_pem(data), Err(ContourPemError::FailedToParse));
}

#[test]
fn undecodable_body_after_headers_resumes_after_the_headers() {
    let data = b"-----BEGIN A-----\nK: v\n!!!!\n-----END A-----\n\
-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n";
    assert_eq!(decode(data), Some(("X509 CRL".into(), vec![0, 0, 0], Vec::new())));
    let bundle = parse_pem_bundle(data, &Limits::default()).unwrap();
    assert_eq!(bundle.malformed_offsets, [0]);
    assert_eq!(validate_crl_pem(data), Ok(()));
}
