//! End to end: `certgate webhook` provisioning its own serving certificates against an API
//! server without certgate's webhook (`--no-webhook`), as cert-manager's webhook does with
//! `--dynamic-serving-*`, and injecting the CA bundle into a webhook configuration itself.
//! Each test runs on the sandbox and on a real kube-apiserver (`both!`,
//! docs/real-cluster.md). No timing assertions: every condition is polled with a generous
//! deadline.

use std::path::PathBuf;

mod dev_support;
#[allow(dead_code)]
#[path = "support/serving.rs"]
mod serving;

use dev_support::{Dev, Server};
use serving::{Webhook, base64_decode, certificate_count, eventually, https_get};

/// The API server the webhooks run against (no certgate webhook, no controllers), and a
/// folder for the webhooks' logs.
struct Cluster {
    dev: Dev,
    dir: tempfile::TempDir,
}

impl Cluster {
    fn start(server: Server) -> Cluster {
        let dev = server.start_with(&["--no-webhook", "--controllers=-*"]);
        Cluster { dev, dir: tempfile::tempdir().unwrap() }
    }

    /// kubectl's standard output; panics when it fails.
    fn ok(&self, args: &[&str], input: Option<&str>) -> String {
        self.try_ok(args, input).unwrap_or_else(|err| panic!("{err}{}", self.dev.logs()))
    }

