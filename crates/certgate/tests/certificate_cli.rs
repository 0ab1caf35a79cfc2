//! End to end: `certgate renew` and `certgate status certificate` against the sandbox and a
//! real kube-apiserver (`both!`), driven with the real `kubectl` as a cmctl user would. No
//! Certificate controller runs here: the Certificates' and issuers' status fields are set by
//! hand with `kubectl ... --subresource=status`, and the CertificateRequests are created by
//! hand, owned by their Certificate and annotated with their revision.

use std::path::Path;
use std::process::Command;

use base64::Engine as _;

use chrono::{Duration, SecondsFormat, Utc};

mod dev_support;
use dev_support::*;

const OBJECTS: &str = "\
apiVersion: v1
kind: Namespace
metadata: {name: team-a}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-b}
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: team-ca, namespace: team-a}
spec: {selfSigned: {}}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: web, namespace: team-a, labels: {app: web}}
spec:
  secretName: web-tls
  dnsNames: [web.example.com]
  issuerRef: {name: team-ca, kind: Issuer, group: cert-manager.io}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: api, namespace: team-a, labels: {app: api}}
spec:
  secretName: api-tls
  dnsNames: [api.example.com]
  issuerRef: {name: team-ca}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: {name: db, namespace: team-b, labels: {app: db}}
spec:
  secretName: db-tls
  dnsNames: [db.example.com]
  issuerRef: {name: cluster-ca, kind: ClusterIssuer}
";

/// Runs `certgate ARGS --kubeconfig KUBECONFIG`: (exit code, stdout, stderr).
fn certgate(kubeconfig: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn setup(dev: &Dev) {
    dev.ok_with(&["apply", "-f", "-"], Some(OBJECTS));
}

/// A CertificateRequest owned by Certificate `web` for `revision`.
fn owned_request(dev: &Dev, name: &str, revision: u32) {
    let uid =
        dev.ok(&["get", "certificate", "web", "-n", "team-a", "-o", "jsonpath={.metadata.uid}"]);
    // A CSR as the certificates controller makes for web's spec, so the request matches it
    // (a request that no longer matches the spec ends the backoff at once).
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["web.example.com".to_owned()]).unwrap();
    params.distinguished_name = rcgen::DistinguishedName::new();
    let pem = params.serialize_request(&key).unwrap().pem().unwrap();
    let csr = base64::engine::general_purpose::STANDARD.encode(pem);
    let manifest = format!(
        "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\nmetadata:\n  name: {name}\n  namespace: team-a\n\
         \x20 annotations: {{cert-manager.io/certificate-revision: \"{revision}\"}}\n\
         \x20 ownerReferences:\n  - {{apiVersion: cert-manager.io/v1, kind: Certificate, name: web, uid: {uid}, controller: true, blockOwnerDeletion: true}}\n\
         spec:\n  issuerRef: {{name: team-ca, kind: Issuer, group: cert-manager.io}}\n  request: {csr}\n"
    );
    dev.ok_with(&["create", "-f", "-"], Some(&manifest));
}

fn patch_status(dev: &Dev, resource: &str, name: &str, status: &str) {
    dev.ok(&[
        "patch",
        resource,
        name,
        "-n",
        "team-a",
        "--subresource=status",
        "--type=merge",
        "-p",
        &format!("{{\"status\":{status}}}"),
    ]);
}

