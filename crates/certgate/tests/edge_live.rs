//! `certgate edge serve` live (issue #21): the Contour CRDs and an HTTPProxy with
//! `clientValidation.{caSecret,crlSecret}` applied with kubectl, the edge controller writing
//! Contour's status, and a real Envoy (bootstrapped by `certgate edge bootstrap`) enforcing the
//! client certificates and the CRL that the controller serves it over xDS; a replaced CRL
//! Secret reaches Envoy. Once over plain gRPC (`--insecure`) and once with mutual TLS between
//! Envoy and certgate (`--xds-tls-*`, the bootstrap's `--envoy-*`).
//!
//! Both API servers, with one difference each forces:
//! - the sandbox (`certgate dev`) does not serve `discovery.k8s.io/v1` EndpointSlices, so the
//!   test installs a CRD standing in for them there (schema-less, same group, version, kind);
//! - the real kube-apiserver refuses loopback endpoint addresses (`may not be in the loopback
//!   range`), so there the EndpointSlice points at 192.0.2.1 (TEST-NET-1, never answered)
//!   and the good client's request gets Envoy's own HTTP answer (a 503 after the upstream
//!   connect timeout) rather than the backend's: it still shows the client passed client
//!   validation, while the revoked client gets no HTTP answer at all.

mod dev_support;
mod edge_support;
mod revocation_lists;

use base64::Engine as _;
use dev_support::{Dev, Server};
use edge_support::client::{Answer, get};
use edge_support::pki::{Pki, SERVER_NAME, pki, xds_files};
use edge_support::processes::{Backend, EdgePorts, Process, edge_serve, envoy, https};
use edge_support::{free_port, wait_for};

const NAMESPACE: &str = "edge";
const BACKEND_BODY: &str = "hello from the backend";

fn contour_crds() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/upstream-crds/projectcontour.io_crds.yaml")
}

fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn secret(name: &str, type_: &str, data: &[(&str, &str)]) -> String {
    let mut out = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: {NAMESPACE}\n  name: {name}\ntype: {type_}\ndata:\n"
    );
    for (key, value) in data {
        out.push_str(&format!("  {key}: {}\n", b64(value)));
    }
    out
}

/// The sandbox's stand-in for the built-in EndpointSlice API.
const ENDPOINT_SLICE_CRD: &str = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
metadata:\n  name: endpointslices.discovery.k8s.io\nspec:\n  group: discovery.k8s.io\n  scope: Namespaced\n\
\x20 names: {plural: endpointslices, singular: endpointslice, kind: EndpointSlice, listKind: EndpointSliceList}\n\
\x20 versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n\
\x20       type: object\n        x-kubernetes-preserve-unknown-fields: true\n";

fn objects(pki: &Pki, endpoint: &str, backend_port: u16) -> String {
    [
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {NAMESPACE}\n"),
        secret("server", "kubernetes.io/tls", &[("tls.crt", &pki.server.pem), ("tls.key", &pki.server.key_pem)]),
        secret("client-ca", "Opaque", &[("ca.crt", &pki.client_ca_pem)]),
        secret("crl", "Opaque", &[("crl.pem", &pki.crl_one)]),
        format!(
            "apiVersion: v1\nkind: Service\nmetadata:\n  namespace: {NAMESPACE}\n  name: app\n\
             spec:\n  ports:\n  - port: 80\n    protocol: TCP\n"
        ),
        format!(
            "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  namespace: {NAMESPACE}\n  name: app-1\n\
             \x20 labels:\n    kubernetes.io/service-name: app\naddressType: IPv4\n\
             endpoints:\n- addresses: [\"{endpoint}\"]\n  conditions:\n    ready: true\n\
             ports:\n- port: {backend_port}\n  protocol: TCP\n"
        ),
        format!(
            "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  namespace: {NAMESPACE}\n  name: edge\n\
             spec:\n  virtualhost:\n    fqdn: {SERVER_NAME}\n    tls:\n      secretName: server\n\
             \x20     clientValidation:\n        caSecret: client-ca\n        crlSecret: crl\n\
             \x20 routes:\n  - services:\n    - name: app\n      port: 80\n"
        ),
    ]
    .join("---\n")
}

fn failure_context(dev: &Dev, processes: &[&Process]) -> String {
    let mut text = dev.logs();
    for process in processes {
        text.push_str(&process.log());
    }
    text
}

fn proxy_field(dev: &Dev, path: &str) -> String {
    dev.ok(&["get", "httpproxy", "edge", "-n", NAMESPACE, "-o", &format!("jsonpath={path}")])
}

both!(
    fn an_httpproxy_with_a_crl_is_served_by_envoy_and_a_new_crl_reaches_it(server) {
        live_edge(server, Xds::Plain)
    }
);

both!(
    fn the_same_over_mutual_tls_between_envoy_and_certgate(server) {
        live_edge(server, Xds::MutualTls)
    }
);

