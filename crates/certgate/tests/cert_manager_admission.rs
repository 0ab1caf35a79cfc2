//! End to end: cert-manager's validation of Certificates, Issuers and ClusterIssuers, made by
//! certgate's webhook under cert-manager's webhook name, seen by the real `kubectl` exactly as
//! with cert-manager's own webhook: invalid objects refused with upstream's texts on create
//! and update, valid ones (upstream's documented examples among them) accepted.

mod dev_support;

const DENIED_BY: &str = "admission webhook \"webhook.cert-manager.io\" denied the request: ";

/// cert-manager's documented "full" Certificate example (docs/usage/certificate), adapted to
/// the test's namespace and issuer.
const DOCUMENTED_CERTIFICATE: &str = r#"apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: example-com
  namespace: sandbox
spec:
  secretName: example-com-tls
  secretTemplate:
    annotations:
      my-secret-annotation-1: "foo"
    labels:
      my-secret-label: foo
  privateKey:
    algorithm: RSA
    encoding: PKCS1
    size: 2048
  duration: 2160h # 90d
  renewBefore: 360h # 15d
  isCA: false
  usages:
    - server auth
    - client auth
  subject:
    organizations:
      - cert-manager
  commonName: example.com
  dnsNames:
    - example.com
    - www.example.com
  uris:
    - spiffe://cluster.local/ns/sandbox/sa/example
  emailAddresses:
    - john.doe@cert-manager.io
  ipAddresses:
    - 192.168.0.5
  issuerRef:
    name: ca-issuer
    kind: Issuer
    group: cert-manager.io
"#;

const VALID_ISSUERS: &str = "apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: selfsigned, namespace: sandbox}\n\
spec: {selfSigned: {}}\n---\n\
apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: ca-issuer, namespace: sandbox}\n\
spec: {ca: {secretName: ca-key-pair}}\n---\n\
apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata: {name: root}\nspec: {ca: {secretName: root-ca}}\n";

fn certificate(name: &str, spec: &str) -> String {
    format!(
        "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {{name: {name}, namespace: sandbox}}\nspec:\n{spec}"
    )
}

fn issuer(kind: &str, spec: &str) -> String {
    let namespace = if kind == "Issuer" { ", namespace: sandbox" } else { "" };
    format!(
        "apiVersion: cert-manager.io/v1\nkind: {kind}\nmetadata: {{name: bad{namespace}}}\nspec:\n{spec}"
    )
}

