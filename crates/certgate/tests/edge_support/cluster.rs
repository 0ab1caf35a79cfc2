//! The cluster side of the live edge tests: the Contour CRDs, the objects of one HTTPProxy
//! with client validation, and reading its status back with kubectl.

use base64::Engine as _;

use super::pki::{Pki, SERVER_NAME};
use crate::dev_support::{Dev, Server};
use crate::edge_support::processes::Process;

pub const NAMESPACE: &str = "edge";
pub const BACKEND_BODY: &str = "hello from the backend";

pub fn contour_crds() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/upstream-crds/projectcontour.io_crds.yaml")
}

pub fn b64(text: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(text)
}

pub fn secret(name: &str, type_: &str, data: &[(&str, &str)]) -> String {
    let mut out = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: {NAMESPACE}\n  name: {name}\ntype: {type_}\ndata:\n"
    );
    for (key, value) in data {
        out.push_str(&format!("  {key}: {}\n", b64(value)));
    }
    out
}

pub fn objects(pki: &Pki, endpoint: &str, backend_port: u16) -> String {
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

pub fn failure_context(dev: &Dev, processes: &[&Process]) -> String {
    let mut text = dev.logs();
    for process in processes {
        text.push_str(&process.log());
    }
    text
}

/// The notes of the `CRLWarning` events on the HTTPProxy `edge`, one a line.
pub fn crl_warnings(dev: &Dev) -> Vec<String> {
    let notes = dev.ok(&[
        "get",
        "events.v1.events.k8s.io",
        "-n",
        NAMESPACE,
        "-o",
        r#"jsonpath={range .items[?(@.reason=="CRLWarning")]}{.regarding.kind}/{.regarding.name}: {.note}{"\n"}{end}"#,
    ]);
    notes.lines().filter_map(|l| l.strip_prefix("HTTPProxy/edge: ")).map(str::to_owned).collect()
}

pub fn proxy_field(dev: &Dev, path: &str) -> String {
    dev.ok(&["get", "httpproxy", "edge", "-n", NAMESPACE, "-o", &format!("jsonpath={path}")])
}

/// `server` without certgate's webhook and controllers (only the edge runs), with the
/// Contour CRDs established.
pub fn start(server: Server) -> Dev {
    let dev = server.start_with(&["--no-webhook", "--controllers=-*"]);
    let crds = contour_crds();
    dev.ok(&["create", "-f", crds.to_str().unwrap()]);
    // Polled rather than `kubectl wait --for=condition=established`: kubectl fails at once
    // ("conditions accessor error") when it reads the CRD before a real API server has
    // written any status condition.
    let established = r#"jsonpath={.status.conditions[?(@.type=="Established")].status}"#;
    super::wait_for(
        "the HTTPProxy CRD to be established",
        || {
            let output = dev
                .kubectl(&["get", "crd", "httpproxies.projectcontour.io", "-o", established], None);
            match String::from_utf8_lossy(&output.stdout).trim() {
                "True" => Ok(()),
                seen => Err(format!("{seen:?} {}", String::from_utf8_lossy(&output.stderr))),
            }
        },
        || dev.logs(),
    );
    dev
}
