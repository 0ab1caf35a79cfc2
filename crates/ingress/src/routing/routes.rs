//! Contour's `computeRoutes` (internal/dag/httpproxy_processor.go) for the served subset:
//! includes (with cycle, duplicate-condition, not-found and root-includes-root checks and the
//! 502 routes Contour adds for broken includes), then the proxy's own routes with prefix/exact
//! conditions and weighted services. Errors land on the status of the proxy being processed
//! (a root or an included proxy), with Contour's types, reasons and messages; a route-level
//! error drops every route of that proxy, as Contour's `return nil` does.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::conditions::{
    PathMatch, include_conditions_valid, merge_path_conditions, path_conditions_valid,
    unsupported_condition,
};
use super::model::{RouteAction, RouteModel, Upstream};
use super::services::{ResolvedService, ServiceIndex};
use super::unsupported;
use crate::status::{INCLUDE_ERROR, ROUTE_ERROR, SERVICE_ERROR, StatusBuilder};
use crate::types::{HttpProxy, MatchCondition, Route, Service};

/// How many proxy visits one root's include tree may cost. Contour walks every path of the
/// include graph, which is exponential for a diamond-shaped graph; certgate stops and reports.
pub const MAX_INCLUDE_VISITS: usize = 10_000;

/// How long one include chain (HTTP or TCP proxy) may be. Contour has no limit; certgate's walk
/// recurses once per link, so the depth is bounded to keep the stack bounded.
pub const MAX_INCLUDE_DEPTH: usize = 64;

/// Shared state of one processing run.
pub(crate) struct Walker<'a, 'b> {
    pub proxies: &'a [HttpProxy],
    pub by_name: &'b BTreeMap<(String, String), usize>,
    pub services: &'b ServiceIndex<'a>,
    pub statuses: &'b mut [StatusBuilder],
    /// Non-root proxies reached through a valid include (no longer orphans).
    pub reached: &'b mut BTreeSet<usize>,
    /// Remaining proxy visits for the current root.
    pub budget: usize,
    /// Whether a depth or visit limit was already reported for the current root (once is
    /// enough; the walk keeps unwinding through the remaining includes).
    pub limit_reported: bool,
}

fn key(proxy: &HttpProxy) -> String {
    format!("{}/{}", proxy.namespace(), proxy.name())
}

/// The proxy named `namespace/name`, by index.
pub(crate) fn lookup(
    by_name: &BTreeMap<(String, String), usize>,
    namespace: &str,
    name: &str,
) -> Option<usize> {
    by_name.get(&(namespace.to_string(), name.to_string())).copied()
}

impl Walker<'_, '_> {
    /// Reports a walk limit on the root, once per root.
    pub fn limit(&mut self, root: usize, field: &str) {
        if !self.limit_reported {
            self.limit_reported = true;
            unsupported::report(&mut self.statuses[root], field);
        }
    }

    /// Contour's `computeRoutes(rootProxy, proxy, conditions, visited, enforceTLS)`.
    pub fn compute_routes(
        &mut self,
        root: usize,
        proxy: usize,
        conditions: &[MatchCondition],
        visited: &mut Vec<usize>,
        enforce_tls: bool,
    ) -> Vec<RouteModel> {
        let proxies = self.proxies;
        let current = &proxies[proxy];
        if visited.iter().any(|v| key(&proxies[*v]) == key(current)) {
            let mut path: Vec<String> = visited.iter().map(|v| key(&proxies[*v])).collect();
            path.push(key(current));
            let message = format!("include creates an include cycle: {}", path.join(" -> "));
            self.statuses[proxy].add_error(INCLUDE_ERROR, "IncludeCreatesCycle", &message);
            return Vec::new();
        }
        if visited.len() >= MAX_INCLUDE_DEPTH {
            let field = format!("an include chain longer than {MAX_INCLUDE_DEPTH} proxies");
            self.limit(root, &field);
            return Vec::new();
        }
        if self.budget == 0 {
            let field = format!("an include tree of more than {MAX_INCLUDE_VISITS} proxy visits");
            self.limit(root, &field);
            return Vec::new();
        }
        self.budget -= 1;
        visited.push(proxy);
        let routes = self.routes_of(root, proxy, conditions, visited, enforce_tls);
        visited.pop();
        routes
    }

