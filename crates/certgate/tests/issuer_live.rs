//! End to end: cert-manager's CA and SelfSigned issuers as certgate runs them
//! (`issuers`, `clusterissuers`, `certificaterequests-issuer-ca`,
//! `certificaterequests-issuer-selfsigned`), in a standalone `certgate controller` against
//! the sandbox and a real kube-apiserver (`both!`), driven by the real `kubectl`; requests
//! approved and denied with `certgate approve` / `certgate deny`, certificates checked with
//! the real `openssl`.

use std::path::Path;
use std::process::Command;

use base64::Engine as _;

mod dev_support;
use dev_support::issuance::{ca, eventually, indented, openssl};
use dev_support::*;

const CONTROLLERS: &str = "--controllers=issuers,clusterissuers,certificaterequests-issuer-ca,certificaterequests-issuer-selfsigned";

/// `<status> <reason>: <message>` of the object's Ready condition, once it has one.
fn ready(dev: &Dev, kind: &str, namespace: Option<&str>, name: &str) -> Option<String> {
    let mut args = vec!["get", kind, name];
    if let Some(namespace) = namespace {
        args.extend(["-n", namespace]);
    }
    args.extend([
        "-o",
        r#"jsonpath={range .status.conditions[?(@.type=="Ready")]}{.status} {.reason}: {.message}{end}"#,
    ]);
    let text = dev.ok(&args);
    (!text.is_empty()).then_some(text)
}

/// `ready` once it has the given status.
fn ready_with(dev: &Dev, kind: &str, namespace: Option<&str>, name: &str, prefix: &str) -> String {
    eventually(&format!("{kind} {name} to be Ready {prefix}"), || {
        ready(dev, kind, namespace, name).filter(|text| text.starts_with(prefix))
    })
}

fn field(dev: &Dev, name: &str, path: &str) -> String {
    dev.ok(&[
        "get",
        "certificaterequest",
        name,
        "-n",
        "payments",
        "-o",
        &format!("jsonpath={path}"),
    ])
}

/// (reason, `<type> <reportingController>: <note>`) of the events about one object.
fn events(dev: &Dev, namespace: &str, name: &str) -> Vec<(String, String)> {
    dev.ok(&[
        "get",
        "events.events.k8s.io",
        "-n",
        namespace,
        "-o",
        r#"jsonpath={range .items[*]}{.regarding.name}|{.reason}|{.type} {.reportingController}: {.note}{"\n"}{end}"#,
    ])
    .lines()
    .filter_map(|line| {
        let mut fields = line.splitn(3, '|');
        let regarding = fields.next()?;
        let reason = fields.next()?;
        let details = fields.next()?;
        (regarding == name).then(|| (reason.to_owned(), details.to_owned()))
    })
    .collect()
}

fn event(dev: &Dev, namespace: &str, name: &str, reason: &str) -> String {
    eventually(&format!("a {reason} event about {name}"), || {
        events(dev, namespace, name).into_iter().find(|(r, _)| r == reason).map(|(_, d)| d)
    })
}

fn tls_secret(namespace: &str, name: &str, certificate: Option<&str>, key: &str) -> String {
    let mut manifest = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {name}\n  namespace: {namespace}\n\
         type: Opaque\nstringData:\n  tls.key: |\n{}",
        indented(key, 4)
    );
    if let Some(certificate) = certificate {
        manifest.push_str(&format!("  tls.crt: |\n{}", indented(certificate, 4)));
    }
    manifest
}

/// A request for `dns` (its CSR's common name too) to the issuer `kind`/`issuer`, valid
/// for `duration`; and the CSR's key (PEM).
fn request_for(
    name: &str,
    kind: &str,
    issuer: &str,
    dns: &str,
    duration: &str,
    annotations: &str,
) -> (String, String) {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec![dns.to_owned()]).unwrap();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(rcgen::DnType::CommonName, dns);
    let csr = params.serialize_request(&key).unwrap().pem().unwrap();
    let request = base64::engine::general_purpose::STANDARD.encode(csr);
    let manifest = format!(
        "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\nmetadata:\n  name: {name}\n  namespace: payments\n{annotations}\
         spec:\n  issuerRef:\n    group: cert-manager.io\n    kind: {kind}\n    name: {issuer}\n\
         \x20 duration: {duration}\n  usages: [digital signature, key encipherment, server auth]\n  request: {request}\n"
    );
    (manifest, key.serialize_pem())
}

/// `status.certificate` or `status.ca`, decoded, written to `dir/file`.
fn pem_to_file(dev: &Dev, name: &str, path: &str, dir: &Path, file: &str) -> std::path::PathBuf {
    let encoded = field(dev, name, path);
    let pem = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).unwrap();
    let out = dir.join(file);
    std::fs::write(&out, pem).unwrap();
    out
}

