//! More end-to-end cases of issue #21 for `certgate edge serve` with a real Envoy (the
//! harness of `edge_live.rs`, plain xDS): an invalid CRL Secret, an expired CRL, CA and CRL Secrets delegated
//! from another namespace, leaf-only CRL checking with an intermediate CA. On the sandbox and on the
//! real API server, with the same endpoint difference as `edge_live.rs` (the real API server
//! refuses loopback endpoints, so there the good client gets Envoy's own 503).

mod dev_support;
mod edge_support;
mod revocation_lists;

use dev_support::Server;
use edge_support::client::{Answer, get, get_with_chain};
use edge_support::cluster::{NAMESPACE, b64, proxy_field, secret};
use edge_support::live::Live;
use edge_support::pki::{REVOKED_SERIAL, pki_with_crl, pki_with_intermediate};
use edge_support::processes::https;
use edge_support::wait_for;

both!(
    fn an_invalid_crl_secret_is_nacked_and_envoy_keeps_the_last_good_configuration(server) {
        invalid_crl_secret(server)
    }
);

both!(
    fn an_expired_crl_stays_valid_and_envoy_refuses_every_client(server) {
        expired_crl(server)
    }
);

both!(
    fn ca_and_crl_secrets_delegated_across_namespaces(server) {
        delegation_across_namespaces(server)
    }
);

both!(
    fn leaf_only_mode_needs_only_the_intermediate_crl(server) {
        leaf_only_mode(server)
    }
);

/// A PEM `X509 CRL` block whose base64 is well formed but whose DER is not a CRL: Contour's
/// check (PEM framing and block types only, spec §2) accepts it.
fn garbage_crl_pem() -> String {
    format!(
        "-----BEGIN X509 CRL-----\n{}\n-----END X509 CRL-----\n",
        b64("this is not DER, only bytes in a CRL's PEM block")
    )
}

/// A working CRL Secret replaced by one whose `crl.pem` is a PEM block of garbage DER: the
/// status stays `valid` (Contour's shallow check), Envoy NACKs the listener update that
/// carries the CRL and keeps serving the last good configuration (the good client still
/// served, the revoked one still refused), `certgate_xds_nacks_total` counts the NACK, and
/// certgate's deeper check records a `CRLWarning` event on the HTTPProxy.
fn invalid_crl_secret(server: Server) {
    let live = Live::start(server);
    live.wait_good_served("Envoy to serve the good client");
    let revoked = get(https(live.ports), &live.pki, &live.pki.revoked);
    assert!(matches!(revoked, Answer::Refused(_)), "the revoked client is refused: {revoked:?}");
    assert_eq!(live.nacks(), Vec::<String>::new(), "no NACK before the invalid CRL");
    let warnings_before = live.crl_warnings();

    live.dev.ok_with(
        &["apply", "-f", "-"],
        Some(&secret("crl", "Opaque", &[("crl.pem", &garbage_crl_pem())])),
    );
    let nacks = wait_for(
        "Envoy to NACK the update with the invalid CRL",
        || match live.nacks() {
            nacks if !nacks.is_empty() => Ok(nacks),
            _ => Err(live.edge.get("/metrics").unwrap_or_default()),
        },
        || live.context(),
    );
    // certgate serves the CA and the CRL in an SDS secret of their own (`--client-validation`
    // sds, the default), so the secret update is the one rejected; the listener is unchanged.
    let secret = "certgate_xds_nacks_total{type_url=\"type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret\"} ";
    assert!(nacks.len() == 1 && nacks[0].starts_with(secret), "only secret NACKs: {nacks:?}");
    let warning = wait_for(
        "a CRLWarning event about the invalid CRL",
        || {
            let warnings = live.crl_warnings();
            match warnings.iter().find(|w| !warnings_before.contains(w)) {
                Some(w) => Ok(w.clone()),
                None => Err(format!("{warnings:?}")),
            }
        },
        || live.context(),
    );
    assert!(
        warning.starts_with("CRL #1 does not parse (CRL DER is malformed")
            && warning.ends_with(
                "Envoy fails to load crl.pem and rejects the TLS context while the HTTPProxy stays Valid; replace the CRL"
            ),
        "the CRLWarning names the unparsable CRL: {warning}"
    );
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "valid");
    assert_eq!(proxy_field(&live.dev, "{.status.description}"), "Valid HTTPProxy");

    // The last good configuration is still served.
    let good = get(https(live.ports), &live.pki, &live.pki.good);
    assert!(live.served(&good), "the good client is still served: {good:?}");
    let revoked = get(https(live.ports), &live.pki, &live.pki.revoked);
    assert!(
        matches!(revoked, Answer::Refused(_)),
        "the revoked client is still refused: {revoked:?}"
    );
}

