//! certgate-gotemplate + certgate-sprig against Go's `text/template` with Masterminds/sprig
//! v3.3.0 (`tools/oracles/gotemplate`): generated templates over generated data, compared on
//! the output, and on the error where one side fails.
//!
//! Outputs must be identical, and so must error texts (Go's position, template, node and
//! message). A pair of differing error texts is excepted only when it falls in one of the
//! named classes of `fixed::wording` (counted per reason and printed); any other is a
//! mismatch, as is a case where only one side fails or the outputs differ.
//!
//! `cargo test -p certgate-oracles --test gotemplate`; the long mode is
//! `CERTGATE_DIFF_MINUTES=30 cargo test --release -p certgate-oracles --test gotemplate -- --nocapture`.

#[path = "gotemplate/fixed.rs"]
mod fixed;
#[path = "gotemplate/fixed_engine.rs"]
mod fixed_engine;
#[path = "gotemplate/generate.rs"]
mod generate;
#[path = "gotemplate/parse_errors.rs"]
mod parse_errors;

use certgate_gotemplate::{Engine, FuncMap, to_value};
use certgate_oracles::{Mismatch, Oracle, OracleError, Settings, Verdict, run_generated};
use generate::{GenCase, Numbers};
use serde::{Deserialize, Serialize};
use serde_json::Value;

const SEED: u64 = 0x4754_4d50;
const CI_CASES: u64 = 5000;

/// sprig functions left out of the comparison (and of the oracle's map): their results depend
/// on the clock, randomness, the environment or the network. Same list as the oracle's.
pub const EXCLUDED: &[&str] = &[
    "now",
    "date",
    "dateInZone",
    "date_in_zone",
    "ago",
    "htmlDate",
    "htmlDateInZone",
    "dateModify",
    "date_modify",
    "mustDateModify",
    "toDate",
    "mustToDate",
    "unixEpoch",
    "duration",
    "durationRound",
    "randAlphaNum",
    "randAlpha",
    "randAscii",
    "randNumeric",
    "randBytes",
    "randInt",
    "uuidv4",
    "genPrivateKey",
    "genCA",
    "genCAWithKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "derivePassword",
    "bcrypt",
    "htpasswd",
    "encryptAES",
    "decryptAES",
    "shuffle",
    "getHostByName",
    "env",
    "expandenv",
];

#[derive(Serialize)]
struct Case<'a> {
    template: &'a str,
    data: &'a Value,
    funcs: &'a str,
    numbers: Numbers,
}

#[derive(Deserialize, Debug)]
struct Answer {
    output: Option<String>,
    error: Option<String>,
    phase: Option<String>,
    panic: Option<String>,
}

/// What one side produced.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Output(String),
    Error(String),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Output(v) => write!(f, "output {v:?}"),
            Outcome::Error(e) => write!(f, "error {e:?}"),
        }
    }
}

pub struct Sides {
    sprig: FuncMap,
    oracle: Oracle,
}

/// JSON numbers as `encoding/json` decodes them without `UseNumber`: all floats.
fn floats(v: &Value) -> Value {
    match v {
        Value::Number(n) => serde_json::Number::from_f64(n.as_f64().unwrap_or(0.0))
            .map_or(Value::Null, Value::Number),
        Value::Array(items) => Value::Array(items.iter().map(floats).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), floats(v))).collect()),
        other => other.clone(),
    }
}

impl Sides {
    pub fn start() -> Self {
        let mut sprig = certgate_sprig::functions();
        for name in EXCLUDED {
            sprig.remove(name);
        }
        Self { sprig, oracle: Oracle::start("gotemplate").expect("the gotemplate oracle starts") }
    }

    pub fn certgate(&self, template: &str, data: &Value, sprig: bool, numbers: Numbers) -> Outcome {
        let funcs = if sprig { self.sprig.clone() } else { FuncMap::new() };
        let data = match numbers {
            Numbers::Typed => to_value(data),
            Numbers::Float64 => to_value(&floats(data)),
        };
        match Engine::new("t", funcs).parse(template) {
            Err(e) => Outcome::Error(e.to_string()),
            Ok(parsed) => match parsed.execute(&data) {
                Ok(out) => Outcome::Output(out),
                Err(e) => Outcome::Error(e.to_string()),
            },
        }
    }

