//! The state-of-the-world xDS protocol of one ADS stream, as a pure state machine: a request
//! (and the current snapshot) in, at most one response out; a new snapshot in, the responses it
//! calls for out. No I/O, no clock, no gRPC: [`crate::ads`] drives it from the network, and the
//! unit tests below drive it directly.
//!
//! What it keeps per stream and per resource type: the subscription (all resources, or a set
//! of names), the version and nonce of the last response sent and the names it was sent for,
//! the version the client last acknowledged, and the version the client said it holds.
//!
//! The rules (Envoy's xDS protocol, `api-docs/xds_protocol`; ADR 0012):
//! - **Stale**: once a response of a type was sent on this stream, a request of that type whose
//!   `response_nonce` is not that response's nonce answers an older response; it is ignored
//!   whole (its names too: the client repeats them when it answers the newest response).
//! - **ACK** (nonce matches, no `error_detail`): the version is recorded as acknowledged.
//! - **NACK** (nonce matches, `error_detail` set): reported, and the rejected version is not
//!   sent again; the next response comes with a new version or a new subscription.
//! - **When to send**: when the type's version differs from the last one sent on this stream,
//!   or the subscription differs from the one it was sent for. Never for an empty named
//!   subscription (the client wants nothing), never before the first snapshot is published.
//! - **Resume**: before anything was sent on this stream, a wildcard subscription whose
//!   `version_info` equals the current version is not answered: the client (reconnecting, or
//!   meeting a restarted or another replica) already holds exactly that content, since versions
//!   are content hashes. A named subscription is always answered on a new stream: the version
//!   covers the whole type, and which names the client received it for is not known here.
//! - **Wildcard**: for LDS and CDS an empty name list on the first request (or while the
//!   subscription is already wildcard), or a list containing `*`, means every resource; an empty
//!   list after explicit names unsubscribes from all. RDS, EDS and SDS are named only: `*` is an
//!   ordinary name there.
//! - **Bounds**: a request naming more resources than [`Limits::max_resource_names`] or a node id
//!   longer than [`Limits::max_node_id_len`] is an error that ends the stream; an unknown type
//!   URL is reported and otherwise ignored (no state is kept for it, so a client cannot grow the
//!   per-stream state past the five served types).

use std::collections::BTreeSet;

use envoy_types::pb::envoy::config::core::v3::ControlPlane;
use envoy_types::pb::envoy::service::discovery::v3::{DiscoveryRequest, DiscoveryResponse};
use thiserror::Error;

use crate::snapshot::{Snapshot, TypeUrl};

/// The identifier Envoy shows as the source of its configuration (`control_plane` of each
/// response, visible in Envoy's config dump).
pub const CONTROL_PLANE_ID: &str = "certgate";

/// How much of a client's input a stream accepts or repeats in logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Resource names in one request. Envoy names one EDS resource per cluster, so this is
    /// also a bound on the clusters one Envoy can be served.
    pub max_resource_names: usize,
    /// Bytes of `node.id` (Envoys are usually named after their pods: at most 253 bytes).
    pub max_node_id_len: usize,
    /// Bytes of a NACK's error message and of an unknown type URL repeated in a log line.
    pub max_logged_len: usize,
    /// Bytes of one encoded request (tonic's own default, stated here so it is a decision).
    pub max_request_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_resource_names: 10_000,
            max_node_id_len: 1024,
            max_logged_len: 1024,
            max_request_bytes: 4 * 1024 * 1024,
        }
    }
}

/// A request the stream cannot accept; the stream ends with this as its status.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum RequestError {
    #[error("the request names {count} resources, more than the {limit} accepted")]
    TooManyResourceNames { count: usize, limit: usize },
    #[error("the node id is {len} bytes long, longer than the {limit} accepted")]
    NodeIdTooLong { len: usize, limit: usize },
}

