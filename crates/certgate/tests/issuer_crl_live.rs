//! End to end: revocation and CRL publishing for CA issuers (`certgate revoke`, the
//! `issuers-crl` controller) in a standalone `certgate controller` against the sandbox and a
//! real kube-apiserver (`both!`). The CAs, CSRs and every check of the published CRL are the
//! real `openssl`'s; requests are signed by `certificaterequests-issuer-ca` after
//! `certgate approve`. No Certificate controller runs: a Certificate and its Secret are
//! written by hand, as that controller would leave them.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use base64::Engine as _;

mod dev_support;
use dev_support::issuance::eventually;
use dev_support::*;

const CONTROLLERS: &str =
    "--controllers=issuers,clusterissuers,certificaterequests-issuer-ca,issuers-crl";

/// Runs `openssl`; its output, whatever the exit status.
fn run_openssl(args: &[&str]) -> Output {
    Command::new("openssl").args(args).output().expect("openssl is installed")
}

/// Runs `openssl`, which must succeed; standard output and error together.
fn openssl_ok(args: &[&str]) -> String {
    let out = run_openssl(args);
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "openssl {}: {text}", args.join(" "));
    text
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A CA made by openssl in `dir`: (certificate, key). `sec1`: the key as OpenSSL's
/// traditional `EC PRIVATE KEY` (which the CRL signer converts), else PKCS#8.
fn openssl_ca(dir: &Path, name: &str, sec1: bool) -> (PathBuf, PathBuf) {
    let key = dir.join(format!("{name}.key"));
    let cert = dir.join(format!("{name}.pem"));
    if sec1 {
        openssl_ok(&["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", path(&key)]);
        assert!(std::fs::read_to_string(&key).unwrap().contains("BEGIN EC PRIVATE KEY"));
    } else {
        openssl_ok(&[
            "genpkey",
            "-algorithm",
            "EC",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-out",
            path(&key),
        ]);
    }
    openssl_ok(&[
        "req",
        "-x509",
        "-new",
        "-key",
        path(&key),
        "-out",
        path(&cert),
        "-days",
        "30",
        "-subj",
        &format!("/O=certgate tests/CN={name}"),
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    ]);
    (cert, key)
}

/// A CertificateRequest manifest for `dns` in `payments` to `kind`/`issuer`, its CSR by openssl.
fn certificate_request(dir: &Path, name: &str, kind: &str, issuer: &str, dns: &str) -> String {
    let csr = dir.join(format!("{name}.csr"));
    openssl_ok(&[
        "req",
        "-new",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        path(&dir.join(format!("{name}.key"))),
        "-out",
        path(&csr),
        "-subj",
        &format!("/CN={dns}"),
        "-addext",
        &format!("subjectAltName=DNS:{dns}"),
    ]);
    let request = base64::engine::general_purpose::STANDARD.encode(std::fs::read(&csr).unwrap());
    format!(
        "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\nmetadata:\n  name: {name}\n  namespace: payments\n\
         spec:\n  issuerRef: {{group: cert-manager.io, kind: {kind}, name: {issuer}}}\n  duration: 2h\n\
         \x20 usages: [digital signature, server auth]\n  request: {request}\n"
    )
}

/// Creates, approves and waits for a request; the issued certificate's file.
fn issue(dev: &Dev, dir: &Path, name: &str, kind: &str, issuer: &str) -> PathBuf {
    let manifest = certificate_request(dir, name, kind, issuer, &format!("{name}.payments.svc"));
    dev.ok_with(&["create", "-f", "-"], Some(&manifest));
    let (code, said) = dev.certgate(&dev.kubeconfig, &["approve", name, "-n", "payments"]);
    assert_eq!(code, 0, "{said}");
    let encoded = eventually(&format!("{name} to be signed"), || {
        let text = dev.ok(&[
            "get",
            "certificaterequest",
            name,
            "-n",
            "payments",
            "-o",
            "jsonpath={.status.certificate}",
        ]);
        (!text.trim().is_empty()).then_some(text)
    });
    let file = dir.join(format!("{name}.pem"));
    std::fs::write(
        &file,
        base64::engine::general_purpose::STANDARD.decode(encoded.trim()).unwrap(),
    )
    .unwrap();
    file
}

