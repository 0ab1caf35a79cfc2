//! End to end: `certgate explain certificaterequest NAME` against `certgate dev` and a real
//! kube-apiserver (`both!`, docs/real-cluster.md), driven by the real `kubectl`, as a user
//! debugging a request in a cluster would run it.

use std::path::Path;
use std::process::Command;

mod dev_support;
use dev_support::*;

/// The sandbox's default controllers without the policy approver, so requests stay pending.
const WITHOUT_APPROVER: &str = "--controllers=*,-policy-approver";

const POLICY: &str = "namespace-local-dns";

/// A request to `internal-ca` in `payments` with the CSR of `examples/dns/requests.yaml`'s
/// `index`th request (0: api.payments.svc, 1: ledger.legacy-payments.svc) and a duration the
/// example policy allows.
fn dns_request(name: &str, index: usize) -> String {
    let all = std::fs::read_to_string(examples().join("dns/requests.yaml")).unwrap();
    let csr = all.lines().filter_map(|l| l.trim().strip_prefix("request: ")).nth(index).unwrap();
    format!(
        "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\nmetadata:\n  name: {name}\n  namespace: payments\n\
         spec:\n  issuerRef:\n    group: cert-manager.io\n    kind: ClusterIssuer\n    name: internal-ca\n\
         \x20 duration: 24h\n  usages: [digital signature, key encipherment, server auth]\n  request: {csr}\n"
    )
}

/// The examples' namespaces, the DNS policy (waited for until Ready) and requester RBAC.
fn prepare(dev: &Dev) {
    dev.prepare_requests();
    dev.ok(&["apply", "-f", examples().join("dns/policy.yaml").to_str().unwrap()]);
    dev.ok(&[
        "wait",
        "--for=condition=Ready",
        &format!("certificaterequestpolicy/{POLICY}"),
        "--timeout=30s",
    ]);
}

fn create_as_alice(dev: &Dev, name: &str, index: usize) {
    dev.create_as("alice", &["team-a"], &dns_request(name, index));
}

/// Created by the `api` service account of `payments`, which examples/rbac.yaml lets use
/// the policy (the team-a group lets it create requests).
fn create_as_service_account(dev: &Dev, name: &str, index: usize) {
    dev.ok(&["apply", "-f", examples().join("rbac.yaml").to_str().unwrap()]);
    dev.create_as(
        "system:serviceaccount:payments:api",
        &["system:serviceaccounts", "system:serviceaccounts:payments", "team-a"],
        &dns_request(name, index),
    );
}

/// `certgate <args> --kubeconfig <kubeconfig>`: (exit code, stdout, stderr).
fn certgate(kubeconfig: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// The request's condition types, `kubectl get` style.
fn conditions(dev: &Dev, name: &str) -> String {
    dev.ok(&[
        "get",
        "certificaterequest",
        name,
        "-n",
        "payments",
        "-o",
        "jsonpath={.status.conditions[*].type}",
    ])
}

/// The grant commands of the text output's "Missing RBAC" section: each is a kubectl command
/// line and, for a heredoc, its standard input.
fn grant_commands(output: &str) -> Vec<String> {
    let section = &output[output.find("Missing RBAC").expect("a Missing RBAC section")..];
    section
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with("kubectl ") || line.starts_with("echo "))
        .map(str::to_owned)
        .collect()
}

