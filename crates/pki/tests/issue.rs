//! Issuing certificates from CertificateRequests (`certgate_pki::issue`): the template
//! cert-manager makes (defaults, usages, isCA, duration, SAN copying, the "encoded CSR"
//! checks), signing with every key type and key format a CA Secret may hold, SelfSigned key
//! matching, chains, and a property test re-parsing what was signed with x509-parser.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use certgate_gofmt::GoDuration;
use certgate_pki::der::{Reader, tlv};
use certgate_pki::issue::{
    CaKeyPair, CertificateTemplate, DEFAULT_CERTIFICATE_DURATION, IssueError, Issued, IssuerKind,
    IssuerUrls, RequestSpec, parse_private_key, sign_self_signed, sign_with_ca,
    template_from_request,
};
use certgate_pki::signature::{Policy, verify_certificate};
use common::{assemble, bit_string, extension, extension_request, fixture_text, name, oid, seq};
use p521::ecdsa::signature::hazmat::PrehashSigner as _;
use proptest::prelude::*;
use rcgen::string::Ia5String;
use rcgen::{
    BasicConstraints, CertificateParams, CustomExtension, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose, PublicKeyData, SanType,
};
use x509_parser::extensions::GeneralName;
use x509_parser::prelude::{FromDer, X509Certificate};

/// 2026-01-01T00:00:00.75Z: the fraction is dropped from the encoded times.
fn now() -> SystemTime {
    UNIX_EPOCH + Duration::new(1_767_225_600, 750_000_000)
}
const NOW_SECONDS: i64 = 1_767_225_600;
const SERIAL: [u8; 20] = [0xab; 20];

// --- keys and requests ---

fn p256() -> KeyPair {
    KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap()
}

fn p384() -> KeyPair {
    KeyPair::generate_for(&rcgen::PKCS_ECDSA_P384_SHA384).unwrap()
}

fn ed25519() -> KeyPair {
    KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap()
}

fn rsa(file: &str) -> KeyPair {
    KeyPair::from_pem_and_sign_algo(&fixture_text(file), &rcgen::PKCS_RSA_SHA256).unwrap()
}

fn ia5(s: &str) -> Ia5String {
    Ia5String::try_from(s).unwrap()
}

fn params(common_name: &str, dns: &[&str]) -> CertificateParams {
    let mut params = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    if !common_name.is_empty() {
        dn.push(DnType::CommonName, common_name);
    }
    params.distinguished_name = dn;
    params.subject_alt_names = dns.iter().map(|d| SanType::DnsName(ia5(d))).collect();
    params
}

fn csr(params: &CertificateParams, key: &KeyPair) -> Vec<u8> {
    params.serialize_request(key).unwrap().pem().unwrap().into_bytes()
}

fn usages(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

fn template(request: &[u8], usages: &[String], is_ca: bool) -> CertificateTemplate {
    let spec = RequestSpec { request, duration: None, usages, is_ca };
    template_from_request(&spec, now()).unwrap()
}

fn template_error(request: &[u8], usages: &[String], is_ca: bool) -> String {
    let spec = RequestSpec { request, duration: None, usages, is_ca };
    IssueError::from(template_from_request(&spec, now()).unwrap_err()).to_string()
}

/// The DER inside a PKCS#8 PrivateKeyInfo (PKCS#1 for RSA, SEC1 without curve for EC).
fn pkcs8_inner(pkcs8: &[u8]) -> Vec<u8> {
    let outer = Reader::new(pkcs8).read_any().unwrap();
    let mut fields = Reader::nested(&outer);
    fields.read_any().unwrap();
    fields.read_any().unwrap();
    fields.read_any().unwrap().content.to_vec()
}

fn pkcs1_pem(key: &KeyPair) -> String {
    common::pem("RSA PRIVATE KEY", &pkcs8_inner(&key.serialize_der()))
}

/// SEC1 `EC PRIVATE KEY` with the curve named, as Go and OpenSSL write it.
fn sec1_pem(key: &KeyPair, curve: &str) -> String {
    let inner = pkcs8_inner(&key.serialize_der());
    let outer = Reader::new(&inner).read_any().unwrap();
    let mut fields = Reader::nested(&outer);
    let version = fields.read_any().unwrap().raw.to_vec();
    let scalar = fields.read_any().unwrap().raw.to_vec();
    let public = fields.read_any().unwrap().raw.to_vec();
    let body = [version, scalar, tlv(0xa0, &oid(curve)), public].concat();
    common::pem("EC PRIVATE KEY", &tlv(0x30, &body))
}

const P256_OID: &str = "1.2.840.10045.3.1.7";
const P384_OID: &str = "1.3.132.0.34";

/// A fixed P-521 key (ring cannot make one): its SEC1 PEM and the signing key.
fn p521() -> (String, p521::ecdsa::SigningKey) {
    let scalar: Vec<u8> = (0..66u8).map(|i| if i == 0 { 0 } else { i.wrapping_mul(37) }).collect();
    let key = p521::ecdsa::SigningKey::from_slice(&scalar).unwrap();
    let point = key.verifying_key().to_sec1_point(false).as_bytes().to_vec();
    let body = [
        tlv(0x02, &[1]),
        tlv(0x04, &scalar),
        tlv(0xa0, &oid("1.3.132.0.35")),
        tlv(0xa1, &bit_string(&point)),
    ]
    .concat();
    (common::pem("EC PRIVATE KEY", &tlv(0x30, &body)), key)
}

/// A P-521 request signed with ECDSA SHA-512 (rcgen cannot sign with P-521).
fn p521_request(key: &p521::ecdsa::SigningKey, common_name: &str, dns: &str, ca: bool) -> Vec<u8> {
    let point = key.verifying_key().to_sec1_point(false).as_bytes().to_vec();
    let spki = seq(&[seq(&[oid("1.2.840.10045.2.1"), oid("1.3.132.0.35")]), bit_string(&point)]);
    let subject = name(&[vec![common::atv("2.5.4.3", common::utf8(common_name))]]);
    let mut extensions = vec![common::san(&[tlv(0x82, dns.as_bytes())])];
    if ca {
        extensions.push(extension("2.5.29.19", seq(&[tlv(0x01, &[0xff])])));
    }
    let attributes = extension_request(&extensions);
    let info = seq(&[tlv(0x02, &[0]), subject, spki, tlv(0xa0, &attributes)]);
    let digest = ring::digest::digest(&ring::digest::SHA512, &info);
    let signature: p521::ecdsa::Signature = key.sign_prehash(digest.as_ref()).unwrap();
    let (r, s) = signature.split_bytes();
    let der_signature = seq(&[integer(&r), integer(&s)]);
    let request = assemble(info, seq(&[oid("1.2.840.10045.4.3.4")]), &der_signature);
    common::pem("CERTIFICATE REQUEST", &request).into_bytes()
}

fn integer(magnitude: &[u8]) -> Vec<u8> {
    let trimmed: Vec<u8> = magnitude.iter().copied().skip_while(|b| *b == 0).collect();
    let mut content = if trimmed.first().is_none_or(|b| *b >= 0x80) { vec![0] } else { vec![] };
    content.extend(trimmed);
    tlv(0x02, &content)
}

// --- certificates ---

fn parse(der: &[u8]) -> X509Certificate<'_> {
    let (rest, certificate) = X509Certificate::from_der(der).unwrap();
    assert!(rest.is_empty());
    certificate
}