/// The certificate's serial as openssl prints it in CRLs (uppercase hex).
fn serial(cert: &Path) -> String {
    let text = openssl_ok(&["x509", "-in", path(cert), "-noout", "-serial"]);
    text.trim().strip_prefix("serial=").unwrap().to_owned()
}

/// `crl.pem` of the Secret, once it exists and satisfies `ready`, written to `dir/file`.
fn published_crl(
    dev: &Dev,
    namespace: &str,
    secret: &str,
    dir: &Path,
    file: &str,
    ready: impl Fn(&str) -> bool,
) -> (PathBuf, String) {
    let target = dir.join(file);
    let text = eventually(&format!("crl.pem in {namespace}/{secret}"), || {
        let encoded = dev.kubectl(
            &["get", "secret", secret, "-n", namespace, "-o", r"jsonpath={.data.crl\.pem}"],
            None,
        );
        let encoded = String::from_utf8(encoded.stdout).ok()?;
        let pem = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
        if pem.is_empty() {
            return None;
        }
        std::fs::write(&target, &pem).unwrap();
        let text = openssl_ok(&["crl", "-in", path(&target), "-noout", "-text"]);
        ready(&text).then_some(text)
    });
    (target, text)
}

/// The CRL's number (openssl prints it in hex).
fn crl_number(crl: &Path) -> u64 {
    let text = openssl_ok(&["crl", "-in", path(crl), "-noout", "-crlnumber"]);
    u64::from_str_radix(
        text.trim().strip_prefix("crlNumber=").unwrap().trim_start_matches("0x"),
        16,
    )
    .unwrap()
}

fn verifies(crl: &Path, ca: &Path) {
    let said = openssl_ok(&["crl", "-in", path(crl), "-CAfile", path(ca), "-verify", "-noout"]);
    assert!(said.contains("verify OK"), "{said}");
}