/// How Envoy and `certgate edge serve` talk.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Xds {
    /// `--insecure`.
    Plain,
    /// `--xds-tls-*` on the server, `--envoy-*` in the bootstrap.
    MutualTls,
}

/// The flags of `certgate edge serve` and of `certgate edge bootstrap` for `xds`.
fn xds_flags(xds: Xds, dir: &std::path::Path) -> (Vec<String>, Vec<String>) {
    if xds == Xds::Plain {
        return (vec!["--insecure".to_owned()], Vec::new());
    }
    let files = xds_files(dir);
    let flag = |name: &str, path: &std::path::Path| format!("--{name}={}", path.display());
    (
        vec![
            flag("xds-tls-cert-file", &files.server_cert),
            flag("xds-tls-key-file", &files.server_key),
            flag("xds-tls-ca-file", &files.ca),
        ],
        vec![
            flag("envoy-cafile", &files.ca),
            flag("envoy-cert-file", &files.envoy_cert),
            flag("envoy-key-file", &files.envoy_key),
        ],
    )
}

fn live_edge(server: Server, xds: Xds) {
    // Without certgate's webhook and controllers: only the edge runs.
    let dev = server.start_with(&["--no-webhook", "--controllers=-*"]);
    let crds = contour_crds();
    dev.ok(&["create", "-f", crds.to_str().unwrap()]);
    let mut established = vec!["crd/httpproxies.projectcontour.io"];
    if !dev.is_real() {
        dev.ok_with(&["apply", "-f", "-"], Some(ENDPOINT_SLICE_CRD));
        established.push("crd/endpointslices.discovery.k8s.io");
    }
    for crd in established {
        dev.ok(&["wait", "--for=condition=established", "--timeout=60s", crd]);
    }
    let pki = pki();
    let backend = Backend::start(BACKEND_BODY);
    let (endpoint, expected_body) =
        if dev.is_real() { ("192.0.2.1", "") } else { ("127.0.0.1", BACKEND_BODY) };
    dev.ok_with(&["apply", "-f", "-"], Some(&objects(&pki, endpoint, backend.port)));

    let dir = tempfile::Builder::new().prefix("certgate-edge-live-").tempdir().unwrap();
    let (serve_flags, bootstrap_flags) = xds_flags(xds, dir.path());
    let ports = EdgePorts { xds: free_port(), http: free_port(), https: free_port() };
    let mut flags = vec!["--leader-elect=false".to_owned()];
    flags.extend(serve_flags);
    let edge = edge_serve(&dev.kubeconfig, ports, &flags);

    // Contour's status, written by the controller.
    wait_for(
        "the HTTPProxy to be valid",
        || match proxy_field(&dev, "{.status.currentStatus}") {
            valid if valid == "valid" => Ok(()),
            _ => Err(proxy_field(&dev, "{.status}")),
        },
        || failure_context(&dev, &[&edge]),
    );
    assert_eq!(proxy_field(&dev, "{.status.description}"), "Valid HTTPProxy");
    assert_eq!(
        proxy_field(
            &dev,
            "{.status.conditions[0].type} {.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}"
        ),
        "Valid True Valid Valid HTTPProxy"
    );

    // A real Envoy configured over xDS: the good client reaches the backend through it.
    let envoy = envoy(dir.path(), ports.xds, &bootstrap_flags);
    wait_for(
        "Envoy to serve the good client",
        || match get(https(ports), &pki, &pki.good) {
            Answer::Http { status, .. } if dev.is_real() && status.starts_with("HTTP/1.1 503") => {
                Ok(())
            }
            answer if answer.is_ok_with(expected_body) => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || failure_context(&dev, &[&edge, &envoy]),
    );
    // The metrics: one valid proxy, and when its CRL must be replaced (its nextUpdate).
    let metrics = edge.get("/metrics").unwrap_or_default();
    for line in [
        "certgate_edge_httpproxies{status=\"valid\"} 1\n",
        "certgate_edge_crl_next_update_timestamp_seconds{namespace=\"edge\",secret=\"crl\"} 4891363200\n",
    ] {
        assert!(metrics.contains(line), "missing {line:?} in\n{metrics}");
    }
    let revoked = get(https(ports), &pki, &pki.revoked);
    assert!(matches!(revoked, Answer::Refused(_)), "the revoked client is refused: {revoked:?}");

    // A new CRL revoking the good client too: Envoy refuses it once the update arrives.
    dev.ok_with(
        &["apply", "-f", "-"],
        Some(&secret("crl", "Opaque", &[("crl.pem", &pki.crl_both)])),
    );
    wait_for(
        "Envoy to refuse the good client after the CRL update",
        || match get(https(ports), &pki, &pki.good) {
            Answer::Refused(_) => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || failure_context(&dev, &[&edge, &envoy]),
    );
    assert_eq!(proxy_field(&dev, "{.status.currentStatus}"), "valid");
}
