//! What `certgate edge serve` takes and what it writes besides the conditions, as Contour:
//! ingress classes (`--ingress-class-name`; by default class `contour` and proxies without a
//! class) decide which HTTPProxies are processed, served and given a status, and every
//! processed HTTPProxy's `status.loadBalancer` is the Envoy Service's
//! (`--envoy-service-namespace`, `--envoy-service-name`) or `--ingress-status-address`'s. On
//! the sandbox and on the real API server, with a real Envoy (the harness of `edge_live.rs`).

mod dev_support;
mod edge_support;
mod revocation_lists;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use dev_support::{Dev, Server};
use edge_support::cluster::{BACKEND_BODY, NAMESPACE, failure_context};
use edge_support::live::Live;
use edge_support::pki::{SERVER_NAME, pki};
use edge_support::processes::{EdgePorts, Process, edge_serve, envoy};
use edge_support::{free_port, wait_for};
use serde_json::{Value, json};

both!(
    fn only_the_proxies_of_the_configured_classes_are_processed(server) {
        ingress_classes(server)
    }
);

both!(
    fn the_envoy_service_address_goes_into_every_processed_status(server) {
        envoy_service_address(server)
    }
);

both!(
    fn the_ingress_status_address_overrides_the_envoy_service(server) {
        ingress_status_address(server)
    }
);

/// A root HTTPProxy `name` for `fqdn` over plain HTTP to the harness's Service `app`, with
/// `class` as `spec.ingressClassName` when given.
fn plain_proxy(name: &str, fqdn: &str, class: Option<&str>) -> String {
    let class = class.map(|c| format!("  ingressClassName: {c}\n")).unwrap_or_default();
    format!(
        "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\n\
         metadata:\n  namespace: {NAMESPACE}\n  name: {name}\n\
         spec:\n{class}  virtualhost:\n    fqdn: {fqdn}\n\
         \x20 routes:\n  - services:\n    - name: app\n      port: 80\n"
    )
}

/// A Service `envoy` of type LoadBalancer in `namespace` (the namespace created too).
fn envoy_service(namespace: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n---\n\
         apiVersion: v1\nkind: Service\nmetadata:\n  namespace: {namespace}\n  name: envoy\n\
         spec:\n  type: LoadBalancer\n  ports:\n  - name: http\n    port: 80\n    protocol: TCP\n"
    )
}

/// Sets the `status.loadBalancer` of the Service `envoy` in `namespace` to `ip` (`None`
/// removes its addresses), as a cloud's load-balancer controller does.
fn set_service_address(dev: &Dev, namespace: &str, ip: Option<&str>) {
    let ingress = ip.map_or(Value::Null, |ip| json!([{"ip": ip}]));
    let patch = json!({"status": {"loadBalancer": {"ingress": ingress}}}).to_string();
    let args = ["patch", "service", "envoy", "-n", namespace, "--subresource=status"];
    dev.ok(&[&args[..], &["--type=merge", "-p", &patch]].concat());
}

fn service_load_balancer(dev: &Dev, namespace: &str) -> Value {
    let service = dev.ok(&["get", "service", "envoy", "-n", namespace, "-o", "json"]);
    serde_json::from_str::<Value>(&service).unwrap()["status"]["loadBalancer"].clone()
}

/// The status of an HTTPProxy no controller wrote: the CRD's default.
fn unwritten() -> Value {
    json!({"currentStatus": "NotReconciled", "description": "Waiting for controller"})
}

/// The HTTPProxy `name`'s `status`.
fn status(dev: &Dev, name: &str) -> Value {
    let proxy = dev.ok(&["get", "httpproxy", name, "-n", NAMESPACE, "-o", "json"]);
    serde_json::from_str::<Value>(&proxy).unwrap()["status"].clone()
}

fn resource_version(dev: &Dev, name: &str) -> String {
    let path = "jsonpath={.metadata.resourceVersion}";
    dev.ok(&["get", "httpproxy", name, "-n", NAMESPACE, "-o", path])
}

/// The status line and body of `GET /` with `Host: host` on Envoy's HTTP listener `port`.
fn http_get(port: u16, host: &str) -> Result<(String, String), String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(stream, "GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let mut response = String::new();
    stream.read_to_string(&mut response).map_err(|e| e.to_string())?;
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    Ok((head.lines().next().unwrap_or_default().to_owned(), body.to_owned()))
}