fn rendered(general_names: &[GeneralName<'_>]) -> Vec<String> {
    general_names
        .iter()
        .map(|n| match n {
            GeneralName::DNSName(d) => format!("dns {d}"),
            GeneralName::IPAddress(bytes) => format!(
                "ip {}",
                match bytes.len() {
                    4 => std::net::IpAddr::from(<[u8; 4]>::try_from(*bytes).unwrap()),
                    _ => std::net::IpAddr::from(<[u8; 16]>::try_from(*bytes).unwrap()),
                }
            ),
            GeneralName::RFC822Name(e) => format!("email {e}"),
            GeneralName::URI(u) => format!("uri {u}"),
            other => format!("{other:?}"),
        })
        .collect()
}

fn extension_oids(certificate: &X509Certificate<'_>) -> Vec<(String, bool)> {
    certificate.extensions().iter().map(|e| (e.oid.to_id_string(), e.critical)).collect()
}

/// A self-signed CA made through the SelfSigned path, and its key PEM (`tls.key`).
fn root_ca(key: &KeyPair, key_pem: &str, common_name: &str) -> Issued {
    let mut params = params(common_name, &[]);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let request = csr(&params, key);
    let template = template(&request, &[], true);
    sign_self_signed(&template, &parse_private_key(key_pem.as_bytes()).unwrap(), &[], &SERIAL)
        .unwrap()
}

fn ca_pair(issued: &Issued, key_pem: &str) -> CaKeyPair {
    CaKeyPair::from_secret(issued.pem.as_bytes(), key_pem.as_bytes(), None).unwrap()
}

fn leaf_template() -> CertificateTemplate {
    let request = csr(&params("app.example.com", &["app.example.com"]), &p256());
    template(&request, &usages(&["digital signature", "key encipherment", "server auth"]), false)
}

// --- template ---

#[test]
fn defaults() {
    let key = p256();
    let request = csr(&params("app.example.com", &["app.example.com", "www.example.com"]), &key);
    let template = template(&request, &[], false);
    assert_eq!(template.key_usage_names(), ["digital signature", "key encipherment"]);
    assert!(template.ext_key_usages.is_empty());
    assert!(!template.is_ca);
    assert_eq!(template.not_before, now());
    let ninety_days = Duration::from_secs(90 * 24 * 3600);
    assert_eq!(template.not_after, now() + ninety_days);
    assert_eq!(DEFAULT_CERTIFICATE_DURATION.0, 90 * 24 * 3600 * 1_000_000_000);
    assert_eq!(template.subject_public_key_info, key.subject_public_key_info());
    assert!(template.name_constraints.is_none());
    let san = template.subject_alt_name.as_ref().unwrap();
    assert!(!san.critical);
}

#[test]
fn usages_map_to_key_usage_bits_and_extended_usages_in_order() {
    let request = csr(&params("x", &["x.example"]), &p256());
    let template = template(
        &request,
        &usages(&["signing", "crl sign", "client auth", "server auth", "s/mime", "any"]),
        false,
    );
    assert_eq!(template.key_usage_names(), ["digital signature", "crl sign"]);
    assert_eq!(
        template.ext_key_usages,
        ["1.3.6.1.5.5.7.3.2", "1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.4", "2.5.29.37.0"]
    );
    // Key encipherment is kept for every key type, as cert-manager keeps it.
    let ed = csr(&params("x", &["x.example"]), &ed25519());
    assert_eq!(template_ed(&ed).key_usage_names(), ["digital signature", "key encipherment"]);
    assert_eq!(
        template_error(&request, &usages(&["server auth", "bogus", "also bogus"]), false),
        "Error generating certificate template: unknown key usages: [bogus also bogus]"
    );
}

fn template_ed(request: &[u8]) -> CertificateTemplate {
    template(request, &[], false)
}

#[test]
fn is_ca_adds_cert_sign_and_must_match_a_requested_basic_constraints() {
    let key = p256();
    let request = csr(&params("ca", &[]), &key);
    let ca = template(&request, &[], true);
    assert!(ca.is_ca);
    assert_eq!(ca.key_usage_names(), ["digital signature", "key encipherment", "cert sign"]);

    let mut requested_ca = params("ca", &[]);
    requested_ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let request = csr(&requested_ca, &key);
    assert_eq!(
        template_error(&request, &[], false),
        "Error generating certificate template: encoded CSR error: IsCA true does not match expected value false"
    );
    let mut requested_leaf = params("leaf", &["leaf.example"]);
    requested_leaf.is_ca = IsCa::ExplicitNoCa;
    let request = csr(&requested_leaf, &key);
    assert_eq!(
        template_error(&request, &[], true),
        "Error generating certificate template: encoded CSR error: IsCA false does not match expected value true"
    );
    assert!(!template(&request, &[], false).is_ca);
}

#[test]
fn requested_usages_must_equal_the_requests_usages() {
    let key = p256();
    let mut with_usages = params("x", &["x.example"]);
    with_usages.key_usages =
        vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    with_usages.extended_key_usages =
        vec![ExtendedKeyUsagePurpose::ServerAuth, ExtendedKeyUsagePurpose::ClientAuth];
    let request = csr(&with_usages, &key);
    let ok = template(
        &request,
        &usages(&["digital signature", "key encipherment", "server auth", "client auth"]),
        false,
    );
    assert_eq!(ok.ext_key_usages, ["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2"]);
    assert_eq!(
        template_error(
            &request,
            &usages(&["digital signature", "server auth", "client auth"]),
            false
        ),
        "Error generating certificate template: encoded CSR error: the KeyUsages [ 'digital signature', 'key encipherment' ] do not match the expected KeyUsages [ 'digital signature' ]"
    );
    // Order counts for extended usages.
    assert_eq!(
        template_error(
            &request,
            &usages(&["digital signature", "key encipherment", "client auth", "server auth"]),
            false
        ),
        "Error generating certificate template: encoded CSR error: the ExtKeyUsages [ 'server auth', 'client auth' ] do not match the expected ExtKeyUsages [ 'client auth', 'server auth' ]"
    );
    // Only extended usages requested: the CSR's keyUsage counts as none.
    let mut only_eku = params("x", &["x.example"]);
    only_eku.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    assert_eq!(
        template_error(
            &csr(&only_eku, &key),
            &usages(&["digital signature", "key encipherment", "server auth"]),
            false
        ),
        "Error generating certificate template: encoded CSR error: the KeyUsages [] do not match the expected KeyUsages [ 'digital signature', 'key encipherment' ]"
    );
}

#[test]
fn extended_usages_go_does_not_know_are_carried_over() {
    let mut with_other = params("x", &["x.example"]);
    with_other.key_usages =
        vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
    with_other.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::Other(vec![1, 3, 6, 1, 5, 5, 7, 3, 17]),
        ExtendedKeyUsagePurpose::ServerAuth,
    ];
    let request = csr(&with_other, &p256());
    assert_eq!(
        template_error(&request, &usages(&["server auth"]), false),
        "Error generating certificate template: encoded CSR error: the KeyUsages [ 'digital signature', 'key encipherment' ] do not match the expected KeyUsages []"
    );
    let template = template(
        &request,
        &usages(&["digital signature", "key encipherment", "server auth"]),
        false,
    );
    assert_eq!(template.ext_key_usages, ["1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.17"]);
}

