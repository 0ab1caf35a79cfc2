//! certgate-templates' hub template resolution against go-template-utils v7's resolver
//! (re-assembled in `tools/oracles/hubtemplate`): generated policy templates resolved offline
//! for one managed cluster, compared on the resolved JSON and on the error texts.
//!
//! `cargo test -p certgate-oracles --test hub_templates`; the long mode is
//! `CERTGATE_DIFF_MINUTES=30 cargo test --release -p certgate-oracles --test hub_templates -- --nocapture`.

#[path = "hub_templates/fixed.rs"]
mod fixed;
#[path = "hub_templates/generate.rs"]
mod generate;

use std::collections::BTreeMap;
use std::sync::Arc;

use certgate_oracles::{Mismatch, Oracle, Settings, Verdict, run_generated};
use certgate_templates::access::{Access, InMemoryObjects};
use certgate_templates::pipeline::{
    HubContext, HubResolver, PolicyMetadata, Preprocessor, ResolveRequest, ResolverConfig,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The CI corpus: fixed seed, sized to stay well under a minute in a debug build.
const SEED: u64 = 0x4855_4254;
const CI_CASES: u64 = 2000;

/// Functions the propagator would be configured to deny in these cases.
const DENYLIST: &[&str] = &["deny"];

#[derive(Serialize)]
struct Case<'a> {
    template: &'a str,
    context: Value,
    denylist: &'a [&'a str],
}

#[derive(Deserialize, Debug)]
struct Answer {
    yaml: Option<String>,
    text: Option<String>,
    output: Option<String>,
    json: Option<Value>,
    error: Option<String>,
    panic: Option<String>,
}

/// What one side produced: the resolved JSON or the error text.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Json(Value),
    Error(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Json(v) => write!(f, "json {v}"),
            Outcome::Error(e) => write!(f, "error {e:?}"),
        }
    }
}

fn context(with_labels: bool) -> HubContext {
    let map = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    };
    HubContext {
        managed_cluster_name: "cluster-1".to_owned(),
        managed_cluster_labels: with_labels.then(|| map(&[("env", "prod"), ("region", "eu")])),
        policy_metadata: PolicyMetadata {
            name: "policy-a".to_owned(),
            namespace: "policies".to_owned(),
            labels: map(&[("app", "web")]),
            annotations: map(&[("note", "multi\nline")]),
        },
    }
}

/// The same context as Go's struct sees it.
fn context_json(context: &HubContext) -> Value {
    let meta = &context.policy_metadata;
    json!({
        "ManagedClusterName": context.managed_cluster_name,
        "ManagedClusterLabels": context.managed_cluster_labels,
        "PolicyMetadata": {
            "name": meta.name, "namespace": meta.namespace,
            "labels": meta.labels, "annotations": meta.annotations,
        },
    })
}

/// The texts upstream reached on the way: after JSON -> YAML, after the rewrites, and the
/// executed template. They tell which stage a difference comes from.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub yaml: Option<String>,
    pub text: Option<String>,
    pub output: Option<String>,
}

struct Sides {
    resolver: HubResolver,
    preprocessor: Preprocessor,
    oracle: Oracle,
}

impl Sides {
    fn start() -> Self {
        let config = ResolverConfig {
            denylist: DENYLIST.iter().map(|s| (*s).to_owned()).collect(),
            ..ResolverConfig::default()
        };
        Self {
            resolver: HubResolver::new(config).expect("the default delimiters are valid"),
            preprocessor: Preprocessor::new("{{hub", "hub}}", 8)
                .expect("the hub delimiters compile"),
            oracle: Oracle::start("hubtemplate").expect("the hubtemplate oracle starts"),
        }
    }

    fn certgate(&self, template: &str, with_labels: bool) -> Outcome {
        let request = ResolveRequest {
            context: context(with_labels),
            reader: Arc::new(InMemoryObjects::new([]).expect("no objects are valid")),
            access: Access::for_policy("policies", "cluster-1"),
            encryption: None,
        };
        match self.resolver.resolve(template, &request).result {
            Ok(v) => Outcome::Json(v),
            Err(e) => Outcome::Error(e.message),
        }
    }

    fn upstream(&mut self, template: &str, with_labels: bool) -> Outcome {
        self.upstream_traced(template, with_labels).0
    }

    /// certgate's texts for the first two stages (the pipeline's own steps, in order).
    fn certgate_trace(&self, template: &str) -> (Option<String>, Option<String>) {
        let Ok(json) = certgate_goyaml::from_yaml(template) else { return (None, None) };
        let yaml = certgate_goyaml::to_yaml(&json);
        let typed = self.preprocessor.typed_values(&yaml);
        let text = self.preprocessor.autoindent(&typed).into_owned();
        (Some(yaml), Some(text))
    }

    fn upstream_traced(&mut self, template: &str, with_labels: bool) -> (Outcome, Trace) {
        let case =
            Case { template, context: context_json(&context(with_labels)), denylist: DENYLIST };
        let answer: Answer = self.oracle.ask(&case).expect("the oracle answers");
        let trace = Trace {
            yaml: answer.yaml.clone(),
            text: answer.text.clone(),
            output: answer.output.clone(),
        };
        let outcome = match answer {
            Answer { panic: Some(p), .. } => Outcome::Error(format!("oracle panic: {p}")),
            Answer { error: Some(e), .. } => Outcome::Error(e),
            Answer { json: Some(v), .. } => Outcome::Json(v),
            Answer { .. } => Outcome::Json(Value::Null),
        };
        (outcome, trace)
    }
}

