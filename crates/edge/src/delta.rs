//! Incremental ("delta") xDS for one ADS stream, as a pure state machine like [`crate::state`]:
//! a `DeltaDiscoveryRequest` in, at most one `DeltaDiscoveryResponse` out; a new snapshot in,
//! the responses it calls for out.
//!
//! What it keeps per stream and per type: whether the client subscribes to every resource
//! (wildcard), the names it subscribes to, and what it holds (name → resource version), first
//! from the request's `initial_resource_versions` (a reconnecting client states what it has,
//! so only what changed meanwhile is sent: delta's own resume), then from what was sent.
//!
//! The rules (Envoy's xDS protocol, incremental variant; ADR 0012):
//! - **Subscriptions are deltas**: every request's `resource_names_subscribe` and
//!   `resource_names_unsubscribe` apply, whatever its nonce (ignoring a "stale" delta request
//!   would lose a subscription change). `*` subscribes to or unsubscribes from every resource;
//!   for LDS and CDS a first request that subscribes to nothing is a wildcard (legacy rule).
//! - **ACK / NACK**: a request whose `response_nonce` is the last one sent is an ACK, or a NACK
//!   when `error_detail` is set (reported like state-of-the-world NACKs). The client's holdings
//!   are recorded when a response is sent, so a rejected resource is not resent until it
//!   changes: no resend loop.
//! - **What is sent**: every subscribed resource whose version differs from the one the client
//!   holds; in `removed_resources`, every name the client holds that is gone, and every named
//!   subscription that does not exist (once: the protocol's "does not exist"). The first
//!   request of a type is always answered, even with nothing in it, so the client completes
//!   its initialization.
//! - **Before the first snapshot** nothing is sent, as in state of the world.
//! - **Bounds**: as [`Limits`]; each of the three name lists of a request counts against
//!   [`Limits::max_resource_names`].

use std::collections::{BTreeMap, BTreeSet};

use envoy_types::pb::envoy::config::core::v3::ControlPlane;
use envoy_types::pb::envoy::service::discovery::v3::{
    DeltaDiscoveryRequest, DeltaDiscoveryResponse, Resource,
};

use crate::snapshot::{Snapshot, TypeUrl};
use crate::state::{CONTROL_PLANE_ID, Limits, Received, RequestError, loggable};

/// The outcome of one delta request.
#[derive(Debug)]
pub struct DeltaHandled {
    pub received: Received,
    pub response: Option<DeltaDiscoveryResponse>,
}

#[derive(Debug, Default)]
struct TypeState {
    wildcard: bool,
    names: BTreeSet<String>,
    /// What the client holds: resource name → resource version.
    holds: BTreeMap<String, String>,
    /// Named subscriptions already answered with "does not exist".
    reported_absent: BTreeSet<String>,
    last_nonce: Option<String>,
    answered: bool,
}

/// The delta protocol state of one ADS stream.
#[derive(Debug)]
pub struct DeltaStreamState {
    stream_id: u64,
    responses: u64,
    node_id: String,
    limits: Limits,
    types: [Option<TypeState>; 5],
}

impl DeltaStreamState {
    pub fn new(stream_id: u64, limits: Limits) -> DeltaStreamState {
        DeltaStreamState {
            stream_id,
            responses: 0,
            node_id: String::new(),
            limits,
            types: Default::default(),
        }
    }

    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Handles one request against the current snapshot (`None` before the first publish).
    pub fn on_request(
        &mut self,
        request: DeltaDiscoveryRequest,
        snapshot: Option<&Snapshot>,
    ) -> Result<DeltaHandled, RequestError> {
        let limits = self.limits;
        for count in [
            request.resource_names_subscribe.len(),
            request.resource_names_unsubscribe.len(),
            request.initial_resource_versions.len(),
        ] {
            if count > limits.max_resource_names {
                return Err(RequestError::TooManyResourceNames {
                    count,
                    limit: limits.max_resource_names,
                });
            }
        }
        if let Some(node) = &request.node {
            if node.id.len() > limits.max_node_id_len {
                return Err(RequestError::NodeIdTooLong {
                    len: node.id.len(),
                    limit: limits.max_node_id_len,
                });
            }
            if self.node_id.is_empty() {
                self.node_id.clone_from(&node.id);
            }
        }
        let Some(type_url) = TypeUrl::parse(&request.type_url) else {
            let type_url = loggable(&request.type_url, limits.max_logged_len);
            return Ok(DeltaHandled {
                received: Received::UnknownType { type_url },
                response: None,
            });
        };

        let slot = &mut self.types[type_url as usize];
        let first = slot.is_none();
        let state = slot.get_or_insert_with(TypeState::default);
        if first {
            // Only the first request of a type on a stream states what the client holds.
            state.holds = request.initial_resource_versions.into_iter().collect();
            state.wildcard =
                type_url.supports_wildcard() && request.resource_names_subscribe.is_empty();
        }
        for name in request.resource_names_subscribe {
            if name == "*" {
                state.wildcard = true;
            } else {
                state.names.insert(name);
            }
        }
        for name in request.resource_names_unsubscribe {
            if name == "*" {
                state.wildcard = false;
            } else {
                state.reported_absent.remove(&name);
                state.names.remove(&name);
            }
        }
        // The client drops what it no longer subscribes to.
        let TypeState { holds, wildcard, names, .. } = state;
        holds.retain(|name, _| *wildcard || names.contains(name));

        let received = match (&state.last_nonce, request.error_detail) {
            (Some(last), error) if *last == request.response_nonce => match error {
                None => Received::Ack { type_url, version: String::new() },
                Some(status) => Received::Nack {
                    type_url,
                    version: String::new(),
                    code: status.code,
                    message: loggable(&status.message, limits.max_logged_len),
                },
            },
            (Some(_), _) if !request.response_nonce.is_empty() => Received::Stale { type_url },
            _ => Received::Subscribe { type_url, version: String::new() },
        };
        let response = snapshot.and_then(|snapshot| self.respond(type_url, snapshot));
        Ok(DeltaHandled { received, response })
    }