#[test]
fn durations_are_used_as_given() {
    let request = csr(&params("x", &["x.example"]), &p256());
    let with = |duration: GoDuration| {
        let spec =
            RequestSpec { request: &request, duration: Some(duration), usages: &[], is_ca: false };
        template_from_request(&spec, now()).unwrap()
    };
    assert_eq!(with(GoDuration::parse("1h").unwrap()).not_after, now() + Duration::from_secs(3600));
    assert_eq!(with(GoDuration(0)).not_after, now());
    assert_eq!(
        with(GoDuration::parse("-1.5s").unwrap()).not_after,
        now() - Duration::from_millis(1500)
    );
    // Signing truncates each time to whole seconds.
    let template = with(GoDuration::parse("400ms").unwrap());
    let key_pem = p256().serialize_pem();
    let ca = root_ca(&KeyPair::from_pem(&key_pem).unwrap(), &key_pem, "ca");
    let issued =
        sign_with_ca(&template, &ca_pair(&ca, &key_pem), &IssuerUrls::default(), &SERIAL).unwrap();
    let validity = parse(&issued.der).validity().clone();
    assert_eq!(validity.not_before.timestamp(), NOW_SECONDS);
    assert_eq!(validity.not_after.timestamp(), NOW_SECONDS + 1);
}