fn status_json(dev: &Dev, name: &str) -> serde_json::Value {
    let (code, out, err) =
        certgate(&dev.kubeconfig, &["status", "certificate", name, "-n", "team-a", "-o", "json"]);
    assert_eq!(code, 0, "{out}{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

fn issuing(dev: &Dev, namespace: &str, name: &str) -> String {
    dev.ok(&[
        "get",
        "certificate",
        name,
        "-n",
        namespace,
        "-o",
        r#"jsonpath={.status.conditions[?(@.type=="Issuing")].status}/{.status.conditions[?(@.type=="Issuing")].reason}/{.status.conditions[?(@.type=="Issuing")].message}/{.status.conditions[?(@.type=="Issuing")].lastTransitionTime}"#,
    ])
}

both!(
    fn status_certificate_shows_issuer_secret_request_decision_and_retry(server) {
        let dev = server.start();
        setup(&dev);
        let kubeconfig = &dev.kubeconfig;
        patch_status(
            &dev,
            "issuer",
            "team-ca",
            r#"{"conditions":[{"type":"Ready","status":"True","reason":"IsReady","message":"Signing CA verified","lastTransitionTime":"2026-11-01T00:00:00Z"}]}"#,
        );
        owned_request(&dev, "web-1", 1);

        let (code, text, _) = certgate(kubeconfig, &["status", "certificate", "web", "-n", "team-a"]);
        assert_eq!(code, 0, "{text}");
        for expected in [
            "Name: web\nNamespace: team-a\nCreated at: ",
            "Conditions:\n  No Conditions set\nDNS Names:\n- web.example.com\nRevision: <none>\n",
            "Issuer:\n  Name: team-ca\n  Kind: Issuer\n  Group: cert-manager.io\n  Conditions:\n    Ready: True, Reason: IsReady, Message: Signing CA verified\n",
            "Secret:\n  Name: web-tls\n  Error: error when finding Secret \"web-tls\": secrets \"web-tls\" not found\n",
            "Not Before: <none>\nNot After: <none>\nRenewal Time: <none>\n",
            "CertificateRequest:\n  Revision: 1 (next)\n  Name: web-1\n  Namespace: team-a\n  Approval: pending (neither Approved nor Denied)\n",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        assert!(!text.contains("Retry:"), "{text}");

        // Approved by hand: the request's decision with its reason and message.
        let (code, out, _) = certgate(
            kubeconfig,
            &["approve", "web-1", "-n", "team-a", "--reason", "Reviewed", "--message", "checked by security"],
        );
        assert_eq!((code, out.as_str()), (0, "Approved CertificateRequest 'team-a/web-1'\n"));
        let json = status_json(&dev, "web");
        let request = &json["certificateRequest"];
        assert_eq!(request["name"], "web-1");
        assert_eq!((request["revision"].as_i64(), request["role"].as_str()), (Some(1), Some("next")));
        assert_eq!(request["approval"]["type"], "Approved");
        assert_eq!(request["approval"]["reason"], "Reviewed");
        assert_eq!(request["approval"]["message"], "checked by security");
        assert_eq!(json["issuer"]["ready"]["status"], "True");

        // The Secret's certificate and the Certificate's validity.
        let dir = tempfile::tempdir().unwrap();
        let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        let mut params = rcgen::CertificateParams::new(vec!["web.example.com".to_owned()]).unwrap();
        params.distinguished_name = rcgen::DistinguishedName::new();
        params.distinguished_name.push(rcgen::DnType::CommonName, "web.example.com");
        params.not_before = rcgen::date_time_ymd(2026, 11, 1);
        params.not_after = rcgen::date_time_ymd(2027, 1, 30);
        let cert = params.self_signed(&key).unwrap();
        std::fs::write(dir.path().join("tls.crt"), cert.pem()).unwrap();
        std::fs::write(dir.path().join("tls.key"), key.serialize_pem()).unwrap();
        dev.ok(&[
            "create", "secret", "tls", "web-tls", "-n", "team-a",
            &format!("--cert={}", dir.path().join("tls.crt").display()),
            &format!("--key={}", dir.path().join("tls.key").display()),
        ]);

        // A failed issuance of revision 2 (denied), 30 minutes ago, the second in a row.
        let failed_at = (Utc::now() - Duration::minutes(30)).to_rfc3339_opts(SecondsFormat::Secs, true);
        patch_status(
            &dev,
            "certificate",
            "web",
            &format!(
                r#"{{"revision":1,"notBefore":"2026-11-01T00:00:00Z","notAfter":"2027-01-30T00:00:00Z","renewalTime":"2026-12-31T00:00:00Z","lastFailureTime":"{failed_at}","failedIssuanceAttempts":2,"conditions":[{{"type":"Ready","status":"True","reason":"Ready","message":"Certificate is up to date and has not expired","lastTransitionTime":"2026-11-01T00:00:05Z"}},{{"type":"Issuing","status":"True","reason":"Renewing","message":"Renewing certificate as renewal was scheduled at 2026-12-31","lastTransitionTime":"2026-11-29T00:00:00Z"}}]}}"#
            ),
        );
        owned_request(&dev, "web-2", 2);
        let (code, out, _) = certgate(
            kubeconfig,
            &["deny", "web-2", "-n", "team-a", "--reason", "SecurityReview", "--message", "not for production names"],
        );
        assert_eq!((code, out.as_str()), (0, "Denied CertificateRequest 'team-a/web-2'\n"));
        // While Issuing=True the next revision's request is shown.
        let json = status_json(&dev, "web");
        let request = &json["certificateRequest"];
        assert_eq!((request["name"].as_str(), request["role"].as_str()), (Some("web-2"), Some("next")));
        assert_eq!(request["approval"]["type"], "Denied");
        assert_eq!(request["approval"]["reason"], "SecurityReview");
        assert_eq!(request["approval"]["message"], "not for production names");
        assert_eq!(json["retry"]["state"], "issuing");
        assert_eq!(json["secret"]["certificate"]["subject"], "CN=web.example.com");
        assert_eq!(json["secret"]["certificate"]["notAfter"], "2027-01-30T00:00:00Z");
        assert_eq!(json["notAfter"], "2027-01-30T00:00:00Z");
        assert_eq!(json["renewalTime"], "2026-12-31T00:00:00Z");

        // The failure recorded (Issuing=False): the current revision's request, and the
        // backoff of two failures (2h) from lastFailureTime.
        patch_status(
            &dev,
            "certificate",
            "web",
            r#"{"conditions":[{"type":"Ready","status":"True","reason":"Ready","message":"Certificate is up to date and has not expired","lastTransitionTime":"2026-11-01T00:00:05Z"},{"type":"Issuing","status":"False","reason":"Denied","message":"The certificate request has failed to complete and will be retried: The CertificateRequest was denied by an approval controller","lastTransitionTime":"2026-11-29T00:00:00Z"}]}"#,
        );
        let json = status_json(&dev, "web");
        assert_eq!(json["certificateRequest"]["name"], "web-1");
        assert_eq!(json["certificateRequest"]["role"], "current");
        let retry = &json["retry"];
        assert_eq!(retry["state"], "waiting", "{retry}");
        assert_eq!(retry["lastFailureTime"], failed_at.as_str());
        assert_eq!(retry["failedIssuanceAttempts"], 2);
        assert_eq!(retry["backoff"], "2h0m0s");
        let failed = chrono::DateTime::parse_from_rfc3339(&failed_at).unwrap();
        let expected_next = (failed + Duration::hours(2))
            .with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::Secs, true);
        assert_eq!(retry["nextAttempt"], expected_next.as_str());
        assert!(retry["remaining"].as_str().is_some_and(|r| r.starts_with('1') && r.ends_with('s')), "{retry}");

        // The controller's backoff settings, when it was given others: 10m, then 20m.
        let (code, out, _) = certgate(
            kubeconfig,
            &["status", "certificate", "web", "-n", "team-a", "-o", "json", "--certificate-request-minimum-backoff-duration=10m"],
        );
        assert_eq!(code, 0, "{out}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!((json["retry"]["state"].as_str(), json["retry"]["backoff"].as_str()), (Some("due"), Some("20m0s")));
        assert_eq!(
            certgate(kubeconfig, &["status", "certificate", "web", "-n", "team-a", "--certificate-request-minimum-backoff-duration=-1s"]),
            (1, "error: invalid backoff: certificateRequestMinimumBackoffDuration: Invalid value: \"-1s\": must not be negative\n".to_owned(), String::new())
        );

        let (code, text, _) = certgate(kubeconfig, &["status", "certificate", "web", "-n", "team-a"]);
        assert_eq!(code, 0, "{text}");
        for expected in [
            "Revision: 1\n",
            "Secret:\n  Name: web-tls\n  Subject: CN=web.example.com\n  Issuer: CN=web.example.com\n",
            "  Not After: 2027-01-30T00:00:00Z\n",
            "Not Before: 2026-11-01T00:00:00Z\nNot After: 2027-01-30T00:00:00Z\nRenewal Time: 2026-12-31T00:00:00Z\n",
            "CertificateRequest:\n  Revision: 1 (current)\n  Name: web-1\n  Namespace: team-a\n  Approval: Approved: True, Reason: Reviewed, Message: checked by security\n",
            &format!("Retry:\n  Last Failure Time: {failed_at}\n  Failed Issuance Attempts: 2\n  Backoff: 2h0m0s\n  Next Attempt: {expected_next} (in 1h"),
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        assert!(!text.contains("BEGIN"), "no PEM is printed: {text}");

        // Events about the Certificate, selected by its UID as kubectl describe selects them.
        let uid = dev.ok(&["get", "certificate", "web", "-n", "team-a", "-o", "jsonpath={.metadata.uid}"]);
        dev.ok_with(
            &["create", "-f", "-"],
            Some(&format!(
                "apiVersion: v1\nkind: Event\nmetadata: {{name: web.trigger, namespace: team-a}}\n\
                 involvedObject: {{apiVersion: cert-manager.io/v1, kind: Certificate, name: web, namespace: team-a, uid: {uid}}}\n\
                 type: Normal\nreason: Issuing\nmessage: Issuing certificate as Secret does not exist\n\
                 source: {{component: cert-manager-certificates-trigger}}\ncount: 1\n\
                 firstTimestamp: \"2026-11-29T10:00:00Z\"\nlastTimestamp: \"2026-11-29T10:00:00Z\"\n"
            )),
        );
        let (_, text, _) = certgate(kubeconfig, &["status", "certificate", "web", "-n", "team-a"]);
        assert!(
            text.contains("Revision: 1\nEvents:\n  Type    Reason   Last Seen             From                               Message\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  Normal  Issuing  2026-11-29T10:00:00Z  cert-manager-certificates-trigger  Issuing certificate as Secret does not exist\nIssuer:\n"),
            "{text}"
        );
        let json = status_json(&dev, "web");
        assert_eq!(json["events"]["items"][0]["from"], "cert-manager-certificates-trigger");
        assert_eq!(json["events"]["items"].as_array().map(Vec::len), Some(1));

        // A ClusterIssuer is looked up cluster-wide.
        let (code, out, err) =
            certgate(kubeconfig, &["status", "certificate", "db", "-n", "team-b", "-o", "json"]);
        assert_eq!(code, 0, "{out}{err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            json["issuer"]["error"],
            "error when getting ClusterIssuer: clusterissuers.cert-manager.io \"cluster-ca\" not found"
        );

        // cmctl's messages for a missing Certificate and for bad arguments.
        assert_eq!(
            certgate(kubeconfig, &["status", "certificate", "missing", "-n", "team-a"]),
            (1, "error: error when getting Certificate resource: certificates.cert-manager.io \"missing\" not found\n".to_owned(), String::new())
        );
        assert_eq!(
            certgate(kubeconfig, &["status", "certificate", "-n", "team-a"]),
            (1, "error: the name of the Certificate has to be provided as argument\n".to_owned(), String::new())
        );
    }
);

both!(
    fn renew_sets_issuing_manually_triggered_like_cmctl(server) {
        let dev = server.start();
        setup(&dev);
        let kubeconfig = &dev.kubeconfig;

        // One by name: Issuing=True, ManuallyTriggered, at the Certificate's generation.
        assert_eq!(
            certgate(kubeconfig, &["renew", "web", "-n", "team-a"]),
            (0, "Manually triggered issuance of Certificate team-a/web\n".to_owned(), String::new())
        );
        let condition = issuing(&dev, "team-a", "web");
        assert!(
            condition.starts_with("True/ManuallyTriggered/Certificate re-issuance manually triggered/"),
            "{condition}"
        );
        assert_eq!(
            dev.ok(&[
                "get", "certificate", "web", "-n", "team-a", "-o",
                r#"jsonpath={.status.conditions[?(@.type=="Issuing")].observedGeneration}={.metadata.generation}"#,
            ]),
            "1=1"
        );

        // Already issuing: renewed again, the reason and message become the manual ones and
        // the transition time stays.
        patch_status(
            &dev,
            "certificate",
            "web",
            r#"{"conditions":[{"type":"Issuing","status":"True","reason":"Renewing","message":"Renewing certificate as renewal was scheduled","lastTransitionTime":"2026-01-01T00:00:00Z"}]}"#,
        );
        assert_eq!(
            certgate(kubeconfig, &["renew", "web", "-n", "team-a"]),
            (0, "Manually triggered issuance of Certificate team-a/web\n".to_owned(), String::new())
        );
        assert_eq!(
            issuing(&dev, "team-a", "web"),
            "True/ManuallyTriggered/Certificate re-issuance manually triggered/2026-01-01T00:00:00Z"
        );
        // A failed issuance (Issuing=False) flips to True with a new transition time.
        patch_status(
            &dev,
            "certificate",
            "api",
            r#"{"lastFailureTime":"2026-01-01T00:00:00Z","failedIssuanceAttempts":3,"conditions":[{"type":"Issuing","status":"False","reason":"Failed","message":"failed","lastTransitionTime":"2026-01-01T00:00:00Z"}]}"#,
        );

        // --all in a namespace, in the API server's order; --all-namespaces with a selector.
        assert_eq!(
            certgate(kubeconfig, &["renew", "--all", "-n", "team-a"]),
            (
                0,
                "Manually triggered issuance of Certificate team-a/api\nManually triggered issuance of Certificate team-a/web\n".to_owned(),
                String::new()
            )
        );
        let api = issuing(&dev, "team-a", "api");
        assert!(api.starts_with("True/ManuallyTriggered/") && !api.ends_with("/2026-01-01T00:00:00Z"), "{api}");
        // The failure record is left as it was: the issuing controller owns it.
        assert_eq!(
            dev.ok(&["get", "certificate", "api", "-n", "team-a", "-o", "jsonpath={.status.lastFailureTime}/{.status.failedIssuanceAttempts}"]),
            "2026-01-01T00:00:00Z/3"
        );
        assert_eq!(issuing(&dev, "team-b", "db"), "///");
        assert_eq!(
            certgate(kubeconfig, &["renew", "-A", "-l", "app=db"]),
            (0, "Manually triggered issuance of Certificate team-b/db\n".to_owned(), String::new())
        );
        assert!(issuing(&dev, "team-b", "db").starts_with("True/ManuallyTriggered/"));

        // Nothing matched: cmctl's note on standard error, exit 0.
        assert_eq!(
            certgate(kubeconfig, &["renew", "-l", "app=none", "-n", "team-a"]),
            (0, String::new(), "No Certificates found in team-a namespace.\n".to_owned())
        );
        assert_eq!(
            certgate(kubeconfig, &["renew", "--all-namespaces", "--selector", "app=none"]),
            (0, String::new(), "No Certificates found\n".to_owned())
        );

        // Errors on standard output, exit 1, as cmctl prints them.
        assert_eq!(
            certgate(kubeconfig, &["renew", "web", "missing", "-n", "team-a"]),
            (1, "Error from server (NotFound): certificates.cert-manager.io \"missing\" not found\n".to_owned(), String::new())
        );
        assert_eq!(
            certgate(kubeconfig, &["renew", "web", "--all", "-n", "team-a"]),
            (1, "error: cannot specify the Certificate resource names [\"web\"] in conjunction with the --all flag\n".to_owned(), String::new())
        );
        assert_eq!(
            certgate(kubeconfig, &["renew", "-n", "team-a"]),
            (1, "error: please either supply one or more Certificate resource names, label selectors, or use the --all flag to renew all Certificate resources\n".to_owned(), String::new())
        );
        assert_eq!(
            certgate(kubeconfig, &["renew", "web", "-A"]),
            (1, "error: cannot specify Certificate names in conjunction with --all-namespaces flag\n".to_owned(), String::new())
        );

        // RBAC: reading is not enough, renewing needs update on certificates/status.
        let bob = dev.kubeconfig_for("bob-token");
        dev.ok(&["create", "role", "cert-reader", "-n", "team-a", "--verb=get,list", "--resource=certificates.cert-manager.io"]);
        dev.ok(&["create", "rolebinding", "bob-reads", "-n", "team-a", "--role=cert-reader", "--user=bob"]);
        assert_eq!(
            certgate(&bob, &["renew", "web", "-n", "team-a"]),
            (1, "error: failed to trigger issuance of Certificate team-a/web: certificates.cert-manager.io \"web\" is forbidden: User \"bob\" cannot update resource \"certificates/status\" in API group \"cert-manager.io\" in the namespace \"team-a\"\n".to_owned(), String::new())
        );
        dev.ok(&["create", "role", "cert-renewer", "-n", "team-a", "--verb=update", "--resource=certificates.cert-manager.io/status"]);
        dev.ok(&["create", "rolebinding", "bob-renews", "-n", "team-a", "--role=cert-renewer", "--user=bob"]);
        assert_eq!(
            certgate(&bob, &["renew", "web", "-n", "team-a"]),
            (0, "Manually triggered issuance of Certificate team-a/web\n".to_owned(), String::new())
        );
    }
);