/// A working CRL Secret replaced by a CRL of the same CA whose nextUpdate (2026-01-01) is
/// past: the status stays `valid` (Contour does not look at CRL dates), Envoy takes the
/// configuration (no NACK: the CRL parses) and refuses every client, the good one too
/// (BoringSSL: CRL has expired), and certgate's deeper check records a `CRLWarning` event
/// naming the expiry; the nextUpdate gauge shows the past date.
fn expired_crl(server: Server) {
    let (pki, expired) = pki_with_crl(&[REVOKED_SERIAL], (2025, 1, 1), (2026, 1, 1));
    let live = Live::start_with(server, pki);
    live.wait_good_served("Envoy to serve the good client");
    let warnings_before = live.crl_warnings();

    live.dev
        .ok_with(&["apply", "-f", "-"], Some(&secret("crl", "Opaque", &[("crl.pem", &expired)])));
    wait_for(
        "Envoy to refuse the good client with the expired CRL",
        || match get(https(live.ports), &live.pki, &live.pki.good) {
            Answer::Refused(_) => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || live.context(),
    );
    let revoked = get(https(live.ports), &live.pki, &live.pki.revoked);
    assert!(matches!(revoked, Answer::Refused(_)), "the revoked client is refused: {revoked:?}");
    let warning = wait_for(
        "a CRLWarning event about the expired CRL",
        || {
            let warnings = live.crl_warnings();
            match warnings.iter().find(|w| !warnings_before.contains(w)) {
                Some(w) => Ok(w.clone()),
                None => Err(format!("{warnings:?}")),
            }
        },
        || live.context(),
    );
    assert!(
        warning.starts_with(
            "CRL #1 (issuer CN=edge live client CA) expired: nextUpdate 2026-01-01T00:00:00Z is not after "
        ) && warning.ends_with("; every handshake needing it will fail; publish a fresh CRL"),
        "the CRLWarning names the expiry: {warning}"
    );
    // The nextUpdate gauge shows the past date (2026-01-01T00:00:00Z).
    let line = "certgate_edge_crl_next_update_timestamp_seconds{namespace=\"edge\",secret=\"crl\"} 1767225600\n";
    let metrics = live.edge.get("/metrics").unwrap_or_default();
    assert!(metrics.contains(line), "missing {line:?} in\n{metrics}");
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "valid");
    assert_eq!(proxy_field(&live.dev, "{.status.description}"), "Valid HTTPProxy");
    assert_eq!(live.nacks(), Vec::<String>::new(), "Envoy accepted the expired CRL");
}

/// The namespace holding the delegated CA and CRL Secrets.
const CERTS: &str = "certs";

/// The CA and CRL Secrets moved to another namespace and referenced as `certs/name`: without
/// a TLSCertificateDelegation the HTTPProxy is invalid with Contour's texts (the CA Secret's
/// error; with only the CA delegated, the CRL Secret's) and Envoy stops serving its virtual
/// host; with one permitting the proxy's namespace it is valid again and
/// enforced (the revoked client refused, and the delegated CRL Secret replaced by one revoking
/// the good client too, the good client refused).
fn delegation_across_namespaces(server: Server) {
    let live = Live::start(server);
    live.wait_good_served("Envoy to serve the good client");
    let elsewhere = |text: String| text.replace("namespace: edge\n", "namespace: certs\n");
    let pki = &live.pki;
    let objects = [
        format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {CERTS}\n"),
        elsewhere(secret("client-ca", "Opaque", &[("ca.crt", &pki.client_ca_pem)])),
        elsewhere(secret("crl", "Opaque", &[("crl.pem", &pki.crl_one)])),
    ]
    .join("---\n");
    live.dev.ok_with(&["apply", "-f", "-"], Some(&objects));
    live.dev.ok(&[
        "patch",
        "httpproxy",
        "edge",
        "-n",
        NAMESPACE,
        "--type=merge",
        "-p",
        r#"{"spec":{"virtualhost":{"tls":{"clientValidation":{"caSecret":"certs/client-ca","crlSecret":"certs/crl"}}}}}"#,
    ]);
    live.wait_status("invalid");
    assert_eq!(
        live.errors(),
        "TLSError DelegationNotPermitted: Spec.VirtualHost.TLS CA Secret \"certs/client-ca\" is invalid: certificate delegation not permitted\n"
    );
    assert_eq!(
        proxy_field(
            &live.dev,
            "{.status.description}|{.status.conditions[0].type} {.status.conditions[0].status} {.status.conditions[0].reason} {.status.conditions[0].message}"
        ),
        "At least one error present, see Errors for details|Valid False ErrorPresent At least one error present, see Errors for details"
    );
    wait_for(
        "Envoy to stop serving the virtual host",
        || match get(https(live.ports), pki, &pki.good) {
            Answer::Refused(_) => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || live.context(),
    );

    // The CA delegated, not yet the CRL: Contour checks the CA Secret first, then the CRL
    // Secret, and reports the first error.
    live.dev.ok_with(&["apply", "-f", "-"], Some(&delegation(&["client-ca"])));
    wait_for(
        "the CRL Secret's delegation error",
        || match live.errors() {
            errors if errors.contains("CRL Secret") => Ok(()),
            errors => Err(errors),
        },
        || live.context(),
    );
    assert_eq!(
        live.errors(),
        "TLSError DelegationNotPermitted: Spec.VirtualHost.TLS CRL Secret \"certs/crl\" is invalid: certificate delegation not permitted\n"
    );
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "invalid");

    live.dev.ok_with(&["apply", "-f", "-"], Some(&delegation(&["client-ca", "crl"])));
    live.wait_status("valid");
    assert_eq!(proxy_field(&live.dev, "{.status.description}"), "Valid HTTPProxy");
    live.wait_good_served("Envoy to serve the good client with the delegated Secrets");
    let revoked = get(https(live.ports), pki, &pki.revoked);
    assert!(matches!(revoked, Answer::Refused(_)), "the revoked client is refused: {revoked:?}");

    // The delegated CRL is the one enforced: replaced by one revoking the good client too.
    live.dev.ok_with(
        &["apply", "-f", "-"],
        Some(&elsewhere(secret("crl", "Opaque", &[("crl.pem", &pki.crl_both)]))),
    );
    wait_for(
        "Envoy to refuse the good client after the delegated CRL update",
        || match get(https(live.ports), pki, &pki.good) {
            Answer::Refused(_) => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || live.context(),
    );
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "valid");
}

