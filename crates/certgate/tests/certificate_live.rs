//! End to end: cert-manager's Certificate flow as certgate runs it, on the sandbox and a
//! real kube-apiserver (`both!`), driven by the real `kubectl`: a Certificate becomes a
//! private key, a CertificateRequest that a CEL CertificateRequestPolicy approves
//! (`policy-approver`) and the CA issuer signs (`certificaterequests-issuer-ca`), then a
//! Secret with `tls.crt`, `tls.key` and `ca.crt` (`certificates`), checked with the real
//! `openssl`. A Certificate the policy denies never gets a Secret and is retried with the
//! backoff.

use std::path::Path;

use base64::Engine as _;

mod dev_support;
use dev_support::issuance::{ca, eventually, indented, openssl};
use dev_support::*;

const CONTROLLERS: &str = "--controllers=policy-approver,policy-readiness,issuers,certificaterequests-issuer-ca,certificates";

/// The CA Issuer `ca`, and a policy approving DNS names of services of the request's own
/// namespace for it (any other name is denied), usable by every authenticated user.
fn setup(dev: &Dev, ca_pem: &str, ca_key: &str) {
    dev.ok(&["create", "namespace", "payments"]);
    let secret = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ca-key-pair\n  namespace: payments\n\
         type: kubernetes.io/tls\nstringData:\n  tls.crt: |\n{}  tls.key: |\n{}",
        indented(ca_pem, 4),
        indented(ca_key, 4)
    );
    dev.ok_with(&["apply", "-f", "-"], Some(&secret));
    dev.ok_with(
        &["apply", "-f", "-"],
        Some(
            "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: ca\n  namespace: payments\n\
             spec:\n  ca:\n    secretName: ca-key-pair\n---\n\
             apiVersion: policy.cert-manager.io/v1alpha1\nkind: CertificateRequestPolicy\n\
             metadata:\n  name: namespace-services\nspec:\n  allowed:\n    dnsNames:\n      required: true\n\
             \x20     validations:\n      - rule: self.endsWith('.' + cr.namespace + '.svc')\n\
             \x20       message: DNS names must be services of the request's own namespace\n\
             \x20   usages: [digital signature, key encipherment, server auth, client auth]\n\
             \x20 selector:\n    issuerRef:\n      name: ca\n      kind: Issuer\n---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: use-namespace-services\n\
             rules:\n- apiGroups: [policy.cert-manager.io]\n  resources: [certificaterequestpolicies]\n\
             \x20 verbs: [use]\n  resourceNames: [namespace-services]\n---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: use-namespace-services\n\
             roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: use-namespace-services\n\
             subjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n  name: system:authenticated\n",
        ),
    );
}

fn certificate_manifest(name: &str, dns: &str) -> String {
    format!(
        "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: {name}\n  namespace: payments\n\
         spec:\n  secretName: {name}-tls\n  dnsNames: [{dns}]\n  duration: 2h\n\
         \x20 usages: [digital signature, key encipherment, server auth, client auth]\n\
         \x20 privateKey:\n    algorithm: ECDSA\n\
         \x20 issuerRef:\n    name: ca\n    kind: Issuer\n"
    )
}

/// `jsonpath` of the Certificate `name`.
fn get(dev: &Dev, kind: &str, name: &str, path: &str) -> String {
    dev.ok(&["get", kind, name, "-n", "payments", "-o", &format!("jsonpath={path}")])
}

fn condition(dev: &Dev, kind: &str, name: &str, type_: &str) -> String {
    get(
        dev,
        kind,
        name,
        &format!(
            r#"{{range .status.conditions[?(@.type=="{type_}")]}}{{.status}} {{.reason}}: {{.message}}{{end}}"#
        ),
    )
}

/// The Secret's `key`, decoded, written to `dir/file`.
fn secret_file(dev: &Dev, secret: &str, key: &str, dir: &Path, file: &str) -> std::path::PathBuf {
    let escaped = key.replace('.', "\\.");
    let encoded = get(dev, "secret", secret, &format!("{{.data.{escaped}}}"));
    let out = dir.join(file);
    std::fs::write(&out, base64::engine::general_purpose::STANDARD.decode(encoded.trim()).unwrap())
        .unwrap();
    out
}