    /// kubectl's standard output, or its failure as text.
    fn try_ok(&self, args: &[&str], input: Option<&str>) -> Result<String, String> {
        let output = self.dev.kubectl(args, input);
        if output.status.success() {
            Ok(String::from_utf8(output.stdout).unwrap())
        } else {
            Err(format!(
                "kubectl {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    }

    /// `certgate webhook` with `args` and the admin kubeconfig.
    fn webhook(&self, name: &str, args: &[&str]) -> Webhook {
        self.webhook_as(name, &self.dev.kubeconfig, args)
    }

    /// `certgate webhook` with `args` and KUBECONFIG `kubeconfig`.
    fn webhook_as(&self, name: &str, kubeconfig: &std::path::Path, args: &[&str]) -> Webhook {
        Webhook::start(kubeconfig, &self.dir.path().join(format!("{name}.log")), args)
    }

    /// A kubeconfig like the admin's, authenticating with `token` instead (a bound token is
    /// too long for `Dev::kubeconfig_for`, which names the file after the token).
    fn kubeconfig_for(&self, name: &str, token: &str) -> PathBuf {
        let admin = std::fs::read_to_string(&self.dev.kubeconfig).unwrap();
        let start = admin.find("token: ").unwrap() + "token: ".len();
        let end = start + admin[start..].find('\n').unwrap();
        let path = self.dir.path().join(format!("kubeconfig-{name}"));
        std::fs::write(&path, format!("{}{token}{}", &admin[..start], &admin[end..])).unwrap();
        path
    }
}

const NAMESPACE: &str = "certgate";
const SECRET: &str = "certgate-webhook-ca";
const CONFIGURATION: &str = "certgate-serving-test";

/// A ValidatingWebhookConfiguration with two webhooks and empty caBundles, calling the webhook
/// on `port` for nothing that the tests write (no namespace carries the label).
fn configuration(port: u16) -> String {
    let webhook = |name: &str| {
        format!(
            "- name: {name}\n  admissionReviewVersions: [v1]\n  sideEffects: None\n  failurePolicy: Ignore\n\
             \x20 clientConfig:\n    url: https://127.0.0.1:{port}/validate\n    caBundle: \"\"\n\
             \x20 namespaceSelector:\n    matchLabels:\n      certgate.example/serving-test: \"never\"\n\
             \x20 rules:\n  - apiGroups: [\"\"]\n    apiVersions: [v1]\n    operations: [CREATE]\n    resources: [configmaps]\n"
        )
    };
    format!(
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n\
         metadata:\n  name: {CONFIGURATION}\nwebhooks:\n{}{}",
        webhook("first.serving-test.certgate.example"),
        webhook("second.serving-test.certgate.example")
    )
}

fn dynamic_flags() -> Vec<&'static str> {
    vec![
        "--dynamic-serving-ca-secret-name",
        SECRET,
        "--dynamic-serving-ca-secret-namespace",
        NAMESPACE,
        "--dynamic-serving-dns-names",
        "localhost,127.0.0.1",
        "--inject-ca-bundle",
        CONFIGURATION,
    ]
}

/// A Secret key, decoded; an error while the Secret or key does not exist.
fn secret_key(sandbox: &Cluster, key: &str) -> Result<Vec<u8>, String> {
    let path = format!("jsonpath={{.data.{}}}", key.replace('.', "\\."));
    let encoded = sandbox.try_ok(&["get", "secret", SECRET, "-n", NAMESPACE, "-o", &path], None)?;
    if encoded.trim().is_empty() {
        return Err(format!("the Secret has no {key}"));
    }
    base64_decode(&encoded)
}

/// The decoded caBundle of every webhook of the configuration.
fn ca_bundles(sandbox: &Cluster) -> Vec<Vec<u8>> {
    let out = sandbox.ok(
        &[
            "get",
            "validatingwebhookconfiguration",
            CONFIGURATION,
            "-o",
            "jsonpath={range .webhooks[*]}{.clientConfig.caBundle}{\"\\n\"}{end}",
        ],
        None,
    );
    out.lines().map(|line| base64_decode(line).unwrap()).collect()
}

/// Waits until `webhook` answers `GET /healthz` over HTTPS verified against exactly `bundle`
/// as both of its names; returns the leaf it serves.
fn serves_with(webhook: &mut Webhook, bundle: &[u8]) -> Vec<u8> {
    webhook.assert_running();
    let port = webhook.port;
    let logs = || webhook.logs();
    let mut leaf = Vec::new();
    for name in ["localhost", "127.0.0.1"] {
        let answer = eventually(
            &format!("the webhook serves /healthz as {name}, verified against the bundle"),
            logs,
            || https_get(port, name, bundle, "/healthz"),
        );
        assert_eq!(answer.status, "HTTP/1.1 200 OK", "{}", answer.body);
        assert_eq!(answer.chain.len(), 1, "the leaf alone is served");
        leaf = answer.chain[0].clone();
    }
    let ready = https_get(port, "localhost", bundle, "/readyz").unwrap();
    assert_eq!(ready.status, "HTTP/1.1 200 OK");
    leaf
}

both!(
    fn webhooks_provision_their_certificates_from_one_ca_and_inject_its_bundle(server) {
    let sandbox = Cluster::start(server);
    sandbox.ok(&["create", "namespace", NAMESPACE], None);
    let mut first = sandbox.webhook("first", &dynamic_flags());
    // Applied with empty bundles: whatever bundle appears is the webhook's injection. (Reading
    // the configuration back to see it empty would race the injector, which may be faster.)
    let applied = configuration(first.port);
    assert_eq!(applied.matches("caBundle: \"\"").count(), 2, "{applied}");
    sandbox.ok(&["apply", "-f", "-"], Some(&applied));

    // The CA Secret appears, typed and complete.
    let bundle =
        eventually("the CA Secret is created", || first.logs(), || secret_key(&sandbox, "ca.crt"));
    let secret_type =
        sandbox.ok(&["get", "secret", SECRET, "-n", NAMESPACE, "-o", "jsonpath={.type}"], None);
    assert_eq!(secret_type, "kubernetes.io/tls");
    let ca = secret_key(&sandbox, "tls.crt").unwrap();
    assert!(secret_key(&sandbox, "tls.key").is_ok());
    assert_eq!(bundle, ca, "a new CA's bundle is the CA itself");
    assert_eq!(certificate_count(&bundle), 1);

    // Every webhook of the configuration gets the Secret's ca.crt.
    eventually(
        "the configuration's caBundle becomes the Secret's ca.crt",
        || first.logs(),
        || {
            let bundles = ca_bundles(&sandbox);
            if bundles.len() == 2 && bundles.iter().all(|b| *b == bundle) {
                Ok(())
            } else {
                Err(format!("caBundles are {bundles:?}"))
            }
        },
    );

    // The webhook serves a certificate that verifies against exactly that bundle.
    let first_leaf = serves_with(&mut first, &bundle);

    // A second replica against the same Secret: its own leaf, the same CA, no second CA.
    let mut second = sandbox.webhook("second", &dynamic_flags());
    let second_leaf = serves_with(&mut second, &bundle);
    assert_ne!(first_leaf, second_leaf, "each replica signs its own serving certificate");
    assert_eq!(secret_key(&sandbox, "tls.crt").unwrap(), ca, "the CA was not replaced");
    assert_eq!(secret_key(&sandbox, "ca.crt").unwrap(), bundle, "the bundle was not changed");
    assert!(ca_bundles(&sandbox).iter().all(|b| *b == bundle));

    // Neither replica ever logs key material.
    for webhook in [&first, &second] {
        let logs = webhook.logs();
        assert!(!logs.contains("PRIVATE KEY"), "{logs}");
        assert!(logs.contains("signed a new serving certificate"), "{logs}");
    }
    }
);

both!(
    fn a_corrupt_secret_is_replaced_and_a_late_configuration_still_gets_the_bundle(server) {
    let sandbox = Cluster::start(server);
    sandbox.ok(&["create", "namespace", NAMESPACE], None);
    sandbox.ok(
        &[
            "create",
            "secret",
            "generic",
            SECRET,
            "-n",
            NAMESPACE,
            "--from-literal=tls.crt=not a certificate",
            "--from-literal=tls.key=not a key",
            "--from-literal=ca.crt=-----BEGIN CERTIFICATE-----",
        ],
        None,
    );
    // The configuration does not exist yet: logged and retried, not fatal.
    let mut webhook = sandbox.webhook("late", &dynamic_flags());
    let bundle = eventually(
        "the corrupt CA Secret is replaced",
        || webhook.logs(),
        || {
            let bundle = secret_key(&sandbox, "ca.crt")?;
            if certificate_count(&bundle) == 1 { Ok(bundle) } else { Err("not yet".to_owned()) }
        },
    );
    serves_with(&mut webhook, &bundle);
    let logs = webhook.logs();
    assert!(
        logs.contains("the Secret's CA is unusable (tls.crt holds no PEM CERTIFICATE block)"),
        "{logs}"
    );
    assert!(logs.contains(&format!("named {CONFIGURATION} exists")), "{logs}");

    sandbox.ok(&["apply", "-f", "-"], Some(&configuration(webhook.port)));
    eventually(
        "the configuration created later gets the bundle",
        || webhook.logs(),
        || {
            let bundles = ca_bundles(&sandbox);
            if bundles.len() == 2 && bundles.iter().all(|b| *b == bundle) {
                Ok(())
            } else {
                Err(format!("caBundles are {bundles:?}"))
            }
        },
    );
    webhook.assert_running();
    }
);

/// The permissions docs/webhook.md lists for the mode, and nothing else.
const RBAC: &str = "apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: certgate-webhook-serving, namespace: certgate}
rules:
- apiGroups: [\"\"]
  resources: [secrets]
  verbs: [create]
- apiGroups: [\"\"]
  resources: [secrets]
  resourceNames: [certgate-webhook-ca]
  verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: certgate-webhook-serving, namespace: certgate}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: certgate-webhook-serving}
subjects: [{kind: ServiceAccount, name: certgate-webhook, namespace: certgate}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: certgate-webhook-ca-injection}
rules:
- apiGroups: [admissionregistration.k8s.io]
  resources: [mutatingwebhookconfigurations, validatingwebhookconfigurations]
  resourceNames: [certgate-serving-test]
  verbs: [get, update]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: certgate-webhook-ca-injection}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: certgate-webhook-ca-injection}
subjects: [{kind: ServiceAccount, name: certgate-webhook, namespace: certgate}]
";

both!(
    fn the_documented_permissions_are_enough(server) {
    let sandbox = Cluster::start(server);
    sandbox.ok(&["create", "namespace", NAMESPACE], None);
    sandbox.ok(&["create", "serviceaccount", "certgate-webhook", "-n", NAMESPACE], None);
    sandbox.ok(&["apply", "-f", "-"], Some(RBAC));
    let token = sandbox.ok(&["create", "token", "certgate-webhook", "-n", NAMESPACE], None);
    let kubeconfig = sandbox.kubeconfig_for("certgate-webhook", token.trim());

    let mut webhook = sandbox.webhook_as("rbac", &kubeconfig, &dynamic_flags());
    sandbox.ok(&["apply", "-f", "-"], Some(&configuration(webhook.port)));
    let bundle = eventually(
        "the CA Secret is created",
        || webhook.logs(),
        || secret_key(&sandbox, "ca.crt"),
    );
    eventually(
        "the configuration's caBundle becomes the Secret's ca.crt",
        || webhook.logs(),
        || {
            let bundles = ca_bundles(&sandbox);
            if bundles.iter().all(|b| *b == bundle) { Ok(()) } else { Err(format!("{bundles:?}")) }
        },
    );
    serves_with(&mut webhook, &bundle);
    let logs = webhook.logs();
    assert!(!logs.contains("forbidden"), "{logs}");
    }
);