    fn routes_of(
        &mut self,
        root: usize,
        proxy: usize,
        conditions: &[MatchCondition],
        visited: &mut Vec<usize>,
        enforce_tls: bool,
    ) -> Vec<RouteModel> {
        let proxies = self.proxies;
        let current = &proxies[proxy];
        let mut routes = Vec::new();
        let mut seen_prefixes: BTreeSet<String> = BTreeSet::new();
        for include in current.spec.includes.iter().flatten() {
            let include_conditions = include.conditions.as_deref().unwrap_or_default();
            let status = &mut self.statuses[proxy];
            if let Err(err) = include_conditions_valid(include_conditions)
                .and_then(|()| path_conditions_valid(include_conditions))
            {
                let message = format!("include: {err}");
                status.add_error(INCLUDE_ERROR, "PathMatchConditionsNotValid", &message);
                continue;
            }
            // An include certgate cannot serve (header or query conditions, other fields) is
            // reported, and still followed so the included proxies' statuses stay Contour's;
            // its routes are dropped.
            let unsupported_field = unsupported_condition(include_conditions)
                .map(|field| format!("an include condition {field}"))
                .or_else(|| include.extra.keys().next().map(|k| format!("Spec.Includes.{k}")));
            if let Some(field) = &unsupported_field {
                unsupported::report(status, field);
            }
            // Contour's `includeMatchConditionsIdentical` for prefix-only includes: the same
            // merged prefix twice is a duplicate, except `/` (kept for compatibility). Includes
            // with conditions certgate does not model are left out of the comparison.
            let PathMatch::Prefix(prefix) = merge_path_conditions(include_conditions) else {
                continue;
            };
            if unsupported_field.is_none() && prefix != "/" && !seen_prefixes.insert(prefix) {
                status.add_error(
                    INCLUDE_ERROR,
                    "DuplicateMatchConditions",
                    "duplicate conditions defined on an include",
                );
                continue;
            }
            let namespace = include
                .namespace
                .as_deref()
                .filter(|n| !n.is_empty())
                .unwrap_or(current.namespace())
                .to_string();
            let Some(child) = lookup(self.by_name, &namespace, &include.name) else {
                let message = format!("include {namespace}/{} not found", include.name);
                status.add_error(INCLUDE_ERROR, "IncludeNotFound", &message);
                if unsupported_field.is_none() {
                    push_bad_gateway(&mut routes, include_conditions);
                }
                continue;
            };
            if proxies[child].spec.virtualhost.is_some() {
                let message = format!(
                    "root httpproxy cannot include another root httpproxy ({})",
                    key(&proxies[child])
                );
                status.add_error(INCLUDE_ERROR, "RootIncludesRoot", &message);
                if unsupported_field.is_none() {
                    push_bad_gateway(&mut routes, include_conditions);
                }
                continue;
            }
            let mut chained = conditions.to_vec();
            chained.extend_from_slice(include_conditions);
            let included = self.compute_routes(root, child, &chained, visited, enforce_tls);
            if unsupported_field.is_none() {
                routes.extend(included);
            }
            self.reached.insert(child);
        }

        for (index, route) in current.spec.routes.iter().flatten().enumerate() {
            match self.route(proxy, route, index, conditions, enforce_tls) {
                Some(built) => routes.push(built),
                None => return Vec::new(),
            }
        }
        routes
    }

