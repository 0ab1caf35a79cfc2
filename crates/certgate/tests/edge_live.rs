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

use dev_support::Server;
use edge_support::client::{Answer, get};
use edge_support::cluster::{BACKEND_BODY, failure_context, objects, proxy_field, secret, start};
use edge_support::pki::{pki, xds_files};
use edge_support::processes::{Backend, EdgePorts, edge_serve, envoy, https};
use edge_support::{free_port, wait_for};

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
    let dev = start(server);
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

    // Back to the first CRL: the good client is served again.
    dev.ok_with(
        &["apply", "-f", "-"],
        Some(&secret("crl", "Opaque", &[("crl.pem", &pki.crl_one)])),
    );
    wait_for(
        "Envoy to serve the good client again",
        || match get(https(ports), &pki, &pki.good) {
            Answer::Http { status, .. } if !status.is_empty() => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || failure_context(&dev, &[&edge, &envoy]),
    );

    // The CRL Secret deleted: the HTTPProxy is invalid as Contour reports it, and its virtual
    // host is no longer served (no filter chain for its SNI: every client is refused).
    dev.ok(&["delete", "secret", "crl", "-n", edge_support::cluster::NAMESPACE]);
    wait_for(
        "the HTTPProxy to be invalid",
        || match proxy_field(&dev, "{.status.currentStatus}") {
            invalid if invalid == "invalid" => Ok(()),
            _ => Err(proxy_field(&dev, "{.status}")),
        },
        || failure_context(&dev, &[&edge, &envoy]),
    );
    assert_eq!(proxy_field(&dev, "{.status.conditions[0].errors[0].type}"), "TLSError");
    wait_for(
        "Envoy to stop serving the virtual host",
        || match get(https(ports), &pki, &pki.good) {
            Answer::Refused(_) => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || failure_context(&dev, &[&edge, &envoy]),
    );
}
