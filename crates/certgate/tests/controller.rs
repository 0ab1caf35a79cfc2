//! End to end: certgate's controllers deciding CertificateRequests, driven by the real
//! `kubectl` — as the sandbox runs them (`certgate dev`; on the real kube-apiserver, a
//! `certgate controller` the harness starts), and as standalone `certgate controller`
//! processes with leader election, restarts and metrics. Every test runs against both the
//! sandbox and a real kube-apiserver (`both!`, docs/real-cluster.md).

mod dev_support;
use dev_support::issuance::eventually;
use dev_support::*;

/// The decision approver-policy writes for a request the DNS story's policy approves.
const APPROVED_BY_DNS_POLICY: &str = r#"Approved=True policy.cert-manager.io: Approved by CertificateRequestPolicy: "namespace-local-dns""#;

/// `<type>=<status> <reason>: <message>` of the request's Approved or Denied condition.
fn decision(dev: &Dev, namespace: &str, name: &str) -> Option<String> {
    let text = dev.ok(&[
        "get",
        "certificaterequest",
        name,
        "-n",
        namespace,
        "-o",
        r#"jsonpath={range .status.conditions[?(@.type=="Approved")]}{.type}={.status} {.reason}: {.message}{end}{range .status.conditions[?(@.type=="Denied")]}{.type}={.status} {.reason}: {.message}{end}"#,
    ]);
    (!text.is_empty()).then_some(text)
}

/// The reasons of the events about one object, in the order listed.
fn event_reasons(dev: &Dev, namespace: &str, name: &str) -> Vec<String> {
    events(dev, namespace, name).into_iter().map(|(reason, _)| reason).collect()
}

/// (reason, `<note> <type> <reportingController>`) of the events about one object.
fn events(dev: &Dev, namespace: &str, name: &str) -> Vec<(String, String)> {
    dev.ok(&[
        "get",
        "events.events.k8s.io",
        "-n",
        namespace,
        "-o",
        r#"jsonpath={range .items[*]}{.regarding.name}|{.reason}|{.note} {.type} {.reportingController}{"\n"}{end}"#,
    ])
    .lines()
    .filter_map(|line| {
        let mut fields = line.splitn(3, '|');
        let regarding = fields.next()?;
        let reason = fields.next()?;
        let details = fields.next()?;
        (regarding == name).then(|| (reason.to_owned(), details.to_owned()))
    })
    .collect()
}

/// Who may create requests (REQUESTERS) plus service accounts, which the examples' RBAC binds
/// to the policies.
const SERVICE_ACCOUNT_REQUESTERS: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: service-account-requesters\n\
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: requester}\n\
subjects:\n- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:serviceaccounts}\n";

/// The examples' namespaces, RBAC and DNS policy, and requesters.
fn apply_dns_story(dev: &Dev) {
    dev.prepare_requests();
    dev.ok_with(&["apply", "-f", "-"], Some(SERVICE_ACCOUNT_REQUESTERS));
    for file in ["rbac.yaml", "dns/policy.yaml"] {
        dev.ok(&["apply", "-f", examples().join(file).to_str().unwrap()]);
    }
}

/// Creates `request(name)` with `dns` as its DNS names, as the service account payments:api.
fn create_as_service_account(dev: &Dev, name: &str, dns: Option<&[&str]>) {
    let mut manifest = request(name);
    if let Some(names) = dns {
        // The CSR's names are what counts; the examples' CSRs carry theirs, so a request with
        // other names uses another example's CSR (see examples/README.md).
        manifest = request_with_csr_of(name, names);
    }
    dev.create_as(
        "system:serviceaccount:payments:api",
        &["system:serviceaccounts", "system:serviceaccounts:payments"],
        &manifest,
    );
}

/// A request named `name` carrying the CSR of the DNS example whose names are `names`.
fn request_with_csr_of(name: &str, names: &[&str]) -> String {
    let all = std::fs::read_to_string(examples().join("dns/requests.yaml")).unwrap();
    let example = all
        .split("\n---")
        .find(|document| names.iter().all(|n| document.contains(n)))
        .unwrap_or_else(|| panic!("no DNS example requests {names:?}"));
    let csr = example.lines().find_map(|l| l.trim().strip_prefix("request: ")).unwrap();
    let first = all.lines().find_map(|l| l.trim().strip_prefix("request: ")).unwrap();
    request(name).replace(first, csr)
}

