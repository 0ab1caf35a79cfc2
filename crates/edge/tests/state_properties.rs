//! Properties of the per-stream ADS state machines (state of the world, and delta below) over
//! arbitrary request sequences: whatever a
//! client sends (any type URL, names, versions, nonces, errors, interleaved with snapshot
//! changes) nothing panics, every nonce is new, and every response carries the current version
//! of a served type and only resources the snapshot has and the subscription asked for.

use std::collections::{BTreeSet, HashSet};

use certgate_edge::state::{Limits, StreamState};
use certgate_edge::{Snapshot, TypeUrl};
use envoy_types::pb::envoy::config::core::v3::Node;
use envoy_types::pb::envoy::service::discovery::v3::DiscoveryRequest;
use envoy_types::pb::google::protobuf::Any;
use envoy_types::pb::google::rpc::Status;
use proptest::prelude::*;

const NAMES: [&str; 5] = ["a", "b", "c", "*", ""];

#[derive(Clone, Debug)]
enum Step {
    Request {
        /// 0..5 a served type, 5 an unknown one.
        type_index: usize,
        names: Vec<usize>,
        /// 0 empty, 1 the current version, 2 an unknown one.
        version: u8,
        /// 0 the last nonce this test saw for the type, 1 empty, 2 an unknown one.
        nonce: u8,
        error: bool,
    },
    Publish(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0usize..6, prop::collection::vec(0usize..NAMES.len(), 0..4), 0u8..3, 0u8..3, any::<bool>())
            .prop_map(|(type_index, names, version, nonce, error)| Step::Request {
                type_index, names, version, nonce, error
            }),
        1 => (0usize..3).prop_map(Step::Publish),
    ]
}

/// Three snapshots over the names a, b, c with differing contents per type.
fn snapshots() -> Vec<Snapshot> {
    (0..3)
        .map(|generation: usize| {
            let mut builder = Snapshot::builder();
            for (t, type_url) in TypeUrl::ALL.into_iter().enumerate() {
                for (n, name) in ["a", "b", "c"].into_iter().enumerate() {
                    // Some resources exist only in some generations, some change content.
                    if (generation + t + n) % 4 == 3 {
                        continue;
                    }
                    let content = format!("{name}-{}", (generation * (t + 1) + n) % 3);
                    let any = Any { type_url: type_url.as_str().into(), value: content.into() };
                    builder.add(type_url, name, any).unwrap();
                }
            }
            builder.build()
        })
        .collect()
}

proptest! {
    #[test]
    fn any_request_sequence_is_handled_within_the_protocol(steps in prop::collection::vec(step(), 1..40)) {
        let snapshots = snapshots();
        let mut state = StreamState::new(1, Limits::default());
        let mut current: Option<&Snapshot> = None;
        let mut nonces = HashSet::new();
        let mut last_nonce: [String; 5] = Default::default();
        let mut asked: [BTreeSet<String>; 5] = Default::default();

        for step in steps {
            let responses = match step {
                Step::Publish(index) => {
                    let snapshot = &snapshots[index];
                    current = Some(snapshot);
                    let responses = state.on_snapshot(snapshot);
                    prop_assert!(state.on_snapshot(snapshot).is_empty(), "publishing twice sends twice");
                    responses
                }
                Step::Request { type_index, names, version, nonce, error } => {
                    let type_url = TypeUrl::ALL.get(type_index).copied();
                    let names: Vec<String> = names.iter().map(|&n| NAMES[n].to_owned()).collect();
                    let request = DiscoveryRequest {
                        type_url: type_url.map_or("type.googleapis.com/unknown.Type", TypeUrl::as_str).into(),
                        resource_names: names.clone(),
                        version_info: match (version, type_url, current) {
                            (1, Some(t), Some(snapshot)) => snapshot.version(t).to_owned(),
                            (2, _, _) => "unknown".into(),
                            _ => String::new(),
                        },
                        response_nonce: match (nonce, type_index) {
                            (0, i) if i < 5 => last_nonce[i].clone(),
                            (2, _) => "9999-1".into(),
                            _ => String::new(),
                        },
                        error_detail: error.then(|| Status { code: 3, message: "rejected".into(), details: vec![] }),
                        node: Some(Node { id: "envoy".into(), ..Node::default() }),
                        ..DiscoveryRequest::default()
                    };
                    let handled = state.on_request(request, current);
                    prop_assert!(handled.is_ok());
                    if let Some(t) = type_url {
                        asked[t as usize].extend(names);
                    }
                    handled.map(|h| h.response.into_iter().collect::<Vec<_>>()).unwrap_or_default()
                }
            };
            for response in responses {
                let type_url = TypeUrl::parse(&response.type_url);
                prop_assert!(type_url.is_some(), "a response of an unserved type");
                let type_url = type_url.unwrap();
                let snapshot = current.expect("a response before the first snapshot");
                prop_assert!(nonces.insert(response.nonce.clone()), "a nonce was reused");
                prop_assert_eq!(&response.version_info, snapshot.version(type_url));
                let served = snapshot.resources(type_url);
                for resource in &response.resources {
                    prop_assert!(served.values().any(|r| r == resource), "a resource not in the snapshot");
                }
                if !type_url.supports_wildcard() {
                    // Named types: only names this stream ever asked for (a stale request's
                    // names do not count in the state machine, so the union is the bound).
                    let allowed: Vec<&Any> =
                        asked[type_url as usize].iter().filter_map(|n| served.get(n)).collect();
                    for resource in &response.resources {
                        prop_assert!(allowed.contains(&resource), "a resource not subscribed to");
                    }
                }
                last_nonce[type_url as usize] = response.nonce;
            }
        }
    }
}

