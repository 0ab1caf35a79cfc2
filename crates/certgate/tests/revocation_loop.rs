//! Issue #22's loop, end to end on the sandbox and a real kube-apiserver (`both!`) with a
//! real Envoy: a Certificate is issued by certgate's CA issuer (approved by an approver,
//! keys and request made by the `certificates` controller), its Secret's certificate is
//! presented as a client certificate to a Contour HTTPProxy served by `certgate edge serve`
//! and accepted; `certgate revoke certificate` records the revocation, `issuers-crl`
//! republishes the CRL in the Secret the HTTPProxy's `crlSecret` names, and Envoy refuses
//! the same client. The CRL is also checked with the real `openssl crl -verify`.
//!
//! Approval here is cert-manager's built-in approver: the edge harness runs the API server
//! without certgate's webhook, so requests carry no requester identity for a policy to
//! check; `certificate_live.rs` covers approval by a CEL policy.

mod dev_support;
mod edge_support;
mod revocation_lists;

use std::process::Command;

use base64::Engine as _;
use dev_support::ControllerProcess;
use edge_support::cluster::{NAMESPACE, secret};
use edge_support::live::Live;
use edge_support::pki::Leaf;
use edge_support::wait_for;

const CONTROLLERS: &str =
    "--controllers=builtin-approver,issuers,certificaterequests-issuer-ca,certificates,issuers-crl";

/// The client CA: its certificate and key (PEM), made by openssl as an operator would.
fn client_ca(dir: &std::path::Path) -> (String, String) {
    let key = dir.join("clients-ca.key");
    let cert = dir.join("clients-ca.crt");
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        key.to_str().unwrap(),
        "-out",
        cert.to_str().unwrap(),
        "-subj",
        "/O=certgate tests/CN=clients CA",
        "-days",
        "30",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign,digitalSignature",
    ]);
    (std::fs::read_to_string(cert).unwrap(), std::fs::read_to_string(key).unwrap())
}

fn openssl(args: &[&str]) -> String {
    let output = Command::new("openssl").args(args).output().expect("openssl is installed");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn field(live: &Live, kind: &str, name: &str, path: &str) -> String {
    live.dev.ok(&["get", kind, name, "-n", NAMESPACE, "-o", &format!("jsonpath={path}")])
}

fn secret_key(live: &Live, name: &str, key: &str) -> Option<String> {
    let encoded = field(live, "secret", name, &format!("{{.data.{}}}", key.replace('.', "\\.")));
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).ok()?;
    Some(String::from_utf8(bytes).unwrap()).filter(|text| !text.is_empty())
}

/// The CRL number of the CRL the `crl` Secret holds, once `openssl` reads one signed by
/// `ca_file`.
fn published_crl_number(
    live: &Live,
    dir: &std::path::Path,
    ca_file: &std::path::Path,
) -> Option<u64> {
    let crl = secret_key(live, "crl", "crl.pem")?;
    let file = dir.join("published.crl");
    std::fs::write(&file, crl).unwrap();
    let output = Command::new("openssl")
        .args(["crl", "-in", file.to_str().unwrap(), "-noout", "-crlnumber", "-verify", "-CAfile"])
        .arg(ca_file)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let number = said.lines().find_map(|l| l.strip_prefix("crlNumber="))?;
    said.contains("verify OK")
        .then(|| u64::from_str_radix(number.trim().trim_start_matches("0x"), 16).unwrap())
}

/// The Certificate's Secret as a client for rustls (the key is PKCS#8: `encoding: PKCS8`).
fn client(live: &Live, secret: &str) -> Leaf {
    let pem = secret_key(live, secret, "tls.crt").unwrap();
    let key_pem = secret_key(live, secret, "tls.key").unwrap();
    let der = |text: &str| {
        let body: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
        base64::engine::general_purpose::STANDARD.decode(body).unwrap()
    };
    // The first certificate of tls.crt is the leaf.
    let leaf = pem.split_inclusive("-----END CERTIFICATE-----\n").next().unwrap().to_owned();
    Leaf { der: der(&leaf).into(), key_der: der(&key_pem), pem, key_pem }
}

