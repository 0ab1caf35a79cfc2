//! The controller's rebuild without processes or network: the same objects as the API server
//! holds them, converted as the controller's stores convert them
//! (`certgate_edge::controller::objects`), then `routing::process_snapshot`,
//! `envoy::build_resources`, `to_xds`, and the whole `controller::decide` (which also
//! builds the versioned xDS snapshot), and the CRL checks the rebuild runs before it
//! publishes (`NextUpdates::update`, `CrlWarnings::update`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use certgate_edge::controller::crl_expiry::NextUpdates;
use certgate_edge::controller::objects;
use certgate_edge::controller::warnings::CrlWarnings;
use certgate_edge::controller::{Decision, Inputs, decide};
use certgate_ingress::ProcessorConfig;
use certgate_ingress::envoy::{
    ListenerOptions, ResourceOptions, TranslateOptions, ValidationDelivery, build_resources,
};
use certgate_ingress::routing::{Snapshot, process_snapshot};
use k8s_openapi::api::core::v1::{Secret as KubeSecret, Service};
use k8s_openapi::api::discovery::v1::EndpointSlice as KubeEndpointSlice;
use kube::api::DynamicObject;
use serde_json::Value;

use super::processes::Ports;

/// What `certgate edge serve` builds with the benchmark's flags: listeners on 127.0.0.1 at
/// `ports`, client validation delivered as `mode` says (`sds` or `inline`).
pub fn resource_options(ports: Ports, mode: &str) -> ResourceOptions {
    ResourceOptions {
        listeners: ListenerOptions {
            http_address: "127.0.0.1".to_owned(),
            http_port: u32::from(ports.http),
            https_address: "127.0.0.1".to_owned(),
            https_port: u32::from(ports.https),
        },
        translate: TranslateOptions {
            validation: if mode == "inline" {
                ValidationDelivery::Inline
            } else {
                ValidationDelivery::Sds
            },
            ..TranslateOptions::default()
        },
    }
}

/// The API objects as the controller's stores hold them.
pub struct Stored {
    proxies: Vec<DynamicObject>,
    secrets: Vec<KubeSecret>,
    services: Vec<Service>,
    slices: Vec<KubeEndpointSlice>,
}

impl Stored {
    pub fn new(objects: &[Value]) -> Stored {
        Stored {
            proxies: of_kind(objects, "HTTPProxy"),
            secrets: of_kind(objects, "Secret"),
            services: of_kind(objects, "Service"),
            slices: of_kind(objects, "EndpointSlice"),
        }
    }

    /// As `Stores::inputs`: converted and sorted.
    pub fn inputs(&self) -> Inputs {
        let mut proxies: Vec<_> = self.proxies.iter().map(|o| objects::proxy(o).unwrap()).collect();
        proxies.sort_by(|a, b| (a.namespace(), a.name()).cmp(&(b.namespace(), b.name())));
        let mut services: Vec<_> =
            self.services.iter().map(|o| objects::service(o).unwrap()).collect();
        services.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let mut slices: Vec<_> =
            self.slices.iter().map(|o| objects::endpoint_slice(o).unwrap()).collect();
        slices.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        let secrets = self.secrets.iter().map(objects::secret).collect();
        Inputs { proxies, secrets, delegations: Vec::new(), services, slices }
    }
}

/// The objects of `kind`, typed.
fn of_kind<T: serde::de::DeserializeOwned>(objects: &[Value], kind: &str) -> Vec<T> {
    objects
        .iter()
        .filter(|o| o["kind"] == kind)
        .map(|o| serde_json::from_value(o.clone()).unwrap())
        .collect()
}

/// One rebuild as the controller runs it: decide, then the CRL checks (fresh memos: the
/// first rebuild, or one whose CRL changed).
pub fn rebuild(inputs: &Inputs, options: &ResourceOptions, now_unix: i64) -> Rebuilt {
    let started = Instant::now();
    let decision =
        decide(inputs, &ProcessorConfig::default(), options, "2026-01-01T00:00:00Z").unwrap();
    let decide = started.elapsed();
    let _ = NextUpdates::default().update(inputs, &decision.served_crls);
    let next_updates = started.elapsed() - decide;
    let _ = CrlWarnings::default().update(inputs, &decision.served_validations, now_unix);
    let warnings = started.elapsed() - decide - next_updates;
    Rebuilt { decision, decide, next_updates, warnings }
}

/// A rebuild's decision and how long its parts took.
pub struct Rebuilt {
    pub decision: Decision,
    pub decide: Duration,
    /// `NextUpdates::update`: the earliest nextUpdate of each served CRL Secret (a gauge).
    pub next_updates: Duration,
    /// `CrlWarnings::update`: `certgate crl check`'s deeper checks (events).
    pub warnings: Duration,
}

/// Medians over passes of each step, and what was built.
#[derive(Debug, Default, Clone)]
pub struct PureFigures {
    pub passes: usize,
    pub convert: Duration,
    pub process_snapshot: Duration,
    pub build_resources: Duration,
    pub to_xds: Duration,
    /// The three above as one (`process_snapshot` + `build_resources` + `to_xds`).
    pub pipeline: Duration,
    pub decide: Duration,
    pub next_updates: Duration,
    pub warnings: Duration,
    pub xds_bytes: usize,
    /// Resources per xDS type URL (short names).
    pub resources: BTreeMap<String, usize>,
    pub valid: usize,
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

pub fn measure(stored: &Stored, options: &ResourceOptions, passes: usize) -> PureFigures {
    let config = ProcessorConfig::default();
    let now_unix = certgate_crl::Timestamp::from_system_time(std::time::SystemTime::now()).unix();
    let mut steps: [Vec<Duration>; 8] = Default::default();
    let mut figures = PureFigures { passes, ..PureFigures::default() };
    for _ in 0..passes {
        let started = Instant::now();
        let inputs = stored.inputs();
        steps[0].push(started.elapsed());
        let snapshot = Snapshot {
            proxies: &inputs.proxies,
            secrets: &inputs.secrets,
            delegations: &inputs.delegations,
            services: &inputs.services,
        };
        let started = Instant::now();
        let processed = process_snapshot(snapshot, &config);
        let processed_at = started.elapsed();
        let resources = build_resources(&processed, &inputs.slices, options);
        let built_at = started.elapsed();
        let xds = resources.to_xds();
        let encoded_at = started.elapsed();
        steps[1].push(processed_at);
        steps[2].push(built_at - processed_at);
        steps[3].push(encoded_at - built_at);
        steps[4].push(encoded_at);
        figures.xds_bytes = xds.iter().map(|(_, _, bytes)| bytes.len()).sum();
        figures.resources.clear();
        for (type_url, _, _) in &xds {
            let short = type_url.rsplit('.').next().unwrap_or_default().to_owned();
            *figures.resources.entry(short).or_default() += 1;
        }
        let rebuilt = rebuild(&inputs, options, now_unix);
        steps[5].push(rebuilt.decide);
        steps[6].push(rebuilt.next_updates);
        steps[7].push(rebuilt.warnings);
        figures.valid = rebuilt.decision.counts.valid;
        std::hint::black_box((processed, resources, xds, rebuilt.decision));
    }
    let [convert, process, build, encode, pipeline, decide, next_updates, warnings] =
        steps.map(median);
    figures.convert = convert;
    figures.process_snapshot = process;
    figures.build_resources = build;
    figures.to_xds = encode;
    figures.pipeline = pipeline;
    figures.decide = decide;
    figures.next_updates = next_updates;
    figures.warnings = warnings;
    figures
}