both!(
    fn the_namespace_dns_story_is_approved_and_denied_with_upstreams_messages(server) {
        let dev = server.start();
        apply_dns_story(&dev);
        create_as_service_account(&dev, "api-tls", None);
        create_as_service_account(&dev, "ledger-tls", Some(&["ledger.legacy-payments.svc"]));
        assert_eq!(
            eventually("api-tls to be decided", || decision(&dev, "payments", "api-tls")),
            APPROVED_BY_DNS_POLICY
        );
        assert_eq!(
            eventually("ledger-tls to be decided", || decision(&dev, "payments", "ledger-tls")),
            r#"Denied=True policy.cert-manager.io: No policy approved this request: [namespace-local-dns: spec.allowed.dnsNames.validations[0]: Invalid value: "ledger.legacy-payments.svc": DNS names must be services of the request's own namespace]"#
        );
        assert!(event_reasons(&dev, "payments", "api-tls").contains(&"Approved".to_owned()));
        assert!(event_reasons(&dev, "payments", "ledger-tls").contains(&"Denied".to_owned()));
    }
);

both!(
    fn an_unbound_requester_stays_unprocessed_until_a_rolebinding_grants_use(server) {
        let dev = server.start();
        apply_dns_story(&dev);
        // alice (group team-a) may create requests but is bound to no policy.
        dev.create_as("alice", &["team-a"], &request("alice-tls"));
        eventually("the Unprocessed event", || {
            event_reasons(&dev, "payments", "alice-tls")
                .contains(&"Unprocessed".to_owned())
                .then_some(())
        });
        assert_eq!(decision(&dev, "payments", "alice-tls"), None);
        let unprocessed: Vec<String> = events(&dev, "payments", "alice-tls")
            .into_iter()
            .filter(|(reason, _)| reason == "Unprocessed")
            .map(|(_, details)| details)
            .collect();
        assert_eq!(
            unprocessed[0],
            "Request is not applicable for any policy so ignoring Normal policy.cert-manager.io"
        );

        // Granting `use` in the request's namespace re-queues it; no other change is needed.
        dev.ok(&[
            "create",
            "rolebinding",
            "alice-uses-policies",
            "-n",
            "payments",
            "--clusterrole=example-policies-user",
            "--user=alice",
        ]);
        assert_eq!(
            eventually("alice-tls to be approved", || decision(&dev, "payments", "alice-tls")),
            APPROVED_BY_DNS_POLICY
        );
    }
);

both!(
    fn a_policy_edit_re_evaluates_pending_requests(server) {
        let dev = server.start();
        apply_dns_story(&dev);
        // The policy selects another issuer: nothing applies yet.
        dev.ok(&[
            "patch",
            "certificaterequestpolicy",
            "namespace-local-dns",
            "--type=merge",
            "-p",
            r#"{"spec":{"selector":{"issuerRef":{"name":"other-ca"}}}}"#,
        ]);
        create_as_service_account(&dev, "api-tls", None);
        eventually("the Unprocessed event", || {
            event_reasons(&dev, "payments", "api-tls").contains(&"Unprocessed".to_owned()).then_some(())
        });
        assert_eq!(decision(&dev, "payments", "api-tls"), None);

        dev.ok(&[
            "patch",
            "certificaterequestpolicy",
            "namespace-local-dns",
            "--type=merge",
            "-p",
            r#"{"spec":{"selector":{"issuerRef":{"name":"internal-ca"}}}}"#,
        ]);
        assert_eq!(
            eventually("api-tls to be approved", || decision(&dev, "payments", "api-tls")),
            APPROVED_BY_DNS_POLICY
        );
    }
);

both!(
    fn labelling_a_namespace_re_evaluates_its_pending_requests(server) {
        let dev = server.start();
        dev.prepare_requests();
        dev.ok_with(&["apply", "-f", "-"], Some(SERVICE_ACCOUNT_REQUESTERS));
        for file in ["rbac.yaml", "spiffe/policy.yaml"] {
            dev.ok(&["apply", "-f", examples().join(file).to_str().unwrap()]);
        }
        // The SPIFFE policy selects namespaces labelled for it; legacy-payments is not.
        let all = std::fs::read_to_string(examples().join("spiffe/requests.yaml")).unwrap();
        let worker = all.split("\n---").find(|d| d.contains("name: worker-svid")).unwrap();
        dev.create_as(
            "system:serviceaccount:legacy-payments:worker",
            &["system:serviceaccounts", "system:serviceaccounts:legacy-payments"],
            worker,
        );
        eventually("the Unprocessed event", || {
            event_reasons(&dev, "legacy-payments", "worker-svid")
                .contains(&"Unprocessed".to_owned())
                .then_some(())
        });
        assert_eq!(decision(&dev, "legacy-payments", "worker-svid"), None);

        dev.ok(&["label", "namespace", "legacy-payments", "spiffe.example.org/enabled=true"]);
        assert_eq!(
            eventually("worker-svid to be approved", || decision(
                &dev,
                "legacy-payments",
                "worker-svid"
            )),
            r#"Approved=True policy.cert-manager.io: Approved by CertificateRequestPolicy: "spiffe-own-namespace""#
        );
    }
);

