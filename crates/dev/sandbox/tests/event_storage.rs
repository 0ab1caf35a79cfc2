//! `events.k8s.io/v1` and core `v1` Events are one storage, as on kube-apiserver v1.37
//! (probed): an Event written through either version is read, listed and watched through
//! both, converted field by field, and each version selects by its own field names.

mod support;

use serde_json::{Value, json};
use support::Harness;

const EVENTS_K8S_IO: &str = "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata:\n  name: probe-event\n  namespace: default\n\
eventTime: \"2025-01-01T00:00:00.000000Z\"\nreportingController: example.com/probe\nreportingInstance: probe-1\n\
action: Probe\nreason: Probed\ntype: Normal\nnote: hello\n\
regarding: {kind: ConfigMap, name: probe, namespace: default, apiVersion: v1}\n";

const CORE: &str = "apiVersion: v1\nkind: Event\nmetadata:\n  name: core-event\n  namespace: default\n\
involvedObject: {kind: ConfigMap, name: probe2, namespace: default}\nreason: Seen\nmessage: from core\ntype: Warning\n\
source: {component: kubelet, host: node1}\nfirstTimestamp: \"2025-01-01T00:00:00Z\"\ncount: 3\n";

fn raw(h: &Harness, path: &str) -> Value {
    serde_json::from_str(&h.ok(&["get", "--raw", path])).unwrap()
}