/// Seconds since the epoch of an `openssl x509 -dates` time (`Nov 29 11:30:00 2026 GMT`).
fn epoch(openssl_time: &str) -> i64 {
    let output = Command::new("date").args(["-u", "-d", openssl_time, "+%s"]).output().unwrap();
    String::from_utf8(output.stdout).unwrap().trim().parse().unwrap()
}

fn validity_seconds(certificate: &Path) -> i64 {
    let dates = openssl(&["x509", "-in", certificate.to_str().unwrap(), "-noout", "-dates"]);
    let value = |prefix: &str| {
        dates.lines().find_map(|l| l.strip_prefix(prefix)).map(str::to_owned).unwrap()
    };
    epoch(&value("notAfter=")) - epoch(&value("notBefore="))
}

both!(
    fn ca_and_self_signed_issuers_sign_approved_requests_and_fail_denied_ones(server) {
        let dev = server.start_with(&["--controllers=-*"]);
        let dir = tempfile::tempdir().unwrap();
        for namespace in ["payments", "issuers-home"] {
            dev.ok(&["create", "namespace", namespace]);
        }
        let (ca_pem, ca_key) = ca("certgate test CA");
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, &ca_pem).unwrap();
        dev.ok_with(&["apply", "-f", "-"], Some(&tls_secret("payments", "ca-key-pair", Some(&ca_pem), &ca_key)));
        dev.ok_with(&["apply", "-f", "-"], Some(&tls_secret("issuers-home", "root-ca", Some(&ca_pem), &ca_key)));
        dev.ok_with(
            &["apply", "-f", "-"],
            Some(
                "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: ca\n  namespace: payments\n\
                 spec:\n  ca:\n    secretName: ca-key-pair\n---\n\
                 apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: broken\n  namespace: payments\n\
                 spec:\n  ca:\n    secretName: missing\n---\n\
                 apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: root\n\
                 spec:\n  ca:\n    secretName: root-ca\n---\n\
                 apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: selfsigned\n\
                 spec:\n  selfSigned: {}\n",
            ),
        );
        let _controller = ControllerProcess::start(
            &dev.kubeconfig,
            &[CONTROLLERS, "--leader-elect=false", "--cluster-resource-namespace=issuers-home"],
        );

        // Issuer readiness, with upstream's reasons and messages.
        assert_eq!(
            ready_with(&dev, "issuer", Some("payments"), "ca", "True"),
            "True KeyPairVerified: Signing CA verified"
        );
        assert_eq!(
            ready_with(&dev, "issuer", Some("payments"), "broken", "False"),
            "False ErrGetKeyPair: Error getting keypair for CA issuer: secret \"missing\" not found"
        );
        assert_eq!(
            ready_with(&dev, "clusterissuer", None, "root", "True"),
            "True KeyPairVerified: Signing CA verified"
        );
        assert_eq!(ready_with(&dev, "clusterissuer", None, "selfsigned", "True"), "True IsReady: ");
        assert_eq!(
            event(&dev, "payments", "ca", "KeyPairVerified"),
            "Normal cert-manager-issuers: Signing CA verified"
        );
        assert_eq!(
            event(&dev, "payments", "broken", "ErrInitIssuer"),
            "Warning cert-manager-issuers: Error initializing issuer: secret \"missing\" not found"
        );

        // Approved: signed by the CA, as asked.
        let (manifest, _) = request_for("web", "Issuer", "ca", "web.payments.svc", "1h", "");
        dev.ok_with(&["create", "-f", "-"], Some(&manifest));
        assert_eq!(
            dev.certgate(&dev.kubeconfig, &["approve", "web", "-n", "payments"]),
            (0, "Approved CertificateRequest 'payments/web'\n".to_owned())
        );
        assert_eq!(
            ready_with(&dev, "certificaterequest", Some("payments"), "web", "True"),
            "True Issued: Certificate fetched from issuer successfully"
        );
        assert_eq!(
            event(&dev, "payments", "web", "CertificateIssued"),
            "Normal cert-manager-certificaterequests-issuer-ca: Certificate fetched from issuer successfully"
        );
        let certificate = pem_to_file(&dev, "web", "{.status.certificate}", dir.path(), "web.pem");
        let status_ca = pem_to_file(&dev, "web", "{.status.ca}", dir.path(), "web-ca.pem");
        assert_eq!(std::fs::read_to_string(&status_ca).unwrap().trim(), ca_pem.trim());
        assert_eq!(
            openssl(&["verify", "-CAfile", ca_file.to_str().unwrap(), certificate.to_str().unwrap()]),
            format!("{}: OK\n", certificate.display())
        );
        let text = openssl(&["x509", "-in", certificate.to_str().unwrap(), "-noout", "-text"]);
        for expected in [
            "Issuer: CN = certgate test CA",
            "Subject: CN = web.payments.svc",
            "DNS:web.payments.svc",
            "Digital Signature, Key Encipherment",
            "TLS Web Server Authentication",
            "CA:FALSE",
        ] {
            assert!(text.contains(expected), "{expected:?} missing in\n{text}");
        }
        assert_eq!(validity_seconds(&certificate), 3600, "spec.duration 1h");

        // Through the CA ClusterIssuer: its Secret is in --cluster-resource-namespace.
        let (manifest, _) = request_for("api", "ClusterIssuer", "root", "api.payments.svc", "30m", "");
        dev.ok_with(&["create", "-f", "-"], Some(&manifest));
        dev.certgate(&dev.kubeconfig, &["approve", "api", "-n", "payments"]);
        assert_eq!(
            ready_with(&dev, "certificaterequest", Some("payments"), "api", "True"),
            "True Issued: Certificate fetched from issuer successfully"
        );
        let certificate = pem_to_file(&dev, "api", "{.status.certificate}", dir.path(), "api.pem");
        assert_eq!(
            openssl(&["verify", "-CAfile", ca_file.to_str().unwrap(), certificate.to_str().unwrap()]),
            format!("{}: OK\n", certificate.display())
        );
        assert_eq!(validity_seconds(&certificate), 1800, "spec.duration 30m");

        // Denied: failed for good, never signed.
        let (manifest, _) = request_for("refused", "Issuer", "ca", "refused.payments.svc", "1h", "");
        dev.ok_with(&["create", "-f", "-"], Some(&manifest));
        assert_eq!(
            dev.certgate(&dev.kubeconfig, &["deny", "refused", "-n", "payments"]),
            (0, "Denied CertificateRequest 'payments/refused'\n".to_owned())
        );
        assert_eq!(
            ready_with(&dev, "certificaterequest", Some("payments"), "refused", "False"),
            "False Denied: The CertificateRequest was denied by an approval controller"
        );
        assert!(!field(&dev, "refused", "{.status.failureTime}").is_empty(), "failureTime set");
        assert_eq!(field(&dev, "refused", "{.status.certificate}"), "");

        // Pending: only the WaitingForApproval event, no condition. As upstream, every
        // CertificateRequest controller records it before looking at the issuer's type.
        let (manifest, _) = request_for("waiting", "Issuer", "ca", "waiting.payments.svc", "1h", "");
        dev.ok_with(&["create", "-f", "-"], Some(&manifest));
        for controller in [
            "cert-manager-certificaterequests-issuer-ca",
            "cert-manager-certificaterequests-issuer-selfsigned",
        ] {
            let expected = format!(
                "Normal {controller}: Not signing CertificateRequest until it is Approved"
            );
            eventually(&format!("WaitingForApproval from {controller}"), || {
                events(&dev, "payments", "waiting")
                    .contains(&("WaitingForApproval".to_owned(), expected.clone()))
                    .then_some(())
            });
        }
        assert_eq!(ready(&dev, "certificaterequest", Some("payments"), "waiting"), None);
        assert_eq!(field(&dev, "waiting", "{.status.certificate}"), "");

        // SelfSigned, through a ClusterIssuer: signed with the annotated Secret's key.
        let (manifest, key) = request_for(
            "self",
            "ClusterIssuer",
            "selfsigned",
            "self.payments.svc",
            "2h",
            "  annotations:\n    cert-manager.io/private-key-secret-name: self-key\n",
        );
        dev.ok_with(&["create", "-f", "-"], Some(&manifest));
        dev.certgate(&dev.kubeconfig, &["approve", "self", "-n", "payments"]);
        // Pending until its key Secret exists; the Secret's creation wakes it.
        assert_eq!(
            ready_with(&dev, "certificaterequest", Some("payments"), "self", "False"),
            "False Pending: Referenced secret payments/self-key not found: secret \"self-key\" not found"
        );
        dev.ok_with(&["apply", "-f", "-"], Some(&tls_secret("payments", "self-key", None, &key)));
        assert_eq!(
            ready_with(&dev, "certificaterequest", Some("payments"), "self", "True"),
            "True Issued: Certificate fetched from issuer successfully"
        );
        let certificate = pem_to_file(&dev, "self", "{.status.certificate}", dir.path(), "self.pem");
        assert_eq!(field(&dev, "self", "{.status.ca}"), field(&dev, "self", "{.status.certificate}"));
        let path = certificate.to_str().unwrap();
        assert_eq!(openssl(&["verify", "-CAfile", path, path]), format!("{path}: OK\n"));
        let text = openssl(&["x509", "-in", path, "-noout", "-text"]);
        assert!(text.contains("Issuer: CN = self.payments.svc"), "{text}");
        assert!(text.contains("DNS:self.payments.svc"), "{text}");
        assert_eq!(validity_seconds(&certificate), 7200, "spec.duration 2h");
    }
);