/// What a request was, for logs and metrics. Versions and messages are the client's text cut
/// to [`Limits::max_logged_len`] with control characters replaced (see [`loggable`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Received {
    /// A request before any response of its type on this stream: the first one, or one
    /// changing the subscription while nothing has been sent yet.
    Subscribe {
        type_url: TypeUrl,
        version: String,
    },
    Ack {
        type_url: TypeUrl,
        version: String,
    },
    /// `version` is the one the client keeps (its last accepted); `message` is the client's
    /// error, cut to [`Limits::max_logged_len`] with control characters replaced.
    Nack {
        type_url: TypeUrl,
        version: String,
        code: i32,
        message: String,
    },
    /// Answers an older response than the last one sent; ignored.
    Stale {
        type_url: TypeUrl,
    },
    /// A type certgate does not serve; `type_url` is cut like a NACK message.
    UnknownType {
        type_url: String,
    },
}

/// The outcome of one request.
#[derive(Debug)]
pub struct Handled {
    pub received: Received,
    pub response: Option<DiscoveryResponse>,
}

/// Which resources of a type the client wants.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subscription {
    Wildcard,
    Names(BTreeSet<String>),
}

impl Subscription {
    /// The subscription a request states, given the previous one of its type on the stream
    /// (the legacy wildcard rule needs it: see the module documentation).
    pub fn from_request(
        type_url: TypeUrl,
        names: Vec<String>,
        previous: Option<&Subscription>,
    ) -> Subscription {
        if type_url.supports_wildcard() {
            if names.iter().any(|name| name == "*") {
                return Subscription::Wildcard;
            }
            if names.is_empty() && matches!(previous, None | Some(Subscription::Wildcard)) {
                return Subscription::Wildcard;
            }
        }
        Subscription::Names(names.into_iter().collect())
    }

    fn wants_nothing(&self) -> bool {
        matches!(self, Subscription::Names(names) if names.is_empty())
    }
}

/// The last response of one type sent on the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Sent {
    version: String,
    nonce: String,
    subscription: Subscription,
}

#[derive(Debug)]
struct TypeState {
    subscription: Subscription,
    /// The `version_info` of the client's latest accepted request: the version it holds.
    client_version: String,
    last_sent: Option<Sent>,
    acked: Option<String>,
}

/// The protocol state of one ADS stream.
#[derive(Debug)]
pub struct StreamState {
    stream_id: u64,
    responses: u64,
    node_id: String,
    limits: Limits,
    types: [Option<TypeState>; 5],
}

impl StreamState {
    /// `stream_id` makes this stream's nonces (`<stream>-<n>`) distinct from every other
    /// stream's of this process, which also lets a log line's nonce name its stream.
    pub fn new(stream_id: u64, limits: Limits) -> StreamState {
        StreamState {
            stream_id,
            responses: 0,
            node_id: String::new(),
            limits,
            types: Default::default(),
        }
    }

    /// The node id of the first request that carried a node (Envoy may send it only once).
    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The version of `type_url` the client last acknowledged on this stream.
    pub fn acked_version(&self, type_url: TypeUrl) -> Option<&str> {
        self.types[type_url as usize].as_ref().and_then(|state| state.acked.as_deref())
    }

    /// Handles one request against the current snapshot (`None` before the first publish).
    pub fn on_request(
        &mut self,
        request: DiscoveryRequest,
        snapshot: Option<&Snapshot>,
    ) -> Result<Handled, RequestError> {
        let limits = self.limits;
        if request.resource_names.len() > limits.max_resource_names {
            return Err(RequestError::TooManyResourceNames {
                count: request.resource_names.len(),
                limit: limits.max_resource_names,
            });
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
            return Ok(Handled { received: Received::UnknownType { type_url }, response: None });
        };

        // The version as reported in logs: client input, so bounded like any other text.
        let reported = loggable(&request.version_info, limits.max_logged_len);
        let slot = &mut self.types[type_url as usize];
        let received = match slot {
            Some(state) => {
                if let Some(sent) = &state.last_sent
                    && sent.nonce != request.response_nonce
                {
                    return Ok(Handled { received: Received::Stale { type_url }, response: None });
                }
                let answered = state.last_sent.is_some();
                state.subscription = Subscription::from_request(
                    type_url,
                    request.resource_names,
                    Some(&state.subscription),
                );
                state.client_version.clone_from(&request.version_info);
                match (answered, request.error_detail) {
                    (false, _) => Received::Subscribe { type_url, version: reported },
                    (true, None) => {
                        state.acked = Some(request.version_info);
                        Received::Ack { type_url, version: reported }
                    }
                    (true, Some(status)) => Received::Nack {
                        type_url,
                        version: reported,
                        code: status.code,
                        message: loggable(&status.message, limits.max_logged_len),
                    },
                }
            }
            None => {
                *slot = Some(TypeState {
                    subscription: Subscription::from_request(
                        type_url,
                        request.resource_names,
                        None,
                    ),
                    client_version: request.version_info,
                    last_sent: None,
                    acked: None,
                });
                Received::Subscribe { type_url, version: reported }
            }
        };
        let response = snapshot.and_then(|snapshot| self.respond(type_url, snapshot));
        Ok(Handled { received, response })
    }