    /// One entry of `spec.routes`; `None` is Contour's `return nil` (the error is recorded).
    fn route(
        &mut self,
        proxy: usize,
        route: &Route,
        index: usize,
        conditions: &[MatchCondition],
        enforce_tls: bool,
    ) -> Option<RouteModel> {
        let namespace = self.proxies[proxy].namespace();
        let services = self.services;
        let status = &mut self.statuses[proxy];
        let route_conditions = route.conditions.as_deref().unwrap_or_default();
        if action_count(route) != 1 {
            status.add_error(
                ROUTE_ERROR,
                "RouteActionCountNotValid",
                "must set exactly one of route.services or route.requestRedirectPolicy or route.directResponsePolicy",
            );
            return None;
        }
        if let Err(err) = path_conditions_valid(route_conditions) {
            status.add_error(ROUTE_ERROR, "PathMatchConditionsNotValid", &format!("route: {err}"));
            return None;
        }
        if let Some(field) = unsupported_condition(route_conditions) {
            unsupported::report(status, &format!("Spec.Routes[{index}].conditions {field}"));
            return None;
        }
        if let Some(field) = unsupported::route_feature(route, index) {
            unsupported::report(status, &field);
            return None;
        }
        let mut upstreams = Vec::new();
        for (s_index, service) in route.services.iter().flatten().enumerate() {
            let at = format!("Spec.Routes[{index}].Services[{s_index}]");
            let Some(port) = valid_port(service) else {
                let message = format!(
                    "service {}: port must be in the range 1-65535",
                    certgate_gofmt::quote(&service.name)
                );
                status.add_error(SERVICE_ERROR, "ServicePortInvalid", &message);
                return None;
            };
            if let Some(field) = unsupported::service_feature(service, &at) {
                unsupported::report(status, &field);
                return None;
            }
            let resolved = match services.resolve(namespace, &service.name, port) {
                Ok(resolved) => resolved,
                Err(err) => {
                    let message = format!("Spec.Routes unresolved service reference: {err}");
                    status.add_error(SERVICE_ERROR, "ServiceUnresolvedReference", &message);
                    continue;
                }
            };
            let service_upstream = upstream(status, service, resolved, &at)?;
            upstreams.push(service_upstream);
        }
        let mut path_conditions = conditions.to_vec();
        path_conditions.extend_from_slice(route_conditions);
        let action = if upstreams.is_empty() {
            RouteAction::DirectResponse(503)
        } else {
            RouteAction::Forward(upstreams)
        };
        Some(RouteModel {
            path: merge_path_conditions(&path_conditions),
            action,
            websocket: route.enable_websockets.unwrap_or(false),
            https_upgrade: enforce_tls && !route.permit_insecure.unwrap_or(false),
        })
    }
}

/// Contour's `routeActionCountValid`: services, a redirect or a direct response, exactly one.
fn action_count(route: &Route) -> usize {
    usize::from(route.services.as_ref().is_some_and(|s| !s.is_empty()))
        + usize::from(route.extra.get("requestRedirectPolicy").is_some_and(|v| !v.is_null()))
        + usize::from(route.extra.get("directResponsePolicy").is_some_and(|v| !v.is_null()))
}

/// `port` when it is an integer in 1..=65535 (Contour's `ServicePortInvalid` check; a
/// non-integer cannot pass the CRD schema and is treated the same way).
pub(crate) fn valid_port(service: &Service) -> Option<i64> {
    service.port.as_ref().and_then(Value::as_i64).filter(|p| (1..=65535).contains(p))
}

/// Contour's `getProtocol` plus the weight conversion; `None` is a recorded error.
pub(crate) fn upstream(
    status: &mut StatusBuilder,
    service: &Service,
    resolved: ResolvedService,
    at: &str,
) -> Option<Upstream> {
    let protocol = match service.protocol.as_deref() {
        Some(p @ ("h2c" | "h2" | "tls")) => p.to_string(),
        Some(other) => {
            status.add_error(
                SERVICE_ERROR,
                "UnsupportedProtocol",
                &format!("unsupported protocol: {other}"),
            );
            return None;
        }
        None => resolved.protocol.clone(),
    };
    if !protocol.is_empty() {
        unsupported::report(status, &format!("{at} upstream protocol {protocol}"));
        return None;
    }
    let weight = match service.weight.as_ref() {
        None | Some(Value::Null) => 0,
        // Go's `uint32(int64)` keeps the low 32 bits.
        Some(w) => match w.as_i64() {
            Some(w) => w as u32,
            None => {
                unsupported::report(status, &format!("{at}.weight {w}"));
                return None;
            }
        },
    };
    Some(Upstream { service: resolved, weight })
}

/// Contour's `addStatusBadGatewayRoute`: a broken include with conditions answers 502 on the
/// include's own conditions (not merged with the parents', as in Contour).
fn push_bad_gateway(routes: &mut Vec<RouteModel>, conditions: &[MatchCondition]) {
    if conditions.is_empty() {
        return;
    }
    routes.push(RouteModel {
        path: merge_path_conditions(conditions),
        action: RouteAction::DirectResponse(502),
        websocket: false,
        https_upgrade: false,
    });
}
