//! Contour's `processHTTPProxyTCPProxy`: `spec.tcpproxy` with services, or an include of a
//! non-root proxy's `tcpproxy` (followed, with cycle detection, onto that proxy's status).

use super::model::Upstream;
use super::routes::{Walker, lookup, upstream};
use super::unsupported;
use crate::status::{TCP_PROXY_ERROR, TCP_PROXY_INCLUDE_ERROR};

impl Walker<'_, '_> {
    /// `Some(upstreams)` when the chain ends in services; `None` after a recorded error.
    pub fn tcp_proxy(&mut self, proxy: usize, visited: &mut Vec<usize>) -> Option<Vec<Upstream>> {
        let proxies = self.proxies;
        let current = &proxies[proxy];
        let tcp = current.spec.tcpproxy.as_ref()?;
        visited.push(proxy);
        let include = tcp.include.as_ref().or(tcp.includes.as_ref());
        let services = tcp.services.as_deref().unwrap_or_default();
        let namespace = current.namespace();
        let by_name = self.by_name;
        let service_index = self.services;
        let status = &mut self.statuses[proxy];
        if !services.is_empty() && include.is_some() {
            status.add_error(
                TCP_PROXY_ERROR,
                "NoServicesAndInclude",
                "cannot specify services and include in the same httpproxy",
            );
            return None;
        }
        if let Some(field) = tcp.extra.keys().next() {
            unsupported::report(status, &format!("Spec.TCPProxy.{field}"));
            return None;
        }
        if !services.is_empty() {
            let mut upstreams = Vec::new();
            for (index, service) in services.iter().enumerate() {
                let at = format!("Spec.TCPProxy.Services[{index}]");
                if let Some(field) = unsupported::service_feature(service, &at) {
                    unsupported::report(status, &field);
                    return None;
                }
                // Contour does not range-check TCP proxy ports: an out-of-range port simply
                // matches no Service port.
                let port = service.port.as_ref().and_then(serde_json::Value::as_i64).unwrap_or(0);
                let resolved = match service_index.resolve(namespace, &service.name, port) {
                    Ok(resolved) => resolved,
                    Err(err) => {
                        let message = format!("Spec.TCPProxy unresolved service reference: {err}");
                        status.add_error(TCP_PROXY_ERROR, "ServiceUnresolvedReference", &message);
                        return None;
                    }
                };
                upstreams.push(upstream(status, service, resolved, &at)?);
            }
            return Some(upstreams);
        }
        let Some(include) = include else {
            status.add_error(
                TCP_PROXY_ERROR,
                "NothingDefined",
                "either services or inclusion must be specified",
            );
            return None;
        };
        let target_ns = include.namespace.as_deref().filter(|n| !n.is_empty()).unwrap_or(namespace);
        let Some(child) = lookup(by_name, target_ns, &include.name) else {
            let message = format!("include {target_ns}/{} not found", include.name);
            status.add_error(TCP_PROXY_INCLUDE_ERROR, "IncludeNotFound", &message);
            return None;
        };
        let dest = &proxies[child];
        let dest_key = format!("{}/{}", dest.namespace(), dest.name());
        if dest.spec.virtualhost.is_some() {
            let message =
                format!("root httpproxy cannot include another root httpproxy ({dest_key})");
            status.add_error(TCP_PROXY_INCLUDE_ERROR, "RootIncludesRoot", &message);
            return None;
        }
        self.reached.insert(child);
        let path: Vec<String> = visited
            .iter()
            .map(|v| format!("{}/{}", proxies[*v].namespace(), proxies[*v].name()))
            .collect();
        if path.contains(&dest_key) {
            let message = format!("include creates a cycle: {} -> {dest_key}", path.join(" -> "));
            status.add_error(TCP_PROXY_INCLUDE_ERROR, "IncludeCreatesCycle", &message);
            return None;
        }
        if visited.len() >= super::routes::MAX_INCLUDE_DEPTH {
            let root = visited.first().copied().unwrap_or(proxy);
            let field = format!(
                "a TCP proxy include chain longer than {} proxies",
                super::routes::MAX_INCLUDE_DEPTH
            );
            self.limit(root, &field);
            return None;
        }
        if dest.spec.tcpproxy.is_none() {
            // Contour's recursion returns true for a proxy without `tcpproxy`: nothing is
            // programmed and no error is recorded.
            return Some(Vec::new());
        }
        self.tcp_proxy(child, visited)
    }
}