#[test]
fn subject_alt_names_are_copied_and_critical_for_an_empty_subject() {
    let key = p256();
    let mut all_kinds = params("", &["a.example"]);
    all_kinds.subject_alt_names.extend([
        SanType::IpAddress("192.0.2.7".parse().unwrap()),
        SanType::IpAddress("2001:db8::1".parse().unwrap()),
        SanType::URI(ia5("spiffe://cluster.local/ns/a/sa/b")),
        SanType::Rfc822Name(ia5("ops@example.com")),
    ]);
    let request = csr(&all_kinds, &key);
    let template = template(&request, &[], false);
    assert!(template.subject_is_empty());
    assert!(template.subject_alt_name.as_ref().unwrap().critical);

    let ca_key = p384();
    let ca_pem = ca_key.serialize_pem();
    let ca = root_ca(&ca_key, &ca_pem, "ca");
    let issued =
        sign_with_ca(&template, &ca_pair(&ca, &ca_pem), &IssuerUrls::default(), &SERIAL).unwrap();
    let certificate = parse(&issued.der);
    let san = certificate.subject_alternative_name().unwrap().unwrap();
    assert!(san.critical);
    assert_eq!(
        rendered(&san.value.general_names),
        [
            "dns a.example",
            "ip 192.0.2.7",
            "ip 2001:db8::1",
            "uri spiffe://cluster.local/ns/a/sa/b",
            "email ops@example.com"
        ]
    );
    // Byte for byte.
    let copied = certificate.extensions().iter().find(|e| e.oid.to_id_string() == "2.5.29.17");
    assert_eq!(copied.unwrap().value, template.subject_alt_name.unwrap().value);
}

#[test]
fn malformed_requests_fail_with_cert_managers_texts() {
    let key = p256();
    let request = csr(&params("x", &["x.example"]), &key);
    let mut tampered = common::pem_to_der(std::str::from_utf8(&request).unwrap());
    let at = tampered.len() - 5;
    tampered[at] ^= 1;
    let tampered = common::pem("CERTIFICATE REQUEST", &tampered);
    assert!(
        template_error(tampered.as_bytes(), &[], false).starts_with(
            "Error generating certificate template: certificate request signature (ecdsa-with-SHA256 (1.2.840.10045.4.3.2)) does not verify"
        ),
        "{}",
        template_error(tampered.as_bytes(), &[], false)
    );
    // cert-manager takes the first PEM block whatever its label, and never raw DER.
    let relabelled = std::str::from_utf8(&request).unwrap().replace("CERTIFICATE REQUEST", "X");
    assert!(
        template_from_request(
            &RequestSpec {
                request: relabelled.as_bytes(),
                duration: None,
                usages: &[],
                is_ca: false
            },
            now()
        )
        .is_ok()
    );
    let der = common::pem_to_der(std::str::from_utf8(&request).unwrap());
    assert_eq!(
        template_error(&der, &[], false),
        "Error generating certificate template: error decoding certificate request PEM block: no PEM data was found in given input"
    );
    // Two SAN extensions: Go refuses duplicate requested extensions.
    let subject = name(&[vec![common::atv("2.5.4.3", common::utf8("x"))]]);
    let twice = common::signed_request(
        subject,
        &[extension_request(&[
            common::san(&[tlv(0x82, b"a.example")]),
            common::san(&[tlv(0x82, b"b.example")]),
        ])],
    );
    assert_eq!(
        template_error(common::pem("CERTIFICATE REQUEST", &twice).as_bytes(), &[], false),
        "Error generating certificate template: x509: certificate request contains duplicate requested extensions"
    );
}

#[test]
fn name_constraints_are_reencoded_keeping_criticality() {
    let subtrees = tlv(
        0xa0,
        &[seq(&[tlv(0x87, &[10, 9, 8, 7, 255, 0, 0, 0])]), seq(&[tlv(0x82, b"example.com")])]
            .concat(),
    );
    let mut requested = params("ca", &[]);
    requested.custom_extensions =
        vec![CustomExtension::from_oid_content(&[2, 5, 29, 30], seq(&[subtrees]))];
    requested.custom_extensions[0].set_criticality(true);
    let request = csr(&requested, &p256());
    let template = template(&request, &[], true);
    let constraints = template.name_constraints.clone().unwrap();
    assert!(constraints.critical);
    let expected = seq(&[tlv(
        0xa0,
        &[seq(&[tlv(0x82, b"example.com")]), seq(&[tlv(0x87, &[10, 0, 0, 0, 255, 0, 0, 0])])]
            .concat(),
    )]);
    assert_eq!(constraints.value, expected);
    let key = p256();
    let key_pem = key.serialize_pem();
    let ca = root_ca(&key, &key_pem, "root");
    let issued =
        sign_with_ca(&template, &ca_pair(&ca, &key_pem), &IssuerUrls::default(), &SERIAL).unwrap();
    let certificate = parse(&issued.der);
    let found = extension_oids(&certificate);
    assert!(found.contains(&("2.5.29.30".to_string(), true)), "{found:?}");
}