/// Runs `body` on a thread with a large stack: the generator's nested strategies and the
/// template engine recurse deeper than a debug build's default test-thread stack allows.
fn with_big_stack(body: impl FnOnce() + Send + 'static) {
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(body)
        .expect("the test thread starts");
    if let Err(panic) = handle.join() {
        std::panic::resume_unwind(panic);
    }
}

#[test]
fn generated_hub_templates_agree_with_go_template_utils() {
    with_big_stack(generated_run);
}

fn generated_run() {
    let settings = Settings::from_env(SEED, CI_CASES);
    let mut sides = Sides::start();
    let mut by_reason: BTreeMap<&'static str, u64> = BTreeMap::new();
    let tally = run_generated(&settings, generate::policy_template(), |template| {
        // As the propagator: the cluster's labels are read only for templates that mention them.
        let labels = template.contains("ManagedClusterLabels");
        let ours = sides.certgate(template, labels);
        let (theirs, trace) = sides.upstream_traced(template, labels);
        if ours == theirs {
            return Verdict::Agree;
        }
        let (yaml, text) = sides.certgate_trace(template);
        let stages = fixed::Stages { same_yaml: yaml == trace.yaml, same_text: text == trace.text };
        let reason = fixed::excepted(&stages, &ours, &theirs);
        if let Some(path) = std::env::var_os("CERTGATE_HUB_DUMP") {
            // Every difference (excepted or not) with its attribution, one JSON line each, for
            // sorting them into classes by hand.
            let line = json!({"labels": labels, "template": template,
                "certgate": ours.to_string(), "upstream": theirs.to_string(), "reason": reason});
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .expect("the dump file opens");
            std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes())
                .expect("the dump file is written");
        }
        if let Some(reason) = reason {
            *by_reason.entry(reason).or_insert(0u64) += 1;
            return Verdict::Excepted;
        }
        Verdict::Differ(Mismatch {
            case: format!("labels={labels} {template}"),
            certgate: ours.to_string(),
            upstream: theirs.to_string(),
        })
    });
    eprintln!("{}", tally.report("go-template-utils (hub templates)"));
    eprintln!("seed {}; listed exceptions by reason:", settings.seed);
    for (reason, count) in &by_reason {
        eprintln!("  {count:>6}  {reason}");
    }
    tally.assert_agreement("go-template-utils (hub templates)");
}

#[test]
fn fixed_cases_match_upstream_and_certgate() {
    with_big_stack(fixed_run);
}

fn fixed_run() {
    let mut sides = Sides::start();
    let mut failures = Vec::new();
    let mut excepted = 0;
    let record = std::env::var_os("CERTGATE_HUB_RECORD").is_some();
    for case in fixed::CASES {
        let theirs = sides.upstream(case.template, case.labels);
        if record {
            // Prints what the oracle answers, to paste into the table after reading it.
            let want = match &theirs {
                Outcome::Json(v) => format!("Ok(r#\"{v}\"#)"),
                Outcome::Error(e) => format!("Err(r#\"{e}\"#)"),
            };
            let ours = sides.certgate(case.template, case.labels);
            eprintln!("RECORD {} {want}\n  certgate: {ours}", case.name);
            continue;
        }
        let want = case.upstream();
        if theirs != want {
            failures
                .push(format!("{}: the oracle no longer answers as recorded: {theirs}", case.name));
        }
        let ours = sides.certgate(case.template, case.labels);
        match case.exception {
            Some(reason) => {
                excepted += 1;
                if ours == want {
                    failures.push(format!("{}: listed as an exception ({reason}) but now agrees; remove the exception", case.name));
                }
            }
            None if ours != want => {
                failures.push(format!("{}: certgate {ours}, upstream {want}", case.name));
            }
            None => {}
        }
    }
    eprintln!(
        "hub templates fixed cases: {} cases, {excepted} listed exceptions",
        fixed::CASES.len()
    );
    assert!(!record, "CERTGATE_HUB_RECORD is set: the answers were printed, nothing was checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn policy_templates_with_keys_past_the_simple_key_limit_fail_as_upstream() {
    // go-template-utils reads the policy template's JSON *text* with yaml.Unmarshal, where an
    // object key longer than libyaml's 1,024-character simple-key limit cannot be a key; so
    // does certgate-templates, with the same parser.
    with_big_stack(|| {
        let mut sides = Sides::start();
        for len in [100, 990, 1000, 1100] {
            let template =
                format!(r#"{{"data":{{"{}":"{{{{hub \"v\" hub}}}}"}}}}"#, "k".repeat(len));
            let theirs = sides.upstream(&template, false);
            let ours = sides.certgate(&template, false);
            assert_eq!(ours, theirs, "key of {len} characters");
            if len == 100 || len == 1100 {
                assert_eq!(
                    matches!(theirs, Outcome::Error(_)),
                    len == 1100,
                    "key of {len}: {theirs}"
                );
            }
        }
    });
}
