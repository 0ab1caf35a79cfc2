//! JSON patch bombs (issue #16, item 4): `copy` operations that copy an object into itself
//! double it each time, so a 1.6 KB patch of thirty copies asked for 24 GiB. The copy
//! budget (kube-apiserver's accumulated copy size limit) stops them before the copy that
//! would pass it is made.

use certgate_patch::{
    JsonPatchLimits, MAX_JSON_PATCH_COPY_BYTES, PatchError, PatchType, apply_json_patch,
    apply_patch,
};
use serde_json::{Value, json};

/// The issue's probe: thirty copies of the whole `data` map into itself.
fn doubling_patch(copies: usize) -> Vec<u8> {
    let ops: Vec<Value> = (0..copies)
        .map(|i| json!({"op": "copy", "from": "/data", "path": format!("/data/k{i}")}))
        .collect();
    serde_json::to_vec(&ops).unwrap()
}

fn config_map() -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bomb"}, "data": {"seed": "x".repeat(1000)}})
}

#[test]
fn copies_are_counted_as_upstream_counts_them() {
    // json-patch's own test case: each copy of a 49-character string adds 51 bytes.
    let live = json!({"foo": ["A", "A".repeat(49)]});
    let body = br#"[{"op":"copy","path":"/foo/-","from":"/foo/1"},{"op":"copy","path":"/foo/-","from":"/foo/1"}]"#;
    let fits = JsonPatchLimits { max_copy_bytes: 102, ..JsonPatchLimits::default() };
    assert_eq!(apply_json_patch(&live, body, &fits).unwrap()["foo"].as_array().unwrap().len(), 4);
    let tight = JsonPatchLimits { max_copy_bytes: 101, ..JsonPatchLimits::default() };
    let err = apply_json_patch(&live, body, &tight).unwrap_err();
    assert_eq!(err, PatchError::CopyTooLarge { limit: 101, copied: 102 });
    assert_eq!(
        err.to_string(),
        "Unable to complete the copy, the accumulated size increase of copy is 102, exceeding the limit 101"
    );
    // kube-apiserver answers any failed JSON patch with 422 and its generic sentence.
    assert_eq!((err.status_code(), err.reason()), (422, "Invalid"));
    assert_eq!(
        err.status_message(),
        "the server rejected our request due to an error in our request"
    );
}

#[test]
fn a_doubling_bomb_stops_at_a_small_budget() {
    let small = JsonPatchLimits { max_copy_bytes: 64 * 1024, ..JsonPatchLimits::default() };
    let err = apply_json_patch(&config_map(), &doubling_patch(30), &small).unwrap_err();
    let PatchError::CopyTooLarge { limit, copied } = err else { panic!("{err:?}") };
    assert_eq!(limit, 64 * 1024);
    // Counting stops one byte past the limit: the refused copy was never measured in full.
    assert_eq!(copied, 64 * 1024 + 1);
}

/// Marks the child process that runs the bomb under a memory cap.
const CHILD: &str = "CERTGATE_PATCH_BOMB_CHILD";

/// The issue's 30-copy bomb at the API server's default limits, in a child process whose
/// address space is capped at 256 MiB (`ulimit -v`) and which is killed after 60 s: without
/// the budget the child dies asking for GiBs and this test fails, instead of taking the
/// machine down.
#[test]
fn the_thirty_copy_bomb_stops_under_a_memory_cap() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let test_binary = std::env::current_exe().unwrap();
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 262144 && exec \"$0\" --exact thirty_copy_bomb_child --ignored --test-threads 1")
        .arg(&test_binary)
        .env(CHILD, "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "the bomb was not stopped under the memory cap: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("1 passed"));
}

#[test]
#[ignore = "run by the_thirty_copy_bomb_stops_under_a_memory_cap, under the cap"]
fn thirty_copy_bomb_child() {
    assert!(std::env::var_os(CHILD).is_some(), "run through its parent test");
    let err =
        apply_patch(&config_map(), PatchType::Json, &doubling_patch(30), None, None).unwrap_err();
    assert_eq!(
        err,
        PatchError::CopyTooLarge {
            limit: MAX_JSON_PATCH_COPY_BYTES,
            copied: MAX_JSON_PATCH_COPY_BYTES + 1
        }
    );
}
