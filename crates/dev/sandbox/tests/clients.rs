//! kube-rs clients against the sandbox: watches deliver every change in order and resume
//! from a resourceVersion; a reflector stays in sync under many rapid writes.

mod support;

use std::collections::BTreeMap;
use std::time::Duration;

use certgate_sandbox::SandboxOptions;
use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, DeleteParams, PostParams, WatchEvent, WatchParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::{WatchStreamExt, reflector, watcher};
use support::Harness;

fn client(h: &Harness) -> kube::Client {
    h.runtime.block_on(async {
        let kubeconfig = Kubeconfig::read_from(&h.kubeconfig).unwrap();
        let config =
            kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
                .await
                .unwrap();
        kube::Client::try_from(config).unwrap()
    })
}

fn config_map(name: &str, value: &str) -> ConfigMap {
    ConfigMap {
        metadata: kube::api::ObjectMeta { name: Some(name.to_owned()), ..Default::default() },
        data: Some(BTreeMap::from([("v".to_owned(), value.to_owned())])),
        ..Default::default()
    }
}

#[test]
fn watches_deliver_every_change_in_order_and_resume() {
    let h = Harness::start();
    let client = client(&h);
    h.runtime.block_on(async move {
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let start = api.list(&Default::default()).await.unwrap().metadata.resource_version.unwrap();
        let mut stream = api.watch(&WatchParams::default(), &start).await.unwrap().boxed();
        api.create(&PostParams::default(), &config_map("a", "1")).await.unwrap();
        let mut changed = config_map("a", "2");
        changed.metadata.resource_version = None;
        api.replace("a", &PostParams::default(), &{
            let mut current = api.get("a").await.unwrap();
            current.data = changed.data.clone();
            current
        })
        .await
        .unwrap();
        api.delete("a", &DeleteParams::default()).await.unwrap();

        let mut seen = Vec::new();
        let mut versions = Vec::new();
        while seen.len() < 3 {
            let event = tokio::time::timeout(Duration::from_secs(10), stream.next())
                .await
                .unwrap()
                .unwrap()
                .unwrap();
            let (kind, object) = match event {
                WatchEvent::Added(o) => ("ADDED", o),
                WatchEvent::Modified(o) => ("MODIFIED", o),
                WatchEvent::Deleted(o) => ("DELETED", o),
                other => panic!("unexpected {other:?}"),
            };
            versions.push(object.metadata.resource_version.unwrap().parse::<u64>().unwrap());
            seen.push((kind, object.data.unwrap()["v"].clone()));
        }
        assert_eq!(
            seen,
            [("ADDED", "1".to_owned()), ("MODIFIED", "2".to_owned()), ("DELETED", "2".to_owned())]
        );
        assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");

        // Resuming from the first event's version replays the two after it.
        let mut resumed =
            api.watch(&WatchParams::default(), &versions[0].to_string()).await.unwrap().boxed();
        let mut replayed = Vec::new();
        while replayed.len() < 2 {
            match tokio::time::timeout(Duration::from_secs(10), resumed.next())
                .await
                .unwrap()
                .unwrap()
                .unwrap()
            {
                WatchEvent::Modified(_) => replayed.push("MODIFIED"),
                WatchEvent::Deleted(_) => replayed.push("DELETED"),
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(replayed, ["MODIFIED", "DELETED"]);
    });
}

#[test]
fn a_reflector_stays_in_sync_under_a_thousand_rapid_writes() {
    let h = Harness::start();
    let client = client(&h);
    h.runtime.block_on(async move {
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let (reader, writer) = reflector::store();
        let stream = reflector(writer, watcher(api.clone(), watcher::Config::default()))
            .applied_objects()
            .try_for_each(|_| async { Ok(()) });
        let watching = tokio::spawn(stream);
        reader.wait_until_ready().await.unwrap();
        for i in 0..1000 {
            let name = format!("cm-{}", i % 100);
            let value = i.to_string();
            match api.get_opt(&name).await.unwrap() {
                None => drop(
                    api.create(&PostParams::default(), &config_map(&name, &value)).await.unwrap(),
                ),
                Some(mut current) => {
                    current.data = config_map(&name, &value).data;
                    api.replace(&name, &PostParams::default(), &current).await.unwrap();
                }
            }
        }
        let expected: BTreeMap<String, String> = api
            .list(&Default::default())
            .await
            .unwrap()
            .items
            .into_iter()
            .map(|cm| (cm.metadata.name.unwrap(), cm.data.unwrap()["v"].clone()))
            .collect();
        assert_eq!(expected.len(), 100);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let cached: BTreeMap<String, String> = reader
                .state()
                .iter()
                .map(|cm| {
                    (cm.metadata.name.clone().unwrap(), cm.data.clone().unwrap()["v"].clone())
                })
                .collect();
            if cached == expected {
                break;
            }
            assert!(tokio::time::Instant::now() < deadline, "the reflector did not catch up");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        watching.abort();
    });
}

#[test]
fn a_restart_with_a_data_dir_keeps_objects_and_versions() {
    let data = tempfile::tempdir().unwrap();
    let before = {
        let h = Harness::start_with(Some(data.path().to_owned()));
        h.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\ndata:\n  a: \"1\"\n");
        h.ok(&["get", "cm", "kept", "-o", "json"])
    };
    let h = Harness::start_with(Some(data.path().to_owned()));
    let after = h.ok(&["get", "cm", "kept", "-o", "json"]);
    assert_eq!(before, after);
    // Restored CRDs are served again.
    h.ok(&["get", "certificaterequestpolicies"]);
}

/// The next item of a watch stream, failing the test when none comes in 10 s.
async fn next_event<S: futures_util::Stream + Unpin>(stream: &mut S) -> S::Item {
    tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("no watch event within 10 s")
        .expect("the watch ended")
}

/// A bookmark carries the revision the server has reached, changes of other kinds included,
/// as a real API server's do: a watch of a kind nobody writes must not resume, after its
/// timeout, from a revision the history has since dropped.
#[test]
fn bookmarks_advance_with_changes_of_other_kinds() {
    let h = Harness::start_with_options(SandboxOptions {
        bookmark_interval: Duration::from_millis(100),
        ..SandboxOptions::default()
    });
    let client = client(&h);
    h.runtime.block_on(async move {
        let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        let start =
            config_maps.list(&Default::default()).await.unwrap().metadata.resource_version.unwrap();
        let mut stream = config_maps.watch(&WatchParams::default(), &start).await.unwrap().boxed();
        let secrets: Api<Secret> = Api::namespaced(client, "default");
        let secret = Secret {
            metadata: kube::api::ObjectMeta {
                name: Some("other".to_owned()),
                ..Default::default()
            },
            ..Default::default()
        };
        let written = secrets.create(&PostParams::default(), &secret).await.unwrap();
        let written: u64 = written.metadata.resource_version.unwrap().parse().unwrap();
        // Bookmarks come every 100 ms; the first ones may predate the Secret.
        let mut seen = Vec::new();
        for _ in 0..100 {
            match next_event(&mut stream).await.unwrap() {
                WatchEvent::Bookmark(bookmark) => {
                    let version: u64 = bookmark.metadata.resource_version.parse().unwrap();
                    if version >= written {
                        return;
                    }
                    seen.push(version);
                }
                other => panic!("no ConfigMap changed, yet the watch sent {other:?}"),
            }
        }
        panic!("100 bookmarks, none at the Secret's revision {written} or later: {seen:?}");
    });
}

#[test]
fn watches_that_allow_bookmarks_get_them_with_the_latest_version() {
    let h = Harness::start_with_options(SandboxOptions {
        bookmark_interval: Duration::from_millis(100),
        ..SandboxOptions::default()
    });
    let client = client(&h);
    h.runtime.block_on(async move {
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        let start = api.list(&Default::default()).await.unwrap().metadata.resource_version.unwrap();
        let created = api.create(&PostParams::default(), &config_map("b", "1")).await.unwrap();
        let created_version: u64 = created.metadata.resource_version.unwrap().parse().unwrap();
        let mut stream = api.watch(&WatchParams::default(), &start).await.unwrap().boxed();
        assert!(matches!(next_event(&mut stream).await.unwrap(), WatchEvent::Added(_)));
        match next_event(&mut stream).await.unwrap() {
            WatchEvent::Bookmark(bookmark) => {
                let version: u64 = bookmark.metadata.resource_version.parse().unwrap();
                assert!(version >= created_version, "{version} < {created_version}");
                assert_eq!(bookmark.types.kind, "ConfigMap");
            }
            other => panic!("expected a bookmark, got {other:?}"),
        }

        // Without allowWatchBookmarks, none comes: the next event is the next change.
        let mut quiet = api
            .watch(&WatchParams::default().disable_bookmarks(), &created_version.to_string())
            .await
            .unwrap()
            .boxed();
        tokio::time::sleep(Duration::from_millis(300)).await;
        api.delete("b", &DeleteParams::default()).await.unwrap();
        assert!(matches!(next_event(&mut quiet).await.unwrap(), WatchEvent::Deleted(_)));
    });
}

#[test]
fn streaming_lists_send_the_state_then_a_bookmark_that_ends_it() {
    let h = Harness::start();
    let client = client(&h);
    h.runtime.block_on(async move {
        let api: Api<ConfigMap> = Api::namespaced(client, "default");
        for name in ["s1", "s2"] {
            api.create(&PostParams::default(), &config_map(name, "1")).await.unwrap();
        }
        let mut stream =
            api.watch(&WatchParams::default().initial_events(), "").await.unwrap().boxed();
        let mut added = Vec::new();
        loop {
            match tokio::time::timeout(Duration::from_secs(10), stream.next())
                .await
                .unwrap()
                .unwrap()
                .unwrap()
            {
                WatchEvent::Added(cm) => added.push(cm.metadata.name.unwrap()),
                WatchEvent::Bookmark(bookmark) => {
                    assert_eq!(
                        bookmark.metadata.annotations.get("k8s.io/initial-events-end"),
                        Some(&"true".to_owned())
                    );
                    break;
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(added, ["s1", "s2"]);

        // kube-rs' watcher in streaming-list mode keeps a reflector in sync with it.
        let (reader, writer) = reflector::store();
        let config = watcher::Config::default().streaming_lists();
        let watching = tokio::spawn(
            reflector(writer, watcher(api.clone(), config))
                .applied_objects()
                .try_for_each(|_| async { Ok(()) }),
        );
        reader.wait_until_ready().await.unwrap();
        api.create(&PostParams::default(), &config_map("s3", "1")).await.unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while reader.state().len() < 3 {
            assert!(tokio::time::Instant::now() < deadline, "the reflector did not see s3");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        watching.abort();
    });
}

#[test]
fn streaming_lists_without_bookmarks_are_invalid_as_the_api_server_says() {
    let h = Harness::start();
    let output = h.kubectl(&[
        "get",
        "--raw",
        "/api/v1/namespaces/default/configmaps?watch=true&sendInitialEvents=true",
    ]);
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(
            "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, allowWatchBookmarks: Forbidden: sendInitialEvents requires setting allowWatchBookmarks to true]"
        ),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn protobuf_bodies_of_kinds_the_sandbox_cannot_decode_get_415() {
    let h = Harness::start();
    let client = client(&h);
    h.runtime.block_on(async move {
        // The protobuf envelope (magic, then runtime.Unknown with typeMeta {v1, Pod}).
        let type_meta = [&[0x0a, 2][..], b"v1", &[0x12, 3], b"Pod"].concat();
        let mut body = b"k8s\0".to_vec();
        body.extend([0x0a, u8::try_from(type_meta.len()).unwrap()]);
        body.extend(type_meta);
        let request = axum::http::Request::post("/api/v1/namespaces/default/configmaps")
            .header("content-type", "application/vnd.kubernetes.protobuf")
            .body(body)
            .unwrap();
        match client.request_text(request).await {
            Err(kube::Error::Api(status)) => {
                assert_eq!((status.code, status.reason.as_str()), (415, "UnsupportedMediaType"));
                assert!(status.message.contains("v1 Pod"), "{}", status.message);
            }
            other => panic!("expected 415, got {other:?}"),
        }
    });
}
