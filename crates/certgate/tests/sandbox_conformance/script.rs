//! The replay script (`script.yaml`): its steps, the known differences, and the replay of
//! every step against one server, with references to earlier answers (`${rv:ID}`,
//! `${name:ID}`) resolved against that server's own answers.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::client::{Endpoint, Response, User};

/// At most this many steps (the script is a fixed file; this bounds a mistake in it).
const MAX_STEPS: usize = 400;
/// How often a step with `retry_while` is retried, 200 ms apart.
const MAX_RETRIES: usize = 50;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    pub steps: Vec<Step>,
    /// Step id → why the sandbox may answer differently, for now.
    pub known_differences: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Stable id, used by references and the known differences.
    pub id: String,
    #[serde(default, rename = "as")]
    pub user: User,
    pub method: String,
    pub path: String,
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// The body as YAML (sent as JSON unless `content_type` says YAML).
    #[serde(default)]
    pub body: Option<Value>,
    /// The body as text, sent exactly (for malformed bodies and apply YAML).
    #[serde(default)]
    pub raw: Option<String>,
    /// Default `application/json` when there is a body.
    #[serde(default)]
    pub content_type: Option<String>,
    /// A watch: read this many events.
    #[serde(default)]
    pub watch: Option<usize>,
    /// Retry while the answer has one of these codes (a CRD's kind is served shortly after
    /// it is created, on the real server).
    #[serde(default)]
    pub retry_while: Vec<u16>,
    /// Compare `managedFields` entries of `operation: Update` too (normalize.rs).
    #[serde(default)]
    pub update_managers: bool,
}

impl Script {
    pub fn load(path: &Path) -> Script {
        let text = std::fs::read_to_string(path).unwrap();
        let script: Script =
            serde_saphyr::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        assert!(script.steps.len() <= MAX_STEPS, "too many steps");
        let mut seen = std::collections::BTreeSet::new();
        for step in &script.steps {
            assert!(seen.insert(step.id.as_str()), "step id {} is used twice", step.id);
        }
        for id in script.known_differences.keys() {
            assert!(seen.contains(id.as_str()), "known difference {id} names no step");
        }
        script
    }
}

/// Replays every step against `endpoint`; the answers by step id, in script order.
/// `${csr}` in a body is replaced with `csr`.
pub fn replay(script: &Script, endpoint: &Endpoint, csr: &str) -> Vec<(String, Response)> {
    let mut answers: Vec<(String, Response)> = Vec::new();
    for step in &script.steps {
        let resolve = |text: &str| resolve(text, &answers, csr);
        let path = resolve(&step.path);
        let mut headers: Vec<(String, String)> =
            step.headers.iter().map(|(name, value)| (name.clone(), resolve(value))).collect();
        let body = match (&step.body, &step.raw) {
            (Some(body), None) => Some(resolve(&serde_json::to_string(body).unwrap())),
            (None, Some(raw)) => Some(resolve(raw)),
            (None, None) => None,
            (Some(_), Some(_)) => panic!("step {}: body and raw both given", step.id),
        };
        if body.is_some() {
            let content_type = step.content_type.as_deref().unwrap_or("application/json");
            headers.push(("Content-Type".to_owned(), content_type.to_owned()));
        }
        let mut tries = 0;
        let response = loop {
            let response = match step.watch {
                Some(events) => endpoint.watch(step.user, &path, &headers, events),
                None => endpoint.request(step.user, &step.method, &path, &headers, body.as_deref()),
            };
            tries += 1;
            if !step.retry_while.contains(&response.status) || tries >= MAX_RETRIES {
                break response;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        answers.push((step.id.clone(), response));
    }
    answers
}

/// `${rv:ID}` and `${name:ID}`: `metadata.resourceVersion` / `metadata.name` of step ID's
/// answer on this server; `${csr}`: the example CSR.
fn resolve(text: &str, answers: &[(String, Response)], csr: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    loop {
        let next =
            ["${rv:", "${name:", "${csr}"].iter().filter_map(|marker| rest.find(marker)).min();
        let Some(start) = next else { break };
        let len = rest[start..].find('}').expect("a closed placeholder");
        let inner = &rest[start + 2..start + len];
        let value = match inner.split_once(':') {
            None => csr.to_owned(),
            Some((field, id)) => {
                let (_, answer) = answers
                    .iter()
                    .find(|(step, _)| step == id)
                    .unwrap_or_else(|| panic!("${{{inner}}} names no earlier step"));
                let key = if field == "rv" { "resourceVersion" } else { "name" };
                answer.body["metadata"][key].as_str().unwrap_or_default().to_owned()
            }
        };
        out.push_str(&rest[..start]);
        out.push_str(&value);
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn references_resolve_against_this_servers_own_answers() {
    let answer = Response {
        body: serde_json::json!({"metadata": {"name": "gen-abcde", "resourceVersion": "17"}}),
        ..Response::default()
    };
    let answers = vec![("made".to_owned(), answer)];
    assert_eq!(
        resolve(
            r#"{"metadata":{"resourceVersion":"${rv:made}"}} ${name:made} ${csr}"#,
            &answers,
            "CSR"
        ),
        r#"{"metadata":{"resourceVersion":"17"}} gen-abcde CSR"#
    );
    // Braces that are no placeholder (YAML flow maps, JSON) pass through.
    assert_eq!(resolve("metadata: {name: a}", &answers, "CSR"), "metadata: {name: a}");
}
