//! Deeper checks: each warning variant on a PKI built to trigger it.

mod common;

use std::time::Duration;

use certgate_crl::{CheckOptions, RevocationMode, Warning, check_bundle};
use common::*;
use rcgen::{Issuer, KeyIdMethod, KeyPair};

fn opts(mode: RevocationMode) -> CheckOptions {
    CheckOptions { mode, ..CheckOptions::new(now()) }
}

#[test]
fn clean_bundle_has_no_warnings() {
    let root = root("root-ca");
    let inter = intermediate("sub-ca", 2, &root);
    let cas = parse_cas(&[&root.pem, &inter.pem]);
    let crls = parse_crls(&[&fresh_crl(&root, &[]), &fresh_crl(&inter, &[&[9]])]);
    assert_eq!(check_bundle(&crls, &cas, &opts(RevocationMode::FullChain)), vec![]);
}

#[test]
fn missing_coverage_in_full_chain_and_leaf_only_modes() {
    let root = root("root-ca");
    let inter = intermediate("sub-ca", 2, &root);
    let cas = parse_cas(&[&root.pem, &inter.pem]);
    let crls = parse_crls(&[&fresh_crl(&inter, &[])]);
    let w = check_bundle(&crls, &cas, &opts(RevocationMode::FullChain));
    assert_eq!(
        w,
        vec![Warning::MissingCrlForCa { ca: 1, subject: "O=certgate tests,CN=root-ca".into() }]
    );
    assert!(w[0].to_string().contains("unknown certificate authority"), "{}", w[0]);
    // Leaf-only: the root issues the sub-CA, so only the sub-CA (a leaf issuer) needs a CRL.
    assert_eq!(check_bundle(&crls, &cas, &opts(RevocationMode::LeafOnly)), vec![]);
    let crls = parse_crls(&[&fresh_crl(&root, &[])]);
    assert_eq!(
        check_bundle(&crls, &cas, &opts(RevocationMode::LeafOnly)),
        vec![Warning::MissingCrlForLeafIssuer {
            ca: 2,
            subject: "O=certgate tests,CN=sub-ca".into()
        }]
    );
}

/// ca.crt holds only the root; clients send the intermediate, whose CRL is in crl.pem. That
/// CRL's signature is unknowable offline (advice, not a claim that it is unused), and in
/// leaf-only mode the root is not taken for the issuer of client certificates.
#[test]
fn crl_of_an_intermediate_outside_the_bundle() {
    let root = root("root-ca");
    let inter = intermediate("sub-ca", 2, &root);
    let cas = parse_cas(&[&root.pem]);
    let advice = Warning::IssuerNotInBundle { crl: 1, issuer: "O=certgate tests,CN=sub-ca".into() };
    let text = advice.to_string();
    assert!(text.contains("cannot be verified offline") && !text.contains("never uses"), "{text}");

    let with_root = parse_crls(&[&fresh_crl(&inter, &[]), &fresh_crl(&root, &[])]);
    for mode in [RevocationMode::FullChain, RevocationMode::LeafOnly] {
        assert_eq!(check_bundle(&with_root, &cas, &opts(mode)), vec![advice.clone()], "{mode:?}");
    }
    let without_root = parse_crls(&[&fresh_crl(&inter, &[])]);
    assert_eq!(
        check_bundle(&without_root, &cas, &opts(RevocationMode::FullChain)),
        vec![
            advice.clone(),
            Warning::MissingCrlForCa { ca: 1, subject: "O=certgate tests,CN=root-ca".into() }
        ]
    );
    assert_eq!(check_bundle(&without_root, &cas, &opts(RevocationMode::LeafOnly)), vec![advice]);
}

#[test]
fn intermediate_without_its_issuer() {
    let root = root("root-ca");
    let inter = intermediate("sub-ca", 2, &root);
    let cas = parse_cas(&[&inter.pem]);
    let crls = parse_crls(&[&fresh_crl(&inter, &[])]);
    let w = check_bundle(&crls, &cas, &opts(RevocationMode::FullChain));
    assert!(matches!(&w[..], [Warning::IssuerOfCaMissing { ca: 1, .. }]), "{w:?}");
}