both!(
    fn an_unbound_requester_is_unprocessed_until_granted_use_and_then_approved(server) {
        let dev = server.start_with(&[WITHOUT_APPROVER]);
        prepare(&dev);
        create_as_alice(&dev, "alice-tls", 0);

        let (code, out, err) = certgate(
            &dev.kubeconfig,
            &["explain", "certificaterequest", "alice-tls", "-n", "payments"],
        );
        assert_eq!((code, err.as_str()), (1, ""), "{out}");
        assert!(out.contains("recorded decision: none yet"), "{out}");
        assert!(
            out.contains("payments    alice-tls   Unprocessed   No CertificateRequestPolicies bound or applicable"),
            "{out}"
        );
        assert!(out.contains(r#"policy "namespace-local-dns": not bound to the requester"#), "{out}");
        assert!(
            out.contains(r#"missing: user "alice" may not "use" certificaterequestpolicies.policy.cert-manager.io "namespace-local-dns" in namespace "payments""#),
            "{out}"
        );
        // The ClusterRole is piped to `kubectl apply` as JSON: `kubectl create clusterrole`
        // refuses the verb `use` on anything but podsecuritypolicies.
        let commands = grant_commands(&out);
        assert_eq!(
            commands,
            [
                r#"echo '{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"use-policy-namespace-local-dns"},"rules":[{"apiGroups":["policy.cert-manager.io"],"resources":["certificaterequestpolicies"],"verbs":["use"],"resourceNames":["namespace-local-dns"]}]}' | kubectl apply -f -"#,
                "kubectl create rolebinding use-policy-namespace-local-dns -n payments --clusterrole=use-policy-namespace-local-dns --user=alice",
            ],
            "{out}"
        );

        // Run the suggested commands as printed, in a shell: the next explain sees the grant.
        for command in &commands {
            let status = std::process::Command::new("sh")
                .args(["-c", command])
                .env("KUBECONFIG", &dev.kubeconfig)
                .status()
                .unwrap();
            assert!(status.success(), "{command}");
        }
        let (code, out, _) =
            certgate(&dev.kubeconfig, &["explain", "cr", "alice-tls", "-n", "payments"]);
        assert_eq!(code, 0, "{out}");
        assert!(
            out.contains(r#"Approved   Approved by CertificateRequestPolicy: "namespace-local-dns""#),
            "{out}"
        );
        assert!(out.contains(r#"policy "namespace-local-dns": approved"#), "{out}");
        assert!(!out.contains("Missing RBAC"), "{out}");
        // explain reads; it never decides.
        assert_eq!(conditions(&dev, "alice-tls"), "");
    }
);

both!(
    fn a_dns_name_of_another_namespace_is_denied_with_upstreams_message(server) {
        let dev = server.start_with(&[WITHOUT_APPROVER]);
        prepare(&dev);
        create_as_service_account(&dev, "ledger-tls", 1);

        let (code, out, err) = certgate(
            &dev.kubeconfig,
            &["explain", "certificaterequests/ledger-tls", "--namespace", "payments"],
        );
        assert_eq!((code, err.as_str()), (1, ""), "{out}");
        assert!(
            out.contains(
                r#"Denied     No policy approved this request: [namespace-local-dns: spec.allowed.dnsNames.validations[0]: Invalid value: "ledger.legacy-payments.svc": DNS names must be services of the request's own namespace]"#
            ),
            "{out}"
        );
        assert!(
            out.contains(r#"spec.allowed.dnsNames ["ledger.legacy-payments.svc"]: denied"#),
            "{out}"
        );
        assert!(
            out.contains(
                "RBAC: bound (allowed by ClusterRoleBinding \"example-policies-service-accounts\""
            ),
            "{out}"
        );
        assert!(out.contains("The policy-approver controller sets Denied=True"), "{out}");
        assert_eq!(conditions(&dev, "ledger-tls"), "");
    }
);

both!(
    fn a_decided_request_states_the_recorded_decision_and_what_a_review_says_now(server) {
        // The policy approver runs here and decides what it can.
        let dev = server.start();
        prepare(&dev);
        create_as_service_account(&dev, "ledger-tls", 1);
        dev.ok(&[
            "wait",
            "--for=condition=Denied",
            "certificaterequest/ledger-tls",
            "-n",
            "payments",
            "--timeout=30s",
        ]);
        let (code, out, _) =
            certgate(&dev.kubeconfig, &["explain", "cr", "ledger-tls", "-n", "payments"]);
        assert_eq!(code, 1, "{out}");
        assert!(
            out.contains(r#"recorded decision: Denied (reason "policy.cert-manager.io": approver-policy's policy-approver controller) at "#)
                && out.contains(r#": No policy approved this request: [namespace-local-dns: spec.allowed.dnsNames.validations[0]"#),
            "{out}"
        );
        assert!(out.contains("A decided request is never reviewed again"), "{out}");
        assert!(out.contains("controller would set Denied=True"), "{out}");

        // alice is bound to no policy: the controller leaves her request pending; bob approves it
        // by hand. Explain names the recorded approval and what a review would say now.
        create_as_alice(&dev, "alice-tls", 0);
        dev.grant_bob_approve_on_cluster_issuers();
        let bob = dev.kubeconfig_for("bob-token");
        assert_eq!(
            dev.certgate(&bob, &["approve", "alice-tls", "-n", "payments"]).0,
            0,
            "bob approves"
        );
        let (code, out, _) =
            certgate(&dev.kubeconfig, &["explain", "crs", "alice-tls", "-n", "payments"]);
        assert_eq!(code, 0, "a recorded approval counts: {out}");
        assert!(
            out.contains(r#"recorded decision: Approved (reason "KubectlCertManager": set by hand"#)
                && out.contains(r#": manually approved by "certgate""#),
            "{out}"
        );
        assert!(
            out.contains("Unprocessed   No CertificateRequestPolicies bound or applicable"),
            "{out}"
        );
    }
);

both!(
    fn a_missing_request_a_forbidden_caller_and_an_unreachable_server_are_one_line_errors(server) {
        let dev = server.start_with(&[WITHOUT_APPROVER]);
        prepare(&dev);
        let (code, out, err) =
            certgate(&dev.kubeconfig, &["explain", "certificaterequest", "missing", "-n", "payments"]);
        assert_eq!((code, out.as_str()), (2, ""));
        assert_eq!(
            err,
            "error: CertificateRequest \"missing\" not found in namespace \"payments\": check the name and -n/--namespace ('kubectl get certificaterequests -n payments' lists them)\n"
        );

        // bob may read requests (group approvers) but not list policies.
        create_as_alice(&dev, "alice-tls", 0);
        let bob = dev.kubeconfig_for("bob-token");
        let (code, out, err) = certgate(&bob, &["explain", "cr", "alice-tls", "-n", "payments"]);
        assert_eq!((code, out.as_str()), (2, ""));
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: cannot list CertificateRequestPolicies: ")
                && err.contains("forbidden")
                && err.trim_end().ends_with(
                    "explain needs list on certificaterequestpolicies.policy.cert-manager.io"
                ),
            "{err}"
        );

        // Nothing listens on port 1.
        let admin = std::fs::read_to_string(&dev.kubeconfig).unwrap();
        let start = admin.find("server: ").unwrap() + "server: ".len();
        let end = start + admin[start..].find('\n').unwrap();
        let unreachable = dev.kubeconfig.with_file_name("kubeconfig-unreachable");
        std::fs::write(
            &unreachable,
            format!("{}https://127.0.0.1:1{}", &admin[..start], &admin[end..]),
        )
        .unwrap();
        let (code, out, err) =
            certgate(&unreachable, &["explain", "cr", "alice-tls", "-n", "payments"]);
        assert_eq!((code, out.as_str()), (2, ""));
        // kubectl's words, as every cluster command prints them (shared::unreachable).
        assert_eq!(
            err,
            "error: The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n"
        );

        // Usage errors come before any API call.
        let (code, _, err) = certgate(&dev.kubeconfig, &["explain", "pods", "alice-tls"]);
        assert_eq!(code, 2);
        assert!(err.starts_with("error: explain only knows CertificateRequests"), "{err}");
    }
);

both!(
    fn json_output_parses_and_has_the_decision_the_trace_and_the_recorded_condition(server) {
        let dev = server.start_with(&[WITHOUT_APPROVER]);
        prepare(&dev);
        create_as_alice(&dev, "alice-tls", 0);
        let (code, out, _) =
            certgate(&dev.kubeconfig, &["explain", "cr/alice-tls", "-n", "payments", "-o", "json"]);
        assert_eq!(code, 1, "{out}");
        let json: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
        assert_eq!(json["namespace"], "payments");
        assert_eq!(json["name"], "alice-tls");
        assert_eq!(json["decision"], "Unprocessed");
        assert_eq!(json["message"], "No CertificateRequestPolicies bound or applicable");
        assert!(json.get("recorded").is_none(), "{out}");
        let policy = &json["trace"]["policies"][0];
        assert_eq!(policy["name"], POLICY);
        assert_eq!(policy["outcome"], "notBound");
        assert_eq!(policy["binding"]["accessReview"]["user"], "alice");
        assert_eq!(policy["binding"]["grant"]["commands"].as_array().map(Vec::len), Some(2));
        assert_eq!(
            json["policies"][0],
            serde_json::json!({
                "name": POLICY,
                "ready": true,
                "message": "CertificateRequestPolicy is ready for approval evaluation"
            })
        );

        dev.grant_bob_approve_on_cluster_issuers();
        let bob = dev.kubeconfig_for("bob-token");
        assert_eq!(dev.certgate(&bob, &["approve", "alice-tls", "-n", "payments"]).0, 0);
        let (code, out, _) =
            certgate(&dev.kubeconfig, &["explain", "cr/alice-tls", "-n", "payments", "-o", "json"]);
        assert_eq!(code, 0, "{out}");
        let json: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
        assert_eq!(json["decision"], "Unprocessed");
        assert_eq!(json["recorded"]["type"], "Approved");
        assert_eq!(json["recorded"]["reason"], "KubectlCertManager");
        assert_eq!(json["recorded"]["message"], r#"manually approved by "certgate""#);
        // -o yaml is the same document.
        let (code, yaml, _) =
            certgate(&dev.kubeconfig, &["explain", "cr/alice-tls", "-n", "payments", "-o", "yaml"]);
        assert_eq!(code, 0, "{yaml}");
        let mut from_yaml = certgate_goyaml::from_yaml(&yaml).expect("one YAML document");
        let mut json = json;
        // The trace's access reviews are asked again, so only their shape is compared there.
        for document in [&mut from_yaml, &mut json] {
            document.as_object_mut().unwrap().remove("trace");
        }
        assert_eq!(from_yaml, json);
    }
);