/// What a plain-HTTP virtual host answers: `served` (the backend's answer on the sandbox,
/// Envoy's 503 for the unreachable endpoint on the real API server), `redirect` (the 301 of a
/// TLS virtual host), or `unknown` (Envoy's 404 for a host it has no virtual host for).
fn answer(dev: &Dev, port: u16, host: &str) -> Result<&'static str, String> {
    let (status, body) = http_get(port, host)?;
    match status.as_str() {
        s if s.starts_with("HTTP/1.1 200") && body.contains(BACKEND_BODY) && !dev.is_real() => {
            Ok("served")
        }
        s if s.starts_with("HTTP/1.1 503") && dev.is_real() => Ok("served"),
        s if s.starts_with("HTTP/1.1 301") => Ok("redirect"),
        s if s.starts_with("HTTP/1.1 404") => Ok("unknown"),
        _ => Err(format!("{status}\n{body}")),
    }
}

/// Waits until Envoy's HTTP listener `port` answers `host` with `expected`.
fn wait_answer(dev: &Dev, port: u16, host: &str, expected: &str, context: impl Fn() -> String) {
    wait_for(
        &format!("{host} to be {expected} on port {port}"),
        || match answer(dev, port, host)? {
            seen if seen == expected => Ok(()),
            seen => Err(seen.to_owned()),
        },
        context,
    )
}

/// A counter of `certgate edge serve`'s `/metrics` (0 until it is served).
fn counter(edge: &Process, name: &str) -> u64 {
    let metrics = edge.get("/metrics").unwrap_or_default();
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
        .unwrap_or(0)
}

/// Runs `change`, then waits for three rebuilds, each caused by an annotation on the Service
/// `app`: the loop rebuilds one change at a time and writes a rebuild's statuses before the
/// next starts, so by the third every status a rebuild that saw `change` writes is written
/// (the first may have read the objects before `change`).
fn after_rebuilds(live: &Live, change: impl FnOnce()) {
    static NUDGES: AtomicU32 = AtomicU32::new(0);
    change();
    let start = counter(&live.edge, "certgate_edge_rebuilds_total");
    for round in 1..=3 {
        let nudge = format!("certgate.test/nudge={}", NUDGES.fetch_add(1, Ordering::Relaxed));
        live.dev.ok(&["annotate", "service", "app", "-n", NAMESPACE, "--overwrite", &nudge]);
        wait_for(
            "a rebuild",
            || match counter(&live.edge, "certgate_edge_rebuilds_total") {
                now if now >= start + round => Ok(()),
                now => Err(format!("{now} rebuilds, {start} before")),
            },
            || live.context(),
        );
    }
}

/// A second `certgate edge serve` (and its own Envoy) on the same API server as `live`.
struct Second {
    ports: EdgePorts,
    edge: Process,
    envoy: Process,
    _dir: tempfile::TempDir,
}

impl Second {
    fn start(live: &Live, flags: &[&str]) -> Second {
        let dir = tempfile::Builder::new().prefix("certgate-edge-status-").tempdir().unwrap();
        let ports = EdgePorts { xds: free_port(), http: free_port(), https: free_port() };
        let flags: Vec<String> = ["--leader-elect=false", "--insecure"]
            .iter()
            .chain(flags)
            .map(|f| f.to_string())
            .collect();
        let edge = edge_serve(&live.dev.kubeconfig, ports, &flags);
        let envoy = envoy(dir.path(), ports.xds, &[]);
        Second { ports, edge, envoy, _dir: dir }
    }
}

/// `edge` (TLS, no class) is served by a default `certgate edge serve`; `other` (class
/// `other`) and `marker` (no class) are applied in one go: `marker` is processed and served,
/// `other` keeps the CRD's default status (`NotReconciled`) and Envoy does not know its host.
/// A second `certgate edge serve --ingress-class-name=other` with its own Envoy on the same
/// API server does the reverse: `other` is valid and served by it, `edge` and `marker` are
/// unknown to its Envoy, and their statuses are not written again by either controller.
fn ingress_classes(server: Server) {
    let live = Live::start_with_flags(server, pki(), &[]);
    live.wait_good_served("Envoy to serve the HTTPProxy edge");
    let dev = &live.dev;
    live.apply(
        &[
            plain_proxy("other", "other.example.com", Some("other")),
            plain_proxy("marker", "marker.example.com", None),
        ]
        .join("---\n"),
    );
    wait_answer(dev, live.ports.http, "marker.example.com", "served", || live.context());
    assert_eq!(status(dev, "marker")["currentStatus"], "valid");
    assert_eq!(answer(dev, live.ports.http, "other.example.com"), Ok("unknown"));
    assert_eq!(answer(dev, live.ports.http, SERVER_NAME), Ok("redirect"));
    assert_eq!(status(dev, "other"), unwritten(), "a proxy of another class gets no status");

    let untouched = [resource_version(dev, "edge"), resource_version(dev, "marker")];
    let second = Second::start(&live, &["--ingress-class-name=other"]);
    let context = || failure_context(dev, &[&live.edge, &live.envoy, &second.edge, &second.envoy]);
    wait_answer(dev, second.ports.http, "other.example.com", "served", context);
    assert_eq!(status(dev, "other")["currentStatus"], "valid");
    assert_eq!(answer(dev, second.ports.http, SERVER_NAME), Ok("unknown"));
    assert_eq!(answer(dev, second.ports.http, "marker.example.com"), Ok("unknown"));
    // The default controller rebuilt on `other`'s status and still ignores it.
    after_rebuilds(&live, || {});
    assert_eq!(answer(dev, live.ports.http, "other.example.com"), Ok("unknown"));
    assert_eq!(
        [resource_version(dev, "edge"), resource_version(dev, "marker")],
        untouched,
        "neither controller rewrote the statuses of the default class"
    );
    assert_eq!(status(dev, "edge")["currentStatus"], "valid");
}

