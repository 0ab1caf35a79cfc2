//! Hostile and malformed requests against the real HTTP API (issue #16, items 4 and 8):
//! JSON patch copy bombs, objects over the storage limit, oversized bodies, and the
//! validation a real API server applies to metadata, typed fields and request options.
//! Each test sends what the probe sent and asserts the API server's status and message.
//!
//! Bounded on regression: the copy bomb here makes 14 copies of a 1 KiB map (16 MiB if
//! nothing stops it, not the issue's 24 GiB); the full 30-copy probe runs in the patch crate
//! under a memory cap (`crates/dev/patch/tests/bombs.rs`).

mod support;

use kube::client::Body;
use serde_json::{Value, json};
use support::Harness;

fn client(h: &Harness) -> kube::Client {
    h.runtime.block_on(async {
        let kubeconfig = kube::config::Kubeconfig::read_from(&h.kubeconfig).unwrap();
        let options = kube::config::KubeConfigOptions::default();
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options).await.unwrap();
        kube::Client::try_from(config).unwrap()
    })
}

/// Sends a raw request; the status code and the body as JSON (`Value::String` when the
/// body is not JSON, so a plain-text answer fails the assertions that follow).
fn send(
    h: &Harness,
    client: &kube::Client,
    method: &str,
    path: &str,
    content_type: &str,
    body: Vec<u8>,
) -> (u16, Value) {
    h.runtime.block_on(async {
        let request = axum::http::Request::builder()
            .method(method)
            .uri(path)
            .header("content-type", content_type)
            .body(Body::from(body))
            .unwrap();
        let response = client.send(request).await.unwrap();
        let code = response.status().as_u16();
        let bytes = response.into_body().collect_bytes().await.unwrap();
        let value = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned()));
        (code, value)
    })
}

const CONFIG_MAPS: &str = "/api/v1/namespaces/default/configmaps";

fn post_json(h: &Harness, c: &kube::Client, path: &str, body: &Value) -> (u16, Value) {
    send(h, c, "POST", path, "application/json", serde_json::to_vec(body).unwrap())
}

fn get(h: &Harness, c: &kube::Client, path: &str) -> (u16, Value) {
    send(h, c, "GET", path, "application/json", Vec::new())
}

/// Asserts a `Status` failure with this code, reason (absent when `""`) and message.
fn assert_status(answer: &(u16, Value), code: u16, reason: &str, message: &str) {
    let (got, body) = answer;
    assert_eq!(*got, code, "{body}");
    assert_eq!(body["kind"], "Status", "{body}");
    assert_eq!(body["apiVersion"], "v1", "{body}");
    assert_eq!(body["status"], "Failure", "{body}");
    assert_eq!(body["code"], code, "{body}");
    if reason.is_empty() {
        assert!(body.get("reason").is_none(), "{body}");
    } else {
        assert_eq!(body["reason"], reason, "{body}");
    }
    assert_eq!(body["message"], message, "{body}");
}

fn create_config_map(h: &Harness, c: &kube::Client, name: &str, data: Value) -> Value {
    let answer = post_json(h, c, CONFIG_MAPS, &json!({"metadata": {"name": name}, "data": data}));
    assert_eq!(answer.0, 201, "{}", answer.1);
    answer.1
}

#[test]
fn a_json_patch_copy_bomb_is_refused_and_changes_nothing() {
    let h = Harness::start();
    let c = client(&h);
    let before = create_config_map(&h, &c, "bomb", json!({"seed": "x".repeat(1024)}));
    // Each copy doubles `data`: 14 copies would make 16 MiB from a 1 KiB seed; the
    // 3 MiB copy budget stops it at the twelfth.
    let ops: Vec<Value> = (0..14)
        .map(|i| json!({"op": "copy", "from": "/data", "path": format!("/data/k{i}")}))
        .collect();
    let answer = send(
        &h,
        &c,
        "PATCH",
        &format!("{CONFIG_MAPS}/bomb"),
        "application/json-patch+json",
        serde_json::to_vec(&ops).unwrap(),
    );
    assert_status(
        &answer,
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
    );
    let (_, after) = get(&h, &c, &format!("{CONFIG_MAPS}/bomb"));
    assert_eq!(after["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"]);
}