    pub fn upstream(
        &mut self,
        template: &str,
        data: &Value,
        sprig: bool,
        numbers: Numbers,
    ) -> Outcome {
        let case = Case { template, data, funcs: if sprig { "sprig" } else { "none" }, numbers };
        let answer: Answer = match self.oracle.ask(&case) {
            Ok(answer) => answer,
            // Go's fatal errors end the process; the client started a fresh one.
            Err(OracleError::Exited { stderr, .. }) => {
                let fatal = stderr.lines().find(|l| l.starts_with("fatal error:"));
                return Outcome::Error(format!(
                    "{}{}",
                    fixed::GO_CRASHED,
                    fatal.unwrap_or("(no fatal error line)")
                ));
            }
            Err(other) => panic!("the oracle does not answer: {other}"),
        };
        match answer {
            Answer { panic: Some(p), .. } => panic!("the oracle panicked on {template:?}: {p}"),
            Answer { output: Some(o), .. } => Outcome::Output(o),
            Answer { error: Some(e), phase, .. } => {
                assert_ne!(phase.as_deref(), Some("data"), "bad data for the oracle: {e}");
                Outcome::Error(e)
            }
            other => panic!("the oracle gave an empty answer: {other:?}"),
        }
    }
}

#[test]
fn generated_templates_agree_with_go_text_template_and_sprig() {
    let settings = Settings::from_env(SEED, CI_CASES);
    let mut sides = Sides::start();
    let mut wording = std::collections::BTreeMap::new();
    let tally = run_generated(&settings, generate::case(), |case: &GenCase| {
        let ours = sides.certgate(&case.template, &case.data, case.sprig, case.numbers);
        let theirs = sides.upstream(&case.template, &case.data, case.sprig, case.numbers);
        match (&ours, &theirs) {
            (a, b) if a == b => Verdict::Agree,
            (Outcome::Error(a), Outcome::Error(b)) => match fixed::wording(a, b) {
                Some(reason) => {
                    *wording.entry(reason).or_insert(0u64) += 1;
                    Verdict::Excepted
                }
                None => Verdict::Differ(Mismatch {
                    case: format!(
                        "{:?} data={} sprig={} numbers={:?}",
                        case.template, case.data, case.sprig, case.numbers
                    ),
                    certgate: ours.to_string(),
                    upstream: theirs.to_string(),
                }),
            },
            _ if fixed::excepted(&case.template, &ours, &theirs).is_some() => Verdict::Excepted,
            _ => Verdict::Differ(Mismatch {
                case: format!(
                    "{:?} data={} sprig={} numbers={:?}",
                    case.template, case.data, case.sprig, case.numbers
                ),
                certgate: ours.to_string(),
                upstream: theirs.to_string(),
            }),
        }
    });
    eprintln!("{}", tally.report("text/template+sprig"));
    eprintln!("error-wording exceptions (both sides fail, texts differ), by reason:");
    for (reason, count) in &wording {
        eprintln!("  {count:>5}  {reason}");
    }
    tally.assert_agreement("text/template+sprig");
}

#[test]
fn fixed_cases_match_upstream_and_certgate() {
    let mut sides = Sides::start();
    for case in fixed::CASES.iter().chain(fixed_engine::CASES) {
        let data: Value = serde_json::from_str(case.data).expect("fixed data is JSON");
        let numbers = if case.float64 { Numbers::Float64 } else { Numbers::Typed };
        let theirs = sides.upstream(case.template, &data, case.sprig, numbers);
        assert_eq!(theirs, case.upstream.outcome(), "upstream changed for {:?}", case.template);
        let ours = sides.certgate(case.template, &data, case.sprig, numbers);
        match case.exception {
            None => assert_eq!(ours, theirs, "certgate differs on {:?}", case.template),
            Some(reason) => assert_ne!(
                ours, theirs,
                "exception {reason:?} no longer differs on {:?}: remove it from the table",
                case.template
            ),
        }
    }
}