both!(
    fn a_revoked_certificate_is_refused_by_envoy_once_the_crl_is_republished(server) {
        let live = Live::start(server);
        let dir = tempfile::tempdir().unwrap();
        let (ca_pem, ca_key) = client_ca(dir.path());
        let ca_file = dir.path().join("clients-ca.crt");
        // The HTTPProxy trusts the clients CA; its crlSecret `crl` becomes the CA issuer's.
        live.apply(&[
            secret("client-ca", "Opaque", &[("ca.crt", &ca_pem)]),
            secret("clients-ca-key-pair", "kubernetes.io/tls", &[("tls.crt", &ca_pem), ("tls.key", &ca_key)]),
            format!(
                "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: clients\n  namespace: {NAMESPACE}\n\
                 \x20 annotations:\n    certgate.io/crl-secret-name: crl\n\
                 spec:\n  ca:\n    secretName: clients-ca-key-pair\n"
            ),
            format!(
                "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: alice\n  namespace: {NAMESPACE}\n\
                 spec:\n  secretName: alice-tls\n  commonName: alice\n  duration: 24h\n\
                 \x20 usages: [digital signature, client auth]\n\
                 \x20 privateKey: {{algorithm: ECDSA, encoding: PKCS8}}\n\
                 \x20 issuerRef: {{name: clients, kind: Issuer}}\n"
            ),
        ]
        .join("---\n"));
        let _controller =
            ControllerProcess::start(&live.dev.kubeconfig, &[CONTROLLERS, "--leader-elect=false"]);

        wait_for(
            "alice to be Ready",
            || match field(&live, "certificate", "alice", r#"{.status.conditions[?(@.type=="Ready")].status}"#) {
                ready if ready == "True" => Ok(()),
                seen => Err(seen),
            },
            || live.context(),
        );
        // The first CRL of the clients CA (nothing revoked) replaces the other CA's.
        let first = wait_for(
            "the clients CA's first CRL",
            || published_crl_number(&live, dir.path(), &ca_file).ok_or_else(|| "not yet".to_owned()),
            || live.context(),
        );
        let alice = client(&live, "alice-tls");
        live.wait_served("alice to be served", &alice, &[]);

        let revoke = Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(["revoke", "certificate", "alice", "-n", NAMESPACE, "--reason", "keyCompromise", "--kubeconfig"])
            .arg(&live.dev.kubeconfig)
            .output()
            .unwrap();
        assert!(revoke.status.success(), "{}", String::from_utf8_lossy(&revoke.stderr));
        let alice_file = dir.path().join("alice.pem");
        std::fs::write(&alice_file, &alice.pem).unwrap();
        let serial = openssl(&["x509", "-noout", "-serial", "-in", alice_file.to_str().unwrap()]);
        let serial = serial.trim().strip_prefix("serial=").unwrap().to_owned();
        assert!(
            String::from_utf8_lossy(&revoke.stdout).contains(&serial.to_lowercase()),
            "{}",
            String::from_utf8_lossy(&revoke.stdout)
        );

        wait_for(
            "the CRL revoking alice",
            || published_crl_number(&live, dir.path(), &ca_file).filter(|n| *n > first).ok_or_else(|| "not yet".to_owned()),
            || live.context(),
        );
        let crl_file = dir.path().join("published.crl");
        let text = openssl(&["crl", "-in", crl_file.to_str().unwrap(), "-noout", "-text"]);
        assert!(text.contains(&format!("Serial Number: {serial}")), "{serial} missing in\n{text}");
        assert!(text.contains("Key Compromise"), "{text}");
        let seen = live.wait_refused("alice to be refused", &alice, &[]);
        assert!(seen.contains("CertificateRevoked"), "refused as revoked: {seen}");
    }
);