#[test]
fn name_constraints_go_cannot_parse_back_fail_at_signing() {
    let subtrees = tlv(0xa0, &seq(&[tlv(0x82, b"example..com")]));
    let mut requested = params("ca", &[]);
    requested.custom_extensions =
        vec![CustomExtension::from_oid_content(&[2, 5, 29, 30], seq(&[subtrees]))];
    let template = template(&csr(&requested, &p256()), &[], true);
    let key = p256();
    let key_pem = key.serialize_pem();
    let ca = root_ca(&key, &key_pem, "root");
    let error = sign_with_ca(&template, &ca_pair(&ca, &key_pem), &IssuerUrls::default(), &SERIAL)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Error signing certificate: error decoding DER certificate bytes: x509: failed to parse dnsName constraint \"example..com\""
    );
}

// --- signing ---

/// Signs a leaf with a CA whose key is `key_pem`, checks the signature algorithm, and
/// verifies the signature with the crate's verifier and (where ring can) x509-parser.
fn check_ca_key(
    key: &KeyPair,
    key_pem: &str,
    algorithm_oid: &str,
    x509_parser_verifies: bool,
) -> Issued {
    let ca = root_ca(key, &key.serialize_pem(), "ca");
    let pair = CaKeyPair::from_secret(ca.pem.as_bytes(), key_pem.as_bytes(), None).unwrap();
    let issued = sign_with_ca(&leaf_template(), &pair, &IssuerUrls::default(), &SERIAL).unwrap();
    let leaf = parse(&issued.der);
    let root = parse(&ca.der);
    assert_eq!(leaf.signature_algorithm.algorithm.to_id_string(), algorithm_oid);
    assert_eq!(leaf.issuer().as_raw(), root.subject().as_raw());
    verify_certificate(&issued.der, Some(root.public_key().raw), Policy::Go).unwrap();
    if x509_parser_verifies {
        leaf.verify_signature(Some(root.public_key())).unwrap();
        root.verify_signature(None).unwrap();
    }
    issued
}

#[test]
fn rsa_keys_pkcs1_and_pkcs8_pick_the_digest_by_size() {
    for (file, algorithm) in [
        ("rsa2048.key", "1.2.840.113549.1.1.11"),
        ("rsa3072.key", "1.2.840.113549.1.1.12"),
        ("rsa4096.key", "1.2.840.113549.1.1.13"),
    ] {
        let key = rsa(file);
        check_ca_key(&key, &key.serialize_pem(), algorithm, true);
        check_ca_key(&key, &pkcs1_pem(&key), algorithm, true);
    }
}

#[test]
fn ecdsa_keys_sec1_and_pkcs8() {
    let key = p256();
    check_ca_key(&key, &key.serialize_pem(), "1.2.840.10045.4.3.2", true);
    check_ca_key(&key, &sec1_pem(&key, P256_OID), "1.2.840.10045.4.3.2", true);
    let key = p384();
    check_ca_key(&key, &key.serialize_pem(), "1.2.840.10045.4.3.3", true);
    check_ca_key(&key, &sec1_pem(&key, P384_OID), "1.2.840.10045.4.3.3", true);
}

#[test]
fn ed25519_keys() {
    let key = ed25519();
    check_ca_key(&key, &key.serialize_pem(), "1.3.101.112", true);
}

#[test]
fn p521_keys_sign_with_sha512() {
    let (key_pem, key) = p521();
    let request = p521_request(&key, "p521 root", "root.example", true);
    let root_template = template(&request, &[], true);
    let private_key = parse_private_key(key_pem.as_bytes()).unwrap();
    assert_eq!(private_key.algorithm(), "ECDSA P-521");
    let root = sign_self_signed(&root_template, &private_key, &[], &SERIAL).unwrap();
    let pair = CaKeyPair::from_secret(root.pem.as_bytes(), key_pem.as_bytes(), None).unwrap();
    let issued = sign_with_ca(&leaf_template(), &pair, &IssuerUrls::default(), &SERIAL).unwrap();
    let leaf = parse(&issued.der);
    assert_eq!(leaf.signature_algorithm.algorithm.to_id_string(), "1.2.840.10045.4.3.4");
    verify_certificate(&issued.der, Some(parse(&root.der).public_key().raw), Policy::Go).unwrap();
    verify_certificate(&root.der, None, Policy::Go).unwrap();
}

