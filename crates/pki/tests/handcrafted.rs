//! Hand-built requests for what rcgen cannot write: duplicate CNs, multi-valued RDNs,
//! non-string values, repeated or malformed SAN extensions, unsupported GeneralNames.

mod common;

use certgate_pki::{
    AttributeValue, CsrError, OtherName, SubjectAttribute, UnsupportedSan, decode_csr,
};
use common::*;

fn cn() -> Vec<u8> {
    atv("2.5.4.3", utf8("a.example"))
}

fn simple_subject() -> Vec<u8> {
    name(&[vec![cn()]])
}

fn string(oid: &str, v: &str) -> SubjectAttribute {
    SubjectAttribute { oid: oid.into(), value: AttributeValue::String(v.into()) }
}

fn non_string(oid: &str) -> SubjectAttribute {
    SubjectAttribute { oid: oid.into(), value: AttributeValue::NonString }
}

#[test]
fn duplicate_cns_multi_valued_rdns_and_non_string_values() {
    let subject = name(&[
        vec![atv("2.5.4.3", utf8("first"))],
        vec![
            atv("2.5.4.10", tlv(0x13, b"Org")),
            atv("2.5.4.11", tlv(0x14, &[0x63, 0x61, 0x66, 0xe9])),
        ],
        vec![atv("2.5.4.3", tlv(0x1e, &[0x00, 0x73, 0x00, 0x65, 0x00, 0x63]))],
        vec![atv("2.5.4.5", tlv(0x02, &[0x01, 0x00]))],
        vec![atv("2.5.4.3", tlv(0x04, b"octets"))],
        vec![atv("1.2.3.4", tlv(0x1b, b"general"))],
        vec![atv("0.9.2342.19200300.100.1.1", tlv(0x12, b"0123 45"))],
        vec![atv("1.2.840.113549.1.9.1", tlv(0x16, b"a@b.example"))],
    ]);
    let csr = decode_csr(&signed_request(subject, &[])).unwrap();
    assert_eq!(
        csr.subject,
        [
            string("2.5.4.3", "first"),
            string("2.5.4.10", "Org"),
            string("2.5.4.11", "café"),
            string("2.5.4.3", "sec"),
            non_string("2.5.4.5"),
            non_string("2.5.4.3"),
            non_string("1.2.3.4"),
            string("0.9.2342.19200300.100.1.1", "0123 45"),
            string("1.2.840.113549.1.9.1", "a@b.example"),
        ]
    );
}

#[test]
fn invalid_string_content_fails_like_go() {
    let subject = name(&[vec![cn()], vec![atv("2.5.4.10", tlv(0x13, b"bad_char"))]]);
    let err = decode_csr(&signed_request(subject, &[])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "certificate request subject cannot be decoded: RDN 1 attribute 0 (2.5.4.10) value: \
         PrintableString contains invalid character at byte 3"
    );
}

#[test]
fn two_san_extensions_are_counted_and_both_decoded() {
    let first = san(&[tlv(0x82, b"one.example")]);
    let second = san(&[tlv(0x82, b"two.example"), tlv(0x87, &[10, 0, 0, 1])]);
    let request = signed_request(simple_subject(), &[extension_request(&[first, second])]);
    let csr = decode_csr(&request).unwrap();
    assert_eq!(csr.san_extension_count, 2);
    assert_eq!(csr.san.dns_names, ["one.example", "two.example"]);
    assert_eq!(csr.san.ip_addresses, ["10.0.0.1"]);
    assert_eq!(csr.san_decode_error, None);

    // The same across two extensionRequest attributes.
    let request = signed_request(
        simple_subject(),
        &[
            extension_request(&[san(&[tlv(0x82, b"one.example")])]),
            extension_request(&[san(&[tlv(0x82, b"two.example")])]),
        ],
    );
    let csr = decode_csr(&request).unwrap();
    assert_eq!(csr.san_extension_count, 2);
    assert_eq!(csr.san.dns_names, ["one.example", "two.example"]);
}

#[test]
fn unsupported_kinds_in_encoded_order_and_non_text_other_names() {
    let names = [
        tlv(0x88, &oid("1.2.3")[2..]),
        tlv(0xa4, &name(&[vec![cn()]])),
        tlv(0xa0, &[oid("1.2.3.4"), tlv(0xa0, &tlv(0x02, &[0x2a]))].concat()),
        tlv(0xa3, &seq(&[])),
        tlv(0xa5, &[tlv(0xa1, &utf8("party"))].concat()),
        tlv(0xa0, &[oid("1.2.3.5"), tlv(0xa0, &tlv(0x13, b"printable"))].concat()),
        tlv(0x87, &[1, 2, 3, 4, 5, 6, 7, 8]),
    ];
    let request = signed_request(simple_subject(), &[extension_request(&[san(&names)])]);
    let csr = decode_csr(&request).unwrap();
    assert_eq!(
        csr.san.unsupported,
        [
            UnsupportedSan::RegisteredId,
            UnsupportedSan::DirectoryName,
            UnsupportedSan::X400Address,
            UnsupportedSan::EdiPartyName,
        ]
    );
    assert_eq!(
        csr.san.other_names,
        [
            OtherName { oid: "1.2.3.4".into(), value: "02012a".into() },
            OtherName { oid: "1.2.3.5".into(), value: "printable".into() },
        ]
    );
    assert_eq!(csr.san.ip_addresses, ["?0102030405060708"]);
    let names: Vec<&str> = csr.san.unsupported.iter().map(|u| u.as_str()).collect();
    assert_eq!(names, ["registeredID", "directoryName", "x400Address", "ediPartyName"]);
}