#[test]
fn objects_over_the_storage_limit_are_refused_as_etcd_refuses_them_dry_runs_included() {
    let h = Harness::start();
    let c = client(&h);
    create_config_map(&h, &c, "big", json!({"a": "x".repeat(1024 * 1024)}));
    // Under the 3 MiB body limit, but the merged object is 2 MiB.
    let patch = json!({"data": {"b": "y".repeat(1024 * 1024)}});
    for query in ["", "?dryRun=All"] {
        let answer = send(
            &h,
            &c,
            "PATCH",
            &format!("{CONFIG_MAPS}/big{query}"),
            "application/merge-patch+json",
            serde_json::to_vec(&patch).unwrap(),
        );
        assert_status(&answer, 500, "", "etcdserver: request is too large");
    }
    let created = post_json(
        &h,
        &c,
        CONFIG_MAPS,
        &json!({"metadata": {"name": "huge"}, "data": {"a": "z".repeat(2 * 1024 * 1024)}}),
    );
    assert_status(&created, 500, "", "etcdserver: request is too large");
    assert_eq!(get(&h, &c, &format!("{CONFIG_MAPS}/huge")).0, 404);
}

#[test]
fn bodies_over_three_mebibytes_get_a_413_status_body() {
    let h = Harness::start();
    let c = client(&h);
    let body = vec![b' '; 4 * 1024 * 1024];
    for (method, path) in [("POST", CONFIG_MAPS.to_owned()), ("PUT", format!("{CONFIG_MAPS}/x"))] {
        let answer = send(&h, &c, method, &path, "application/json", body.clone());
        assert_status(
            &answer,
            413,
            "RequestEntityTooLarge",
            "Request entity too large: limit is 3145728",
        );
    }
}

