//! Status of routes, services, includes and TCP proxies, as Contour writes it. Every expected
//! message below is reproduced from Contour (github.com/projectcontour/contour), file named in
//! the row: `internal/dag/httpproxy_processor.go` (`computeRoutes`,
//! `processHTTPProxyTCPProxy`, `computeHTTPProxy`, `Run`), `internal/dag/conditions.go`
//! (`pathMatchConditionsValid`, `includeMatchConditionsValid`), `internal/dag/cache.go`
//! (`LookupService`) and `internal/dag/accessors.go` (`validateExternalName`).

mod common;

use std::collections::BTreeMap;

use certgate_ingress::routing::{Processed, Snapshot, process_snapshot};
use certgate_ingress::types::{KubeService, Secret};
use certgate_ingress::{HttpProxy, NamespacedName, ProcessorConfig};
use serde_json::{Value, json};

fn secrets() -> BTreeMap<NamespacedName, Secret> {
    let serving = Secret::from_value(&common::serving_secret("default", "server")).unwrap();
    BTreeMap::from([(NamespacedName::new("default", "server"), serving)])
}

fn services() -> Vec<KubeService> {
    [
        json!({"metadata": {"namespace": "default", "name": "app"}, "spec": {"ports": [{"name": "http", "port": 80}]}}),
        json!({"metadata": {"namespace": "default", "name": "udp"}, "spec": {"ports": [{"port": 53, "protocol": "UDP"}]}}),
        json!({"metadata": {"namespace": "default", "name": "ext"}, "spec": {"type": "ExternalName", "externalName": "example.org", "ports": [{"port": 80}]}}),
    ]
    .iter()
    .map(|v| KubeService::from_value(v).unwrap())
    .collect()
}

fn run(proxies: &[Value]) -> Processed {
    let proxies: Vec<HttpProxy> =
        proxies.iter().map(|p| HttpProxy::from_value(p).unwrap()).collect();
    let secrets = secrets();
    let services = services();
    let snapshot =
        Snapshot { proxies: &proxies, secrets: &secrets, delegations: &[], services: &services };
    process_snapshot(snapshot, &ProcessorConfig::default())
}

fn errors_of(processed: &Processed, name: &str) -> Vec<(String, String, String)> {
    let outcome = processed.outcomes.iter().find(|o| o.name == name).expect("outcome");
    outcome
        .status
        .errors()
        .iter()
        .map(|e| (e.type_.clone(), e.reason.clone(), e.message.clone()))
        .collect()
}

fn root(name: &str, spec: Value) -> Value {
    let mut spec = spec;
    spec["virtualhost"] = json!({"fqdn": format!("{name}.example.com")});
    json!({"metadata": {"namespace": "default", "name": name}, "spec": spec})
}

fn tls_root(name: &str, spec: Value) -> Value {
    let mut proxy = root(name, spec);
    proxy["spec"]["virtualhost"]["tls"] = json!({"secretName": "server"});
    proxy
}

fn child(name: &str, spec: Value) -> Value {
    json!({"metadata": {"namespace": "default", "name": name}, "spec": spec})
}

fn route(services: Value) -> Value {
    json!({"routes": [{"conditions": [{"prefix": "/"}], "services": services}]})
}

