//! HTTPProxy processing beyond TLS, as pure functions over a snapshot: Contour's root checks
//! and TLS processing (`validate`), then unsupported-feature checks, `spec.tcpproxy`, routes and
//! includes, Service lookups, and orphan detection. The result is every proxy's status and the
//! virtual hosts Contour would program, which `envoy::resources` turns into xDS resources.

mod conditions;
mod model;
mod routes;
mod services;
mod tcpproxy;
mod unsupported;

use std::collections::{BTreeMap, BTreeSet};

pub use conditions::PathMatch;
pub use model::{RouteAction, RouteModel, SecureServing, ServedVhost, Upstream};
pub use routes::{MAX_INCLUDE_DEPTH, MAX_INCLUDE_VISITS};
pub use services::{LookupError, ResolvedService, ServiceIndex};

use crate::delegation::NamespacedName;
use crate::status::{
    ORPHANED_ERROR, StatusBuilder, TCP_PROXY_ERROR, UNSUPPORTED_ERROR, VIRTUAL_HOST_ERROR,
};
use crate::types::{HttpProxy, KubeService, Secret, TlsCertificateDelegation};
use crate::validate::{
    Flow, Objects, ProcessOutcome, ProcessorConfig, duplicate_fqdns, process_root,
};
use routes::Walker;

/// The objects Contour's cache would hold, Services included.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot<'a> {
    pub proxies: &'a [HttpProxy],
    pub secrets: &'a BTreeMap<NamespacedName, Secret>,
    pub delegations: &'a [TlsCertificateDelegation],
    pub services: &'a [KubeService],
}

/// Statuses of every proxy (input order) and the virtual hosts to serve (input order of
/// their root proxies). `outcomes[].vhost` is the TLS termination processing got to (as in the
/// offline check); only `vhosts` says what is served.
#[derive(Debug, Clone, PartialEq)]
pub struct Processed {
    pub outcomes: Vec<ProcessOutcome>,
    pub vhosts: Vec<ServedVhost>,
}

/// Runs Contour's `HTTPProxyProcessor` over the snapshot for the subset certgate serves.
pub fn process_snapshot(snapshot: Snapshot<'_>, config: &ProcessorConfig) -> Processed {
    let proxies = snapshot.proxies;
    let objects = Objects { proxies, secrets: snapshot.secrets, delegations: snapshot.delegations };
    let mut statuses = vec![StatusBuilder::new(); proxies.len()];
    let mut tls_vhosts = vec![None; proxies.len()];
    // A later object with the same namespace/name replaces an earlier one, as in a map.
    let by_name: BTreeMap<(String, String), usize> = proxies
        .iter()
        .enumerate()
        .map(|(i, p)| ((p.namespace().to_string(), p.name().to_string()), i))
        .collect();
    let service_index = ServiceIndex::new(snapshot.services);
    let mut reached = BTreeSet::new();
    let duplicates = duplicate_fqdns(proxies);
    let mut vhosts = Vec::new();
    for (index, proxy) in proxies.iter().enumerate() {
        let Some(vhost) = proxy.spec.virtualhost.as_ref() else { continue };
        if let Some(message) = duplicates.get(&vhost.fqdn.to_lowercase()) {
            statuses[index].add_error(VIRTUAL_HOST_ERROR, "DuplicateVhost", message);
            continue;
        }
        let tls = match process_root(proxy, objects, config, &mut statuses[index]) {
            Flow::Stopped => continue,
            Flow::Continued(tls) => tls.map(|t| *t),
        };
        tls_vhosts[index] = tls.clone();
        // A feature certgate does not serve makes the proxy invalid and unserved, but its
        // routes and includes are still processed, so their statuses (and which proxies are
        // reached, not orphaned) are Contour's.
        if let Some(field) = unsupported::vhost_feature(proxy) {
            unsupported::report(&mut statuses[index], &field);
        }
        // Contour's `tlsEnabled`: TLS terminated here, or passed through (refused above).
        let tls_enabled = tls.is_some() || vhost.tls.as_ref().is_some_and(|t| t.passthrough());
        let mut walker = Walker {
            proxies,
            by_name: &by_name,
            services: &service_index,
            statuses: &mut statuses,
            reached: &mut reached,
            budget: MAX_INCLUDE_VISITS,
            limit_reported: false,
        };
        let served = walker.root(index, tls, tls_enabled);
        // Any feature certgate does not serve on the root itself (virtual host, its own routes
        // or TCP proxy, or a walk limit that would leave a partial route table) keeps the whole
        // virtual host unserved. An included proxy with such a feature only loses its own
        // routes, as with any route error Contour reports on an included proxy.
        let refused = statuses[index].errors().iter().any(|e| e.type_ == UNSUPPORTED_ERROR);
        if let Some(served) = served.filter(|_| !refused) {
            vhosts.push(served);
        }
    }

    // Every non-root proxy starts orphaned; an include that resolves to it (found, not a root)
    // from a processed root clears it, as in Contour's `Run`.
    for (index, proxy) in proxies.iter().enumerate() {
        if proxy.spec.virtualhost.is_none() && !reached.contains(&index) {
            statuses[index].add_error(
                ORPHANED_ERROR,
                "Orphaned",
                "this HTTPProxy is not part of a delegation chain from a root HTTPProxy",
            );
        }
    }
    let outcomes = proxies
        .iter()
        .zip(statuses)
        .zip(tls_vhosts)
        .map(|((proxy, status), vhost)| ProcessOutcome {
            namespace: proxy.namespace().to_string(),
            name: proxy.name().to_string(),
            generation: proxy.metadata.generation,
            status,
            vhost,
        })
        .collect();
    Processed { outcomes, vhosts }
}

