//! OpenSSL as the oracle for issued certificates: keys and requests made by `openssl`, signed
//! by `certgate_pki::issue`, then checked with `openssl verify` and read back with
//! `openssl x509 -text`. OpenSSL must be installed; the tests fail (they do not skip)
//! without it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use certgate_gofmt::GoDuration;
use certgate_pki::issue::{
    CaKeyPair, Issued, IssuerUrls, RequestSpec, parse_private_key, sign_self_signed, sign_with_ca,
    template_from_request,
};

/// 2026-01-01T00:00:00Z.
const NOW: u64 = 1_767_225_600;

fn now() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(NOW)
}

/// Runs `openssl` in `dir`; panics with its output unless it succeeds.
fn openssl(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("openssl").args(args).current_dir(dir).output().unwrap_or_else(|e| {
        panic!("openssl is required for these tests and could not be run ({e}); install it")
    });
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    assert!(
        output.status.success(),
        "openssl {args:?} failed: {}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

fn read(dir: &Path, file: &str) -> Vec<u8> {
    std::fs::read(dir.join(file)).unwrap()
}

fn write(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
}

/// `openssl x509 -text` with runs of whitespace folded to one space.
fn text_of(dir: &Path, file: &str) -> String {
    let text = openssl(dir, &["x509", "-noout", "-text", "-in", file]);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn request(dir: &Path, key: &str, subject: &str, extensions: &[&str]) -> Vec<u8> {
    let csr = format!("{key}.csr");
    let mut args = vec!["req", "-new", "-key", key, "-subj", subject, "-out", &csr];
    for extension in extensions {
        args.extend(["-addext", extension]);
    }
    openssl(dir, &args);
    read(dir, &csr)
}

fn usages(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// A self-signed CA over an OpenSSL key and request.
fn root(dir: &Path, key: &str, common_name: &str) -> Issued {
    let csr =
        request(dir, key, &format!("/CN={common_name}"), &["basicConstraints=critical,CA:TRUE"]);
    let spec = RequestSpec { request: &csr, duration: None, usages: &[], is_ca: true };
    let template = template_from_request(&spec, now()).unwrap();
    let private_key = parse_private_key(&read(dir, key)).unwrap();
    sign_self_signed(&template, &private_key, &[], &[0x11; 20]).unwrap()
}

#[test]
fn a_three_level_chain_verifies_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    openssl(dir, &["genrsa", "-traditional", "-out", "root.key", "2048"]);
    openssl(dir, &["ecparam", "-name", "secp384r1", "-genkey", "-noout", "-out", "int.key"]);
    openssl(
        dir,
        &["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "leaf.key"],
    );
    assert!(String::from_utf8(read(dir, "root.key")).unwrap().contains("RSA PRIVATE KEY"));
    assert!(String::from_utf8(read(dir, "int.key")).unwrap().contains("EC PRIVATE KEY"));

    let root = root(dir, "root.key", "certgate test root");

    let int_csr = request(
        dir,
        "int.key",
        "/O=certgate/CN=certgate test intermediate",
        &["basicConstraints=critical,CA:TRUE"],
    );
    let spec = RequestSpec { request: &int_csr, duration: None, usages: &[], is_ca: true };
    let root_pair =
        CaKeyPair::from_secret(root.pem.as_bytes(), &read(dir, "root.key"), None).unwrap();
    let intermediate = sign_with_ca(
        &template_from_request(&spec, now()).unwrap(),
        &root_pair,
        &IssuerUrls::default(),
        &[0x22; 20],
    )
    .unwrap();

    let leaf_csr = request(
        dir,
        "leaf.key",
        "/O=Example/CN=app.example.com",
        &[
            "subjectAltName=DNS:app.example.com,IP:10.0.0.1,IP:2001:db8::5,URI:spiffe://cluster.local/ns/app/sa/web,email:ops@example.com",
            "keyUsage=critical,digitalSignature,keyEncipherment",
            "extendedKeyUsage=serverAuth,clientAuth",
        ],
    );
    let leaf_usages =
        usages(&["digital signature", "key encipherment", "server auth", "client auth"]);
    let spec = RequestSpec {
        request: &leaf_csr,
        duration: Some(GoDuration::parse("24h").unwrap()),
        usages: &leaf_usages,
        is_ca: false,
    };
    let int_pair = CaKeyPair::from_secret(
        intermediate.pem.as_bytes(),
        &read(dir, "int.key"),
        Some(root.pem.as_bytes()),
    )
    .unwrap();
    let urls = IssuerUrls {
        crl_distribution_points: vec!["http://crl.example.com/ca.crl".into()],
        ocsp_servers: vec!["http://ocsp.example.com".into()],
        issuing_certificate_urls: vec!["http://ca.example.com/ca.crt".into()],
    };
    let leaf =
        sign_with_ca(&template_from_request(&spec, now()).unwrap(), &int_pair, &urls, &[0x33; 20])
            .unwrap();
    assert_eq!(leaf.ca_pem, root.pem);
    assert_eq!(leaf.chain_pem, format!("{}{}", leaf.pem, intermediate.pem));

    write(dir, "root.pem", &leaf.ca_pem);
    write(dir, "intermediate.pem", &intermediate.pem);
    write(dir, "leaf.pem", &leaf.pem);
    write(dir, "chain.pem", &leaf.chain_pem);
    let at = (NOW + 60).to_string();
    assert_eq!(
        openssl(dir, &["verify", "-attime", &at, "-CAfile", "root.pem", "root.pem"]),
        "root.pem: OK\n"
    );
    assert_eq!(
        openssl(
            dir,
            &[
                "verify",
                "-attime",
                &at,
                "-purpose",
                "sslserver",
                "-CAfile",
                "root.pem",
                "-untrusted",
                "intermediate.pem",
                "leaf.pem",
            ]
        ),
        "leaf.pem: OK\n"
    );
    // status.certificate carries the intermediate, so it verifies against the root alone.
    assert_eq!(
        openssl(
            dir,
            &[
                "verify",
                "-attime",
                &at,
                "-CAfile",
                "root.pem",
                "-untrusted",
                "chain.pem",
                "leaf.pem"
            ]
        ),
        "leaf.pem: OK\n"
    );

    let root_text = text_of(dir, "root.pem");
    for expected in [
        "Signature Algorithm: sha256WithRSAEncryption",
        "Issuer: CN = certgate test root",
        "Subject: CN = certgate test root",
        "X509v3 Key Usage: critical Digital Signature, Key Encipherment, Certificate Sign",
        "X509v3 Basic Constraints: critical CA:TRUE",
        "X509v3 Subject Key Identifier",
    ] {
        assert!(root_text.contains(expected), "{expected:?} not in {root_text}");
    }
    assert!(!root_text.contains("Authority Key Identifier"), "{root_text}");

    let int_text = text_of(dir, "intermediate.pem");
    assert!(int_text.contains("Signature Algorithm: sha256WithRSAEncryption"), "{int_text}");
    assert!(int_text.contains("Subject: O = certgate, CN = certgate test intermediate"));
    let ski = int_text
        .split("X509v3 Subject Key Identifier: ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap()
        .to_string();

    let leaf_text = text_of(dir, "leaf.pem");
    for expected in [
        "Version: 3 (0x2)",
        "Signature Algorithm: ecdsa-with-SHA384",
        "Issuer: O = certgate, CN = certgate test intermediate",
        "Subject: O = Example, CN = app.example.com",
        "X509v3 Key Usage: critical Digital Signature, Key Encipherment",
        "X509v3 Extended Key Usage: TLS Web Server Authentication, TLS Web Client Authentication",
        "X509v3 Basic Constraints: critical CA:FALSE",
        &format!("X509v3 Authority Key Identifier: {ski}"),
        "Authority Information Access: OCSP - URI:http://ocsp.example.com CA Issuers - URI:http://ca.example.com/ca.crt",
        "X509v3 CRL Distribution Points: Full Name: URI:http://crl.example.com/ca.crl",
        "X509v3 Subject Alternative Name: DNS:app.example.com, IP Address:10.0.0.1, IP Address:2001:DB8:0:0:0:0:0:5, URI:spiffe://cluster.local/ns/app/sa/web, email:ops@example.com",
    ] {
        assert!(leaf_text.contains(expected), "{expected:?} not in {leaf_text}");
    }
    assert!(!leaf_text.contains("Subject Key Identifier"), "{leaf_text}");

    let dates =
        openssl(dir, &["x509", "-noout", "-dates", "-dateopt", "iso_8601", "-in", "leaf.pem"]);
    assert_eq!(dates, "notBefore=2026-01-01 00:00:00Z\nnotAfter=2026-01-02 00:00:00Z\n");
    let dates =
        openssl(dir, &["x509", "-noout", "-dates", "-dateopt", "iso_8601", "-in", "root.pem"]);
    assert_eq!(dates, "notBefore=2026-01-01 00:00:00Z\nnotAfter=2026-04-01 00:00:00Z\n");
}

/// Every signing key type, in the formats OpenSSL writes, signs a leaf OpenSSL verifies with
/// cert-manager's choice of signature algorithm.
#[test]
fn every_ca_key_type_signs_what_openssl_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let fixture = format!("{}/tests/fixtures/rsa4096.key", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(fixture, dir.join("rsa4096.key")).unwrap();
    let keys: [(&str, &[&str], &str); 6] = [
        (
            "rsa3072.key",
            &["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:3072"],
            "sha384WithRSAEncryption",
        ),
        ("rsa4096.key", &[], "sha512WithRSAEncryption"),
        ("p256.key", &["ecparam", "-name", "prime256v1", "-genkey", "-noout"], "ecdsa-with-SHA256"),
        (
            "p384.key",
            &["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"],
            "ecdsa-with-SHA384",
        ),
        (
            "p521.key",
            &["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-521"],
            "ecdsa-with-SHA512",
        ),
        ("ed25519.key", &["genpkey", "-algorithm", "ed25519"], "ED25519"),
    ];
    openssl(
        dir,
        &["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", "leaf.key"],
    );
    let leaf_csr =
        request(dir, "leaf.key", "/CN=leaf.example.com", &["subjectAltName=DNS:leaf.example.com"]);
    let leaf_spec = RequestSpec { request: &leaf_csr, duration: None, usages: &[], is_ca: false };
    let leaf_template = template_from_request(&leaf_spec, now()).unwrap();
    for (file, generate, algorithm) in keys {
        if !generate.is_empty() {
            let mut args = generate.to_vec();
            args.extend(["-out", file]);
            openssl(dir, &args);
        }
        let ca = root(dir, file, &format!("root {file}"));
        let pair = CaKeyPair::from_secret(ca.pem.as_bytes(), &read(dir, file), None).unwrap();
        let leaf =
            sign_with_ca(&leaf_template, &pair, &IssuerUrls::default(), &[0x44; 20]).unwrap();
        write(dir, "ca.pem", &ca.pem);
        write(dir, "cert.pem", &leaf.pem);
        let at = (NOW + 60).to_string();
        assert_eq!(
            openssl(dir, &["verify", "-attime", &at, "-CAfile", "ca.pem", "cert.pem"]),
            "cert.pem: OK\n",
            "{file}"
        );
        let text = text_of(dir, "cert.pem");
        assert!(text.contains(&format!("Signature Algorithm: {algorithm}")), "{file}: {text}");
    }
}

#[test]
fn small_rsa_ca_keys_are_refused_as_cert_manager_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    openssl(dir, &["genrsa", "-traditional", "-out", "small.key", "1024"]);
    let csr = request(dir, "small.key", "/CN=small", &["basicConstraints=critical,CA:TRUE"]);
    let spec = RequestSpec { request: &csr, duration: None, usages: &[], is_ca: true };
    let template = template_from_request(&spec, now()).unwrap();
    let key = parse_private_key(&read(dir, "small.key")).unwrap();
    assert_eq!(
        sign_self_signed(&template, &key, &[], &[0x55; 20]).unwrap_err().to_string(),
        "Error signing certificate: invalid size 1024 for RSA key on signing certificate"
    );
}