    /// The responses a newly published snapshot calls for, in [`TypeUrl::ALL`]'s push order.
    pub fn on_snapshot(&mut self, snapshot: &Snapshot) -> Vec<DiscoveryResponse> {
        TypeUrl::ALL.into_iter().filter_map(|type_url| self.respond(type_url, snapshot)).collect()
    }

    /// The response `type_url` needs now, if any, recorded as the last one sent.
    fn respond(&mut self, type_url: TypeUrl, snapshot: &Snapshot) -> Option<DiscoveryResponse> {
        let state = self.types[type_url as usize].as_mut()?;
        let version = snapshot.version(type_url);
        if state.subscription.wants_nothing() {
            return None;
        }
        let needed = match &state.last_sent {
            Some(sent) => sent.version != version || sent.subscription != state.subscription,
            None => state.subscription != Subscription::Wildcard || state.client_version != version,
        };
        if !needed {
            return None;
        }
        self.responses += 1;
        let nonce = format!("{}-{}", self.stream_id, self.responses);
        let all = snapshot.resources(type_url);
        let resources = match &state.subscription {
            Subscription::Wildcard => all.values().cloned().collect(),
            Subscription::Names(names) => {
                names.iter().filter_map(|name| all.get(name)).cloned().collect()
            }
        };
        state.last_sent = Some(Sent {
            version: version.to_owned(),
            nonce: nonce.clone(),
            subscription: state.subscription.clone(),
        });
        Some(DiscoveryResponse {
            version_info: version.to_owned(),
            resources,
            type_url: type_url.as_str().to_owned(),
            nonce,
            control_plane: Some(ControlPlane { identifier: CONTROL_PLANE_ID.to_owned() }),
            ..DiscoveryResponse::default()
        })
    }
}

