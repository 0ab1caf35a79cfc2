//! One request reviewed against 100 policies: about half selected by issuerRef, each with
//! two CEL validations on dnsNames; the CSR decoded once beforehand (signature checking is
//! not part of a review); RBAC answered by `AllowAll`.
//!
//! - `first_selected_approves`: the usual case, where evaluation stops at the first
//!   selected policy.
//! - `every_selected_denies`: the worst case, where all 50 selected policies are evaluated
//!   (values fail, so validations still run on every value) and the denial lists them all.

use std::collections::BTreeMap;
use std::sync::Arc;

use certgate_api::policy::CertificateRequestPolicySpec;
use certgate_api::{
    CertificateRequest, CertificateRequestPolicy, CertificateRequestSpec, IssuerReference,
};
use certgate_approval::{
    Approver, Decision, NamespaceLookup, PolicyEntry, Readiness, Request, ReviewOptions,
};
use certgate_cel::PolicyCel;
use certgate_rbac::AllowAll;
use criterion::{Criterion, criterion_group, criterion_main};

struct NoNamespaces;

impl NamespaceLookup for NoNamespaces {
    fn labels(&self, _namespace: &str) -> Result<BTreeMap<String, String>, String> {
        Ok(BTreeMap::new())
    }
}

fn policies(allowed_pattern: &str) -> Vec<CertificateRequestPolicy> {
    (0..100)
        .map(|i| {
            let issuer = if i % 2 == 0 { "ca" } else { "other-ca" };
            let spec: CertificateRequestPolicySpec = serde_json::from_value(serde_json::json!({
                "selector": {"issuerRef": {"name": issuer, "kind": "Issuer"}},
                "allowed": {
                    "commonName": {"value": "*"},
                    "dnsNames": {
                        "values": [allowed_pattern],
                        "validations": [
                            {"rule": "self.endsWith(cr.namespace + '.svc')", "message": "local services only"},
                            {"rule": "self.size() <= 64"},
                        ],
                    },
                },
                "constraints": {"maxDuration": "2160h"},
            }))
            .expect("bench policy is valid");
            CertificateRequestPolicy::new(&format!("policy-{i:03}"), spec)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let key = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("key");
    let mut params = rcgen::CertificateParams::new(vec![
        "web.team-a.svc".to_owned(),
        "api.team-a.svc".to_owned(),
    ])
    .expect("params");
    params.distinguished_name.push(rcgen::DnType::CommonName, "web");
    let pem = params.serialize_request(&key).expect("csr").pem().expect("pem");
    let csr = certgate_pki::parse_csr(pem.as_bytes()).expect("decodes");

    let mut cr = CertificateRequest::new(
        "web",
        CertificateRequestSpec {
            issuer_ref: IssuerReference { name: "ca".into(), ..Default::default() },
            request: pem.into_bytes(),
            duration: Some("720h".into()),
            username: Some("system:serviceaccount:team-a:web".into()),
            groups: Some(vec!["system:serviceaccounts".into()]),
            ..Default::default()
        },
    );
    cr.metadata.namespace = Some("team-a".into());
    let request = Request { cr: &cr, csr: Ok(&csr) };
    let approver = Approver::new(Arc::new(PolicyCel::default()));

    for (name, pattern, approves) in [
        ("review/100_policies/first_selected_approves", "*.team-a.svc", true),
        ("review/100_policies/every_selected_denies", "*.example.com", false),
    ] {
        let policies = policies(pattern);
        let entries: Vec<PolicyEntry<'_>> = policies
            .iter()
            .map(|policy| PolicyEntry { policy, readiness: Readiness::Ready })
            .collect();
        let run = || {
            approver
                .review(&request, &entries, &NoNamespaces, &AllowAll, ReviewOptions::default())
                .outcome
        };
        // Check the scenario is the one described before timing it.
        assert_eq!(matches!(run(), Ok(Decision::Approved(_))), approves, "{name}");
        c.bench_function(name, |b| b.iter(|| std::hint::black_box(run())));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