struct Case {
    name: &'static str,
    proxies: Vec<Value>,
    /// The proxy whose status is checked.
    target: &'static str,
    /// `(type, reason, message)`; empty = valid.
    errors: Vec<(&'static str, &'static str, &'static str)>,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "valid route",
            proxies: vec![root("r", route(json!([{"name": "app", "port": 80}])))],
            target: "r",
            errors: vec![],
        },
        Case {
            name: "port by name-as-number is still a number lookup",
            proxies: vec![tls_root("r", route(json!([{"name": "app", "port": 80, "weight": 10}])))],
            target: "r",
            errors: vec![],
        },
        // httpproxy_processor.go computeRoutes + cache.go LookupService
        Case {
            name: "missing service",
            proxies: vec![root("r", route(json!([{"name": "nope", "port": 80}])))],
            target: "r",
            errors: vec![(
                "ServiceError",
                "ServiceUnresolvedReference",
                r#"Spec.Routes unresolved service reference: service "default/nope" not found"#,
            )],
        },
        Case {
            name: "missing port",
            proxies: vec![root("r", route(json!([{"name": "app", "port": 81}])))],
            target: "r",
            errors: vec![(
                "ServiceError",
                "ServiceUnresolvedReference",
                r#"Spec.Routes unresolved service reference: port "81" on service "default/app" not matched"#,
            )],
        },
        Case {
            name: "UDP service port",
            proxies: vec![root("r", route(json!([{"name": "udp", "port": 53}])))],
            target: "r",
            errors: vec![(
                "ServiceError",
                "ServiceUnresolvedReference",
                r#"Spec.Routes unresolved service reference: unsupported service protocol "UDP""#,
            )],
        },
        // accessors.go validateExternalName (enableExternalNameService off by default)
        Case {
            name: "ExternalName service",
            proxies: vec![root("r", route(json!([{"name": "ext", "port": 80}])))],
            target: "r",
            errors: vec![(
                "ServiceError",
                "ServiceUnresolvedReference",
                "Spec.Routes unresolved service reference: default/ext is an ExternalName service, these are not currently enabled. See the config.enableExternalNameService config file setting",
            )],
        },
        // httpproxy_processor.go computeRoutes ServicePortInvalid
        Case {
            name: "port out of range",
            proxies: vec![root("r", route(json!([{"name": "app", "port": 0}])))],
            target: "r",
            errors: vec![(
                "ServiceError",
                "ServicePortInvalid",
                r#"service "app": port must be in the range 1-65535"#,
            )],
        },
        // httpproxy_processor.go getProtocol
        Case {
            name: "unknown protocol",
            proxies: vec![root("r", route(json!([{"name": "app", "port": 80, "protocol": "h3"}])))],
            target: "r",
            errors: vec![("ServiceError", "UnsupportedProtocol", "unsupported protocol: h3")],
        },
        // httpproxy_processor.go routeActionCountValid
        Case {
            name: "route without action",
            proxies: vec![root("r", json!({"routes": [{"conditions": [{"prefix": "/"}]}]}))],
            target: "r",
            errors: vec![(
                "RouteError",
                "RouteActionCountNotValid",
                "must set exactly one of route.services or route.requestRedirectPolicy or route.directResponsePolicy",
            )],
        },
        // conditions.go pathMatchConditionsValid, prefixed "route: " in computeRoutes
        Case {
            name: "prefix without slash",
            proxies: vec![root(
                "r",
                json!({"routes": [{"conditions": [{"prefix": "api"}], "services": [{"name": "app", "port": 80}]}]}),
            )],
            target: "r",
            errors: vec![(
                "RouteError",
                "PathMatchConditionsNotValid",
                "route: prefix conditions must start with /, api was supplied",
            )],
        },
        Case {
            name: "prefix and exact",
            proxies: vec![root(
                "r",
                json!({"routes": [{"conditions": [{"prefix": "/a"}, {"exact": "/b"}], "services": [{"name": "app", "port": 80}]}]}),
            )],
            target: "r",
            errors: vec![(
                "RouteError",
                "PathMatchConditionsNotValid",
                "route: more than one prefix, exact or regex is not allowed in a condition block",
            )],
        },
        // httpproxy_processor.go computeRoutes includes
        Case {
            name: "include not found",
            proxies: vec![root(
                "r",
                json!({"includes": [{"name": "gone", "conditions": [{"prefix": "/x"}]}]}),
            )],
            target: "r",
            errors: vec![("IncludeError", "IncludeNotFound", "include default/gone not found")],
        },
        Case {
            name: "root includes root",
            proxies: vec![
                root("r", json!({"includes": [{"name": "other"}]})),
                root("other", route(json!([{"name": "app", "port": 80}]))),
            ],
            target: "r",
            errors: vec![(
                "IncludeError",
                "RootIncludesRoot",
                "root httpproxy cannot include another root httpproxy (default/other)",
            )],
        },
        Case {
            name: "include cycle is reported on the repeated proxy",
            proxies: vec![
                root("r", json!({"includes": [{"name": "a", "conditions": [{"prefix": "/a"}]}]})),
                child("a", json!({"includes": [{"name": "b"}]})),
                child("b", json!({"includes": [{"name": "a"}]})),
            ],
            target: "a",
            errors: vec![(
                "IncludeError",
                "IncludeCreatesCycle",
                "include creates an include cycle: default/r -> default/a -> default/b -> default/a",
            )],
        },
        // conditions.go includeMatchConditionsValid, prefixed "include: "
        Case {
            name: "exact condition on include",
            proxies: vec![
                root(
                    "r",
                    json!({"includes": [{"name": "c", "conditions": [{"exact": "/x"}]}], "routes": [{"services": [{"name": "app", "port": 80}]}]}),
                ),
                child("c", route(json!([{"name": "app", "port": 80}]))),
            ],
            target: "r",
            errors: vec![(
                "IncludeError",
                "PathMatchConditionsNotValid",
                "include: exact conditions are not allowed in includes block",
            )],
        },
        Case {
            name: "duplicate include conditions",
            proxies: vec![
                root(
                    "r",
                    json!({"includes": [
                        {"name": "c", "conditions": [{"prefix": "/x"}]},
                        {"name": "c", "conditions": [{"prefix": "//x"}]}
                    ]}),
                ),
                child("c", route(json!([{"name": "app", "port": 80}]))),
            ],
            target: "r",
            errors: vec![(
                "IncludeError",
                "DuplicateMatchConditions",
                "duplicate conditions defined on an include",
            )],
        },
        Case {
            name: "errors of an included proxy land on it",
            proxies: vec![
                root("r", json!({"includes": [{"name": "c", "conditions": [{"prefix": "/c"}]}]})),
                child("c", route(json!([{"name": "nope", "port": 80}]))),
            ],
            target: "c",
            errors: vec![(
                "ServiceError",
                "ServiceUnresolvedReference",
                r#"Spec.Routes unresolved service reference: service "default/nope" not found"#,
            )],
        },
        Case {
            name: "included proxy is valid",
            proxies: vec![
                root("r", json!({"includes": [{"name": "c", "conditions": [{"prefix": "/c"}]}]})),
                child("c", route(json!([{"name": "app", "port": 80}]))),
            ],
            target: "c",
            errors: vec![],
        },
        // httpproxy_processor.go Run: orphans
        Case {
            name: "orphan",
            proxies: vec![child("c", route(json!([{"name": "app", "port": 80}])))],
            target: "c",
            errors: vec![(
                "Orphaned",
                "Orphaned",
                "this HTTPProxy is not part of a delegation chain from a root HTTPProxy",
            )],
        },
        // httpproxy_processor.go computeHTTPProxy / processHTTPProxyTCPProxy
        Case {
            name: "tcpproxy without TLS",
            proxies: vec![root(
                "r",
                json!({"tcpproxy": {"services": [{"name": "app", "port": 80}]}}),
            )],
            target: "r",
            errors: vec![(
                "TCPProxyError",
                "TLSMustBeConfigured",
                "Spec.TCPProxy requires that either Spec.TLS.Passthrough or Spec.TLS.SecretName be set",
            )],
        },
        Case {
            name: "tcpproxy services and include",
            proxies: vec![tls_root(
                "r",
                json!({"tcpproxy": {"services": [{"name": "app", "port": 80}], "include": {"name": "c"}}}),
            )],
            target: "r",
            errors: vec![(
                "TCPProxyError",
                "NoServicesAndInclude",
                "cannot specify services and include in the same httpproxy",
            )],
        },
        Case {
            name: "empty tcpproxy",
            proxies: vec![tls_root("r", json!({"tcpproxy": {}}))],
            target: "r",
            errors: vec![(
                "TCPProxyError",
                "NothingDefined",
                "either services or inclusion must be specified",
            )],
        },
        Case {
            name: "tcpproxy missing service",
            proxies: vec![tls_root(
                "r",
                json!({"tcpproxy": {"services": [{"name": "nope", "port": 80}]}}),
            )],
            target: "r",
            errors: vec![(
                "TCPProxyError",
                "ServiceUnresolvedReference",
                r#"Spec.TCPProxy unresolved service reference: service "default/nope" not found"#,
            )],
        },
        Case {
            name: "tcpproxy include not found",
            proxies: vec![tls_root("r", json!({"tcpproxy": {"include": {"name": "gone"}}}))],
            target: "r",
            errors: vec![(
                "TCPProxyIncludeError",
                "IncludeNotFound",
                "include default/gone not found",
            )],
        },
        Case {
            name: "tcpproxy include cycle",
            proxies: vec![
                tls_root("r", json!({"tcpproxy": {"include": {"name": "a"}}})),
                child("a", json!({"tcpproxy": {"include": {"name": "b"}}})),
                child("b", json!({"tcpproxy": {"include": {"name": "a"}}})),
            ],
            target: "b",
            errors: vec![(
                "TCPProxyIncludeError",
                "IncludeCreatesCycle",
                "include creates a cycle: default/r -> default/a -> default/b -> default/a",
            )],
        },
        Case {
            name: "tcpproxy via include is valid",
            proxies: vec![
                tls_root("r", json!({"tcpproxy": {"includes": {"name": "a"}}})),
                child("a", json!({"tcpproxy": {"services": [{"name": "app", "port": 80}]}})),
            ],
            target: "a",
            errors: vec![],
        },
        // certgate's own error for what it does not serve yet
        Case {
            name: "unsupported route feature",
            proxies: vec![root(
                "r",
                json!({"routes": [{"services": [{"name": "app", "port": 80}], "timeoutPolicy": {"response": "1s"}}]}),
            )],
            target: "r",
            errors: vec![(
                "UnsupportedByCertgate",
                "NotImplemented",
                "Spec.Routes[0].timeoutPolicy is not supported by certgate",
            )],
        },
        Case {
            name: "unsupported header condition",
            proxies: vec![root(
                "r",
                json!({"routes": [{"conditions": [{"header": {"name": "x", "present": true}}], "services": [{"name": "app", "port": 80}]}]}),
            )],
            target: "r",
            errors: vec![(
                "UnsupportedByCertgate",
                "NotImplemented",
                "Spec.Routes[0].conditions header is not supported by certgate",
            )],
        },
        Case {
            name: "unsupported vhost feature",
            proxies: vec![{
                let mut p = root("r", route(json!([{"name": "app", "port": 80}])));
                p["spec"]["virtualhost"]["corsPolicy"] = json!({"allowOrigin": ["*"]});
                p
            }],
            target: "r",
            errors: vec![(
                "UnsupportedByCertgate",
                "NotImplemented",
                "Spec.VirtualHost.corsPolicy is not supported by certgate",
            )],
        },
        Case {
            name: "unsupported upstream protocol",
            proxies: vec![root(
                "r",
                route(json!([{"name": "app", "port": 80, "protocol": "h2c"}])),
            )],
            target: "r",
            errors: vec![(
                "UnsupportedByCertgate",
                "NotImplemented",
                "Spec.Routes[0].Services[0] upstream protocol h2c is not supported by certgate",
            )],
        },
    ]
}