#[test]
fn ca_certificates_have_key_identifiers_and_leaves_an_authority_key_id() {
    let key = p256();
    let key_pem = key.serialize_pem();
    let root = root_ca(&key, &key_pem, "root");
    let root_certificate = parse(&root.der);
    assert_eq!(
        extension_oids(&root_certificate),
        [
            ("2.5.29.15".to_string(), true),
            ("2.5.29.19".to_string(), true),
            ("2.5.29.14".to_string(), false)
        ]
    );
    assert!(root_certificate.basic_constraints().unwrap().unwrap().value.ca);
    // Subject key id: the first 20 bytes of SHA-256 over the key bits (Go 1.25 and later).
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        &root_certificate.public_key().subject_public_key.data,
    );
    let ski = root_certificate.extensions().iter().find(|e| e.oid.to_id_string() == "2.5.29.14");
    assert_eq!(ski.unwrap().value, tlv(0x04, &digest.as_ref()[..20]));

    let urls = IssuerUrls {
        crl_distribution_points: vec!["http://crl.example/ca.crl".into()],
        ocsp_servers: vec!["http://ocsp.example".into()],
        issuing_certificate_urls: vec!["http://ca.example/ca.crt".into()],
    };
    let issued = sign_with_ca(&leaf_template(), &ca_pair(&root, &key_pem), &urls, &SERIAL).unwrap();
    let leaf = parse(&issued.der);
    assert_eq!(
        extension_oids(&leaf),
        [
            ("2.5.29.15".to_string(), true),
            ("2.5.29.37".to_string(), false),
            ("2.5.29.19".to_string(), true),
            ("2.5.29.35".to_string(), false),
            ("1.3.6.1.5.5.7.1.1".to_string(), false),
            ("2.5.29.31".to_string(), false),
            ("2.5.29.17".to_string(), false),
        ]
    );
    assert!(!leaf.basic_constraints().unwrap().unwrap().value.ca);
    let aki = leaf.extensions().iter().find(|e| e.oid.to_id_string() == "2.5.29.35").unwrap();
    assert_eq!(aki.value, seq(&[tlv(0x80, &digest.as_ref()[..20])]));
    // The serial number is Go's: the 20 random bytes with the top bit cleared.
    assert_eq!(leaf.raw_serial(), [&[0x2b][..], &[0xab; 19]].concat());
    assert_eq!(leaf.version().0, 2);
}

#[test]
fn self_signed_requires_the_requests_key() {
    let key = p256();
    let request = csr(&params("self", &["self.example"]), &key);
    let template = template(&request, &[], false);
    let other = parse_private_key(p256().serialize_pem().as_bytes()).unwrap();
    let error = sign_self_signed(&template, &other, &[], &SERIAL).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Error generating certificate template: CSR not signed by referenced private key"
    );
    assert_eq!(error.reason(IssuerKind::SelfSigned), "ErrorKeyMatch");
    assert_eq!(error.reason(IssuerKind::Ca), "SigningError");

    // The same key in SEC1 form matches.
    let own = parse_private_key(sec1_pem(&key, P256_OID).as_bytes()).unwrap();
    let crl = ["http://crl.example/self.crl".to_string()];
    let issued = sign_self_signed(&template, &own, &crl, &SERIAL).unwrap();
    assert_eq!(issued.chain_pem, issued.pem);
    assert_eq!(issued.ca_pem, issued.pem);
    let certificate = parse(&issued.der);
    assert_eq!(certificate.issuer().as_raw(), certificate.subject().as_raw());
    certificate.verify_signature(None).unwrap();
    // No key identifiers on a non-CA self-signed certificate, as Go writes it.
    assert_eq!(
        extension_oids(&certificate),
        [
            ("2.5.29.15".to_string(), true),
            ("2.5.29.19".to_string(), true),
            ("2.5.29.31".to_string(), false),
            ("2.5.29.17".to_string(), false),
        ]
    );
}

#[test]
fn ca_key_must_match_the_ca_certificate() {
    let key = p256();
    let key_pem = key.serialize_pem();
    let root = root_ca(&key, &key_pem, "root");
    let wrong =
        CaKeyPair::from_secret(root.pem.as_bytes(), p256().serialize_pem().as_bytes(), None)
            .unwrap();
    let error =
        sign_with_ca(&leaf_template(), &wrong, &IssuerUrls::default(), &SERIAL).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Error signing certificate: error creating x509 certificate: x509: provided PrivateKey doesn't match parent's PublicKey"
    );
}