both!(
    fn the_builtin_approver_approves_as_cert_manager_does_when_enabled(server) {
        let dev = server.start_with(&["--controllers=builtin-approver"]);
        dev.prepare_requests();
        dev.create_as("alice", &["team-a"], &request("alice-tls"));
        assert_eq!(
            eventually("alice-tls to be approved", || decision(&dev, "payments", "alice-tls")),
            "Approved=True cert-manager.io: Certificate request has been approved by cert-manager.io"
        );
    }
);

both!(
    fn a_restarted_controller_does_not_decide_twice(server) {
        let dev = server.start_with(&["--controllers=-policy-approver,-policy-readiness"]);
        apply_dns_story(&dev);
        let first = ControllerProcess::start(&dev.kubeconfig, &[]);
        create_as_service_account(&dev, "api-tls", None);
        eventually("api-tls to be approved", || decision(&dev, "payments", "api-tls"));
        let version = |name: &str| {
            dev.ok(&[
                "get",
                "certificaterequest",
                name,
                "-n",
                "payments",
                "-o",
                "jsonpath={.metadata.resourceVersion}",
            ])
        };
        let decided_at = version("api-tls");
        let metrics = first.get("/metrics");
        assert!(
            metrics.contains(
                "certgate_controller_decisions_total{controller=\"policy-approver\",result=\"approved\"} 1\n"
            ),
            "{metrics}"
        );
        assert!(first.terminate().success(), "SIGTERM is a clean exit");

        let second = ControllerProcess::start(&dev.kubeconfig, &["--authorizer=local"]);
        create_as_service_account(&dev, "ledger-tls", Some(&["ledger.legacy-payments.svc"]));
        eventually("ledger-tls to be denied", || decision(&dev, "payments", "ledger-tls"));
        // The restarted controller listed api-tls again but left it alone.
        assert_eq!(version("api-tls"), decided_at);
        let approvals = event_reasons(&dev, "payments", "api-tls")
            .into_iter()
            .filter(|reason| reason == "Approved")
            .count();
        assert_eq!(approvals, 1);
        // Its approvals are declared at 0 when it starts, and stay there.
        let metrics = second.get("/metrics");
        assert!(
            metrics.contains(
                "certgate_controller_decisions_total{controller=\"policy-approver\",result=\"approved\"} 0\n"
            ),
            "{metrics}"
        );
    }
);

both!(
    fn two_replicas_elect_one_leader_and_the_standby_takes_over(server) {
        let dev = server.start_with(&["--controllers=-policy-approver,-policy-readiness"]);
        apply_dns_story(&dev);
        let one = ControllerProcess::start(&dev.kubeconfig, &[]);
        let two = ControllerProcess::start(&dev.kubeconfig, &[]);
        let one_leads = eventually("a leader", || match (one.is_leader(), two.is_leader()) {
            (true, true) => panic!("two leaders at once"),
            (true, false) => Some(true),
            (false, true) => Some(false),
            (false, false) => None,
        });
        let (leader, standby) = if one_leads { (one, two) } else { (two, one) };
        assert!(!lease_holder(&dev).is_empty());
        let ready = standby.get("/readyz");
        assert!(
            ready.lines().next().unwrap_or_default().ends_with(" 200 OK"),
            "a standby is ready: {ready}"
        );
        create_as_service_account(&dev, "api-tls", None);
        eventually("api-tls to be approved", || decision(&dev, "payments", "api-tls"));
        assert!(!standby.get("/metrics").contains("result=\"approved\""), "only the leader decides");

        // The leader resigns on SIGTERM; the standby takes over and decides new requests.
        let holder = lease_holder(&dev);
        assert!(leader.terminate().success());
        eventually("the standby to lead", || standby.is_leader().then_some(()));
        assert_ne!(lease_holder(&dev), holder);
        create_as_service_account(&dev, "ledger-tls", Some(&["ledger.legacy-payments.svc"]));
        eventually("ledger-tls to be denied", || decision(&dev, "payments", "ledger-tls"));
    }
);