/// A TLSCertificateDelegation in [`CERTS`] permitting [`NAMESPACE`] to use `secrets`.
fn delegation(secrets: &[&str]) -> String {
    let mut out = format!(
        "apiVersion: projectcontour.io/v1\nkind: TLSCertificateDelegation\nmetadata:\n  namespace: {CERTS}\n  name: client-validation\nspec:\n  delegations:\n"
    );
    for name in secrets {
        out.push_str(&format!("  - secretName: {name}\n    targetNamespaces: [{NAMESPACE}]\n"));
    }
    out
}

/// A client chain root → intermediate → client, the CA Secret holding the root, the CRL
/// Secret only the intermediate's CRL. With `crlOnlyVerifyLeafCert: true` Envoy checks only
/// the client's certificate against a CRL: the good client is served, the revoked one
/// refused. Back to the full chain check (`crlOnlyVerifyLeafCert: false`), the intermediate
/// itself needs the root's CRL, which is missing, so Envoy refuses every client while the
/// status stays `valid` (Contour does not compare the CRLs with the chain).
///
/// The intermediate is not in `ca.crt` (the client sends it): BoringSSL still finds and uses
/// its CRL. certgate's `CRLWarning`s, recorded while the proxy starts in full-chain mode, say
/// so (its signature cannot be checked offline, it applies to clients sending that
/// intermediate) and that the root has no CRL. (Events are never withdrawn, so what leaf-only
/// mode does not warn about is left to certgate-ingress's unit tests.)
fn leaf_only_mode(server: Server) {
    let (pki, intermediate) = pki_with_intermediate();
    let live = Live::start_with(server, pki);
    let chain = [intermediate];
    let patch = |value: bool| {
        live.dev.ok(&[
            "patch",
            "httpproxy",
            "edge",
            "-n",
            NAMESPACE,
            "--type=merge",
            "-p",
            &format!(
                r#"{{"spec":{{"virtualhost":{{"tls":{{"clientValidation":{{"crlOnlyVerifyLeafCert":{value}}}}}}}}}}}"#
            ),
        ])
    };
    let pki = &live.pki;
    let advice = "CRL #1 (issuer CN=edge live client intermediate CA) is not from a CA in ca.crt, so its signature cannot be verified offline: Envoy uses it only for clients that send CN=edge live client intermediate CA in their handshake as an intermediate chaining to ca.crt; keep it if they do (and make sure that intermediate's current key signed it), remove it if none do";
    let root_without_crl = "CA #1 (CN=edge live client root CA) has no CRL issued by it: with full-chain checking Envoy rejects every client whose path includes it as \"unknown certificate authority\"; add its CRL (an empty one is fine) or set crlOnlyVerifyLeafCert";
    let mut expected = vec![root_without_crl, advice];
    expected.sort();
    wait_for(
        "the CRLWarning events of the full-chain check",
        || {
            let mut seen = live.crl_warnings();
            seen.sort();
            seen.dedup();
            if seen == expected { Ok(()) } else { Err(format!("{seen:#?}")) }
        },
        || live.context(),
    );
    patch(true);
    wait_for(
        "Envoy to serve the good client in leaf-only mode",
        || match get_with_chain(https(live.ports), pki, &pki.good, &chain) {
            answer if live.served(&answer) => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || live.context(),
    );
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "valid");
    let revoked = get_with_chain(https(live.ports), pki, &pki.revoked, &chain);
    assert!(matches!(revoked, Answer::Refused(_)), "the revoked client is refused: {revoked:?}");

    patch(false);
    wait_for(
        "Envoy to refuse the good client with the full chain checked",
        || match get_with_chain(https(live.ports), pki, &pki.good, &chain) {
            Answer::Refused(_) => Ok(()),
            answer => Err(format!("{answer:?}")),
        },
        || live.context(),
    );
    let revoked = get_with_chain(https(live.ports), pki, &pki.revoked, &chain);
    assert!(matches!(revoked, Answer::Refused(_)), "the revoked client is refused: {revoked:?}");
    assert_eq!(proxy_field(&live.dev, "{.status.currentStatus}"), "valid");
}
