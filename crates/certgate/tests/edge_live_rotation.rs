//! Issue #21's rotation and chain cases for `certgate edge serve` with a real Envoy (the
//! harness of `edge_support::live`, plain xDS), on the sandbox and on the real API server:
//!
//! - a CRL rotation while a client is connected, and a CA rotation: the new CRL or CA is
//!   enforced on new handshakes, and the connection held open across the change keeps
//!   working, because certgate serves the CA and CRL in an SDS secret per virtual host and the
//!   listener does not change (Envoy runs with `--drain-strategy immediate`, so a drained
//!   filter chain would answer `connection: close` at once);
//! - the design's CRL cases over Contour's own PKI (root → {intermediate, revoked
//!   intermediate}): one CRL per CA of the chain (the revoked leaf and every client under the
//!   revoked intermediate refused, the others served), and a CRL missing for a CA of the chain
//!   (every client needing it refused as an unknown CA, the status still `valid`).
//!
//! The real API server refuses loopback endpoints, so there a served client gets Envoy's own
//! 503 (see `Live::served`).

mod dev_support;
mod edge_support;
mod revocation_lists;

use dev_support::Server;
use edge_support::client::{Held, Response};
use edge_support::cluster::{BACKEND_BODY, proxy_field, secret};
use edge_support::live::Live;
use edge_support::pki::{other_ca, tree};
use edge_support::processes::https;

both!(
    fn a_crl_rotation_reaches_envoy_and_keeps_established_connections(server) {
        crl_rotation(server)
    }
);

both!(
    fn a_ca_rotation_reaches_envoy_and_keeps_established_connections(server) {
        ca_rotation(server)
    }
);

both!(
    fn crls_for_every_ca_of_a_chain_and_one_missing(server) {
        chain_crls(server)
    }
);

/// The same CRL rotation with `--client-validation=inline`, the CA and CRL in the listener as
/// Contour puts them: the listener changes and Envoy drains the filter chain, so the held
/// connection is told to close. (Envoy's behaviour, not the API server's: on the sandbox
/// only.)
#[test]
fn with_the_validation_inline_as_contour_a_crl_rotation_drains_established_connections() {
    let live = Live::start_with_flags(
        Server::Sandbox,
        edge_support::pki::pki(),
        &["--client-validation=inline"],
    );
    let pki = &live.pki;
    live.apply(&secret("crl", "Opaque", &[("crl.pem", &pki.crl_none)]));
    live.wait_served("Envoy to serve the revoked client with an empty CRL", &pki.revoked, &[]);
    let mut connected = Connected::open(&live);

    live.apply(&secret("crl", "Opaque", &[("crl.pem", &pki.crl_one)]));
    live.wait_refused("Envoy to refuse the revoked client", &pki.revoked, &[]);
    let drained = match connected.held.get() {
        Ok(response) => response.header("connection") == Some("close"),
        Err(_) => true,
    };
    assert!(drained, "the held connection is drained");
    let now: Vec<u64> = LISTENER_UPDATES.iter().map(|s| live.envoy_stat(s)).collect();
    assert_ne!(now, connected.listener_updates, "the listener changed");
}

/// The Envoy counters that move when a listener, rather than a secret, changes.
const LISTENER_UPDATES: [&str; 2] =
    ["listener_manager.lds.update_success", "listener_manager.listener_in_place_updated"];

/// A connection held open by a served client: one request answered before the change.
struct Connected {
    held: Held,
    listener_updates: Vec<u64>,
}

impl Connected {
    fn open(live: &Live) -> Connected {
        let mut held = Held::open(https(live.ports), &live.pki, &live.pki.good)
            .unwrap_or_else(|e| panic!("connect: {e}\n{}", live.context()));
        let first = held.get().unwrap_or_else(|e| panic!("first request: {e}\n{}", live.context()));
        assert_served(live, &first, "the first request");
        let listener_updates = LISTENER_UPDATES.iter().map(|s| live.envoy_stat(s)).collect();
        Connected { held, listener_updates }
    }

    /// The connection still answers, without asking to close, and no listener changed.
    fn assert_kept(&mut self, live: &Live) {
        for request in ["the request after the change", "one more request"] {
            let response = self.held.get().unwrap_or_else(|e| {
                panic!("{request} on the held connection: {e}\n{}", live.context())
            });
            assert_served(live, &response, request);
            assert_eq!(
                response.header("connection"),
                None,
                "{request}: Envoy asks to close the held connection: {response:?}"
            );
        }
        let now: Vec<u64> = LISTENER_UPDATES.iter().map(|s| live.envoy_stat(s)).collect();
        assert_eq!(now, self.listener_updates, "listener updates ({LISTENER_UPDATES:?})");
    }
}

fn assert_served(live: &Live, response: &Response, what: &str) {
    let expected = if live.dev.is_real() { "HTTP/1.1 503" } else { "HTTP/1.1 200" };
    assert!(response.status.starts_with(expected), "{what}: {response:?}");
    if !live.dev.is_real() {
        assert_eq!(response.body, BACKEND_BODY, "{what}");
    }
}