impl Walker<'_, '_> {
    /// The rest of `computeHTTPProxy` after TLS: TCP proxy, routes, and the virtual hosts.
    fn root(
        &mut self,
        index: usize,
        tls: Option<crate::validate::ValidatedVhost>,
        tls_enabled: bool,
    ) -> Option<ServedVhost> {
        let proxy = &self.proxies[index];
        let fqdn = proxy.spec.virtualhost.as_ref().map(|v| v.fqdn.clone()).unwrap_or_default();
        let mut tcp = None;
        if proxy.spec.tcpproxy.is_some() {
            if !tls_enabled {
                self.statuses[index].add_error(
                    TCP_PROXY_ERROR,
                    "TLSMustBeConfigured",
                    "Spec.TCPProxy requires that either Spec.TLS.Passthrough or Spec.TLS.SecretName be set",
                );
                return None;
            }
            tcp = Some(self.tcp_proxy(index, &mut Vec::new())?);
        }
        let mut routes = self.compute_routes(index, index, &[], &mut Vec::new(), tls_enabled);
        let routes = sort_routes(dedupe(std::mem::take(&mut routes)));
        let secure = match (tcp, &tls) {
            (Some(upstreams), Some(_)) if !upstreams.is_empty() => {
                Some(SecureServing::TcpProxy(upstreams))
            }
            (Some(_), _) | (None, None) => None,
            (None, Some(_)) if routes.is_empty() => None,
            (None, Some(_)) => {
                let secure_routes = routes
                    .iter()
                    .cloned()
                    .map(|r| RouteModel { https_upgrade: false, ..r })
                    .collect();
                Some(SecureServing::Http(secure_routes))
            }
        };
        if routes.is_empty() && secure.is_none() {
            return None;
        }
        Some(ServedVhost {
            namespace: proxy.namespace().to_string(),
            name: proxy.name().to_string(),
            fqdn,
            http_routes: routes,
            tls: if secure.is_some() { tls } else { None },
            secure,
        })
    }
}

/// Contour's `VirtualHost.AddRoute` keys routes by their match: a later route with the same
/// match replaces the earlier one.
fn dedupe(routes: Vec<RouteModel>) -> Vec<RouteModel> {
    let mut by_match: BTreeMap<PathMatch, RouteModel> = BTreeMap::new();
    for route in routes {
        by_match.insert(route.path.clone(), route);
    }
    by_match.into_values().collect()
}

/// Contour's route sorter (`internal/sorter`): exact matches first, in reverse lexicographic
/// order; then prefixes, longest first, equal lengths in reverse lexicographic order.
fn sort_routes(mut routes: Vec<RouteModel>) -> Vec<RouteModel> {
    routes.sort_by(|a, b| match (&a.path, &b.path) {
        (PathMatch::Exact(x), PathMatch::Exact(y)) => y.cmp(x),
        (PathMatch::Exact(_), PathMatch::Prefix(_)) => std::cmp::Ordering::Less,
        (PathMatch::Prefix(_), PathMatch::Exact(_)) => std::cmp::Ordering::Greater,
        (PathMatch::Prefix(x), PathMatch::Prefix(y)) => {
            y.len().cmp(&x.len()).then_with(|| y.cmp(x))
        }
    });
    routes
}
