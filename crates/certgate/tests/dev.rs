//! End to end: `certgate dev` (the sandbox API server with certgate's webhook registered in
//! it) driven by the real `kubectl`, as a user of a cluster with cert-manager would drive it.

use std::process::Command;

mod dev_support;
use dev_support::*;

#[test]
fn requests_carry_the_identity_of_whoever_created_them_and_keep_it() {
    let dev = Dev::start();
    dev.ok(&["apply", "-f", examples().join("namespaces.yaml").to_str().unwrap()]);
    dev.ok_with(&["apply", "-f", "-"], Some(REQUESTERS));

    dev.ok_with(
        &["create", "--as", "alice", "--as-group", "team-a", "-f", "-"],
        Some(&request("alice-tls")),
    );
    let identity = dev.ok(&[
        "get",
        "certificaterequest",
        "alice-tls",
        "-n",
        "payments",
        "-o",
        "jsonpath={.spec.username} {.spec.groups}",
    ]);
    assert_eq!(identity, r#"alice ["team-a","system:authenticated"]"#);

    // Nobody may change it afterwards, not even an admin.
    let refused = dev.fails(
        &[
            "patch",
            "certificaterequest",
            "alice-tls",
            "-n",
            "payments",
            "--type=merge",
            "-p",
            r#"{"spec":{"username":"mallory"}}"#,
        ],
        None,
    );
    assert!(
        refused.contains(r#"admission webhook "webhook.cert-manager.io" denied the request: "#)
            && refused
                .contains("spec.username: Forbidden: username identity cannot be changed once set"),
        "{refused}"
    );

    // An identity written by the client is replaced by the requester's at creation.
    let forged = request("forged-tls").replace("spec:\n", "spec:\n  username: mallory\n");
    dev.ok_with(&["create", "--as", "alice", "--as-group", "team-a", "-f", "-"], Some(&forged));
    assert_eq!(
        dev.ok(&[
            "get",
            "certificaterequest",
            "forged-tls",
            "-n",
            "payments",
            "-o",
            "jsonpath={.spec.username}"
        ]),
        "alice"
    );
}

#[test]
fn approving_needs_approve_on_the_signer() {
    let dev = Dev::start();
    dev.prepare_requests();
    dev.ok_with(
        &["create", "--as", "alice", "--as-group", "team-a", "-f", "-"],
        Some(&request("pending-tls")),
    );
    let approve = [
        "--token",
        "bob-token",
        "patch",
        "certificaterequest",
        "pending-tls",
        "-n",
        "payments",
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"conditions":[{"type":"Approved","status":"True","reason":"manual","message":"approved by bob"}]}}"#,
    ];
    // bob authenticates with the static token from the users file.
    assert_eq!(
        dev.ok(&[
            "--token",
            "bob-token",
            "auth",
            "whoami",
            "-o",
            "jsonpath={.status.userInfo.username}"
        ]),
        "bob"
    );
    let refused = dev.fails(&approve, None);
    assert!(
        refused.contains(
            r#"admission webhook "webhook.cert-manager.io" denied the request: status.conditions: Forbidden: user "bob" does not have permissions to set approved/denied conditions for issuer {internal-ca ClusterIssuer cert-manager.io}"#
        ),
        "{refused}"
    );
    let can_i = dev.kubectl(
        &[
            "auth",
            "can-i",
            "approve",
            "signers.cert-manager.io/clusterissuers.cert-manager.io/*",
            "--as",
            "bob",
        ],
        None,
    );
    assert_eq!(String::from_utf8_lossy(&can_i.stdout).trim(), "no");

    dev.grant_bob_approve_on_cluster_issuers();
    dev.ok(&approve);
    assert_eq!(
        dev.ok(&[
            "get",
            "certificaterequest",
            "pending-tls",
            "-n",
            "payments",
            "-o",
            "jsonpath={.status.conditions[0].type}"
        ]),
        "Approved"
    );
}

/// The rows of a `check`-style report: every line from the request table's header on,
/// sorted (the demo reads objects back in key order, `check` keeps file order).
fn report_rows(output: &str) -> Vec<String> {
    let start = output.find("NAMESPACE").expect("a request table");
    let mut rows: Vec<String> = output[start..].lines().map(str::to_owned).collect();
    rows.sort();
    rows
}

#[test]
fn the_demo_decides_the_examples_in_the_sandbox_as_check_does_offline() {
    let demo =
        Command::new(env!("CARGO_BIN_EXE_certgate")).args(["dev", "--demo"]).output().unwrap();
    let printed = String::from_utf8(demo.stdout).unwrap();
    assert!(demo.status.success(), "{printed}{}", String::from_utf8_lossy(&demo.stderr));
    // Each request was created by the identity it names, and the webhook stamped it.
    assert!(
        printed.contains(
            "CertificateRequest payments/laptop-tls created by jane@example.com; webhook.cert-manager.io stamped username jane@example.com"
        ),
        "{printed}"
    );
    let check = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["check", "-f"])
        .arg(examples())
        .output()
        .unwrap();
    let offline = String::from_utf8(check.stdout).unwrap();
    assert_eq!(report_rows(&printed), report_rows(&offline));
    assert!(
        printed.contains("7 CertificateRequests: 2 Approved, 3 Denied, 2 Unprocessed"),
        "{printed}"
    );
}