/// The CRL Secret first revokes nothing (both clients served); a client connects and stays
/// connected; the Secret is replaced by the CRL revoking `revoked`: that client's new
/// handshakes are refused, the held connection goes on.
fn crl_rotation(server: Server) {
    let live = Live::start(server);
    let pki = &live.pki;
    live.apply(&secret("crl", "Opaque", &[("crl.pem", &pki.crl_none)]));
    live.wait_served("Envoy to serve the revoked client with an empty CRL", &pki.revoked, &[]);
    live.wait_good_served("Envoy to serve the good client");
    let mut connected = Connected::open(&live);

    live.apply(&secret("crl", "Opaque", &[("crl.pem", &pki.crl_one)]));
    let seen = live.wait_refused("Envoy to refuse the revoked client", &pki.revoked, &[]);
    assert!(seen.contains("CertificateRevoked"), "refused as revoked: {seen}");
    connected.assert_kept(&live);
    live.wait_good_served("Envoy to serve the good client on a new connection");
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "valid");
}

/// The client CA rotated in two steps, as an operator does: `ca.crt` and `crl.pem` first
/// hold the old and the new CA (clients of both served), then only the new one (clients of
/// the old refused). A client of the old CA stays connected through the first step; one of
/// the new CA through the second.
fn ca_rotation(server: Server) {
    let live = Live::start(server);
    let pki = &live.pki;
    let next = other_ca();
    live.wait_good_served("Envoy to serve the good client");
    let seen = live.wait_refused("Envoy to refuse the next CA's client", &next.client, &[]);
    assert!(seen.contains("UnknownCA"), "refused as unknown CA: {seen}");
    let mut connected = Connected::open(&live);

    let both_cas = format!("{}{}", pki.client_ca_pem, next.ca_pem);
    let both_crls = format!("{}{}", pki.crl_one, next.crl);
    live.apply(&format!(
        "{}---\n{}",
        secret("client-ca", "Opaque", &[("ca.crt", &both_cas)]),
        secret("crl", "Opaque", &[("crl.pem", &both_crls)])
    ));
    live.wait_served("Envoy to serve the next CA's client", &next.client, &[]);
    connected.assert_kept(&live);
    live.wait_good_served("Envoy to serve the old CA's client beside it");

    let mut connected = Connected {
        held: Held::open(https(live.ports), pki, &next.client).unwrap(),
        listener_updates: Vec::new(),
    };
    assert_served(&live, &connected.held.get().unwrap(), "the next CA's first request");
    connected.listener_updates = LISTENER_UPDATES.iter().map(|s| live.envoy_stat(s)).collect();
    live.apply(&format!(
        "{}---\n{}",
        secret("client-ca", "Opaque", &[("ca.crt", &next.ca_pem)]),
        secret("crl", "Opaque", &[("crl.pem", &next.crl)])
    ));
    let seen = live.wait_refused("Envoy to refuse the old CA's client", &pki.good, &[]);
    assert!(seen.contains("UnknownCA"), "refused as unknown CA: {seen}");
    connected.assert_kept(&live);
    live.wait_served("Envoy to serve the next CA's client on a new connection", &next.client, &[]);
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "valid");
}

/// Contour's PKI: `ca.crt` holds the root, clients send their intermediate.
///
/// 1. Three CRLs, one per CA (the root's revoking the revoked intermediate): the good client
///    is served; the revoked client is refused as revoked; the client of the revoked
///    intermediate, itself never revoked, is refused as revoked too.
/// 2. Only the revoked intermediate's CRL (the design's CRL/chain length mismatch): the good
///    client, whose intermediate and root have no CRL, is refused as an unknown CA, while
///    Contour's status stays `valid`.
fn chain_crls(server: Server) {
    let tree = tree();
    let crls = format!("{}{}{}", tree.root_crl, tree.pki.crl_one, tree.revoked_intermediate_crl);
    let live = Live::start_with(server, tree.pki);
    let pki = &live.pki;
    live.apply(&secret("crl", "Opaque", &[("crl.pem", &crls)]));
    let good_chain = [tree.intermediate.clone()];
    let revoked_chain = [tree.revoked_intermediate.clone()];
    live.wait_served("Envoy to serve the good client with three CRLs", &pki.good, &good_chain);
    let seen = live.wait_refused("Envoy to refuse the revoked client", &pki.revoked, &good_chain);
    assert!(seen.contains("CertificateRevoked"), "refused as revoked: {seen}");
    let seen = live.wait_refused(
        "Envoy to refuse the client under the revoked intermediate",
        &tree.under_revoked,
        &revoked_chain,
    );
    assert!(seen.contains("CertificateRevoked"), "refused as revoked: {seen}");

    live.apply(&secret("crl", "Opaque", &[("crl.pem", &tree.revoked_intermediate_crl)]));
    let seen = live.wait_refused(
        "Envoy to refuse the good client without its CAs' CRLs",
        &pki.good,
        &good_chain,
    );
    assert!(seen.contains("UnknownCA"), "refused as unknown CA: {seen}");
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "valid");
    assert_eq!(proxy_field(&live.dev, "{.status.description}"), "Valid HTTPProxy");
}
