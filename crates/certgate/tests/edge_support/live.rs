//! One HTTPProxy with client validation served live: the objects of `cluster::objects` in a
//! sandbox or real API server, `certgate edge serve` over plain xDS, a real Envoy and a
//! loopback backend, with the probes the live tests share.

use super::client::{Answer, get};
use super::cluster::{BACKEND_BODY, crl_warnings, failure_context, objects, proxy_field, start};
use super::pki::{Pki, pki};
use super::processes::{Backend, EdgePorts, Process, edge_serve, envoy, envoy_stat, https};
use super::{free_port, wait_for};
use crate::dev_support::{Dev, Server};

/// The HTTPProxy of `cluster::objects` served by `certgate edge serve` and a real Envoy.
pub struct Live {
    pub dev: Dev,
    pub pki: Pki,
    pub ports: EdgePorts,
    pub edge: Process,
    pub envoy: Process,
    _backend: Backend,
    /// Envoy's bootstrap and admin socket.
    pub dir: tempfile::TempDir,
}

impl Live {
    pub fn start(server: Server) -> Live {
        Live::start_with(server, pki())
    }

    pub fn start_with(server: Server, pki: Pki) -> Live {
        Live::start_with_flags(server, pki, &[])
    }

    /// [`Live::start_with`], `certgate edge serve` given `flags` too.
    pub fn start_with_flags(server: Server, pki: Pki, flags: &[&str]) -> Live {
        let dev = start(server);
        let backend = Backend::start(BACKEND_BODY);
        let endpoint = if dev.is_real() { "192.0.2.1" } else { "127.0.0.1" };
        dev.ok_with(&["apply", "-f", "-"], Some(&objects(&pki, endpoint, backend.port)));
        let dir = tempfile::Builder::new().prefix("certgate-edge-cases-").tempdir().unwrap();
        let ports = EdgePorts { xds: free_port(), http: free_port(), https: free_port() };
        let flags: Vec<String> = ["--leader-elect=false", "--insecure"]
            .iter()
            .chain(flags)
            .map(|f| f.to_string())
            .collect();
        let edge = edge_serve(&dev.kubeconfig, ports, &flags);
        let envoy = envoy(dir.path(), ports.xds, &[]);
        let live = Live { dev, pki, ports, edge, envoy, _backend: backend, dir };
        live.wait_status("valid");
        live
    }

    pub fn context(&self) -> String {
        failure_context(&self.dev, &[&self.edge, &self.envoy])
    }

    pub fn wait_status(&self, status: &str) {
        wait_for(
            &format!("the HTTPProxy to be {status}"),
            || match proxy_field(&self.dev, "{.status.currentStatus}") {
                seen if seen == status => Ok(()),
                _ => Err(proxy_field(&self.dev, "{.status}")),
            },
            || self.context(),
        );
    }

    /// Whether the good client passed client validation: the backend's answer on the
    /// sandbox, Envoy's 503 on the real API server (its endpoint is never answered).
    pub fn served(&self, answer: &Answer) -> bool {
        match answer {
            Answer::Http { status, .. } if self.dev.is_real() => status.starts_with("HTTP/1.1 503"),
            answer => answer.is_ok_with(BACKEND_BODY),
        }
    }

    pub fn wait_good_served(&self, what: &str) {
        wait_for(
            what,
            || match get(https(self.ports), &self.pki, &self.pki.good) {
                answer if self.served(&answer) => Ok(()),
                answer => Err(format!("{answer:?}")),
            },
            || self.context(),
        );
    }

    /// The notes of the `CRLWarning` events on the HTTPProxy, one a line.
    pub fn crl_warnings(&self) -> Vec<String> {
        crl_warnings(&self.dev)
    }

    /// The errors of the HTTPProxy's `Valid` condition, `type reason: message` a line.
    pub fn errors(&self) -> String {
        proxy_field(
            &self.dev,
            r#"{range .status.conditions[0].errors[*]}{.type} {.reason}: {.message}{"\n"}{end}"#,
        )
    }

    /// The `certgate_xds_nacks_total` lines of `/metrics` with a non-zero count.
    pub fn nacks(&self) -> Vec<String> {
        self.edge
            .get("/metrics")
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("certgate_xds_nacks_total{") && !l.ends_with(" 0"))
            .map(str::to_owned)
            .collect()
    }

    /// Applies `yaml` with kubectl.
    pub fn apply(&self, yaml: &str) {
        self.dev.ok_with(&["apply", "-f", "-"], Some(yaml));
    }

    /// A counter or gauge of Envoy's `/stats`.
    pub fn envoy_stat(&self, name: &str) -> u64 {
        envoy_stat(self.dir.path(), name).unwrap_or_else(|e| panic!("{e}\n{}", self.context()))
    }

    /// Waits until `client` (presenting `chain`) is refused, and returns what it saw.
    pub fn wait_refused(
        &self,
        what: &str,
        client: &super::pki::Leaf,
        chain: &[rustls::pki_types::CertificateDer<'static>],
    ) -> String {
        wait_for(
            what,
            || match super::client::get_with_chain(https(self.ports), &self.pki, client, chain) {
                Answer::Refused(seen) => Ok(seen),
                answer => Err(format!("{answer:?}")),
            },
            || self.context(),
        )
    }

    /// Waits until `client` (presenting `chain`) is served.
    pub fn wait_served(
        &self,
        what: &str,
        client: &super::pki::Leaf,
        chain: &[rustls::pki_types::CertificateDer<'static>],
    ) {
        wait_for(
            what,
            || match super::client::get_with_chain(https(self.ports), &self.pki, client, chain) {
                answer if self.served(&answer) => Ok(()),
                answer => Err(format!("{answer:?}")),
            },
            || self.context(),
        )
    }
}
