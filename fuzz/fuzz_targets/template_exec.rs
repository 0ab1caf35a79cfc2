//! Arbitrary text as a hub template, executed with the whole hub function library (sprig and
//! OCM's functions) under certgate's default execution bounds: run with libFuzzer's
//! `-rss_limit_mb` so that a template which gets memory past the value budget, or runs past
//! the deadline, is reported (issue #16). Functions that are slow by design (key generation,
//! bcrypt, scrypt) or reach the network (DNS) are denylisted so executions stay fast.
#![no_main]

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use certgate_gotemplate::{Engine, Limits, Parsed, TemplateError, Value};
use certgate_templates::access::{Access, InMemoryObjects};
use certgate_templates::functions::{FunctionConfig, hub_functions};
use certgate_templates::session::{Session, run_in_session};
use libfuzzer_sys::fuzz_target;

const SLOW_OR_NETWORK: &[&str] = &[
    "genPrivateKey",
    "genCA",
    "genCAWithKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "bcrypt",
    "htpasswd",
    "derivePassword",
    "getHostByName",
];

static ENGINE: LazyLock<Engine> = LazyLock::new(|| {
    let config = FunctionConfig {
        denylist: SLOW_OR_NETWORK.iter().map(|name| (*name).to_owned()).collect(),
        ..FunctionConfig::default()
    };
    // The default bounds are what is under test; only the deadline is shortened so that a
    // template that reaches it costs the fuzzer a second, not ten.
    let limits = Limits { max_duration: Some(Duration::from_secs(1)), ..Limits::default() };
    Engine::new("tmpl", hub_functions(&config)).limits(limits)
});

static OBJECTS: LazyLock<Arc<InMemoryObjects>> = LazyLock::new(|| {
    let objects = InMemoryObjects::new([
        serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "cm", "namespace": "policies", "labels": {"app": "web"}},
            "data": {"a": "1", "b": "<x>&"}}),
        serde_json::json!({"apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "s", "namespace": "policies"}, "data": {"k": "dmFsdWU="}}),
        serde_json::json!({"apiVersion": "cluster.open-cluster-management.io/v1",
            "kind": "ManagedCluster", "metadata": {"name": "c1", "labels": {"env": "prod"}}}),
    ]);
    Arc::new(objects.unwrap_or_else(|e| panic!("fixtures: {e}")))
});

fn execute(parsed: &Parsed, dot: &Value) -> Result<String, TemplateError> {
    let session = Session::new(OBJECTS.clone(), Access::for_policy("policies", "c1"));
    run_in_session(session, || parsed.execute(dot)).0
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let dot = certgate_gotemplate::to_value(&serde_json::json!({
        "ManagedClusterName": "c1",
        "ManagedClusterLabels": {"env": "prod"},
        "List": [1, "x", {"k": [true]}],
    }));
    if let Ok(parsed) = ENGINE.parse(text) {
        let _ = execute(&parsed, &dot);
    }
});
