//! `certgate edge serve` with several replicas: every replica builds and serves the
//! configuration, only the holder of the Lease writes HTTPProxy statuses, and when the leader
//! dies a standby takes the Lease over and writes the statuses of later changes. On the
//! sandbox and on the real API server (no Envoy here: `edge_live.rs` covers serving).

mod dev_support;
mod edge_support;
mod revocation_lists;

use dev_support::Server;
use edge_support::cluster::{
    NAMESPACE, crl_warnings, failure_context, objects, proxy_field, start,
};
use edge_support::pki::pki;
use edge_support::processes::{EdgePorts, Process, edge_serve};
use edge_support::{free_port, wait_for};

both!(
    fn only_the_leader_writes_statuses_and_a_standby_takes_over(server) {
        leader_election(server)
    }
);

/// The value of `certgate_edge_leader` on `replica`, once it answers.
fn leader_gauge(replica: &Process) -> Option<bool> {
    let metrics = replica.get("/metrics")?;
    if metrics.contains("\ncertgate_edge_leader 1\n") {
        Some(true)
    } else if metrics.contains("\ncertgate_edge_leader 0\n") {
        Some(false)
    } else {
        None
    }
}

fn rebuilt(replica: &Process) -> bool {
    replica.get("/metrics").is_some_and(|m| !m.contains("\ncertgate_edge_rebuilds_total 0\n"))
}

fn leader_election(server: Server) {
    let dev = start(server);
    let pki = pki();
    // The endpoint is never dialled here; 192.0.2.1 is valid on both API servers.
    dev.ok_with(&["apply", "-f", "-"], Some(&objects(&pki, "192.0.2.1", 80)));
    let flags: Vec<String> = [
        "--insecure",
        "--leader-election-namespace",
        NAMESPACE,
        "--leader-election-lease-duration",
        "4s",
    ]
    .map(str::to_owned)
    .to_vec();
    let replica = || {
        let ports = EdgePorts { xds: free_port(), http: free_port(), https: free_port() };
        edge_serve(&dev.kubeconfig, ports, &flags)
    };
    let mut replicas = vec![replica(), replica()];
    let context =
        |replicas: &[Process]| failure_context(&dev, &replicas.iter().collect::<Vec<_>>());

    wait_for(
        "the HTTPProxy to be valid",
        || match proxy_field(&dev, "{.status.currentStatus}") {
            valid if valid == "valid" => Ok(()),
            _ => Err(proxy_field(&dev, "{.status}")),
        },
        || context(&replicas),
    );
    // Exactly one leader; both replicas build the configuration (both serve xDS).
    let leader = wait_for(
        "exactly one leader, both replicas rebuilt",
        || {
            let gauges: Vec<Option<bool>> = replicas.iter().map(leader_gauge).collect();
            match gauges[..] {
                [Some(a), Some(b)] if a != b && replicas.iter().all(rebuilt) => {
                    Ok(if a { 0 } else { 1 })
                }
                _ => Err(format!("leader gauges {gauges:?}")),
            }
        },
        || context(&replicas),
    );

    // certgate's deeper CRL checks become Warning events on the proxy (status unchanged).
    let patch_validation = |value: &str| {
        dev.ok(&[
            "patch",
            "httpproxy",
            "edge",
            "-n",
            NAMESPACE,
            "--type=merge",
            "-p",
            &format!(r#"{{"spec":{{"virtualhost":{{"tls":{{"clientValidation":{value}}}}}}}}}"#),
        ])
    };
    patch_validation(r#"{"skipClientCertValidation":true}"#);
    wait_for(
        "a CRLWarning event about skipClientCertValidation",
        || {
            let warnings = crl_warnings(&dev);
            match warnings.iter().any(|w| w.starts_with("skipClientCertValidation is true")) {
                true => Ok(()),
                false => Err(format!("{warnings:?}")),
            }
        },
        || context(&replicas),
    );
    assert_eq!(proxy_field(&dev, "{.status.currentStatus}"), "valid");
    patch_validation(r#"{"skipClientCertValidation":null}"#);

    // The leader dies without releasing the Lease; the standby takes over once it expires
    // and writes the status of the next change.
    drop(replicas.remove(leader));
    wait_for(
        "the standby to become the leader",
        || match leader_gauge(&replicas[0]) {
            Some(true) => Ok(()),
            other => Err(format!("leader gauge {other:?}")),
        },
        || context(&replicas),
    );
    dev.ok(&[
        "patch",
        "httpproxy",
        "edge",
        "-n",
        NAMESPACE,
        "--type=merge",
        "-p",
        r#"{"spec":{"virtualhost":{"tls":{"clientValidation":{"crlSecret":"missing"}}}}}"#,
    ]);
    wait_for(
        "the new leader to write the invalid status",
        || match proxy_field(&dev, "{.status.currentStatus}") {
            invalid if invalid == "invalid" => Ok(()),
            _ => Err(proxy_field(&dev, "{.status}")),
        },
        || context(&replicas),
    );
    assert_eq!(proxy_field(&dev, "{.status.conditions[0].errors[0].type}"), "TLSError");

    // SIGTERM stops serving, resigns the Lease and exits 0.
    let last = replicas.remove(0);
    let status = last.terminate();
    assert!(status.success(), "certgate edge serve exited with {status}");
    let holder = dev.ok(&[
        "get",
        "lease",
        "certgate-edge",
        "-n",
        NAMESPACE,
        "-o",
        "jsonpath={.spec.holderIdentity}",
    ]);
    assert_eq!(holder, "", "the Lease was released");
}