#[test]
fn certgate_approve_and_deny_work_like_cmctl_and_respect_signer_rbac() {
    let dev = Dev::start();
    dev.prepare_requests();
    for name in ["first-tls", "second-tls"] {
        dev.ok_with(
            &["create", "--as", "alice", "--as-group", "team-a", "-f", "-"],
            Some(&request(name)),
        );
    }
    let bob = dev.kubeconfig_for("bob-token");
    assert_eq!(
        dev.certgate(&bob, &["approve", "first-tls", "-n", "payments"]),
        (1, "Error from server (Forbidden): admission webhook \"webhook.cert-manager.io\" denied the request: status.conditions: Forbidden: user \"bob\" does not have permissions to set approved/denied conditions for issuer {internal-ca ClusterIssuer cert-manager.io}\n".to_owned())
    );
    dev.grant_bob_approve_on_cluster_issuers();

    assert_eq!(
        dev.certgate(&bob, &["approve", "first-tls", "-n", "payments"]),
        (0, "Approved CertificateRequest 'payments/first-tls'\n".to_owned())
    );
    assert_eq!(
        dev.ok(&[
            "get",
            "certificaterequest",
            "first-tls",
            "-n",
            "payments",
            "-o",
            "jsonpath={.status.conditions[0].reason}/{.status.conditions[0].message}"
        ]),
        r#"KubectlCertManager/manually approved by "certgate""#
    );
    // Decided requests are refused by both commands.
    for command in ["approve", "deny"] {
        assert_eq!(
            dev.certgate(&bob, &[command, "first-tls", "-n", "payments"]),
            (1, "error: CertificateRequest is already approved\n".to_owned())
        );
    }
    assert_eq!(
        dev.certgate(
            &bob,
            &[
                "deny",
                "second-tls",
                "-n",
                "payments",
                "--reason",
                "SecurityReview",
                "--message",
                "not this one"
            ]
        ),
        (0, "Denied CertificateRequest 'payments/second-tls'\n".to_owned())
    );
    assert_eq!(
        dev.certgate(&bob, &["approve", "second-tls", "-n", "payments"]),
        (1, "error: CertificateRequest is already denied\n".to_owned())
    );
    assert_eq!(
        dev.certgate(&bob, &["approve", "missing", "-n", "payments"]),
        (1, "Error from server (NotFound): certificaterequests.cert-manager.io \"missing\" not found\n".to_owned())
    );
    // Checked before any API call.
    assert_eq!(
        dev.certgate(&bob, &["deny", "-n", "payments"]),
        (
            1,
            "error: the name of the CertificateRequest to deny has to be provided as an argument\n"
                .to_owned()
        )
    );
}

#[test]
fn the_readiness_controller_marks_policies_ready_or_not_with_the_webhooks_reasons() {
    // Without the webhook, an invalid policy reaches the store, as in a cluster where the
    // webhook was missing; the controller then reports why it cannot be evaluated.
    let dev = Dev::start_with(&["--no-webhook"]);
    dev.ok(&["apply", "-f", examples().join("dns/policy.yaml").to_str().unwrap()]);
    dev.ok_with(
        &["apply", "-f", "-"],
        Some(
            "apiVersion: policy.cert-manager.io/v1alpha1\nkind: CertificateRequestPolicy\nmetadata:\n  name: no-selector\n\
             spec:\n  allowed:\n    dnsNames:\n      values: [\"*\"]\n  selector: {}\n",
        ),
    );
    let wait = |condition: &str, name: &str| {
        dev.ok(&[
            "wait",
            &format!("--for=condition={condition}"),
            &format!("certificaterequestpolicy/{name}"),
            "--timeout=30s",
        ])
    };
    wait("Ready", "namespace-local-dns");
    wait("Ready=false", "no-selector");
    assert_eq!(
        dev.ok(&["get", "certificaterequestpolicy", "namespace-local-dns", "-o", "jsonpath={.status.conditions[0].reason} {.status.conditions[0].observedGeneration} {.metadata.generation}"]),
        "Ready 1 1"
    );
    let message = dev.ok(&[
        "get",
        "certificaterequestpolicy",
        "no-selector",
        "-o",
        "jsonpath={.status.conditions[0].reason}: {.status.conditions[0].message}",
    ]);
    assert!(
        message.starts_with("NotReady: CertificateRequestPolicy is not ready for approval evaluation: spec.selector: Required value: one of issuerRef or namespace must be defined"),
        "{message}"
    );
    // Fixing the policy makes it ready, at its new generation.
    dev.ok(&[
        "patch",
        "certificaterequestpolicy",
        "no-selector",
        "--type=merge",
        "-p",
        r#"{"spec":{"selector":{"issuerRef":{}}}}"#,
    ]);
    wait("Ready", "no-selector");
    assert_eq!(
        dev.ok(&[
            "get",
            "certificaterequestpolicy",
            "no-selector",
            "-o",
            "jsonpath={.status.conditions[0].observedGeneration}"
        ]),
        "2"
    );
    let reasons =
        dev.ok(&["get", "events.events.k8s.io", "-A", "-o", "jsonpath={.items[*].reason}"]);
    assert!(reasons.contains("NotReady") && reasons.contains("Ready"), "{reasons}");
}