#[test]
fn statuses_match_contour() {
    for case in cases() {
        let processed = run(&case.proxies);
        let got = errors_of(&processed, case.target);
        let want: Vec<(String, String, String)> = case
            .errors
            .iter()
            .map(|(t, r, m)| (t.to_string(), r.to_string(), m.to_string()))
            .collect();
        pretty_assertions::assert_eq!(got, want, "case {:?}", case.name);
        let outcome = processed.outcomes.iter().find(|o| o.name == case.target).unwrap();
        let status = serde_json::to_value(outcome.status.build(None, None)).unwrap();
        let expected = if want.is_empty() {
            "valid"
        } else if want[0].0 == "Orphaned" {
            "orphaned"
        } else {
            "invalid"
        };
        assert_eq!(status["currentStatus"], expected, "case {:?}", case.name);
    }
}

/// A missing service leaves the proxy invalid but, as in Contour, still programmed: the route
/// answers 503.
#[test]
fn unresolved_service_still_serves_503() {
    use certgate_ingress::routing::RouteAction;
    let processed = run(&[root("r", route(json!([{"name": "nope", "port": 80}])))]);
    assert_eq!(processed.vhosts.len(), 1);
    assert_eq!(processed.vhosts[0].http_routes[0].action, RouteAction::DirectResponse(503));
}

