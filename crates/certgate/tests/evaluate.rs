//! The `check` library API (load + evaluate) with CSRs generated at test time by rcgen.

use std::path::PathBuf;

use base64::Engine as _;
use certgate::shared::offline::{EvaluateOptions, evaluate, load};
use certgate::shared::report::{CheckStatus, Verdict};

/// A PEM CSR for `dns_names`, base64-encoded as `spec.request` holds it.
fn csr(dns_names: &[&str]) -> String {
    let key = rcgen::KeyPair::generate().unwrap();
    let names = dns_names.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let mut params = rcgen::CertificateParams::new(names).unwrap();
    // rcgen's default subject has a CN, which policies without `allowed.commonName` deny.
    params.distinguished_name = rcgen::DistinguishedName::new();
    let pem = params.serialize_request(&key).unwrap().pem().unwrap();
    base64::engine::general_purpose::STANDARD.encode(pem)
}

fn request(namespace: &str, name: &str, dns: &str, status: &str) -> String {
    format!(
        "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\n\
         metadata: {{name: {name}, namespace: {namespace}}}\n\
         spec:\n  issuerRef: {{name: ca}}\n  username: system:serviceaccount:{namespace}:app\n  \
         request: {}\n{status}",
        csr(&[dns])
    )
}

const LABEL_POLICY: &str = "apiVersion: policy.cert-manager.io/v1alpha1
kind: CertificateRequestPolicy
metadata: {name: by-label}
spec:
  allowed:
    dnsNames: {values: ['*.svc']}
  selector:
    namespace:
      matchLabels: {kubernetes.io/metadata.name: team-a}
";

fn write(files: &[(&str, String)]) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let paths = files
        .iter()
        .map(|(name, text)| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        })
        .collect();
    (dir, paths)
}

#[test]
fn namespace_name_label_is_provided_like_the_api_server_does() {
    let namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a}\n".to_owned();
    let requests = [
        request("team-a", "in-a", "x.svc", ""),
        request("team-a", "bad-name", "x.example.com", ""),
    ]
    .join("---\n");
    let (_dir, paths) =
        write(&[("ns.yaml", namespace), ("p.yaml", LABEL_POLICY.to_owned()), ("r.yaml", requests)]);
    let report =
        evaluate(load(&paths, std::io::empty()).unwrap().inputs, EvaluateOptions::default());
    let verdicts: Vec<_> = report.results.iter().map(|r| (r.name.as_str(), r.decision)).collect();
    assert_eq!(verdicts, [("in-a", Verdict::Approved), ("bad-name", Verdict::Denied)]);
    assert_eq!(report.status(), CheckStatus::NotAllApproved);
    assert!(report.results[0].trace.is_none(), "no trace without --explain");
}

#[test]
fn admission_is_checked_before_an_existing_decision() {
    // Both Approved and Denied: the webhook would have refused this object.
    let both = "status:\n  conditions:\n  - {type: Approved, status: 'True', reason: cmctl}\n  \
                - {type: Denied, status: 'True', reason: cmctl}\n";
    let approved = "status:\n  conditions:\n  - {type: Approved, status: 'True', reason: cmctl, \
                    message: done}\n";
    let requests =
        [request("team-a", "both", "x.svc", both), request("team-a", "done", "x.svc", approved)]
            .join("---\n");
    let (_dir, paths) = write(&[("r.yaml", requests)]);
    let report =
        evaluate(load(&paths, std::io::empty()).unwrap().inputs, EvaluateOptions { explain: true });
    assert_eq!(report.results[0].decision, Verdict::Invalid);
    assert_eq!(
        report.results[0].message,
        "admission webhook \"webhook.cert-manager.io\" denied the request: status.conditions: \
         Forbidden: both 'Denied' and 'Approved' conditions cannot coexist"
    );
    assert_eq!(
        (report.results[1].decision, report.results[1].message.as_str()),
        (Verdict::Approved, "done")
    );
    assert!(report.results.iter().all(|r| r.trace.is_none()), "neither request is reviewed");
    assert_eq!(report.status(), CheckStatus::Failed);
}

#[test]
fn without_policies_every_request_is_unprocessed() {
    let (_dir, paths) = write(&[("r.yaml", request("team-a", "r", "x.svc", ""))]);
    let report =
        evaluate(load(&paths, std::io::empty()).unwrap().inputs, EvaluateOptions { explain: true });
    assert_eq!(report.results[0].decision, Verdict::Unprocessed);
    assert_eq!(report.results[0].message, "No CertificateRequestPolicies exist");
    assert!(report.results[0].trace.is_some());
    assert!(!report.rbac_evaluated);
}