both!(
    fn a_certificate_approved_by_policy_lands_in_its_secret_and_a_denied_one_backs_off(server) {
        let dev = server.start_with(&["--controllers=-*"]);
        let dir = tempfile::tempdir().unwrap();
        let (ca_pem, ca_key) = ca("payments CA");
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, &ca_pem).unwrap();
        setup(&dev, &ca_pem, &ca_key);
        let _controller = ControllerProcess::start(
            &dev.kubeconfig,
            &[
                CONTROLLERS,
                "--leader-elect=false",
                // Seconds, so the test sees a retry; the defaults are 1h and 32h.
                "--certificate-request-minimum-backoff-duration=2s",
                "--certificate-request-maximum-backoff-duration=4s",
            ],
        );

        dev.ok_with(&["apply", "-f", "-"], Some(&certificate_manifest("web", "web.payments.svc")));
        let ready = eventually("web to be Ready", || {
            Some(condition(&dev, "certificate", "web", "Ready")).filter(|c| c.starts_with("True"))
        });
        assert_eq!(ready, "True Ready: Certificate is up to date and has not expired");
        assert_eq!(get(&dev, "certificate", "web", "{.status.revision}"), "1");
        assert_eq!(
            condition(&dev, "certificaterequest", "web-1", "Approved"),
            "True policy.cert-manager.io: Approved by CertificateRequestPolicy: \"namespace-services\""
        );
        assert_eq!(
            condition(&dev, "certificaterequest", "web-1", "Ready"),
            "True Issued: Certificate fetched from issuer successfully"
        );
        assert_eq!(get(&dev, "secret", "web-tls", "{.type}"), "kubernetes.io/tls");
        for (annotation, value) in [
            ("cert-manager\\.io/certificate-name", "web"),
            ("cert-manager\\.io/issuer-name", "ca"),
            ("cert-manager\\.io/issuer-kind", "Issuer"),
            ("cert-manager\\.io/issuer-group", "cert-manager.io"),
            ("cert-manager\\.io/alt-names", "web.payments.svc"),
        ] {
            assert_eq!(get(&dev, "secret", "web-tls", &format!("{{.metadata.annotations.{annotation}}}")), value);
        }

        // The certificate: signed by the CA, as asked, for the Secret's key.
        let certificate = secret_file(&dev, "web-tls", "tls.crt", dir.path(), "web.pem");
        let key = secret_file(&dev, "web-tls", "tls.key", dir.path(), "web.key");
        let secret_ca = secret_file(&dev, "web-tls", "ca.crt", dir.path(), "web-ca.pem");
        assert_eq!(std::fs::read_to_string(&secret_ca).unwrap().trim(), ca_pem.trim());
        assert_eq!(
            openssl(&["verify", "-CAfile", ca_file.to_str().unwrap(), certificate.to_str().unwrap()]),
            format!("{}: OK\n", certificate.display())
        );
        let text = openssl(&["x509", "-in", certificate.to_str().unwrap(), "-noout", "-text"]);
        for expected in [
            "Issuer: CN = payments CA",
            "DNS:web.payments.svc",
            "Digital Signature, Key Encipherment",
            "TLS Web Server Authentication, TLS Web Client Authentication",
            "CA:FALSE",
            "ASN1 OID: prime256v1",
        ] {
            assert!(text.contains(expected), "{expected:?} missing in\n{text}");
        }
        assert!(std::fs::read_to_string(&key).unwrap().starts_with("-----BEGIN EC PRIVATE KEY-----"));
        assert_eq!(
            openssl(&["pkey", "-in", key.to_str().unwrap(), "-pubout"]),
            openssl(&["x509", "-in", certificate.to_str().unwrap(), "-noout", "-pubkey"]),
            "tls.key is the certificate's key"
        );
        let not_after = get(&dev, "certificate", "web", "{.status.notAfter}");
        let not_before = get(&dev, "certificate", "web", "{.status.notBefore}");
        assert!(!not_after.is_empty() && !not_before.is_empty());
        assert!(!get(&dev, "certificate", "web", "{.status.renewalTime}").is_empty());

        // A changed spec is issued again at once, as revision 2 with a new key.
        dev.ok(&[
            "patch", "certificate", "web", "-n", "payments", "--type=merge", "-p",
            r#"{"spec":{"dnsNames":["web.payments.svc","api.payments.svc"]}}"#,
        ]);
        eventually("revision 2", || (get(&dev, "certificate", "web", "{.status.revision}") == "2").then_some(()));
        let renewed = secret_file(&dev, "web-tls", "tls.crt", dir.path(), "web-2.pem");
        let text = openssl(&["x509", "-in", renewed.to_str().unwrap(), "-noout", "-text"]);
        assert!(text.contains("DNS:web.payments.svc, DNS:api.payments.svc"), "{text}");
        let renewed_key = secret_file(&dev, "web-tls", "tls.key", dir.path(), "web-2.key");
        assert_ne!(std::fs::read(&renewed_key).unwrap(), std::fs::read(&key).unwrap());

        // Denied by the policy: never a Secret; the failure recorded and retried after the
        // backoff (2s, then 4s here).
        dev.ok_with(&["apply", "-f", "-"], Some(&certificate_manifest("ledger", "ledger.legacy.svc")));
        let issuing = eventually("ledger's issuance to fail", || {
            Some(condition(&dev, "certificate", "ledger", "Issuing")).filter(|c| c.starts_with("False"))
        });
        let denied = condition(&dev, "certificaterequest", "ledger-1", "Denied");
        let policy_message = denied.strip_prefix("True policy.cert-manager.io: ").unwrap_or_else(|| panic!("{denied}"));
        assert!(policy_message.contains("DNS names must be services of the request's own namespace"), "{policy_message}");
        assert_eq!(
            issuing,
            format!("False policy.cert-manager.io: The certificate request has failed to complete and will be retried: {policy_message}")
        );
        assert!(!get(&dev, "certificate", "ledger", "{.status.lastFailureTime}").is_empty());
        eventually("a second denied attempt", || {
            let attempts: i64 = get(&dev, "certificate", "ledger", "{.status.failedIssuanceAttempts}").parse().ok()?;
            (attempts >= 2).then_some(())
        });
        assert!(
            dev.kubectl(&["get", "secret", "ledger-tls", "-n", "payments"], None).status.code() != Some(0),
            "a denied Certificate never gets its Secret"
        );
        assert_eq!(
            condition(&dev, "certificate", "ledger", "Ready"),
            "False DoesNotExist: Issuing certificate as Secret does not exist"
        );
    }
);