#[test]
fn chains_run_to_the_highest_intermediate_and_the_ca_is_the_root() {
    let root_key = rsa("rsa2048.key");
    let root_pem = root_key.serialize_pem();
    let root = root_ca(&root_key, &root_pem, "root");

    let intermediate_key = p384();
    let intermediate_pem = intermediate_key.serialize_pem();
    let mut intermediate_params = params("intermediate", &[]);
    intermediate_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let intermediate_template = template(&csr(&intermediate_params, &intermediate_key), &[], true);
    let intermediate = sign_with_ca(
        &intermediate_template,
        &ca_pair(&root, &root_pem),
        &IssuerUrls::default(),
        &SERIAL,
    )
    .unwrap();
    assert_eq!(intermediate.chain_pem, intermediate.pem);
    assert_eq!(intermediate.ca_pem, root.pem);

    // tls.crt holds the intermediate, ca.crt the root.
    let pair = CaKeyPair::from_secret(
        intermediate.pem.as_bytes(),
        intermediate_pem.as_bytes(),
        Some(root.pem.as_bytes()),
    )
    .unwrap();
    let issued = sign_with_ca(&leaf_template(), &pair, &IssuerUrls::default(), &SERIAL).unwrap();
    assert_eq!(issued.chain_pem, format!("{}{}", issued.pem, intermediate.pem));
    assert_eq!(issued.ca_pem, root.pem);

    // Without the root, the intermediate is the top and stays in the chain.
    let pair =
        CaKeyPair::from_secret(intermediate.pem.as_bytes(), intermediate_pem.as_bytes(), None)
            .unwrap();
    let issued = sign_with_ca(&leaf_template(), &pair, &IssuerUrls::default(), &SERIAL).unwrap();
    assert_eq!(issued.chain_pem, format!("{}{}", issued.pem, intermediate.pem));
    assert_eq!(issued.ca_pem, intermediate.pem);

    // An unrelated ca.crt breaks the chain, as in cert-manager.
    let stranger_key = p256();
    let stranger = root_ca(&stranger_key, &stranger_key.serialize_pem(), "stranger");
    let pair = CaKeyPair::from_secret(
        intermediate.pem.as_bytes(),
        intermediate_pem.as_bytes(),
        Some(stranger.pem.as_bytes()),
    )
    .unwrap();
    let error = sign_with_ca(&leaf_template(), &pair, &IssuerUrls::default(), &SERIAL).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Error signing certificate: certificate chain is malformed or broken"
    );
}

#[test]
fn ca_secret_errors_are_cert_managers() {
    let key = p256();
    let key_pem = key.serialize_pem();
    let root = root_ca(&key, &key_pem, "root");
    let error = |crt: &[u8], key: &[u8], ca: Option<&[u8]>| {
        CaKeyPair::from_secret(crt, key, ca).unwrap_err().to_string()
    };
    assert_eq!(
        error(b"", key_pem.as_bytes(), None),
        "error decoding certificate PEM block: no valid certificates found"
    );
    assert_eq!(
        error(root.pem.as_bytes(), b"", None),
        "error decoding private key PEM block: no PEM data was found in given input"
    );
    let junk = common::pem("CERTIFICATE", &[0x30, 0x03, 0x02, 0x01, 0x01]);
    assert!(
        error(junk.as_bytes(), key_pem.as_bytes(), None)
            .starts_with("error parsing X.509 certificate: ")
    );
    assert!(
        error(root.pem.as_bytes(), key_pem.as_bytes(), Some(junk.as_bytes()))
            .starts_with("error parsing X.509 certificate: ")
    );
    let huge = vec![b' '; 95_001];
    assert_eq!(
        error(&huge, key_pem.as_bytes(), None),
        "provided PEM data was larger than the maximum 95000B"
    );
    // An empty ca.crt is ignored.
    assert!(CaKeyPair::from_secret(root.pem.as_bytes(), key_pem.as_bytes(), Some(b"")).is_ok());
}

#[test]
fn years_past_9999_cannot_be_written() {
    let far = UNIX_EPOCH + Duration::from_secs(253_402_300_800);
    let request = csr(&params("x", &["x.example"]), &p256());
    let spec =
        RequestSpec { request: &request, duration: Some(GoDuration(0)), usages: &[], is_ca: false };
    let template = template_from_request(&spec, far).unwrap();
    let key = p256();
    let key_pem = key.serialize_pem();
    let error = sign_with_ca(
        &template,
        &ca_pair(&root_ca(&key, &key_pem, "ca"), &key_pem),
        &IssuerUrls::default(),
        &SERIAL,
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Error signing certificate: error creating x509 certificate: asn1: structure error: cannot represent time as GeneralizedTime"
    );
}

// --- property: what the crate accepts signs and parses back the same ---

fn dns_name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,10}(\\.[a-z][a-z0-9]{0,8}){0,3}"
}

#[derive(Clone, Debug)]
enum Name {
    Dns(String),
    Ip(std::net::IpAddr),
    Email(String),
    Uri(String),
}