/// `openssl verify -crl_check` of a leaf: its output, and whether it passed.
fn crl_check(leaf: &Path, ca: &Path, crl: &Path) -> (bool, String) {
    let out = run_openssl(&[
        "verify",
        "-crl_check",
        "-CAfile",
        path(ca),
        "-CRLfile",
        path(crl),
        path(leaf),
    ]);
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// `certgate revoke ...`: exit code, standard output, standard error.
fn revoke(dev: &Dev, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .arg("revoke")
        .args(args)
        .arg("--kubeconfig")
        .arg(&dev.kubeconfig)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The notes of the events with `reason` about `name` in `namespace`.
fn notes(dev: &Dev, namespace: &str, name: &str, reason: &str) -> Vec<String> {
    dev.ok(&[
        "get",
        "events.events.k8s.io",
        "-n",
        namespace,
        "-o",
        r#"jsonpath={range .items[*]}{.regarding.name}|{.reason}|{.note}{"\n"}{end}"#,
    ])
    .lines()
    .filter_map(|line| {
        let mut parts = line.splitn(3, '|');
        let (who, why, note) = (parts.next()?, parts.next()?, parts.next()?);
        (who == name && why == reason).then(|| note.to_owned())
    })
    .collect()
}

fn secret_from_files(namespace: &str, name: &str, files: &[(&str, &Path)]) -> Vec<String> {
    let mut args = vec![
        "create".to_owned(),
        "secret".into(),
        "generic".into(),
        name.into(),
        "-n".into(),
        namespace.into(),
    ];
    for (key, file) in files {
        args.push(format!("--from-file={key}={}", file.display()));
    }
    args
}

fn create_secret(dev: &Dev, namespace: &str, name: &str, files: &[(&str, &Path)]) {
    let args = secret_from_files(namespace, name, files);
    dev.ok(&args.iter().map(String::as_str).collect::<Vec<_>>());
}

both!(
    fn revoked_certificates_are_published_in_a_crl_openssl_accepts(server) {
        let dev = server.start_with(&["--controllers=-*"]);
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        for namespace in ["payments", "issuers-home"] {
            dev.ok(&["create", "namespace", namespace]);
        }
        let (ca, ca_key) = openssl_ca(dir, "payments CA", false);
        create_secret(&dev, "payments", "ca-key-pair", &[("tls.crt", &ca), ("tls.key", &ca_key)]);
        dev.ok_with(
            &["apply", "-f", "-"],
            Some(
                "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: ca\n  namespace: payments\n\
                 \x20 annotations:\n    certgate.io/crl-secret-name: ca-crl\n    certgate.io/crl-validity: 48h\n\
                 spec:\n  ca:\n    secretName: ca-key-pair\n---\n\
                 apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: plain\n  namespace: payments\n\
                 spec:\n  ca:\n    secretName: ca-key-pair\n",
            ),
        );
        let _controller = ControllerProcess::start(
            &dev.kubeconfig,
            &[CONTROLLERS, "--leader-elect=false", "--cluster-resource-namespace=issuers-home"],
        );

        // The first CRL, empty, as soon as the issuer is seen.
        let (crl, text) = published_crl(&dev, "payments", "ca-crl", dir, "crl-1.pem", |_| true);
        verifies(&crl, &ca);
        assert!(text.contains("No Revoked Certificates."), "{text}");
        assert_eq!(crl_number(&crl), 1);
        assert!(text.contains("Issuer: O = certgate tests, CN = payments CA"), "{text}");
        let labels = dev.ok(&["get", "secret", "ca-crl", "-n", "payments", "-o", "jsonpath={.metadata.labels}"]);
        assert_eq!(labels, r#"{"app.kubernetes.io/managed-by":"certgate"}"#);

        // A Certificate and its Secret, as the Certificate controller would leave them.
        let web = issue(&dev, dir, "web-1", "Issuer", "ca");
        create_secret(&dev, "payments", "web-tls", &[("tls.crt", &web)]);
        dev.ok_with(
            &["apply", "-f", "-"],
            Some(
                "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: web\n  namespace: payments\n\
                 spec:\n  secretName: web-tls\n  dnsNames: [web-1.payments.svc]\n  issuerRef: {name: ca}\n---\n\
                 apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: other\n  namespace: payments\n\
                 spec:\n  secretName: web-tls\n  dnsNames: [web-1.payments.svc]\n  issuerRef: {name: plain, kind: Issuer}\n",
            ),
        );
        assert!(crl_check(&web, &ca, &crl).0, "not revoked yet");
        let web_serial = serial(&web);
        let (code, out, err) = revoke(&dev, &["certificate", "web", "-n", "payments", "--reason", "keyCompromise"]);
        assert_eq!((code, err.as_str()), (0, ""), "{out}");
        assert_eq!(
            out,
            format!(
                "Revoked certificate serial {} of Certificate 'payments/web'; issuer Issuer 'payments/ca' publishes it in secret 'payments/ca-crl'\n",
                web_serial.to_lowercase().trim_start_matches("00")
            )
        );
        let (crl, text) = published_crl(&dev, "payments", "ca-crl", dir, "crl-2.pem", |t| t.contains(&web_serial));
        verifies(&crl, &ca);
        assert_eq!(crl_number(&crl), 2);
        assert!(text.contains("Key Compromise"), "{text}");
        let (passed, said) = crl_check(&web, &ca, &crl);
        assert!(!passed && said.contains("certificate revoked"), "{said}");
        eventually("the CRLPublished event of number 2", || {
            notes(&dev, "payments", "ca", "CRLPublished")
                .contains(&"Published CRL number 2 with 1 revoked certificates to secret payments/ca-crl".to_owned())
                .then_some(())
        });

        // Again: nothing changes, and it says so.
        let (code, out, _) = revoke(&dev, &["certificate", "web", "-n", "payments"]);
        assert_eq!(code, 0);
        assert!(out.contains("is already revoked (since "), "{out}");
        assert!(out.contains("reason keyCompromise); issuer Issuer 'payments/ca' publishes it in secret 'payments/ca-crl'"), "{out}");

        // An issuer without the annotation: the error names it.
        let (code, out, err) = revoke(&dev, &["certificate", "other", "-n", "payments"]);
        assert_eq!((code, out.as_str()), (1, ""));
        assert_eq!(
            err,
            "error: Issuer 'payments/plain' does not publish a CRL: add the annotation certgate.io/crl-secret-name: <secret name> to it (and run the issuers-crl controller)\n"
        );
        let (code, _, err) = revoke(&dev, &["certificate", "web", "-n", "payments", "--reason", "stolen"]);
        assert_eq!(code, 1);
        assert!(err.starts_with("error: --reason: \"stolen\" is not a CRL reason; use one of unspecified, keyCompromise,"), "{err}");

        // A second one, by its CertificateRequest: the number goes up, both are listed.
        let api = issue(&dev, dir, "web-2", "Issuer", "ca");
        let api_serial = serial(&api);
        let (code, out, err) = revoke(&dev, &["certificaterequest", "web-2", "-n", "payments", "--reason", "superseded"]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("of CertificateRequest 'payments/web-2'"), "{out}");
        let (crl, text) = published_crl(&dev, "payments", "ca-crl", dir, "crl-3.pem", |t| t.contains(&api_serial));
        verifies(&crl, &ca);
        assert_eq!(crl_number(&crl), 3);
        assert!(text.contains(&web_serial) && text.contains("Superseded"), "{text}");
        let (passed, said) = crl_check(&api, &ca, &crl);
        assert!(!passed && said.contains("certificate revoked"), "{said}");
        let list = dev.ok(&["get", "secret", "ca-crl", "-n", "payments", "-o", r"jsonpath={.data.revocations\.json}"]);
        let list = String::from_utf8(base64::engine::general_purpose::STANDARD.decode(list.trim()).unwrap()).unwrap();
        assert!(list.contains("\"certificate\":\"payments/web\"") && list.contains("\"certificate\":\"payments/web-2\""), "{list}");
    }
);

both!(
    fn a_cluster_issuer_publishes_in_the_cluster_resource_namespace(server) {
        let dev = server.start_with(&["--controllers=-*"]);
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        for namespace in ["payments", "issuers-home"] {
            dev.ok(&["create", "namespace", namespace]);
        }
        // OpenSSL's traditional EC key: the CRL signer converts it.
        let (ca, ca_key) = openssl_ca(dir, "root CA", true);
        create_secret(&dev, "issuers-home", "root-ca", &[("tls.crt", &ca), ("tls.key", &ca_key)]);
        // The CRL Secret exists already, with a key of someone else's: it is kept.
        let note = dir.join("note.txt");
        std::fs::write(&note, "published for the edge").unwrap();
        create_secret(&dev, "issuers-home", "root-crl", &[("note", &note)]);
        dev.ok_with(
            &["apply", "-f", "-"],
            Some(
                "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: root\n\
                 \x20 annotations:\n    certgate.io/crl-secret-name: root-crl\n\
                 spec:\n  ca:\n    secretName: root-ca\n",
            ),
        );
        let _controller = ControllerProcess::start(
            &dev.kubeconfig,
            &[CONTROLLERS, "--leader-elect=false", "--cluster-resource-namespace=issuers-home"],
        );
        let leaf = issue(&dev, dir, "edge", "ClusterIssuer", "root");
        let leaf_serial = serial(&leaf);
        let (code, out, err) = revoke(
            &dev,
            &["cr", "edge", "-n", "payments", "--reason", "cessationOfOperation", "--cluster-resource-namespace", "issuers-home"],
        );
        assert_eq!(code, 0, "{err}");
        assert!(
            out.ends_with("of CertificateRequest 'payments/edge'; issuer ClusterIssuer 'root' publishes it in secret 'issuers-home/root-crl'\n"),
            "{out}"
        );
        let (crl, text) = published_crl(&dev, "issuers-home", "root-crl", dir, "root.crl", |t| t.contains(&leaf_serial));
        verifies(&crl, &ca);
        assert!(text.contains("Cessation Of Operation"), "{text}");
        let (passed, said) = crl_check(&leaf, &ca, &crl);
        assert!(!passed && said.contains("certificate revoked"), "{said}");
        let kept = dev.ok(&["get", "secret", "root-crl", "-n", "issuers-home", "-o", "jsonpath={.data.note}"]);
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(kept.trim()).unwrap(), b"published for the edge");
    }
);
