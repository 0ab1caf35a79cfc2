//! Input-level failures and tampering, with the exact error texts.

mod common;

use certgate_pki::{AttributeValue, CsrError, MAX_CSR_BYTES, decode_csr, parse_csr};
use common::*;

fn valid_der() -> Vec<u8> {
    pem_to_der(&fixture_text("p384.csr"))
}

#[test]
fn empty_and_oversized_inputs() {
    assert_eq!(decode_csr(b"").unwrap_err(), CsrError::Empty);
    assert_eq!(
        CsrError::Empty.to_string(),
        "certificate request is empty; provide a PEM-encoded PKCS#10 certificate request"
    );
    let big = vec![b'A'; MAX_CSR_BYTES + 1];
    let err = decode_csr(&big).unwrap_err();
    assert_eq!(err, CsrError::TooLarge { size: 65537, limit: 65536 });
    assert_eq!(
        err.to_string(),
        "certificate request is 65537 bytes, larger than the 65536 byte limit"
    );
    // Exactly at the limit is not "too large" (it is garbage here).
    assert_eq!(decode_csr(&big[..MAX_CSR_BYTES]).unwrap_err(), CsrError::NotPemOrDer);
}

#[test]
fn garbage_is_neither_pem_nor_der() {
    let err = decode_csr(b"hello, this is not a request").unwrap_err();
    assert_eq!(err, CsrError::NotPemOrDer);
    assert_eq!(
        err.to_string(),
        "certificate request is neither PEM (no valid \"-----BEGIN CERTIFICATE REQUEST-----\" \
         block) nor DER (does not start with an ASN.1 SEQUENCE); provide a PEM-encoded PKCS#10 \
         certificate request"
    );
    // A PEM header without a matching END line is not a block either.
    assert_eq!(
        decode_csr(b"-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n").unwrap_err(),
        CsrError::NotPemOrDer
    );
}

#[test]
fn wrong_pem_type_is_named() {
    let input = pem("CERTIFICATE", &valid_der());
    let err = decode_csr(input.as_bytes()).unwrap_err();
    assert_eq!(err, CsrError::WrongPemType { found: "CERTIFICATE".into() });
    assert_eq!(
        err.to_string(),
        "PEM block is \"CERTIFICATE\", expected \"CERTIFICATE REQUEST\" or \"NEW CERTIFICATE \
         REQUEST\"; provide a PKCS#10 certificate request, not another kind of PEM object"
    );
    // The first block decides, as in cert-manager.
    let two = format!("{}{}", pem("PRIVATE KEY", b"x"), pem("CERTIFICATE REQUEST", &valid_der()));
    assert_eq!(
        decode_csr(two.as_bytes()).unwrap_err(),
        CsrError::WrongPemType { found: "PRIVATE KEY".into() }
    );
}

#[test]
fn alternative_label_and_surrounding_text_are_accepted() {
    let input = format!(
        "Certificate Request:\n    Data: ...\n{}trailing notes\n",
        pem("NEW CERTIFICATE REQUEST", &valid_der())
    );
    assert_eq!(decode_csr(input.as_bytes()).unwrap().public_key.size, 384);
}