    /// The responses a newly published snapshot calls for, in [`TypeUrl::ALL`]'s push order.
    pub fn on_snapshot(&mut self, snapshot: &Snapshot) -> Vec<DeltaDiscoveryResponse> {
        TypeUrl::ALL.into_iter().filter_map(|type_url| self.respond(type_url, snapshot)).collect()
    }

    fn respond(
        &mut self,
        type_url: TypeUrl,
        snapshot: &Snapshot,
    ) -> Option<DeltaDiscoveryResponse> {
        let state = self.types[type_url as usize].as_mut()?;
        let of_type = snapshot.of(type_url);
        let all = of_type.resources();
        let changed = |name: &str, holds: &BTreeMap<String, String>| {
            of_type
                .resource_version(name)
                .filter(|v| holds.get(name).map(String::as_str) != Some(*v))
        };
        let mut resources = Vec::new();
        let mut push = |name: &str, version: &str| {
            if let Some(any) = all.get(name) {
                resources.push(Resource {
                    name: name.to_owned(),
                    version: version.to_owned(),
                    resource: Some(any.clone()),
                    ..Resource::default()
                });
            }
        };
        if state.wildcard {
            for name in all.keys() {
                if let Some(version) = changed(name, &state.holds) {
                    push(name, version);
                }
            }
        }
        for name in &state.names {
            if !state.wildcard
                && let Some(version) = changed(name, &state.holds)
            {
                push(name, version);
            }
        }
        let mut removed: Vec<String> =
            state.holds.keys().filter(|name| !all.contains_key(*name)).cloned().collect();
        for name in &state.names {
            if !all.contains_key(name)
                && !state.holds.contains_key(name)
                && !state.reported_absent.contains(name)
            {
                removed.push(name.clone());
            }
        }
        let wants_anything = state.wildcard || !state.names.is_empty();
        if resources.is_empty() && removed.is_empty() && (state.answered || !wants_anything) {
            return None;
        }
        for resource in &resources {
            state.holds.insert(resource.name.clone(), resource.version.clone());
        }
        for name in &removed {
            state.holds.remove(name);
            if state.names.contains(name) {
                state.reported_absent.insert(name.clone());
            }
        }
        for resource in &resources {
            state.reported_absent.remove(&resource.name);
        }
        self.responses += 1;
        let nonce = format!("{}-{}", self.stream_id, self.responses);
        state.last_nonce = Some(nonce.clone());
        state.answered = true;
        Some(DeltaDiscoveryResponse {
            system_version_info: of_type.version().to_owned(),
            resources,
            type_url: type_url.as_str().to_owned(),
            removed_resources: removed,
            nonce,
            control_plane: Some(ControlPlane { identifier: CONTROL_PLANE_ID.to_owned() }),
            ..DeltaDiscoveryResponse::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use envoy_types::pb::envoy::config::core::v3::Node;
    use envoy_types::pb::google::protobuf::Any;
    use envoy_types::pb::google::rpc::Status;

    use super::*;

    fn snapshot(type_url: TypeUrl, resources: &[&str]) -> Snapshot {
        let mut builder = Snapshot::builder();
        for resource in resources {
            let (name, content) = resource.split_once('=').unwrap_or((resource, resource));
            let any = Any { type_url: type_url.as_str().into(), value: content.into() };
            builder.add(type_url, name, any).unwrap();
        }
        builder.build()
    }

    fn request(
        type_url: TypeUrl,
        subscribe: &[&str],
        unsubscribe: &[&str],
        nonce: &str,
    ) -> DeltaDiscoveryRequest {
        DeltaDiscoveryRequest {
            type_url: type_url.as_str().into(),
            resource_names_subscribe: subscribe.iter().map(|n| (*n).to_owned()).collect(),
            resource_names_unsubscribe: unsubscribe.iter().map(|n| (*n).to_owned()).collect(),
            response_nonce: nonce.into(),
            node: Some(Node { id: "envoy-1".into(), ..Node::default() }),
            ..DeltaDiscoveryRequest::default()
        }
    }

    fn names(response: &DeltaDiscoveryResponse) -> Vec<&str> {
        response.resources.iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn wildcard_gets_everything_then_only_changes_and_removals() {
        let cds = TypeUrl::Cluster;
        let one = snapshot(cds, &["a=1", "b=1"]);
        let mut s = DeltaStreamState::new(3, Limits::default());
        let r = s.on_request(request(cds, &[], &[], ""), Some(&one)).unwrap().response.unwrap();
        assert_eq!(names(&r), ["a", "b"]);
        assert_eq!(r.resources[0].version, one.resource_version(cds, "a").unwrap());
        assert_eq!(r.system_version_info, one.version(cds));
        assert_eq!(r.nonce, "3-1");
        let handled = s.on_request(request(cds, &[], &[], &r.nonce), Some(&one)).unwrap();
        assert_eq!(handled.received, Received::Ack { type_url: cds, version: String::new() });
        assert!(handled.response.is_none());

        let two = snapshot(cds, &["a=2", "c=1"]);
        let pushed = s.on_snapshot(&two);
        assert_eq!(pushed.len(), 1);
        assert_eq!(names(&pushed[0]), ["a", "c"]);
        assert_eq!(pushed[0].removed_resources, ["b"]);
        assert!(s.on_snapshot(&two).is_empty());
    }

    #[test]
    fn named_subscriptions_follow_subscribe_and_unsubscribe() {
        let eds = TypeUrl::ClusterLoadAssignment;
        let snap = snapshot(eds, &["a", "b"]);
        let mut s = DeltaStreamState::new(1, Limits::default());
        let r = s
            .on_request(request(eds, &["a", "missing"], &[], ""), Some(&snap))
            .unwrap()
            .response
            .unwrap();
        assert_eq!(names(&r), ["a"]);
        assert_eq!(r.removed_resources, ["missing"], "a named resource that does not exist");
        // A subscription change is applied even with an older nonce.
        let handled = s.on_request(request(eds, &["b"], &["a"], "stale"), Some(&snap)).unwrap();
        assert_eq!(handled.received, Received::Stale { type_url: eds });
        let r = handled.response.unwrap();
        assert_eq!(names(&r), ["b"]);
        assert!(r.removed_resources.is_empty(), "absence is reported once");
        // Re-subscribing to a dropped name sends it again.
        let r = s
            .on_request(request(eds, &["a"], &[], &r.nonce), Some(&snap))
            .unwrap()
            .response
            .unwrap();
        assert_eq!(names(&r), ["a"]);
    }

    #[test]
    fn initial_versions_resume_and_a_nack_is_not_resent() {
        let lds = TypeUrl::Listener;
        let snap = snapshot(lds, &["l1", "l2=new"]);
        let mut s = DeltaStreamState::new(1, Limits::default());
        let mut resume = request(lds, &[], &[], "");
        resume.initial_resource_versions = [
            ("l1".to_owned(), snap.resource_version(lds, "l1").unwrap().to_owned()),
            ("l2".to_owned(), "old".to_owned()),
            ("gone".to_owned(), "old".to_owned()),
        ]
        .into_iter()
        .collect();
        let r = s.on_request(resume, Some(&snap)).unwrap().response.unwrap();
        assert_eq!(names(&r), ["l2"]);
        assert_eq!(r.removed_resources, ["gone"]);

        let mut nack = request(lds, &[], &[], &r.nonce);
        nack.error_detail =
            Some(Status { code: 3, message: "bad\nlistener".into(), details: vec![] });
        let handled = s.on_request(nack, Some(&snap)).unwrap();
        assert!(
            matches!(handled.received, Received::Nack { ref message, .. } if message == "bad listener")
        );
        assert!(handled.response.is_none());
        assert!(s.on_snapshot(&snap).is_empty());
    }

    #[test]
    fn the_first_request_is_answered_even_with_nothing_and_nothing_before_a_snapshot() {
        let cds = TypeUrl::Cluster;
        let mut s = DeltaStreamState::new(1, Limits::default());
        assert!(s.on_request(request(cds, &[], &[], ""), None).unwrap().response.is_none());
        let empty = Snapshot::empty();
        let r = s.on_snapshot(&empty);
        assert_eq!(r.len(), 1);
        assert!(r[0].resources.is_empty() && r[0].removed_resources.is_empty());
        assert!(s.on_snapshot(&empty).is_empty());
    }

    #[test]
    fn oversized_requests_are_refused() {
        let mut s = DeltaStreamState::new(1, Limits { max_resource_names: 1, ..Limits::default() });
        let err = s.on_request(request(TypeUrl::Cluster, &[], &["a", "b"], ""), None).unwrap_err();
        assert_eq!(err, RequestError::TooManyResourceNames { count: 2, limit: 1 });
    }
}
