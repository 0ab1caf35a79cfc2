//! What route processing hands to the Envoy translation: per served virtual host, its HTTP
//! routes (for `ingress_http`), and its TLS side (routes or a TCP proxy for `ingress_https`).

use super::conditions::PathMatch;
use super::services::ResolvedService;
use crate::validate::ValidatedVhost;

/// One weighted upstream of a route or TCP proxy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    pub service: ResolvedService,
    /// `weight` as Contour converts it (`uint32(service.Weight)`); 0 when unset.
    pub weight: u32,
}

/// What a route does with a matched request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteAction {
    /// Forward to these upstreams (one or more; weights as written).
    Forward(Vec<Upstream>),
    /// Answer directly: 503 when no service resolved, 502 for a broken include.
    DirectResponse(u32),
}

/// A route of a virtual host after include and condition merging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteModel {
    pub path: PathMatch,
    pub action: RouteAction,
    pub websocket: bool,
    /// On the HTTP listener, answer with a redirect to HTTPS (TLS vhost, no `permitInsecure`).
    pub https_upgrade: bool,
}

/// The TLS side of a served virtual host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecureServing {
    /// HTTP routes behind TLS termination (`https/<fqdn>`).
    Http(Vec<RouteModel>),
    /// `spec.tcpproxy`: TLS terminated, then plain TCP to the upstreams.
    TcpProxy(Vec<Upstream>),
}

/// A virtual host that Contour would program, with everything the translation needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ServedVhost {
    /// Namespace and name of the root proxy.
    pub namespace: String,
    pub name: String,
    pub fqdn: String,
    /// Routes for the HTTP listener, sorted as Contour sorts them; empty = no HTTP vhost.
    pub http_routes: Vec<RouteModel>,
    /// The TLS termination (serving Secret, versions, client validation), when TLS is on.
    pub tls: Option<ValidatedVhost>,
    pub secure: Option<SecureServing>,
}
