//! Writes a large `certgate check` input for measuring time and memory (not a test).
//!
//! ```sh
//! cargo run --release -p certgate --example gen_scale -- /tmp/scale
//! /usr/bin/time -v target/release/certgate check -f /tmp/scale -o json > /dev/null
//! ```
//!
//! Shape (defaults: 10,000 requests, 100 policies, 100 namespaces):
//! - policy `policy-NNN` is selected for every request (and bound, see below), but its CEL
//!   rule only allows DNS names when the request is in namespace `team-NNN`: each policy
//!   denies all requests but one namespace's, so every review meets many denying policies;
//! - every 10th request asks for a name outside its namespace and is denied by all policies;
//! - one ClusterRole + ClusterRoleBinding grant `use` of every policy to all service accounts,
//!   so every review also runs one RBAC check per policy;
//! - requests are spread over files of 100 requests (`requests/requests-NNN.yaml`), each with
//!   its own ECDSA P-256 CSR generated here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use clap::Parser;

#[derive(Parser)]
struct Args {
    /// Directory to write into (created; existing files with the same names are replaced).
    dir: PathBuf,
    #[arg(long, default_value_t = 10_000)]
    requests: usize,
    #[arg(long, default_value_t = 100)]
    policies: usize,
    #[arg(long, default_value_t = 100)]
    per_file: usize,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    anyhow::ensure!(
        args.policies > 0 && args.per_file > 0,
        "--policies and --per-file must be > 0"
    );
    std::fs::create_dir_all(args.dir.join("requests"))?;
    write_policies(&args.dir, args.policies)?;
    write_rbac(&args.dir)?;
    write_namespaces(&args.dir, args.policies)?;
    let mut file = String::new();
    let mut file_index = 0;
    for n in 0..args.requests {
        let team = n % args.policies;
        let foreign = n % 10 == 9;
        let dns = if foreign {
            format!("app-{n}.example.com")
        } else {
            format!("app-{n}.team-{team:03}.svc")
        };
        append_request(&mut file, n, team, &dns)?;
        if (n + 1) % args.per_file == 0 || n + 1 == args.requests {
            let path = args.dir.join(format!("requests/requests-{file_index:03}.yaml"));
            std::fs::write(path, std::mem::take(&mut file))?;
            file_index += 1;
        }
    }
    println!(
        "wrote {} requests in {file_index} files, {} policies, RBAC and namespaces to {}",
        args.requests,
        args.policies,
        args.dir.display()
    );
    Ok(())
}

fn write_policies(dir: &Path, count: usize) -> anyhow::Result<()> {
    let mut out = String::new();
    for i in 0..count {
        write!(
            out,
            "---
apiVersion: policy.cert-manager.io/v1alpha1
kind: CertificateRequestPolicy
metadata:
  name: policy-{i:03}
spec:
  allowed:
    dnsNames:
      required: true
      validations:
        - rule: cr.namespace == 'team-{i:03}' && self.endsWith('.' + cr.namespace + '.svc')
          message: only services of team-{i:03}
    usages: [digital signature, key encipherment, server auth]
  constraints:
    maxDuration: 2160h
  selector:
    issuerRef:
      name: internal-ca
      kind: ClusterIssuer
"
        )?;
    }
    std::fs::write(dir.join("policies.yaml"), out)?;
    Ok(())
}

fn write_rbac(dir: &Path) -> anyhow::Result<()> {
    let rbac = "apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: use-all-policies
rules:
  - apiGroups: [policy.cert-manager.io]
    resources: [certificaterequestpolicies]
    verbs: [use]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: service-accounts-use-all-policies
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: use-all-policies
subjects:
  - apiGroup: rbac.authorization.k8s.io
    kind: Group
    name: system:serviceaccounts
";
    std::fs::write(dir.join("rbac.yaml"), rbac)?;
    Ok(())
}

fn write_namespaces(dir: &Path, count: usize) -> anyhow::Result<()> {
    let mut out = String::new();
    for i in 0..count {
        write!(out, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team-{i:03}\n")?;
    }
    std::fs::write(dir.join("namespaces.yaml"), out)?;
    Ok(())
}

fn append_request(out: &mut String, n: usize, team: usize, dns: &str) -> anyhow::Result<()> {
    let key = rcgen::KeyPair::generate()?;
    let mut params = rcgen::CertificateParams::new(vec![dns.to_owned()])?;
    params.distinguished_name = rcgen::DistinguishedName::new();
    let pem = params.serialize_request(&key)?.pem()?;
    let request = base64::engine::general_purpose::STANDARD.encode(pem);
    write!(
        out,
        "---
apiVersion: cert-manager.io/v1
kind: CertificateRequest
metadata:
  name: app-{n}
  namespace: team-{team:03}
spec:
  issuerRef:
    name: internal-ca
    kind: ClusterIssuer
  duration: 24h
  username: system:serviceaccount:team-{team:03}:app
  groups: [system:serviceaccounts, system:serviceaccounts:team-{team:03}, system:authenticated]
  request: {request}
"
    )?;
    Ok(())
}
