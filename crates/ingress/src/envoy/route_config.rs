//! Contour's route configurations (internal/xdscache/v3/route.go, internal/envoy/v3/route.go):
//! `ingress_http` with every vhost's HTTP routes (always present, as with Contour's static
//! listeners), and one `https/<fqdn>` per TLS vhost that serves HTTP. Virtual hosts are named
//! by `Hashname(60, fqdn)` and sorted by name; routes arrive sorted by `routing`.

use std::collections::BTreeMap;

use super::cluster::name_of;
use super::names::hashname;
use super::xds_types::{
    Action, ClusterSpecifier, ClusterWeight, DirectResponseAction, ExtAuthzOverride,
    ExtAuthzPerRoute, HeaderAppendAction, HeaderValue, HeaderValueOption, PathSpecifier,
    RedirectAction, Route, RouteAction, RouteConfiguration, RouteMatch, SchemeRewriteSpecifier,
    UInt32Value, UpgradeConfig, VirtualHost, WeightedCluster, to_any,
};
use crate::routing::{PathMatch, RouteAction as Act, RouteModel, Upstream};

/// Name of the HTTP route configuration (and of the HTTP listener).
pub const HTTP_ROUTE_CONFIG: &str = "ingress_http";
/// Contour's `RouteConfigName` of the HTTPS listener: `https/<fqdn>` per vhost.
pub const HTTPS_ROUTE_CONFIG_PREFIX: &str = "https";
/// Name Contour gives the external authorization filter, disabled on redirect routes.
const EXT_AUTHZ_FILTER: &str = "envoy.filters.http.ext_authz";

/// `https/<fqdn>` (Go's `path.Join("https", fqdn)`).
pub fn https_route_config_name(fqdn: &str) -> String {
    format!("{HTTPS_ROUTE_CONFIG_PREFIX}/{fqdn}")
}

/// Contour's `RouteConfiguration(name, vhosts...)`.
pub fn route_configuration(name: &str, mut vhosts: Vec<VirtualHost>) -> RouteConfiguration {
    vhosts.sort_by(|a, b| a.name.cmp(&b.name));
    RouteConfiguration {
        name: name.to_string(),
        virtual_hosts: vhosts,
        request_headers_to_add: vec![HeaderValueOption {
            header: Some(HeaderValue {
                key: "x-request-start".to_string(),
                value: "t=%START_TIME(%s.%3f)%".to_string(),
                ..HeaderValue::default()
            }),
            append_action: HeaderAppendAction::AppendIfExistsOrAdd.into(),
            ..HeaderValueOption::default()
        }],
        ignore_port_in_host_matching: true,
        ..RouteConfiguration::default()
    }
}

/// Contour's `VirtualHostAndRoutes` for the served subset.
pub fn virtual_host(fqdn: &str, routes: &[RouteModel], secure: bool) -> VirtualHost {
    VirtualHost {
        name: hashname(60, &[fqdn]),
        domains: vec![fqdn.to_string()],
        routes: routes.iter().map(|r| route(r, secure)).collect(),
        ..VirtualHost::default()
    }
}

fn route(model: &RouteModel, secure: bool) -> Route {
    let path_specifier = match &model.path {
        PathMatch::Prefix(p) => PathSpecifier::Prefix(p.clone()),
        PathMatch::Exact(p) => PathSpecifier::Path(p.clone()),
    };
    let mut route = Route {
        r#match: Some(RouteMatch { path_specifier: Some(path_specifier), ..RouteMatch::default() }),
        ..Route::default()
    };
    if model.https_upgrade && !secure {
        route.action = Some(Action::Redirect(RedirectAction {
            scheme_rewrite_specifier: Some(SchemeRewriteSpecifier::HttpsRedirect(true)),
            ..RedirectAction::default()
        }));
        // Contour disables external authorization on the redirect, filter or not.
        let disabled = ExtAuthzPerRoute { r#override: Some(ExtAuthzOverride::Disabled(true)) };
        route.typed_per_filter_config =
            BTreeMap::from([(EXT_AUTHZ_FILTER.to_string(), to_any(&disabled))])
                .into_iter()
                .collect();
        return route;
    }
    route.action = Some(match &model.action {
        Act::DirectResponse(status) => Action::DirectResponse(DirectResponseAction {
            status: *status,
            ..DirectResponseAction::default()
        }),
        Act::Forward(upstreams) => Action::Route(route_action(upstreams, model.websocket)),
    });
    route
}

/// Contour's `routeRoute`: one cluster by name, or weighted clusters sorted by name then
/// weight, all weighted 1 when no weight is set.
fn route_action(upstreams: &[Upstream], websocket: bool) -> RouteAction {
    let cluster_specifier = match upstreams {
        [single] => ClusterSpecifier::Cluster(name_of(&single.service)),
        _ => {
            let total: u64 = upstreams.iter().map(|u| u64::from(u.weight)).sum();
            let mut clusters: Vec<ClusterWeight> = upstreams
                .iter()
                .map(|u| ClusterWeight {
                    name: name_of(&u.service),
                    weight: Some(UInt32Value { value: if total == 0 { 1 } else { u.weight } }),
                    ..ClusterWeight::default()
                })
                .collect();
            clusters.sort_by(|a, b| {
                a.name.cmp(&b.name).then_with(|| {
                    a.weight
                        .map(|w| w.value)
                        .unwrap_or(0)
                        .cmp(&b.weight.map(|w| w.value).unwrap_or(0))
                })
            });
            ClusterSpecifier::WeightedClusters(WeightedCluster {
                clusters,
                ..WeightedCluster::default()
            })
        }
    };
    let mut action =
        RouteAction { cluster_specifier: Some(cluster_specifier), ..RouteAction::default() };
    if websocket {
        action.upgrade_configs = vec![UpgradeConfig {
            upgrade_type: "websocket".to_string(),
            ..UpgradeConfig::default()
        }];
    }
    action
}