#[test]
fn invalid_metadata_is_refused_with_apimachinerys_messages() {
    let h = Harness::start();
    let c = client(&h);
    let cases = [
        (
            json!({"name": "a", "labels": {"bad key": "v"}}),
            "ConfigMap \"a\" is invalid: metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            json!({"name": "a", "labels": {"k": "-v"}}),
            "ConfigMap \"a\" is invalid: metadata.labels: Invalid value: \"-v\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
        (
            json!({"name": "a", "annotations": {"big": "x".repeat(256 * 1024)}}),
            "ConfigMap \"a\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes",
        ),
        (
            json!({"name": "a", "finalizers": ["example.com/ok", "not ok"]}),
            "ConfigMap \"a\" is invalid: metadata.finalizers: Invalid value: \"not ok\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            json!({"name": "a", "ownerReferences": [{"apiVersion": "v1", "kind": "Secret", "name": "s"}]}),
            "ConfigMap \"a\" is invalid: metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty",
        ),
        (
            json!({"name": &"a".repeat(254)}),
            &format!(
                "ConfigMap \"{0}\" is invalid: metadata.name: Invalid value: \"{0}\": must be no more than 253 characters",
                "a".repeat(254)
            ),
        ),
    ];
    for (metadata, message) in cases {
        let answer = post_json(&h, &c, CONFIG_MAPS, &json!({"metadata": metadata}));
        assert_status(&answer, 422, "Invalid", message);
    }
    // The same rules hold on update: a valid object cannot be patched into an invalid one.
    create_config_map(&h, &c, "valid", json!({}));
    let answer = send(
        &h,
        &c,
        "PATCH",
        &format!("{CONFIG_MAPS}/valid"),
        "application/merge-patch+json",
        br#"{"metadata":{"labels":{"a/b/c":"v"}}}"#.to_vec(),
    );
    assert_status(
        &answer,
        422,
        "Invalid",
        "ConfigMap \"valid\" is invalid: metadata.labels: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
}

#[test]
fn fields_of_the_wrong_type_are_a_400_decode_error() {
    let h = Harness::start();
    let c = client(&h);
    let cases = [
        (
            CONFIG_MAPS,
            json!({"metadata": {"name": "a"}, "data": "x"}),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ConfigMap.data of type map[string]string",
        ),
        (
            CONFIG_MAPS,
            json!({"metadata": {"name": "a"}, "data": {"port": 8080}}),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
        ),
        (
            CONFIG_MAPS,
            json!({"metadata": {"name": "a", "labels": ["x"]}}),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
        ),
        (
            "/api/v1/namespaces/default/secrets",
            json!({"metadata": {"name": "a"}, "data": ["x"]}),
            "Secret in version \"v1\" cannot be handled as a Secret: json: cannot unmarshal array into Go struct field Secret.data of type map[string][]uint8",
        ),
    ];
    for (path, body, message) in cases {
        assert_status(&post_json(&h, &c, path, &body), 400, "BadRequest", message);
    }
}

#[test]
fn list_options_are_checked_as_the_api_server_checks_them() {
    let h = Harness::start();
    let c = client(&h);
    let cases = [
        ("?limit=abc", 400, "BadRequest", "strconv.ParseInt: parsing \"abc\": invalid syntax"),
        (
            "?timeoutSeconds=1s",
            400,
            "BadRequest",
            "strconv.ParseInt: parsing \"1s\": invalid syntax",
        ),
        (
            "?resourceVersion=abc",
            500,
            "",
            "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid syntax",
        ),
        (
            "?resourceVersion=1&resourceVersionMatch=Newest",
            422,
            "Invalid",
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"",
        ),
        (
            "?resourceVersionMatch=Exact",
            422,
            "Invalid",
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
        ),
        (
            "?labelSelector=-bad",
            400,
            "BadRequest",
            "unable to parse requirement: key: Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
        (
            "?labelSelector=app%3D-x",
            400,
            "BadRequest",
            "unable to parse requirement: values[0][app]: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
    ];
    for (query, code, reason, message) in cases {
        assert_status(&get(&h, &c, &format!("{CONFIG_MAPS}{query}")), code, reason, message);
    }
    assert_eq!(get(&h, &c, &format!("{CONFIG_MAPS}?limit=-1&resourceVersion=0")).0, 200);
}

#[test]
fn write_options_are_checked_and_an_unknown_dry_run_writes_nothing() {
    let h = Harness::start();
    let c = client(&h);
    let body = json!({"metadata": {"name": "dry"}});
    let answer = post_json(&h, &c, &format!("{CONFIG_MAPS}?dryRun=all"), &body);
    assert_status(
        &answer,
        422,
        "Invalid",
        "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"all\"}: supported values: \"All\"",
    );
    assert_eq!(
        get(&h, &c, &format!("{CONFIG_MAPS}/dry")).0,
        404,
        "an unknown dryRun value must not write"
    );
    let manager = "m".repeat(129);
    let answer = post_json(&h, &c, &format!("{CONFIG_MAPS}?fieldManager={manager}"), &body);
    assert_status(
        &answer,
        422,
        "Invalid",
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be more than 128 bytes",
    );
    create_config_map(&h, &c, "kept", json!({}));
    let answer = send(
        &h,
        &c,
        "DELETE",
        &format!("{CONFIG_MAPS}/kept"),
        "application/json",
        br#"{"propagationPolicy":"Later"}"#.to_vec(),
    );
    assert_status(
        &answer,
        422,
        "Invalid",
        "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"Later\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
    );
    assert_eq!(get(&h, &c, &format!("{CONFIG_MAPS}/kept")).0, 200);
}
