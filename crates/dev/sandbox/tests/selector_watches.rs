//! Watches with a label or field selector see objects leave and enter their selection, as
//! kube-apiserver's watch cache reports it (probed on v1.37): an update that moves an object
//! out is `DELETED` with the object as it was before the update and the update's
//! resourceVersion, one that moves it in is `ADDED`, and updates outside are not sent.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::Value;
use support::Harness;

/// A raw watch's events, read as they come; the watch is stopped when dropped.
struct Events {
    child: Child,
    lines: Receiver<String>,
}

impl Events {
    fn start(h: &Harness, path: &str) -> Events {
        let mut child = Command::new("kubectl")
            .arg("--kubeconfig")
            .arg(&h.kubeconfig)
            .args(["get", "--raw", path])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Events { child, lines }
    }

    /// The next event, within a minute (bounds the test, asserts nothing about time).
    fn next(&self) -> Value {
        let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("no event in a minute");
        serde_json::from_str(&line).unwrap()
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn summary(event: &Value) -> String {
    let object = &event["object"];
    format!(
        "{} {} team={} rv={}",
        event["type"].as_str().unwrap_or_default(),
        object["metadata"]["name"].as_str().unwrap_or_default(),
        object["metadata"]["labels"]["team"].as_str().unwrap_or("-"),
        object["metadata"]["resourceVersion"].as_str().unwrap_or_default(),
    )
}

fn resource_version(h: &Harness, args: &[&str]) -> String {
    let mut args = args.to_vec();
    args.extend(["-o", "jsonpath={.metadata.resourceVersion}"]);
    h.ok(&args)
}

#[test]
fn a_label_selector_watch_sees_objects_leave_and_enter_its_selection() {
    let h = Harness::start();
    h.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\n  labels: {team: a}\n");
    let from = resource_version(&h, &["get", "cm", "watched"]);
    // Replayed from the write before the changes: nothing races the watch's start.
    let events = Events::start(
        &h,
        &format!(
            "/api/v1/namespaces/default/configmaps?watch=true&labelSelector=team%3Da&resourceVersion={from}"
        ),
    );
    h.ok(&["label", "cm", "watched", "team=b", "--overwrite"]);
    let left = resource_version(&h, &["get", "cm", "watched"]);
    h.ok(&["annotate", "cm", "watched", "outside=1"]);
    h.ok(&["create", "cm", "entering"]);
    h.ok(&["label", "cm", "entering", "team=a"]);
    let entered = resource_version(&h, &["get", "cm", "entering"]);
    h.ok(&["annotate", "cm", "entering", "inside=1"]);
    let inside = resource_version(&h, &["get", "cm", "entering"]);
    h.ok(&["delete", "cm", "watched", "entering"]);

    let seen: Vec<String> = (0..4).map(|_| summary(&events.next())).collect();
    assert_eq!(
        seen,
        [
            // The object as it was (still team=a), at the version that moved it out.
            format!("DELETED watched team=a rv={left}"),
            format!("ADDED entering team=a rv={entered}"),
            format!("MODIFIED entering team=a rv={inside}"),
            // `watched` was deleted outside the selection: nothing about it.
            format!("DELETED entering team=a rv={}", inside.parse::<u64>().unwrap() + 2),
        ]
    );
}

#[test]
fn a_field_selector_watch_on_a_selectable_field_sees_objects_leave_and_enter() {
    let h = Harness::start();
    h.apply(support_crd());
    h.ok(&["wait", "--for=condition=Established", "crd/widgets.probe.example.com"]);
    h.apply("apiVersion: probe.example.com/v1\nkind: Widget\nmetadata: {name: one}\nspec: {color: red}\n");
    let from = resource_version(&h, &["get", "widget", "one"]);
    let events = Events::start(
        &h,
        &format!(
            "/apis/probe.example.com/v1/namespaces/default/widgets?watch=true&fieldSelector=spec.color%3Dred&resourceVersion={from}"
        ),
    );
    for color in ["blue", "green", "red"] {
        h.ok(&[
            "patch",
            "widget",
            "one",
            "--type=merge",
            "-p",
            &format!(r#"{{"spec":{{"color":"{color}"}}}}"#),
        ]);
    }
    let kinds: Vec<(String, String)> = (0..2)
        .map(|_| events.next())
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["object"]["spec"]["color"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    // Leaving: the object as it was (red); blue to green is outside; entering again: ADDED.
    assert_eq!(
        kinds,
        [("DELETED".to_owned(), "red".to_owned()), ("ADDED".to_owned(), "red".to_owned())]
    );
}

fn support_crd() -> &'static str {
    "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.probe.example.com}\n\
     spec:\n  group: probe.example.com\n  scope: Namespaced\n  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}\n\
     \x20 versions:\n  - name: v1\n    served: true\n    storage: true\n    selectableFields: [{jsonPath: .spec.color}]\n\
     \x20   schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n\
     \x20           properties: {color: {type: string}}\n"
}