#[test]
fn undecodable_san_is_reported_not_fatal() {
    let broken = extension("2.5.29.17", tlv(0x82, b"not-a-sequence"));
    let good = san(&[tlv(0x82, b"ok.example")]);
    let request = signed_request(simple_subject(), &[extension_request(&[broken, good])]);
    let csr = decode_csr(&request).unwrap();
    assert_eq!(csr.san_extension_count, 2);
    assert_eq!(csr.san_decode_error.as_deref(), Some("GeneralNames: expected SEQUENCE, found [2]"));
    assert_eq!(csr.san.dns_names, ["ok.example"]);

    let non_ascii = san(&[tlv(0x81, "é@example.com".as_bytes())]);
    let request = signed_request(simple_subject(), &[extension_request(&[non_ascii])]);
    let csr = decode_csr(&request).unwrap();
    assert_eq!(
        csr.san_decode_error.as_deref(),
        Some("entry 0 (rfc822Name): non-ASCII byte at offset 0")
    );
    assert!(csr.san.email_addresses.is_empty());
}

#[test]
fn malformed_usage_extensions_fail_the_request() {
    let cases = [
        (
            extension("2.5.29.15", tlv(0x03, &[0x09, 0x80])),
            CsrError::Extension {
                extension: "keyUsage".into(),
                reason: "keyUsage: invalid padding bits in BIT STRING".into(),
            },
            "requested keyUsage extension cannot be decoded: keyUsage: invalid padding bits in BIT STRING",
        ),
        (
            extension("2.5.29.37", seq(&[utf8("serverAuth")])),
            CsrError::Extension {
                extension: "extKeyUsage".into(),
                reason: "extKeyUsage entry 0: expected OBJECT IDENTIFIER, found UTF8String".into(),
            },
            "requested extKeyUsage extension cannot be decoded: extKeyUsage entry 0: expected \
             OBJECT IDENTIFIER, found UTF8String",
        ),
        (
            extension("2.5.29.19", tlv(0x01, &[0xff])),
            CsrError::Extension {
                extension: "basicConstraints".into(),
                reason: "basicConstraints: expected SEQUENCE, found BOOLEAN".into(),
            },
            "requested basicConstraints extension cannot be decoded: basicConstraints: expected \
             SEQUENCE, found BOOLEAN",
        ),
    ];
    for (ext, expected, message) in cases {
        let request = signed_request(simple_subject(), &[extension_request(&[ext])]);
        let err = decode_csr(&request).unwrap_err();
        assert_eq!(err, expected);
        assert_eq!(err.to_string(), message);
    }
}

#[test]
fn signature_algorithm_problems() {
    let (info, signature) = ed25519_signed_info(simple_subject(), &[]);

    let dsa = assemble(info.clone(), seq(&[oid("2.16.840.1.101.3.4.3.2")]), &signature);
    let err = decode_csr(&dsa).unwrap_err();
    assert_eq!(
        err,
        CsrError::UnsupportedSignatureAlgorithm {
            algorithm: "dsa-with-sha256 (2.16.840.1.101.3.4.3.2)".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "certificate request signature algorithm dsa-with-sha256 (2.16.840.1.101.3.4.3.2) is not \
         supported; sign the request with RSA (PKCS#1 v1.5 or PSS), ECDSA or Ed25519"
    );

    let mismatch = assemble(info.clone(), seq(&[oid("1.2.840.10045.4.3.2")]), &signature);
    assert_eq!(
        decode_csr(&mismatch).unwrap_err().to_string(),
        "certificate request signature algorithm ecdsa-with-SHA256 (1.2.840.10045.4.3.2) cannot \
         be verified: it needs an ECDSA public key, but the request has an Ed25519 key"
    );

    let with_params =
        assemble(info.clone(), seq(&[oid("1.3.101.112"), vec![0x05, 0x00]]), &signature);
    assert_eq!(
        decode_csr(&with_params).unwrap_err(),
        CsrError::BadSignatureAlgorithm {
            algorithm: "Ed25519 (1.3.101.112)".into(),
            reason: "Ed25519 signatures must not have algorithm parameters".into(),
        }
    );

    let pss_without_params = assemble(info, seq(&[oid("1.2.840.113549.1.1.10")]), &signature);
    assert_eq!(
        decode_csr(&pss_without_params).unwrap_err().to_string(),
        "certificate request signature algorithm RSASSA-PSS (1.2.840.113549.1.1.10) cannot be \
         verified: parameters must be a RSASSA-PSS-params SEQUENCE"
    );
}