both!(
    fn certificates_and_issuers_are_validated_as_cert_managers_webhook_does(server) {
        let dev = server.start_with(&["--controllers=-*"]);
        dev.ok(&["create", "namespace", "sandbox"]);
        let creating = |what: &str| {
            format!("Error from server (Forbidden): error when creating \"STDIN\": {DENIED_BY}{what}\n")
        };

        // Valid objects are accepted.
        dev.ok_with(&["apply", "-f", "-"], Some(VALID_ISSUERS));
        dev.ok_with(&["apply", "-f", "-"], Some(DOCUMENTED_CERTIFICATE));
        dev.ok_with(
            &["apply", "-f", "-"],
            Some(&certificate(
                "web",
                "  secretName: web-tls\n  issuerRef: {name: root, kind: ClusterIssuer}\n  dnsNames: [web.sandbox.svc]\n\
                 \x20 privateKey: {algorithm: ECDSA, size: 384}\n  duration: 24h\n  renewBeforePercentage: 30\n",
            )),
        );

        // Invalid Certificates: one rule each, then several at once (upstream's aggregate).
        let cases = [
            (
                "  secretName: s\n  issuerRef: {name: ca-issuer}\n",
                "spec: Invalid value: \"\": at least one of commonName (from the commonName field or from a literalSubject), dnsNames, emailSANs, ipAddresses, otherNames, or uriSANs must be set",
            ),
            (
                "  secretName: s\n  issuerRef: {name: ca-issuer}\n  dnsNames: [a]\n  privateKey: {algorithm: ECDSA, size: 512}\n",
                "spec.privateKey.size: Unsupported value: 512: supported values: \"256\", \"384\", \"521\"",
            ),
            (
                "  secretName: s\n  issuerRef: {name: ca-issuer}\n  dnsNames: [a]\n  duration: 30m\n",
                "spec.duration: Invalid value: 1800000000000: certificate duration must be greater than 1h0m0s",
            ),
            (
                "  secretName: s\n  issuerRef: {name: ca-issuer}\n  dnsNames: [a]\n  duration: 2h\n  renewBefore: 3h\n",
                "spec.renewBefore: Invalid value: 10800000000000: certificate duration 2h0m0s must be greater than renewBefore 3h0m0s",
            ),
            (
                "  secretName: s\n  issuerRef: {name: ca-issuer, kind: VaultIssuer}\n  ipAddresses: [300.1.1.1]\n",
                "[spec.issuerRef.kind: Invalid value: \"VaultIssuer\": must be one of Issuer or ClusterIssuer (did you forget to set spec.issuerRef.kind.group?), spec.ipAddresses[0]: Invalid value: \"300.1.1.1\": invalid IP address]",
            ),
            (
                "  secretName: Bad_Name\n  issuerRef: {name: \"\"}\n  emailAddresses: [alice.example.com]\n  revisionHistoryLimit: 0\n",
                "[spec.secretName: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), spec.issuerRef.name: Required value: must be specified, spec.emailAddresses[0]: Invalid value: \"alice.example.com\": invalid email address: mail: missing '@' or angle-addr, spec.revisionHistoryLimit: Invalid value: 0: must not be less than 1]",
            ),
        ];
        let cases = cases.into_iter().chain([(
            "  secretName: s\n  issuerRef: {name: ca-issuer}\n  dnsNames: [a]\n  renewal:\n    policy: RenewBefore\n\
             \x20   windows: [{cron: \"0 25 * * *\", windowDuration: 2h}]\n",
            "spec.renewal.windows[0].cron: Invalid value: \"0 25 * * *\": invalid cron syntax: failed to parse cron spec '0 25 * * *': end of range (25) above maximum (23): 25. cron needs to follow: cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow",
        )]);
        for (spec, expected) in cases {
            let refused = dev.fails(&["create", "-f", "-"], Some(&certificate("bad", spec)));
            assert_eq!(refused, creating(expected), "{spec}");
        }
        assert!(dev.kubectl(&["get", "certificate", "bad", "-n", "sandbox"], None).status.code() != Some(0));

        // UPDATE is checked as CREATE.
        let refused = dev.fails(
            &["patch", "certificate", "web", "-n", "sandbox", "--type=merge", "-p", r#"{"spec":{"renewBefore":"1h"}}"#],
            None,
        );
        assert_eq!(
            refused,
            format!(
                "Error from server (Forbidden): {DENIED_BY}[spec.renewBefore: Invalid value: 3600000000000: renewBefore and renewBeforePercentage are mutually exclusive and cannot both be set, spec.renewBeforePercentage: Invalid value: 30: renewBefore and renewBeforePercentage are mutually exclusive and cannot both be set]\n"
            )
        );

        // A status write is reviewed too (upstream's plugin ignores the subresource); the
        // spec is valid, so it goes through.
        dev.ok(&[
            "patch", "certificate", "web", "-n", "sandbox", "--subresource=status", "--type=merge",
            "-p", r#"{"status":{"revision":1}}"#,
        ]);
        assert_eq!(dev.ok(&["get", "certificate", "web", "-n", "sandbox", "-o", "jsonpath={.status.revision}"]), "1");

        // Issuers and ClusterIssuers: exactly one issuer type, and its own checks.
        for kind in ["Issuer", "ClusterIssuer"] {
            let refused = dev.fails(
                &["create", "-f", "-"],
                Some(&issuer(kind, "  selfSigned: {}\n  ca: {secretName: root-ca}\n")),
            );
            assert_eq!(refused, creating("spec.selfSigned: Forbidden: may not specify more than one issuer type"), "{kind}");
            let refused = dev.fails(&["create", "-f", "-"], Some(&issuer(kind, "  ca: {secretName: \"\"}\n")));
            assert_eq!(refused, creating("spec.ca.secretName: Required value"), "{kind}");
            let refused = dev.fails(&["create", "-f", "-"], Some(&issuer(kind, "  acme: {}\n")));
            assert_eq!(
                refused,
                creating("[spec.acme.privateKeySecretRef.name: Required value: private key secret name is a required field, spec.acme.server: Required value: acme server URL is a required field]"),
                "{kind}"
            );
        }
        let refused = dev.fails(
            &["patch", "clusterissuer", "root", "--type=merge", "-p", r#"{"spec":{"selfSigned":{}}}"#],
            None,
        );
        assert_eq!(
            refused,
            format!("Error from server (Forbidden): {DENIED_BY}spec.selfSigned: Forbidden: may not specify more than one issuer type\n")
        );
        // Deleting is never refused.
        dev.ok(&["delete", "clusterissuer", "root"]);
    }
);