/// A route-level error drops every route of the proxy (Contour's `return nil`), so nothing is
/// served for it.
#[test]
fn route_error_serves_nothing() {
    let processed = run(&[root(
        "r",
        json!({"routes": [{"conditions": [{"prefix": "api"}], "services": [{"name": "app", "port": 80}]}]}),
    )]);
    assert!(processed.vhosts.is_empty());
}

/// An unsupported virtual-host feature keeps the proxy unserved, but its includes are still
/// followed: the included proxy is not reported orphaned, and its own errors are Contour's.
#[test]
fn unsupported_root_still_reaches_its_includes() {
    let mut r = root("r", json!({"includes": [{"name": "c", "conditions": [{"prefix": "/c"}]}]}));
    r["spec"]["virtualhost"]["rateLimitPolicy"] =
        json!({"local": {"requests": 1, "unit": "second"}});
    let processed = run(&[r, child("c", route(json!([{"name": "nope", "port": 80}])))]);
    assert!(processed.vhosts.is_empty());
    assert_eq!(
        errors_of(&processed, "r"),
        [(
            "UnsupportedByCertgate".to_string(),
            "NotImplemented".to_string(),
            "Spec.VirtualHost.rateLimitPolicy is not supported by certgate".to_string()
        )]
    );
    assert_eq!(errors_of(&processed, "c")[0].1, "ServiceUnresolvedReference");
}