#[test]
fn time_warnings() {
    let root = root("root-ca");
    let cas = parse_cas(&[&root.pem]);
    let crls = parse_crls(&[
        &crl(&root, &[], -10 * DAY, -DAY, 1),
        &crl(&root, &[], -DAY, DAY, 2),
        &crl(&root, &[], DAY, 20 * DAY, 3),
    ]);
    let w = check_bundle(&crls, &cas, &opts(RevocationMode::LeafOnly));
    assert!(w.iter().any(|w| matches!(w, Warning::Expired { crl: 1, .. })), "{w:?}");
    assert!(
        w.iter().any(|w| matches!(w, Warning::ExpiresSoon { crl: 2, window_hours: 168, .. })),
        "{w:?}"
    );
    assert!(w.iter().any(|w| matches!(w, Warning::NotYetValid { crl: 3, .. })), "{w:?}");
    let expired = w.iter().find(|w| matches!(w, Warning::Expired { .. })).unwrap().to_string();
    assert!(expired.contains("every handshake") && expired.contains("CRL #1"), "{expired}");
    // A 12-hour window does not flag a CRL expiring in a day.
    let narrow = CheckOptions {
        expiry_window: Duration::from_secs(12 * 3600),
        ..opts(RevocationMode::LeafOnly)
    };
    assert!(
        !check_bundle(&crls, &cas, &narrow)
            .iter()
            .any(|w| matches!(w, Warning::ExpiresSoon { .. }))
    );
}

#[test]
fn signature_warnings_name_the_issuer() {
    let other = root("other-ca");
    let root = root("root-ca");
    let cas = parse_cas(&[&root.pem]);
    let wrong = KeyPair::generate().unwrap();
    let forged = crl_params(&[], -DAY, 7 * DAY, 1, KeyIdMethod::Sha256)
        .signed_by(&Issuer::from_params(&root.params, &wrong))
        .unwrap()
        .pem()
        .unwrap();
    let crls = parse_crls(&[&fresh_crl(&root, &[]), &forged, &fresh_crl(&other, &[])]);
    let w = check_bundle(&crls, &cas, &opts(RevocationMode::FullChain));
    assert!(w.iter().any(|w| matches!(w, Warning::BadSignature { crl: 2, issuer, .. } if issuer.contains("root-ca"))), "{w:?}");
    assert!(w.iter().any(|w| matches!(w, Warning::IssuerNotInBundle { crl: 3, issuer } if issuer.contains("other-ca"))), "{w:?}");
}

#[test]
fn duplicates_and_superseded() {
    let root = root("root-ca");
    let cas = parse_cas(&[&root.pem]);
    let old = crl(&root, &[], -3 * DAY, 7 * DAY, 1);
    let new = crl(&root, &[], -DAY, 7 * DAY, 2);
    let crls = parse_crls(&[&old, &new, &new]);
    let w = check_bundle(&crls, &cas, &opts(RevocationMode::FullChain));
    assert!(
        w.contains(&Warning::Duplicate {
            crl: 3,
            issuer: "O=certgate tests,CN=root-ca".into(),
            same_as: 2
        }),
        "{w:?}"
    );
    assert!(w.iter().any(|w| matches!(w, Warning::Superseded { crl: 1, by: 2, why, .. } if why.contains("cRLNumber 2 > 1"))), "{w:?}");
}

#[test]
fn unparsable_and_malformed_blocks() {
    let root = root("root-ca");
    let cas = parse_cas(&[&root.pem]);
    let text = format!(
        "{}-----BEGIN X509 CRL-----\naGVsbG8=\n-----END X509 CRL-----\n-----BEGIN X509 CRL-----\n!!\n-----END X509 CRL-----\n",
        fresh_crl(&root, &[])
    );
    let crls = certgate_crl::CrlBundle::parse(text.as_bytes(), &Default::default()).unwrap();
    let w = check_bundle(&crls, &cas, &opts(RevocationMode::FullChain));
    assert!(w.iter().any(|w| matches!(w, Warning::CrlUnparsable { crl: 2, .. })), "{w:?}");
    assert!(w.iter().any(|w| matches!(w, Warning::MalformedPemBlock { .. })), "{w:?}");
    let empty = certgate_crl::CrlBundle::parse(b"", &Default::default()).unwrap();
    assert!(check_bundle(&empty, &cas, &opts(RevocationMode::FullChain)).contains(&Warning::NoCrl));
}