#[derive(Clone, Debug)]
enum DeltaStep {
    Request {
        type_index: usize,
        subscribe: Vec<usize>,
        unsubscribe: Vec<usize>,
        /// Names the client claims to hold, with a version that may or may not be current.
        holds: Vec<(usize, bool)>,
        /// 0 the last nonce seen for the type, 1 empty, 2 an unknown one.
        nonce: u8,
        error: bool,
    },
    Publish(usize),
}

fn delta_step() -> impl Strategy<Value = DeltaStep> {
    let names = || prop::collection::vec(0usize..NAMES.len(), 0..3);
    prop_oneof![
        4 => (0usize..6, names(), names(), prop::collection::vec((0usize..3, any::<bool>()), 0..3), 0u8..3, any::<bool>())
            .prop_map(|(type_index, subscribe, unsubscribe, holds, nonce, error)| DeltaStep::Request {
                type_index, subscribe, unsubscribe, holds, nonce, error
            }),
        1 => (0usize..3).prop_map(DeltaStep::Publish),
    ]
}

proptest! {
    #[test]
    fn any_delta_request_sequence_sends_only_current_resources(steps in prop::collection::vec(delta_step(), 1..40)) {
        use certgate_edge::delta::DeltaStreamState;
        use envoy_types::pb::envoy::service::discovery::v3::DeltaDiscoveryRequest;

        let snapshots = snapshots();
        let mut state = DeltaStreamState::new(1, Limits::default());
        let mut current: Option<&Snapshot> = None;
        let mut nonces = HashSet::new();
        let mut last_nonce: [String; 5] = Default::default();

        for step in steps {
            let responses = match step {
                DeltaStep::Publish(index) => {
                    let snapshot = &snapshots[index];
                    current = Some(snapshot);
                    let responses = state.on_snapshot(snapshot);
                    prop_assert!(state.on_snapshot(snapshot).is_empty(), "publishing twice sends twice");
                    responses
                }
                DeltaStep::Request { type_index, subscribe, unsubscribe, holds, nonce, error } => {
                    let type_url = TypeUrl::ALL.get(type_index).copied();
                    let list = |names: &[usize]| names.iter().map(|&n| NAMES[n].to_owned()).collect::<Vec<_>>();
                    let holds = holds
                        .iter()
                        .map(|&(n, current_version)| {
                            let name = ["a", "b", "c"][n];
                            let version = match (current_version, type_url, current) {
                                (true, Some(t), Some(snapshot)) => {
                                    snapshot.resource_version(t, name).unwrap_or("none").to_owned()
                                }
                                _ => "old".to_owned(),
                            };
                            (name.to_owned(), version)
                        })
                        .collect();
                    let request = DeltaDiscoveryRequest {
                        type_url: type_url.map_or("type.googleapis.com/unknown.Type", TypeUrl::as_str).into(),
                        resource_names_subscribe: list(&subscribe),
                        resource_names_unsubscribe: list(&unsubscribe),
                        initial_resource_versions: holds,
                        response_nonce: match (nonce, type_index) {
                            (0, i) if i < 5 => last_nonce[i].clone(),
                            (2, _) => "9999-1".into(),
                            _ => String::new(),
                        },
                        error_detail: error.then(|| Status { code: 3, message: "rejected".into(), details: vec![] }),
                        node: Some(Node { id: "envoy".into(), ..Node::default() }),
                        ..DeltaDiscoveryRequest::default()
                    };
                    let handled = state.on_request(request, current);
                    prop_assert!(handled.is_ok());
                    handled.map(|h| h.response.into_iter().collect::<Vec<_>>()).unwrap_or_default()
                }
            };
            for response in responses {
                let type_url = TypeUrl::parse(&response.type_url);
                prop_assert!(type_url.is_some(), "a response of an unserved type");
                let type_url = type_url.unwrap();
                let snapshot = current.expect("a response before the first snapshot");
                prop_assert!(nonces.insert(response.nonce.clone()), "a nonce was reused");
                prop_assert_eq!(&response.system_version_info, snapshot.version(type_url));
                for resource in &response.resources {
                    prop_assert_eq!(
                        Some(resource.version.as_str()),
                        snapshot.resource_version(type_url, &resource.name),
                        "a resource sent with another version than the snapshot's"
                    );
                    prop_assert_eq!(resource.resource.as_ref(), snapshot.resources(type_url).get(&resource.name));
                }
                for name in &response.removed_resources {
                    prop_assert!(!snapshot.resources(type_url).contains_key(name), "an existing resource reported removed");
                }
                last_nonce[type_url as usize] = response.nonce;
            }
        }
    }
}