/// `--envoy-service-namespace=lb` (name `envoy`, the default): no such Service, `{}`; a
/// Service `envoy` in another namespace with an address changes nothing; once `lb/envoy` has
/// an address, every processed HTTPProxy (`edge` valid, `lonely` orphaned) carries the
/// Service's `status.loadBalancer`, written once (more rebuilds write nothing), while `other`
/// (class `other`) keeps the CRD's default status. The Service losing its address leaves the
/// proxies theirs, as with Contour.
fn envoy_service_address(server: Server) {
    let live = Live::start_with_flags(server, pki(), &["--envoy-service-namespace=lb"]);
    let dev = &live.dev;
    assert_eq!(status(dev, "edge")["loadBalancer"], json!({}));
    let lonely = format!(
        "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\n\
         metadata:\n  namespace: {NAMESPACE}\n  name: lonely\n\
         spec:\n  routes:\n  - services:\n    - name: app\n      port: 80\n"
    );
    let other = plain_proxy("other", "other.example.com", Some("other"));
    live.apply(&[envoy_service("lb"), envoy_service(NAMESPACE), other, lonely].join("---\n"));
    wait_for(
        "lonely to be orphaned",
        || match status(dev, "lonely")["currentStatus"].as_str() {
            Some("orphaned") => Ok(()),
            seen => Err(format!("{seen:?}")),
        },
        || live.context(),
    );

    let before = resource_version(dev, "edge");
    after_rebuilds(&live, || set_service_address(dev, NAMESPACE, Some("192.0.2.99")));
    assert_eq!(resource_version(dev, "edge"), before, "another namespace's envoy is not ours");
    assert_eq!(status(dev, "edge")["loadBalancer"], json!({}));

    set_service_address(dev, "lb", Some("192.0.2.10"));
    let address = service_load_balancer(dev, "lb");
    // The real API server adds `ipMode: VIP`; Contour copies the Service's status whole.
    assert_eq!(address["ingress"][0]["ip"], "192.0.2.10", "{address}");
    for name in ["edge", "lonely"] {
        wait_for(
            &format!("{name} to carry the Envoy Service's address"),
            || match status(dev, name)["loadBalancer"].clone() {
                seen if seen == address => Ok(()),
                seen => Err(seen.to_string()),
            },
            || live.context(),
        );
    }
    assert_eq!(status(dev, "edge")["currentStatus"], "valid");
    assert_eq!(status(dev, "other"), unwritten(), "a proxy of another class gets no address");

    let written = [resource_version(dev, "edge"), resource_version(dev, "lonely")];
    after_rebuilds(&live, || {});
    let again = [resource_version(dev, "edge"), resource_version(dev, "lonely")];
    assert_eq!(again, written, "the same address is not written again");

    after_rebuilds(&live, || set_service_address(dev, "lb", None));
    assert_eq!(service_load_balancer(dev, "lb"), json!({}));
    assert_eq!(status(dev, "edge")["loadBalancer"], address, "the last address stays");
    let kept = [resource_version(dev, "edge"), resource_version(dev, "lonely")];
    assert_eq!(kept, written);
}

/// `--ingress-status-address=192.0.2.20, lb.example.com` writes an `ip` and a `hostname`
/// entry with the first status, and the Envoy Service getting an address changes nothing.
fn ingress_status_address(server: Server) {
    let flags =
        ["--envoy-service-namespace=lb", "--ingress-status-address=192.0.2.20, lb.example.com"];
    let live = Live::start_with_flags(server, pki(), &flags);
    let dev = &live.dev;
    let fixed = json!({"ingress": [{"ip": "192.0.2.20"}, {"hostname": "lb.example.com"}]});
    assert_eq!(status(dev, "edge")["loadBalancer"], fixed);
    let written = resource_version(dev, "edge");
    live.apply(&envoy_service("lb"));
    after_rebuilds(&live, || set_service_address(dev, "lb", Some("192.0.2.10")));
    assert_eq!(status(dev, "edge")["loadBalancer"], fixed);
    assert_eq!(resource_version(dev, "edge"), written);
}