/// `text` cut to at most `max` bytes on a character boundary, with control characters (line
/// breaks included) replaced by spaces, so a client's text cannot forge log lines.
pub fn loggable(text: &str, max: usize) -> String {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

#[cfg(test)]
mod tests {
    use envoy_types::pb::envoy::config::core::v3::Node;
    use envoy_types::pb::google::protobuf::Any;
    use envoy_types::pb::google::rpc::Status;

    use super::*;

    fn snapshot(clusters: &[&str], endpoints: &[&str], listeners: &[&str]) -> Snapshot {
        let mut builder = Snapshot::builder();
        for (type_url, names) in [
            (TypeUrl::Cluster, clusters),
            (TypeUrl::ClusterLoadAssignment, endpoints),
            (TypeUrl::Listener, listeners),
        ] {
            for name in names {
                let (name, content) = name.split_once('=').unwrap_or((name, ""));
                let any = Any { type_url: type_url.as_str().into(), value: content.into() };
                builder.add(type_url, name, any).unwrap();
            }
        }
        builder.build()
    }

    fn request(type_url: TypeUrl, names: &[&str], version: &str, nonce: &str) -> DiscoveryRequest {
        DiscoveryRequest {
            type_url: type_url.as_str().into(),
            resource_names: names.iter().map(|n| (*n).to_owned()).collect(),
            version_info: version.into(),
            response_nonce: nonce.into(),
            node: Some(Node { id: "envoy-1".into(), ..Node::default() }),
            ..DiscoveryRequest::default()
        }
    }

    fn nack(type_url: TypeUrl, version: &str, nonce: &str, message: &str) -> DiscoveryRequest {
        DiscoveryRequest {
            error_detail: Some(Status { code: 3, message: message.into(), details: vec![] }),
            ..request(type_url, &[], version, nonce)
        }
    }

    fn names(response: &DiscoveryResponse) -> Vec<String> {
        response.resources.iter().map(|r| String::from_utf8_lossy(&r.value).into_owned()).collect()
    }

    fn stream() -> StreamState {
        StreamState::new(7, Limits::default())
    }

    #[test]
    fn wildcard_first_request_gets_everything_then_an_ack_gets_nothing() {
        let snap = snapshot(&["a=A", "b=B"], &[], &[]);
        let mut s = stream();
        let handled = s.on_request(request(TypeUrl::Cluster, &[], "", ""), Some(&snap)).unwrap();
        assert_eq!(
            handled.received,
            Received::Subscribe { type_url: TypeUrl::Cluster, version: String::new() }
        );
        let response = handled.response.unwrap();
        assert_eq!(names(&response), ["A", "B"]);
        assert_eq!(response.version_info, snap.version(TypeUrl::Cluster));
        assert_eq!(response.nonce, "7-1");
        assert_eq!(response.type_url, TypeUrl::Cluster.as_str());
        assert_eq!(s.node_id(), "envoy-1");

        let ack = request(TypeUrl::Cluster, &[], &response.version_info, &response.nonce);
        let handled = s.on_request(ack, Some(&snap)).unwrap();
        assert_eq!(
            handled.received,
            Received::Ack { type_url: TypeUrl::Cluster, version: response.version_info.clone() }
        );
        assert!(handled.response.is_none());
        assert_eq!(s.acked_version(TypeUrl::Cluster), Some(snap.version(TypeUrl::Cluster)));
        assert!(s.on_snapshot(&snap).is_empty(), "same snapshot again: nothing to send");
    }

    #[test]
    fn a_snapshot_change_pushes_only_the_changed_types_in_push_order() {
        let one = snapshot(&["a=A"], &["a=EA"], &["l=L"]);
        let mut s = stream();
        for (t, names) in [
            (TypeUrl::Listener, &[][..]),
            (TypeUrl::Cluster, &[]),
            (TypeUrl::ClusterLoadAssignment, &["a"]),
        ] {
            let r = s.on_request(request(t, names, "", ""), Some(&one)).unwrap().response.unwrap();
            s.on_request(request(t, names, &r.version_info, &r.nonce), Some(&one)).unwrap();
        }
        let two = snapshot(&["a=A2"], &["a=EA"], &["l=L"]);
        let pushed = s.on_snapshot(&two);
        assert_eq!(pushed.len(), 1);
        assert_eq!(pushed[0].type_url, TypeUrl::Cluster.as_str());

        let three = snapshot(&["a=A3"], &["a=EA3"], &["l=L3"]);
        let order: Vec<_> = s.on_snapshot(&three).into_iter().map(|r| r.type_url).collect();
        assert_eq!(
            order,
            [
                TypeUrl::Cluster.as_str(),
                TypeUrl::ClusterLoadAssignment.as_str(),
                TypeUrl::Listener.as_str()
            ]
        );
    }

    #[test]
    fn named_subscriptions_get_their_names_and_a_name_change_resends() {
        let snap = snapshot(&[], &["a=EA", "b=EB", "c=EC"], &[]);
        let mut s = stream();
        let eds = TypeUrl::ClusterLoadAssignment;
        let r = s
            .on_request(request(eds, &["a", "missing"], "", ""), Some(&snap))
            .unwrap()
            .response
            .unwrap();
        assert_eq!(names(&r), ["EA"]);
        let handled = s
            .on_request(request(eds, &["a", "c"], &r.version_info, &r.nonce), Some(&snap))
            .unwrap();
        assert!(matches!(handled.received, Received::Ack { .. }));
        let r2 = handled.response.expect("new names, new response");
        assert_eq!(names(&r2), ["EA", "EC"]);
        assert_eq!(r2.version_info, r.version_info);
        assert_ne!(r2.nonce, r.nonce);
        let handled = s
            .on_request(request(eds, &["c", "a"], &r2.version_info, &r2.nonce), Some(&snap))
            .unwrap();
        assert!(handled.response.is_none(), "same names in another order");
    }

    #[test]
    fn wildcard_rules_for_lds_and_cds_only() {
        let names = |v: &[&str]| v.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>();
        let star = Subscription::from_request(TypeUrl::Listener, names(&["*", "x"]), None);
        assert_eq!(star, Subscription::Wildcard);
        assert_eq!(
            Subscription::from_request(TypeUrl::Cluster, vec![], None),
            Subscription::Wildcard
        );
        let explicit = Subscription::from_request(TypeUrl::Cluster, names(&["x"]), None);
        assert_eq!(
            Subscription::from_request(TypeUrl::Cluster, vec![], Some(&explicit)),
            Subscription::Names(BTreeSet::new()),
            "an empty list after explicit names unsubscribes"
        );
        assert_eq!(
            Subscription::from_request(TypeUrl::Secret, names(&["*"]), None),
            Subscription::Names(BTreeSet::from(["*".to_owned()]))
        );
        assert_eq!(
            Subscription::from_request(TypeUrl::RouteConfiguration, vec![], None),
            Subscription::Names(BTreeSet::new())
        );
    }

    #[test]
    fn an_empty_named_subscription_gets_nothing() {
        let snap = snapshot(&[], &["a=EA"], &[]);
        let mut s = stream();
        let handled = s
            .on_request(request(TypeUrl::ClusterLoadAssignment, &[], "", ""), Some(&snap))
            .unwrap();
        assert!(handled.response.is_none());
        assert!(s.on_snapshot(&snapshot(&[], &["a=EA2"], &[])).is_empty());
    }

    #[test]
    fn a_nack_is_reported_and_the_rejected_version_is_not_resent() {
        let one = snapshot(&["a=A"], &[], &[]);
        let mut s = stream();
        let r = s
            .on_request(request(TypeUrl::Cluster, &[], "", ""), Some(&one))
            .unwrap()
            .response
            .unwrap();
        let handled = s
            .on_request(
                nack(TypeUrl::Cluster, "", &r.nonce, "bad cluster\nforged line"),
                Some(&one),
            )
            .unwrap();
        assert_eq!(
            handled.received,
            Received::Nack {
                type_url: TypeUrl::Cluster,
                version: String::new(),
                code: 3,
                message: "bad cluster forged line".into()
            }
        );
        assert!(handled.response.is_none());
        assert!(s.on_snapshot(&one).is_empty());
        assert_eq!(s.acked_version(TypeUrl::Cluster), None);
        let two = snapshot(&["a=A2"], &[], &[]);
        let pushed = s.on_snapshot(&two);
        assert_eq!(pushed.len(), 1);
        assert_eq!(pushed[0].version_info, two.version(TypeUrl::Cluster));
    }

    #[test]
    fn a_stale_nonce_is_ignored_names_included() {
        let one = snapshot(&[], &["a=EA", "b=EB"], &[]);
        let two = snapshot(&[], &["a=EA2", "b=EB"], &[]);
        let eds = TypeUrl::ClusterLoadAssignment;
        let mut s = stream();
        let r1 = s.on_request(request(eds, &["a"], "", ""), Some(&one)).unwrap().response.unwrap();
        let r2 = s.on_snapshot(&two).pop().unwrap();
        // The client answers r1 after r2 was sent, asking for more names: stale.
        let handled = s
            .on_request(request(eds, &["a", "b"], &r1.version_info, &r1.nonce), Some(&two))
            .unwrap();
        assert_eq!(handled.received, Received::Stale { type_url: eds });
        assert!(handled.response.is_none());
        // Its answer to r2 carries the names again and gets them.
        let handled = s
            .on_request(request(eds, &["a", "b"], &r2.version_info, &r2.nonce), Some(&two))
            .unwrap();
        assert_eq!(names(&handled.response.unwrap()), ["EA2", "EB"]);
        // An empty nonce after a response is stale as well.
        let handled = s.on_request(request(eds, &["b"], "", ""), Some(&two)).unwrap();
        assert_eq!(handled.received, Received::Stale { type_url: eds });
    }

    #[test]
    fn a_reconnect_with_the_current_wildcard_version_resumes() {
        let snap = snapshot(&["a=A"], &["a=EA"], &[]);
        let current = snap.version(TypeUrl::Cluster).to_owned();
        let mut s = stream();
        let handled =
            s.on_request(request(TypeUrl::Cluster, &[], &current, ""), Some(&snap)).unwrap();
        assert!(handled.response.is_none(), "the client holds the current clusters");
        let changed = snapshot(&["a=A2"], &["a=EA"], &[]);
        assert_eq!(s.on_snapshot(&changed).len(), 1, "and gets the next change");

        let mut s = stream();
        let handled =
            s.on_request(request(TypeUrl::Cluster, &[], "older", ""), Some(&snap)).unwrap();
        assert_eq!(handled.response.unwrap().version_info, current);

        // A named subscription is answered on a new stream whatever version it states.
        let eds = TypeUrl::ClusterLoadAssignment;
        let mut s = stream();
        let handled =
            s.on_request(request(eds, &["a"], snap.version(eds), ""), Some(&snap)).unwrap();
        assert!(handled.response.is_some());
    }

    #[test]
    fn nothing_is_sent_before_the_first_snapshot() {
        let mut s = stream();
        let handled = s.on_request(request(TypeUrl::Listener, &[], "", ""), None).unwrap();
        assert!(handled.response.is_none());
        let handled = s.on_request(request(TypeUrl::Cluster, &[], "", ""), None).unwrap();
        assert!(handled.response.is_none());
        let snap = snapshot(&["a=A"], &[], &["l=L"]);
        let pushed: Vec<_> = s.on_snapshot(&snap).into_iter().map(|r| r.type_url).collect();
        assert_eq!(pushed, [TypeUrl::Cluster.as_str(), TypeUrl::Listener.as_str()]);

        // A restarted control plane publishing the same content resumes a reconnected client.
        let mut s = stream();
        let held = snap.version(TypeUrl::Listener);
        s.on_request(request(TypeUrl::Listener, &[], held, ""), None).unwrap();
        assert!(s.on_snapshot(&snap).is_empty());
    }

    #[test]
    fn unknown_types_and_oversized_requests() {
        let snap = Snapshot::empty();
        let mut s = StreamState::new(
            1,
            Limits {
                max_resource_names: 2,
                max_node_id_len: 8,
                max_logged_len: 10,
                ..Limits::default()
            },
        );
        let unknown = DiscoveryRequest {
            type_url: "type.googleapis.com/envoy.Unknown".into(),
            ..DiscoveryRequest::default()
        };
        let handled = s.on_request(unknown, Some(&snap)).unwrap();
        assert_eq!(handled.received, Received::UnknownType { type_url: "type.googl".into() });
        assert!(handled.response.is_none());

        let long_version = request(TypeUrl::Listener, &[], "0123456789abcdef", "");
        let handled = s.on_request(long_version, Some(&snap)).unwrap();
        assert_eq!(
            handled.received,
            Received::Subscribe { type_url: TypeUrl::Listener, version: "0123456789".into() }
        );

        let too_many = request(TypeUrl::ClusterLoadAssignment, &["a", "b", "c"], "", "");
        assert_eq!(
            s.on_request(too_many, Some(&snap)).unwrap_err(),
            RequestError::TooManyResourceNames { count: 3, limit: 2 }
        );
        let mut long_node = request(TypeUrl::Cluster, &[], "", "");
        long_node.node = Some(Node { id: "a-very-long-node".into(), ..Node::default() });
        assert_eq!(
            s.on_request(long_node, Some(&snap)).unwrap_err(),
            RequestError::NodeIdTooLong { len: 16, limit: 8 }
        );
    }

    #[test]
    fn loggable_text_is_cut_on_a_character_boundary() {
        assert_eq!(loggable("héllo", 2), "h");
        assert_eq!(loggable("héllo", 3), "hé");
        assert_eq!(loggable("a\r\nb", 10), "a  b");
        assert_eq!(loggable("", 10), "");
    }
}