/// TLS passthrough is not served, but Contour counts it as TLS for the TCP proxy check.
#[test]
fn passthrough_tcpproxy_is_unsupported_not_tls_less() {
    let mut r = root("r", json!({"tcpproxy": {"services": [{"name": "app", "port": 80}]}}));
    r["spec"]["virtualhost"]["tls"] = json!({"passthrough": true});
    let processed = run(&[r]);
    assert!(processed.vhosts.is_empty());
    let errors = errors_of(&processed, "r");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].2, "Spec.VirtualHost.TLS.passthrough is not supported by certgate");
}

/// Include graphs are bounded: a long chain and an exponential diamond end in an explicit
/// error on the root instead of unbounded work (or stack).
#[test]
fn include_graphs_are_bounded() {
    use certgate_ingress::routing::{MAX_INCLUDE_DEPTH, MAX_INCLUDE_VISITS};
    // A chain r -> c0 -> c1 -> ... -> c199.
    let mut proxies = vec![root("r", json!({"includes": [{"name": "c0"}]}))];
    for i in 0..200 {
        let spec = if i == 199 {
            route(json!([{"name": "app", "port": 80}]))
        } else {
            json!({"includes": [{"name": format!("c{}", i + 1)}]})
        };
        proxies.push(
            json!({"metadata": {"namespace": "default", "name": format!("c{i}")}, "spec": spec}),
        );
    }
    let processed = run(&proxies);
    let message = format!(
        "an include chain longer than {MAX_INCLUDE_DEPTH} proxies is not supported by certgate"
    );
    assert!(
        errors_of(&processed, "r").iter().any(|e| e.2 == message),
        "{:?}",
        errors_of(&processed, "r")
    );

    // A diamond ladder: each level includes the next twice under two prefixes (2^30 paths).
    let mut proxies = vec![root(
        "r",
        json!({"includes": [{"name": "d0", "conditions": [{"prefix": "/a"}]}, {"name": "d0", "conditions": [{"prefix": "/b"}]}]}),
    )];
    for i in 0..30 {
        let next = format!("d{}", i + 1);
        proxies.push(json!({"metadata": {"namespace": "default", "name": format!("d{i}")}, "spec": {"includes": [
            {"name": next, "conditions": [{"prefix": "/a"}]}, {"name": next, "conditions": [{"prefix": "/b"}]}
        ]}}));
    }
    proxies.push(child("d30", route(json!([{"name": "app", "port": 80}]))));
    let processed = run(&proxies);
    let message = format!(
        "an include tree of more than {MAX_INCLUDE_VISITS} proxy visits is not supported by certgate"
    );
    assert!(
        errors_of(&processed, "r").iter().any(|e| e.2 == message),
        "{:?}",
        errors_of(&processed, "r")
    );

    // A TCP proxy include chain of 100.
    let mut proxies = vec![tls_root("r", json!({"tcpproxy": {"include": {"name": "t0"}}}))];
    for i in 0..100 {
        let tcp = if i == 99 {
            json!({"services": [{"name": "app", "port": 80}]})
        } else {
            json!({"include": {"name": format!("t{}", i + 1)}})
        };
        proxies.push(json!({"metadata": {"namespace": "default", "name": format!("t{i}")}, "spec": {"tcpproxy": tcp}}));
    }
    let processed = run(&proxies);
    let message = format!(
        "a TCP proxy include chain longer than {MAX_INCLUDE_DEPTH} proxies is not supported by certgate"
    );
    assert!(
        errors_of(&processed, "r").iter().any(|e| e.2 == message),
        "{:?}",
        errors_of(&processed, "r")
    );
    assert!(processed.vhosts.is_empty());
}

/// An include with a header condition is reported on the including proxy, and still followed:
/// the included proxy is reached (not orphaned), and nothing is served for the root.
#[test]
fn unsupported_include_condition_is_followed_not_served() {
    let processed = run(&[
        root(
            "r",
            json!({"includes": [{"name": "c", "conditions": [{"prefix": "/c"}, {"header": {"name": "x", "present": true}}]}]}),
        ),
        child("c", route(json!([{"name": "app", "port": 80}]))),
    ]);
    assert_eq!(
        errors_of(&processed, "r"),
        [(
            "UnsupportedByCertgate".to_string(),
            "NotImplemented".to_string(),
            "an include condition header is not supported by certgate".to_string()
        )]
    );
    assert!(errors_of(&processed, "c").is_empty());
    assert!(processed.vhosts.is_empty());
}