#[test]
fn invalid_base64_is_reported() {
    let input =
        "-----BEGIN CERTIFICATE REQUEST-----\nMIIB*AAA\n-----END CERTIFICATE REQUEST-----\n";
    let err = decode_csr(input.as_bytes()).unwrap_err();
    assert_eq!(
        err,
        CsrError::InvalidBase64 {
            label: "CERTIFICATE REQUEST".into(),
            reason: "Invalid symbol 42, offset 4.".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "PEM block \"CERTIFICATE REQUEST\" does not contain valid base64: Invalid symbol 42, offset 4."
    );
}

#[test]
fn truncated_der_names_the_problem() {
    let der = valid_der();
    let err = decode_csr(&der[..der.len() - 10]).unwrap_err();
    let CsrError::Der { reason } = &err else { panic!("unexpected {err:?}") };
    assert!(reason.starts_with("CertificationRequest: truncated"), "{reason}");
    assert!(err.to_string().starts_with("certificate request is not valid PKCS#10 DER: "));

    // Whole 64-character lines dropped from the PEM body: still base64, truncated DER.
    let text = fixture_text("p384.csr");
    let lines: Vec<&str> = text.lines().collect();
    let mut cut: Vec<&str> = lines[..lines.len() - 3].to_vec();
    cut.push(lines[lines.len() - 1]);
    let err = decode_csr(cut.join("\n").as_bytes()).unwrap_err();
    assert!(
        matches!(&err, CsrError::Der { reason } if reason.starts_with("CertificationRequest: truncated")),
        "{err:?}"
    );
}

#[test]
fn structural_errors_name_the_field() {
    // A SEQUENCE holding an INTEGER where certificationRequestInfo belongs.
    let err = decode_csr(&seq(&[tlv(0x02, &[1])])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "certificate request is not valid PKCS#10 DER: certificationRequestInfo: expected \
         SEQUENCE, found INTEGER"
    );
    // Attributes missing.
    let (info, signature) = ed25519_signed_info(name(&[]), &[]);
    let info_content_without_attributes = {
        let (_, rest) = info.split_at(2);
        let mut v = rest.to_vec();
        v.truncate(v.len() - 2); // drop the empty [0]
        v
    };
    let request = assemble(
        tlv(0x30, &info_content_without_attributes),
        seq(&[oid("1.3.101.112")]),
        &signature,
    );
    assert_eq!(
        parse_csr(&request).unwrap_err(),
        CsrError::Der { reason: "attributes: missing (the structure ends early)".into() }
    );
}

#[test]
fn trailing_data_after_der() {
    let mut der = valid_der();
    der.extend_from_slice(&[0, 0, 0]);
    let err = decode_csr(&der).unwrap_err();
    assert_eq!(err, CsrError::TrailingData { bytes: 3 });
    assert_eq!(
        err.to_string(),
        "certificate request has 3 bytes of trailing data after the PKCS#10 structure; remove them"
    );
}

#[test]
fn flipped_signature_bit_fails_verification_for_every_key_type() {
    let cases = [
        ("rsa2048-sans.csr", "sha256WithRSAEncryption (1.2.840.113549.1.1.11)"),
        ("rsa2048-pss.csr", "RSASSA-PSS (1.2.840.113549.1.1.10)"),
        ("rsa1024.csr", "sha256WithRSAEncryption (1.2.840.113549.1.1.11)"),
        ("p384.csr", "ecdsa-with-SHA256 (1.2.840.10045.4.3.2)"),
        ("p521-sha512.csr", "ecdsa-with-SHA512 (1.2.840.10045.4.3.4)"),
        ("p521-sha256.csr", "ecdsa-with-SHA256 (1.2.840.10045.4.3.2)"),
        ("ed25519.csr", "Ed25519 (1.3.101.112)"),
    ];
    for (file, algorithm) in cases {
        let mut der = pem_to_der(&fixture_text(file));
        assert!(decode_csr(&der).is_ok(), "{file} verifies before tampering");
        // The signature is the last element: flip a bit near the end of it.
        let at = der.len() - 5;
        der[at] ^= 0x01;
        let err = decode_csr(&der).unwrap_err();
        assert_eq!(err, CsrError::InvalidSignature { algorithm: algorithm.into() }, "{file}");
        // Without verification the request still decodes.
        assert!(parse_csr(&der).is_ok(), "{file}");
    }
    assert_eq!(
        CsrError::InvalidSignature { algorithm: "Ed25519 (1.3.101.112)".into() }.to_string(),
        "certificate request signature (Ed25519 (1.3.101.112)) does not verify with the request's \
         own public key; the request was altered or signed with a different key"
    );
}

#[test]
fn tampered_content_fails_verification() {
    let mut der = pem_to_der(&fixture_text("rsa2048-sans.csr"));
    let at = der.windows(15).position(|w| w == b"app.example.com").unwrap();
    der[at] = b'b';
    assert!(matches!(decode_csr(&der).unwrap_err(), CsrError::InvalidSignature { .. }));
    let subject = parse_csr(&der).unwrap().subject;
    assert_eq!(
        subject.last().map(|a| &a.value),
        Some(&AttributeValue::String("bpp.example.com".into()))
    );
}
