//! End to end: the events certgate's policy-approver writes through `events.k8s.io/v1` are
//! core `v1` Events too (one storage in the sandbox, as in kube-apiserver), so the real
//! `kubectl describe certificaterequest`, which reads core Events by field selector, shows the
//! approver's decision under "Events:".

use std::time::{Duration, Instant};

mod dev_support;
use dev_support::*;

/// Generous: the controllers react within milliseconds, but CI machines are shared.
const DEADLINE: Duration = Duration::from_secs(60);

/// Who may create requests, plus service accounts, which the examples' RBAC binds to the
/// policies.
const SERVICE_ACCOUNT_REQUESTERS: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: service-account-requesters\n\
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: requester}\n\
subjects:\n- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: system:serviceaccounts}\n";

#[test]
fn kubectl_describe_shows_the_approvers_event() {
    let dev = Dev::start();
    dev.prepare_requests();
    dev.ok_with(&["apply", "-f", "-"], Some(SERVICE_ACCOUNT_REQUESTERS));
    for file in ["rbac.yaml", "dns/policy.yaml"] {
        dev.ok(&["apply", "-f", examples().join(file).to_str().unwrap()]);
    }
    dev.create_as(
        "system:serviceaccount:payments:api",
        &["system:serviceaccounts", "system:serviceaccounts:payments"],
        &request("api-tls"),
    );

    // The approver writes its decision, then its event; describe lists the event once stored.
    let start = Instant::now();
    let described = loop {
        let described = dev.ok(&["describe", "certificaterequest", "api-tls", "-n", "payments"]);
        if described
            .lines()
            .any(|line| line.trim_start().starts_with("Normal") && line.contains("Approved"))
        {
            break described;
        }
        assert!(start.elapsed() < DEADLINE, "no Approved event in describe:\n{described}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let events = described.split_once("\nEvents:").map(|(_, e)| e).expect("an Events section");
    let header = events.lines().find(|l| l.contains("Reason")).expect("the events table header");
    for column in ["Type", "Reason", "Age", "From", "Message"] {
        assert!(header.contains(column), "{header}");
    }
    let row = events
        .lines()
        .find(|line| line.trim_start().starts_with("Normal") && line.contains("Approved"))
        .unwrap();
    // The events.k8s.io note is the core message; reportingController is what "From" shows.
    let note = dev.ok(&[
        "get",
        "events.events.k8s.io",
        "-n",
        "payments",
        "--field-selector",
        "regarding.name=api-tls,reason=Approved",
        "-o",
        "jsonpath={.items[0].note}|{.items[0].reportingController}",
    ]);
    let (note, controller) = note.split_once('|').unwrap();
    assert!(!note.is_empty() && !controller.is_empty(), "{note}|{controller}");
    assert!(row.contains(controller), "From is the reporting controller: {row}");
    assert!(row.contains(note.get(..40.min(note.len())).unwrap()), "Message is the note: {row}");
}