/// Hand-built CRLs that webpki refuses: v1 without nextUpdate, and a critical unknown extension.
#[test]
fn webpki_rejections_and_critical_extensions() {
    let root = root("root-ca");
    let cas = parse_cas(&[&root.pem]);
    let cert = certgate_crl::parse_pem_bundle(root.pem.as_bytes(), &Default::default())
        .unwrap()
        .blocks
        .remove(0)
        .der;
    let issuer = x509_parser::parse_x509_certificate(&cert).unwrap().1.subject().as_raw().to_vec();
    let sign = |tbs: Vec<u8>| {
        use rcgen::SigningKey;
        let alg = tlv(0x30, &tlv(0x06, &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]));
        let mut bits = vec![0];
        bits.extend(root.key.sign(&tbs).unwrap());
        let der = tlv(0x30, &[tbs, alg, tlv(0x03, &bits)].concat());
        let b64 = {
            use base64::Engine;
            base64::engine::general_purpose::STANDARD.encode(der)
        };
        format!("-----BEGIN X509 CRL-----\n{b64}\n-----END X509 CRL-----\n")
    };
    let alg = tlv(0x30, &tlv(0x06, &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02]));
    // v1: no version, no nextUpdate, no extensions.
    let v1 = sign(tlv(0x30, &[alg.clone(), issuer.clone(), tlv(0x17, b"270114080000Z")].concat()));
    // v2 with a critical unknown extension 1.2.3.4.
    let ext = tlv(
        0x30,
        &[tlv(0x06, &[0x2a, 0x03, 0x04]), tlv(0x01, &[0xff]), tlv(0x04, &[0x05, 0x00])].concat(),
    );
    let v2 = sign(tlv(
        0x30,
        &[
            tlv(0x02, &[1]),
            alg,
            issuer,
            tlv(0x17, b"270114080000Z"),
            tlv(0x17, b"270130080000Z"),
            tlv(0xa0, &tlv(0x30, &ext)),
        ]
        .concat(),
    ));
    let crls = parse_crls(&[&v1, &v2]);
    let w = check_bundle(&crls, &cas, &opts(RevocationMode::LeafOnly));
    assert!(
        w.iter().any(|w| matches!(
            w,
            Warning::WebpkiRejects { crl: 1, reason: certgate_crl::WebpkiRejection::Version1, .. }
        )),
        "{w:?}"
    );
    assert!(w.iter().any(|w| matches!(w, Warning::UnknownCriticalExtension { crl: 2, extension, .. } if extension == "1.2.3.4")), "{w:?}");
    assert!(w.iter().any(|w| matches!(w, Warning::WebpkiRejects { crl: 2, .. })), "{w:?}");
    assert!(
        !w.iter()
            .any(|w| matches!(w, Warning::BadSignature { .. } | Warning::IssuerNotInBundle { .. })),
        "{w:?}"
    );
    let v1_info = crls.items[0].crl.as_ref().unwrap().info().clone();
    assert_eq!((v1_info.version, v1_info.next_update, v1_info.has_extensions), (1, None, false));
    // BoringSSL uses the v1 CRL (no nextUpdate: never expires); webpki refuses the bundle.
    let leaf = client("c", &[0x05], &root);
    let only_v1 = parse_crls(&[&v1]);
    let e = certgate_crl::evaluate(
        &chain(&[&leaf.der]),
        &cas,
        &only_v1,
        RevocationMode::LeafOnly,
        now(),
    );
    assert_eq!(e.envoy.verdict, certgate_crl::Verdict::Accepted, "{}", e.envoy.reason);
    assert_eq!(e.rustls.verdict, certgate_crl::Verdict::Rejected, "{}", e.rustls.reason);
    let only_v2 = parse_crls(&[&v2]);
    let e = certgate_crl::evaluate(
        &chain(&[&leaf.der]),
        &cas,
        &only_v2,
        RevocationMode::LeafOnly,
        now(),
    );
    assert_eq!(e.envoy.verdict, certgate_crl::Verdict::Rejected, "{}", e.envoy.reason);
    assert!(e.envoy.reason.contains("unhandled critical"), "{}", e.envoy.reason);
}

fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut v = vec![tag];
    let len = content.len();
    if len < 0x80 {
        v.push(len as u8);
    } else if len < 0x100 {
        v.extend([0x81, len as u8]);
    } else {
        v.extend([0x82, (len >> 8) as u8, len as u8]);
    }
    v.extend_from_slice(content);
    v
}