fn create(h: &Harness, manifest: &str) {
    let output = h.kubectl_with_input(&["create", "-f", "-"], Some(manifest));
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn an_event_written_through_one_version_is_read_through_both() {
    let h = Harness::start();
    create(&h, EVENTS_K8S_IO);
    create(&h, CORE);

    let core = raw(&h, "/api/v1/namespaces/default/events/probe-event");
    assert_eq!(core["apiVersion"], "v1");
    assert_eq!(core["message"], "hello");
    assert_eq!(
        core["involvedObject"],
        json!({"kind": "ConfigMap", "name": "probe", "namespace": "default", "apiVersion": "v1"})
    );
    assert_eq!(core["reportingComponent"], "example.com/probe");
    assert_eq!((&core["source"], &core["firstTimestamp"]), (&json!({}), &Value::Null));

    let events = raw(&h, "/apis/events.k8s.io/v1/namespaces/default/events/core-event");
    assert_eq!(events["apiVersion"], "events.k8s.io/v1");
    assert_eq!(events["note"], "from core");
    assert_eq!(events["regarding"]["name"], "probe2");
    assert_eq!(events["deprecatedSource"], json!({"component": "kubelet", "host": "node1"}));
    assert_eq!(events["deprecatedCount"], 3);
    assert_eq!(events["eventTime"], Value::Null);
    // One object, one resourceVersion, whichever version reads it.
    let same = raw(&h, "/api/v1/namespaces/default/events/core-event");
    assert_eq!(same["metadata"], events["metadata"]);

    let names = |path: &str| -> Vec<String> {
        raw(&h, path)["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["metadata"]["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names("/api/v1/namespaces/default/events"), ["core-event", "probe-event"]);
    assert_eq!(
        names("/apis/events.k8s.io/v1/namespaces/default/events"),
        ["core-event", "probe-event"]
    );
    let printed = h.ok(&[
        "get",
        "events.v1.",
        "-o",
        r#"jsonpath={range .items[*]}{.metadata.name} {.reason} {.message}{"\n"}{end}"#,
    ]);
    assert_eq!(printed, "core-event Seen from core\nprobe-event Probed hello\n");

    // Deleting through one version deletes the one object.
    h.ok(&["delete", "events.v1.events.k8s.io", "core-event"]);
    assert_eq!(names("/api/v1/namespaces/default/events"), ["probe-event"]);
}

#[test]
fn each_version_selects_by_its_own_field_names() {
    let h = Harness::start();
    create(&h, EVENTS_K8S_IO);
    create(&h, CORE);
    let core = |selector: &str| {
        h.kubectl(&[
            "get",
            "--raw",
            &format!("/api/v1/namespaces/default/events?fieldSelector={selector}"),
        ])
    };
    let events = |selector: &str| {
        h.kubectl(&[
            "get",
            "--raw",
            &format!("/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector={selector}"),
        ])
    };
    let names = |output: std::process::Output| -> String {
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let list: Value = serde_json::from_slice(&output.stdout).unwrap();
        let names: Vec<&str> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["metadata"]["name"].as_str().unwrap())
            .collect();
        names.join(" ")
    };
    let refusal = |output: std::process::Output| String::from_utf8(output.stderr).unwrap();
    assert_eq!(names(events("regarding.name%3Dprobe")), "probe-event");
    assert_eq!(names(events("reportingController%3Dexample.com/probe")), "probe-event");
    assert_eq!(names(core("involvedObject.name%3Dprobe2")), "core-event");
    assert_eq!(names(core("reportingComponent%3Dexample.com/probe")), "probe-event");
    assert_eq!(names(core("source%3Dkubelet")), "core-event");
    assert_eq!(names(core("type%3DNormal")), "probe-event");
    for (output, field) in [
        (core("regarding.name%3Dprobe"), "regarding.name"),
        (events("involvedObject.name%3Dprobe"), "involvedObject.name"),
        (events("note%3Dhello"), "note"),
        (core("spec.x%3D1"), "spec.x"),
    ] {
        assert_eq!(
            refusal(output),
            format!("Error from server (BadRequest): field label not supported: {field}\n")
        );
    }
}

#[test]
fn watches_of_either_version_see_events_written_through_the_other() {
    let h = Harness::start();
    create(&h, EVENTS_K8S_IO);
    let from =
        h.ok(&["get", "events.v1.", "probe-event", "-o", "jsonpath={.metadata.resourceVersion}"]);
    create(&h, CORE);
    let watched = |path: &str| -> Value {
        let out = h.ok(&[
            "get",
            "--raw",
            &format!("{path}?watch=true&resourceVersion={from}&timeoutSeconds=1"),
        ]);
        serde_json::from_str(out.lines().next().expect("one event")).unwrap()
    };
    let events = watched("/apis/events.k8s.io/v1/namespaces/default/events");
    assert_eq!(events["type"], "ADDED");
    assert_eq!(events["object"]["apiVersion"], "events.k8s.io/v1");
    assert_eq!(events["object"]["note"], "from core");
    let core = watched("/api/v1/namespaces/default/events");
    assert_eq!(core["object"]["apiVersion"], "v1");
    assert_eq!(core["object"]["message"], "from core");
}

#[test]
fn events_k8s_io_creations_are_validated_more_strictly_than_core_ones() {
    let h = Harness::start();
    let refused = |manifest: &str| {
        let output = h.kubectl_with_input(&["create", "-f", "-"], Some(manifest));
        assert!(!output.status.success());
        String::from_utf8(output.stderr).unwrap()
    };
    // The same body: events.k8s.io/v1 also wants a time and a type.
    let body = "kind: Event\nmetadata:\n  name: bad\n  namespace: kube-public\nreason: R\n";
    assert_eq!(
        refused(&format!("apiVersion: events.k8s.io/v1\n{body}")),
        "The Event \"bad\" is invalid: \n\
         * involvedObject.namespace: Invalid value: \"\": does not match event.namespace\n\
         * eventTime: Required value\n\
         * type: Invalid value: \"\": has invalid value: \n"
    );
    assert_eq!(
        refused(&format!("apiVersion: v1\n{body}")),
        "The Event \"bad\" is invalid: involvedObject.namespace: Invalid value: \"\": does not match event.namespace\n"
    );
    // The deprecated fields must be unset in a new-style Event.
    assert_eq!(
        refused(
            "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: depr, namespace: default}\n\
             eventTime: \"2025-01-01T00:00:00.000000Z\"\nreportingController: example.com/probe\nreportingInstance: p\n\
             action: A\nreason: R\ntype: Normal\nregarding: {kind: ConfigMap, name: probe}\ndeprecatedCount: 4\n"
        ),
        "The Event \"depr\" is invalid: count: Invalid value: \"\": needs to be unset\n"
    );
}

/// Every field kube-apiserver maps between the versions (pkg/apis/events/v1/conversion.go and
/// the generated core conversions): `regarding`/`involvedObject`, `note`/`message`,
/// `reportingController`/`reportingComponent`, `deprecatedSource`/`source`, the deprecated
/// count and timestamps, and the fields both versions share by name.
#[test]
fn every_mapped_field_survives_a_write_through_either_version() {
    let h = Harness::start();
    create(
        &h,
        "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: full, namespace: default}\n\
         eventTime: \"2025-01-01T00:00:00.000000Z\"\nreportingController: example.com/full\nreportingInstance: full-1\n\
         action: Decide\nreason: Approved\ntype: Warning\nnote: approved by policy\n\
         regarding: {kind: CertificateRequest, name: req, namespace: default, uid: u-1, apiVersion: cert-manager.io/v1}\n\
         related: {kind: CertificateRequestPolicy, name: pol, apiVersion: policy.cert-manager.io/v1alpha1}\n\
         series: {count: 4, lastObservedTime: \"2025-01-01T00:00:09.000000Z\"}\n",
    );
    let core = raw(&h, "/api/v1/namespaces/default/events/full");
    let pick = |event: &Value, fields: &[&str]| -> Vec<Value> {
        fields.iter().map(|f| event[*f].clone()).collect()
    };
    assert_eq!(
        pick(
            &core,
            &[
                "involvedObject",
                "message",
                "reportingComponent",
                "reportingInstance",
                "action",
                "reason",
                "type",
                "eventTime",
                "series",
                "related",
                "source",
                "count",
                "firstTimestamp",
                "lastTimestamp",
            ]
        ),
        [
            json!({"kind": "CertificateRequest", "name": "req", "namespace": "default", "uid": "u-1", "apiVersion": "cert-manager.io/v1"}),
            json!("approved by policy"),
            json!("example.com/full"),
            json!("full-1"),
            json!("Decide"),
            json!("Approved"),
            json!("Warning"),
            json!("2025-01-01T00:00:00.000000Z"),
            json!({"count": 4, "lastObservedTime": "2025-01-01T00:00:09.000000Z"}),
            json!({"kind": "CertificateRequestPolicy", "name": "pol", "apiVersion": "policy.cert-manager.io/v1alpha1"}),
            json!({}),
            Value::Null,
            Value::Null,
            Value::Null,
        ]
    );

    // An old-style recorder's Event (core, with source, count and timestamps) read as
    // events.k8s.io: the deprecated fields carry them; nothing fills source from the
    // reporting controller or the other way round (the API server does not either).
    create(
        &h,
        "apiVersion: v1\nkind: Event\nmetadata: {name: legacy, namespace: default}\n\
         involvedObject: {kind: CertificateRequest, name: req, namespace: default}\n\
         reason: Denied\nmessage: no policy\ntype: Normal\nsource: {component: old-approver, host: node-1}\n\
         count: 2\nfirstTimestamp: \"2025-01-01T00:00:00Z\"\nlastTimestamp: \"2025-01-01T00:00:05Z\"\n\
         action: Deny\nrelated: {kind: Secret, name: s}\n",
    );
    let events = raw(&h, "/apis/events.k8s.io/v1/namespaces/default/events/legacy");
    assert_eq!(
        pick(
            &events,
            &[
                "regarding",
                "note",
                "deprecatedSource",
                "deprecatedCount",
                "deprecatedFirstTimestamp",
                "deprecatedLastTimestamp",
                "reason",
                "type",
                "action",
                "related",
                "eventTime",
                "reportingController",
                "series",
            ]
        ),
        [
            json!({"kind": "CertificateRequest", "name": "req", "namespace": "default"}),
            json!("no policy"),
            json!({"component": "old-approver", "host": "node-1"}),
            json!(2),
            json!("2025-01-01T00:00:00Z"),
            json!("2025-01-01T00:00:05Z"),
            json!("Denied"),
            json!("Normal"),
            json!("Deny"),
            json!({"kind": "Secret", "name": "s"}),
            Value::Null,
            Value::Null,
            Value::Null,
        ]
    );

    // An update through the core API (how an old recorder bumps a repeat) is what the other
    // version reads next.
    h.ok(&[
        "patch",
        "events.v1.",
        "legacy",
        "--type=merge",
        "-p",
        r#"{"count":3,"message":"still no policy"}"#,
    ]);
    let events = raw(&h, "/apis/events.k8s.io/v1/namespaces/default/events/legacy");
    assert_eq!(
        (&events["deprecatedCount"], &events["note"]),
        (&json!(3), &json!("still no policy"))
    );
}