fn san_entry() -> impl Strategy<Value = Name> {
    prop_oneof![
        dns_name().prop_map(Name::Dns),
        any::<[u8; 4]>().prop_map(|a| Name::Ip(std::net::IpAddr::from(a))),
        any::<[u8; 16]>().prop_map(|a| Name::Ip(std::net::IpAddr::from(a))),
        ("[a-z]{1,8}", dns_name()).prop_map(|(user, host)| Name::Email(format!("{user}@{host}"))),
        ("[a-z]{1,8}", "[a-z/]{0,12}")
            .prop_map(|(host, path)| Name::Uri(format!("spiffe://{host}.example/{path}"))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn signed_certificates_parse_back_to_the_same_names_and_validity(
        names in prop::collection::vec(san_entry(), 1..6),
        common_name in prop::option::of("[a-zA-Z0-9 .-]{1,20}"),
        seconds in -10i64 * 365 * 86_400..200 * 365 * 86_400,
        nanos in 0i64..1_000_000_000,
        is_ca in any::<bool>(),
    ) {
        let key = ed25519();
        let mut request_params = params(common_name.as_deref().unwrap_or(""), &[]);
        request_params.subject_alt_names = names.iter().map(|n| match n {
            Name::Dns(d) => SanType::DnsName(ia5(d)),
            Name::Ip(ip) => SanType::IpAddress(*ip),
            Name::Email(e) => SanType::Rfc822Name(ia5(e)),
            Name::Uri(u) => SanType::URI(ia5(u)),
        }).collect();
        let request = csr(&request_params, &key);
        prop_assume!(certgate_pki::decode_csr(&request).is_ok());
        let duration = GoDuration(seconds * 1_000_000_000 + nanos);
        let spec = RequestSpec { request: &request, duration: Some(duration), usages: &[], is_ca };
        let template = template_from_request(&spec, now()).unwrap();
        let issued = sign_self_signed(
            &template,
            &parse_private_key(key.serialize_pem().as_bytes()).unwrap(),
            &[],
            &SERIAL,
        ).unwrap();

        let certificate = parse(&issued.der);
        certificate.verify_signature(None).unwrap();
        let san = certificate.subject_alternative_name().unwrap().unwrap();
        prop_assert_eq!(san.critical, common_name.is_none());
        let parsed = rendered(&san.value.general_names);
        let expected: Vec<String> = names.iter().map(|n| match n {
            Name::Dns(d) => format!("dns {d}"),
            Name::Ip(ip) => format!("ip {ip}"),
            Name::Email(e) => format!("email {e}"),
            Name::Uri(u) => format!("uri {u}"),
        }).collect();
        prop_assert_eq!(parsed, expected);

        let validity = certificate.validity();
        prop_assert_eq!(validity.not_before.timestamp(), NOW_SECONDS);
        let total_nanos = 750_000_000i128 + i128::from(duration.0);
        let expected_after = NOW_SECONDS + i64::try_from(total_nanos.div_euclid(1_000_000_000)).unwrap();
        prop_assert_eq!(validity.not_after.timestamp(), expected_after);
        prop_assert_eq!(certificate.basic_constraints().unwrap().unwrap().value.ca, is_ca);
    }
}

// --- hostile input ---

struct Hostile {
    seeds: Vec<(&'static str, Vec<u8>)>,
    key_pem: String,
    ca_pem: String,
    leaf: CertificateTemplate,
}

/// Made once: DER inputs worth mutating (a request, keys in each format, a CA certificate),
/// a good CA key and certificate, and a leaf template.
fn hostile() -> &'static Hostile {
    static HOSTILE: std::sync::OnceLock<Hostile> = std::sync::OnceLock::new();
    HOSTILE.get_or_init(|| {
        let key_pem = p256().serialize_pem();
        let ca = root_ca(&KeyPair::from_pem(&key_pem).unwrap(), &key_pem, "ca");
        Hostile { seeds: seeds(), key_pem, ca_pem: ca.pem, leaf: leaf_template() }
    })
}

fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let key = p256();
    let request = csr(&params("x", &["x.example"]), &key);
    let key_pem = key.serialize_pem();
    let ca = root_ca(&key, &key_pem, "ca");
    let rsa_key = rsa("rsa2048.key");
    let der = |pem: &str| common::pem_to_der(pem);
    vec![
        ("CERTIFICATE REQUEST", der(std::str::from_utf8(&request).unwrap())),
        ("PRIVATE KEY", key.serialize_der()),
        ("EC PRIVATE KEY", der(&sec1_pem(&key, P256_OID))),
        ("RSA PRIVATE KEY", der(&pkcs1_pem(&rsa_key))),
        ("PRIVATE KEY", ed25519().serialize_der()),
        ("EC PRIVATE KEY", der(&p521().0)),
        ("CERTIFICATE", ca.der),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn hostile_inputs_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..1024),
        seed in any::<prop::sample::Index>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        let try_everything = |input: &[u8]| {
            let spec = RequestSpec { request: input, duration: None, usages: &[], is_ca: false };
            let _ = template_from_request(&spec, now());
            let _ = parse_private_key(input);
            let _ = CaKeyPair::from_secret(input, input, Some(input));
        };
        try_everything(&bytes);
        for label in ["CERTIFICATE REQUEST", "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY", "CERTIFICATE"] {
            try_everything(common::pem(label, &bytes).as_bytes());
        }

        let hostile = hostile();
        let (label, mut der) = hostile.seeds[seed.index(hostile.seeds.len())].clone();
        for (at, value) in &flips {
            let at = at.index(der.len());
            der[at] ^= value;
        }
        let truncated = &der[..cut.index(der.len() + 1)];
        for input in [der.as_slice(), truncated] {
            let pem = common::pem(label, input);
            try_everything(pem.as_bytes());
            // A mutated key or CA certificate still goes all the way to signing.
            let (key, ca) = (hostile.key_pem.as_bytes(), hostile.ca_pem.as_bytes());
            let pairs = [
                CaKeyPair::from_secret(pem.as_bytes(), key, None),
                CaKeyPair::from_secret(ca, pem.as_bytes(), None),
            ];
            for pair in pairs.iter().flatten() {
                let _ = sign_with_ca(&hostile.leaf, pair, &IssuerUrls::default(), &SERIAL);
            }
        }
    }
}
