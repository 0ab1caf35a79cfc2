//! Observability end to end (issue #23 item 12), on the real binary:
//!
//! - `certgate webhook` serves `/metrics`, `/healthz` and `/readyz` over plain HTTP on
//!   `--metrics-listen`, with its request series (declared at zero from the start), the
//!   `process_*` families and `certgate_build_info` of `certgate version`'s build;
//! - an explicit `--metrics-listen` that cannot be bound stops the start;
//! - each admission decision is one JSON log line with the AdmissionReview uid, the object's
//!   kind, namespace and name, the operation and the decision, and neither the CSR, the
//!   response's patch nor the requester;
//! - `certgate dev` logs where it serves at info, honours `RUST_LOG`, and serves the same
//!   families on its own `--metrics-listen`.
//!
//! Ports come from `ports::free_port` (below the ephemeral range); nothing binds a fixed
//! port. Waits are bounded by [`DEADLINE`] and assert outcomes, never durations.

#[path = "ports/mod.rs"]
mod ports;

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};

use ports::free_port;

/// Bounds every wait; generous, nothing is timed.
const DEADLINE: Duration = Duration::from_secs(90);

/// A child process killed when dropped.
struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.0.id().to_string()).status();
        let _ = self.0.wait();
    }
}

/// `GET path` over plain HTTP/1.0 to `address`: the status line and the body.
fn http_get(address: &str, path: &str) -> Result<(String, String), String> {
    let mut stream = TcpStream::connect(address).map_err(|e| format!("connect: {e}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").map_err(|e| e.to_string())?;
    let mut response = String::new();
    stream.read_to_string(&mut response).map_err(|e| e.to_string())?;
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    Ok((head.lines().next().unwrap_or_default().to_owned(), body.to_owned()))
}

/// `POST path` with a JSON body over HTTPS to 127.0.0.1:`port`, trusting exactly the CA in
/// `ca_pem`: the status line and the body.
fn https_post(port: u16, ca_pem: &[u8], path: &str, body: &str) -> (String, String) {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(ca_pem) {
        roots.add(cert.unwrap()).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from("localhost").unwrap();
    let connection = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let socket = TcpStream::connect(("127.0.0.1", port)).unwrap();
    socket.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut tls = rustls::StreamOwned::new(connection, socket);
    write!(
        tls,
        "POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = Vec::new();
    if let Err(err) = tls.read_to_end(&mut response) {
        assert!(!response.is_empty(), "no answer: {err}");
    }
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (head.lines().next().unwrap_or_default().to_owned(), body.to_owned())
}

/// Polls `check` every 100 ms until it gives `Ok`, at most [`DEADLINE`].
fn eventually<T>(
    what: &str,
    context: impl Fn() -> String,
    mut check: impl FnMut() -> Result<T, String>,
) -> T {
    let start = Instant::now();
    loop {
        match check() {
            Ok(value) => return value,
            Err(err) if start.elapsed() > DEADLINE => {
                panic!("{what}: not so after {DEADLINE:?}: {err}\n{}", context())
            }
            Err(_) => std::thread::sleep(Duration::from_millis(100)),
        }
    }
}

/// The CSR of the DNS example (base64 of the PEM, as `spec.request` carries it).
fn example_csr() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dns/requests.yaml");
    let all = std::fs::read_to_string(path).unwrap();
    all.lines().find_map(|l| l.trim().strip_prefix("request: ")).unwrap().trim().to_owned()
}

/// A CertificateRequest CREATE as the API server sends it to the webhook, by `requester`.
fn review(uid: &str, requester: &str, spec_username: Option<&str>, csr: &str) -> String {
    let mut spec = json!({
        "issuerRef": {"group": "cert-manager.io", "kind": "ClusterIssuer", "name": "internal-ca"},
        "duration": "24h0m0s",
        "usages": ["digital signature", "key encipherment", "server auth"],
        "request": csr,
    });
    if let Some(username) = spec_username {
        spec["username"] = json!(username);
        spec["groups"] = json!(["system:authenticated"]);
    }
    let resource =
        json!({"group": "cert-manager.io", "version": "v1", "resource": "certificaterequests"});
    let kind = json!({"group": "cert-manager.io", "version": "v1", "kind": "CertificateRequest"});
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": kind,
            "resource": resource,
            "requestKind": kind,
            "requestResource": resource,
            "name": "web-1",
            "namespace": "payments",
            "operation": "CREATE",
            "userInfo": {"username": requester, "groups": ["system:authenticated"]},
            "object": {
                "apiVersion": "cert-manager.io/v1",
                "kind": "CertificateRequest",
                "metadata": {"name": "web-1", "namespace": "payments"},
                "spec": spec,
            },
            "dryRun": false,
            "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"},
        }
    })
    .to_string()
}

/// `certgate webhook --dev-self-signed` without a cluster, logging JSON to `DIR/webhook.log`,
/// with `extra` flags. Returns the process, its HTTPS port and the CA bundle's path.
fn webhook(dir: &Path, extra: &[&str]) -> (Process, u16, PathBuf, PathBuf) {
    let port = free_port();
    let ca = dir.join("ca.crt");
    let log = dir.join("webhook.log");
    let child = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["webhook", "--dev-self-signed", "--listen", &format!("127.0.0.1:{port}")])
        .arg("--ca-bundle-out")
        .arg(&ca)
        .args(["--log-format", "json"])
        .args(extra)
        .env("KUBECONFIG", dir.join("no-such-kubeconfig"))
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("POD_NAMESPACE")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    (Process(child), port, ca, log)
}

fn json_lines(log: &str) -> Vec<Value> {
    log.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

/// The commit `certgate version -o json` reports.
fn version_commit() -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["version", "-o", "json"])
        .output()
        .unwrap();
    let version: Value = serde_json::from_slice(&output.stdout).unwrap();
    version["clientVersion"]["gitCommit"].as_str().unwrap().to_owned()
}

#[test]
fn the_webhook_serves_metrics_over_plain_http_and_logs_each_decision_without_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let metrics = format!("127.0.0.1:{}", free_port());
    let (mut process, port, ca, log) = webhook(dir.path(), &["--metrics-listen", &metrics]);
    let logs = || std::fs::read_to_string(&log).unwrap_or_default();

    // Ready on the plain port once the HTTPS port serves.
    eventually("the webhook to report ready on its metrics port", logs, || {
        if let Some(status) = process.0.try_wait().unwrap() {
            panic!("certgate webhook exited with {status}:\n{}", logs());
        }
        match http_get(&metrics, "/readyz")? {
            (status, body) if status.ends_with(" 200 OK") && body == "ok" => Ok(()),
            other => Err(format!("{other:?}")),
        }
    });
    let (status, fresh) = http_get(&metrics, "/metrics").unwrap();
    assert!(status.ends_with(" 200 OK"), "{status}");
    // Declared at zero before any request.
    let denied = "certgate_webhook_requests_total{path=\"/validate\",resource=\"cert-manager.io/v1/certificaterequests\",operation=\"CREATE\",result=\"denied\"}";
    assert!(fresh.contains(&format!("\n{denied} 0\n")), "{fresh}");

    // One allowed (mutate stamps the identity) and one denied (another identity) admission.
    let ca_pem = std::fs::read(&ca).unwrap();
    let csr = example_csr();
    let requester = "alice-the-requester";
    let (status, mutated) =
        https_post(port, &ca_pem, "/mutate", &review("0b4e2d5c-allowed", requester, None, &csr));
    assert!(status.ends_with(" 200 OK"), "{status} {mutated}");
    let mutated: Value = serde_json::from_str(&mutated).unwrap();
    assert_eq!(mutated["response"]["allowed"], true, "{mutated}");
    let patch = mutated["response"]["patch"].as_str().unwrap().to_owned();
    let (status, validated) = https_post(
        port,
        &ca_pem,
        "/validate",
        &review("7f1c9a3e-denied", requester, Some("mallory"), &csr),
    );
    assert!(status.ends_with(" 200 OK"), "{status} {validated}");
    let validated: Value = serde_json::from_str(&validated).unwrap();
    assert_eq!(validated["response"]["allowed"], false, "{validated}");
    let denial = validated["response"]["status"]["message"].as_str().unwrap().to_owned();

    // The metrics port counts them, with the process families and the build.
    let (_, text) = http_get(&metrics, "/metrics").unwrap();
    for line in [
        format!("\n{denied} 1\n"),
        "\ncertgate_webhook_requests_total{path=\"/mutate\",resource=\"cert-manager.io/v1/certificaterequests\",operation=\"CREATE\",result=\"allowed\"} 1\n".to_owned(),
        format!(
            "\ncertgate_build_info{{version=\"v{}\",commit=\"{}\",build_date=\"",
            env!("CARGO_PKG_VERSION"),
            version_commit()
        ),
        "\n# TYPE process_cpu_seconds counter\n".to_owned(),
        "\nprocess_cpu_seconds_total ".to_owned(),
        "\nprocess_resident_memory_bytes ".to_owned(),
        "\nprocess_virtual_memory_bytes ".to_owned(),
        "\nprocess_open_fds ".to_owned(),
        "\nprocess_max_fds ".to_owned(),
        "\nprocess_start_time_seconds ".to_owned(),
    ] {
        assert!(text.contains(&line), "missing {line:?} in\n{text}");
    }
    assert!(text.ends_with("# EOF\n"), "{text}");
    assert_eq!(http_get(&metrics, "/healthz").unwrap().1, "ok");

    // One log line per decision, naming the request and the decision.
    let decided = |uid: &str| {
        eventually(&format!("the decision on {uid} logged"), logs, || {
            json_lines(&logs())
                .into_iter()
                .find(|line| line["message"] == "answered admission request" && line["uid"] == uid)
                .ok_or_else(|| "not yet".to_owned())
        })
    };
    let allowed = decided("0b4e2d5c-allowed");
    assert_eq!(allowed["level"], "INFO", "{allowed}");
    for (field, value) in [
        ("kind", json!("CertificateRequest")),
        ("namespace", json!("payments")),
        ("name", json!("web-1")),
        ("operation", json!("CREATE")),
        ("allowed", json!(true)),
        ("result", json!("allowed")),
        ("resource", json!("cert-manager.io/v1/certificaterequests")),
        ("denial", json!("")),
    ] {
        assert_eq!(allowed[field], value, "{field} in {allowed}");
    }
    let refused = decided("7f1c9a3e-denied");
    assert_eq!(refused["allowed"], false, "{refused}");
    assert_eq!(refused["result"], "denied", "{refused}");
    assert_eq!(refused["denial"], denial.as_str(), "{refused}");
    assert!(denial.contains("identity must be that of the requester"), "{denial}");
    assert_eq!(refused["reason"], "Forbidden", "{refused}");
    assert_eq!(refused["code"], 403, "{refused}");

    // Never the object's contents, the answer's patch or the requester.
    let all = logs();
    assert!(!all.contains(&csr), "the CSR is in the log:\n{all}");
    assert!(!all.contains(&csr[..64]), "part of the CSR is in the log:\n{all}");
    assert!(!all.contains(&patch), "the patch is in the log:\n{all}");
    assert!(!all.contains(requester), "the requester is in the log:\n{all}");
}

#[test]
fn an_explicit_metrics_address_that_cannot_be_bound_stops_the_webhook() {
    let dir = tempfile::tempdir().unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let (mut process, _, _, log) = webhook(dir.path(), &["--metrics-listen", &address]);
    let status = eventually("the webhook to exit", String::new, || {
        process.0.try_wait().unwrap().ok_or_else(|| "still running".to_owned())
    });
    assert!(!status.success());
    let stderr = std::fs::read_to_string(&log).unwrap();
    assert!(
        stderr.contains(&format!("error: --metrics-listen {address}: cannot listen: ")),
        "{stderr}"
    );
}

/// `certgate dev` with `flags`, its standard error to `DIR/dev.log`: the process, once it
/// printed its usage (everything listens), and what it printed.
fn dev(dir: &Path, flags: &[&str], rust_log: Option<&str>) -> (Process, String, PathBuf) {
    let log = dir.join("dev.log");
    let mut command = Command::new(env!("CARGO_BIN_EXE_certgate"));
    command
        .args(["dev", "--listen", "127.0.0.1:0", "--controllers=-*", "--kubeconfig-out"])
        .arg(dir.join("kubeconfig"))
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&log).unwrap());
    match rust_log {
        Some(filter) => command.env("RUST_LOG", filter),
        None => command.env_remove("RUST_LOG"),
    };
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let process = Process(child);
    let mut printed = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        printed.push_str(&line);
        printed.push('\n');
        if line.starts_with("Stop with Ctrl-C") {
            break;
        }
    }
    assert!(
        printed.contains("Stop with Ctrl-C"),
        "{printed}{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    (process, printed, log)
}

#[test]
fn dev_logs_what_it_serves_at_info_and_serves_every_family_on_its_metrics_port() {
    let dir = tempfile::tempdir().unwrap();
    let (_process, printed, log) =
        dev(dir.path(), &["--log-format", "json", "--metrics-listen", "127.0.0.1:0"], None);
    let address = printed
        .lines()
        .find_map(|l| l.strip_prefix("metrics at http://"))
        .and_then(|rest| rest.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("no metrics address in\n{printed}"))
        .to_owned();
    let logs = || std::fs::read_to_string(&log).unwrap_or_default();
    let lines = json_lines(&logs());
    let said = |message: &str| lines.iter().find(|l| l["message"] == message).cloned();
    let api = said("serving the sandbox API server (development only)")
        .unwrap_or_else(|| panic!("no API server line in\n{}", logs()));
    assert_eq!(api["level"], "INFO");
    assert!(
        printed.contains(&format!("at https://{}", api["address"].as_str().unwrap())),
        "{printed}"
    );
    let webhook = said("serving certgate's admission webhook, registered with the sandbox for CertificateRequests and CertificateRequestPolicies")
        .unwrap_or_else(|| panic!("no webhook line in\n{}", logs()));
    assert!(webhook["address"].as_str().unwrap().starts_with("127.0.0.1:"), "{webhook}");
    assert!(said("no controllers running").is_some(), "{}", logs());
    let metrics = said("serving /metrics, /healthz and /readyz over plain HTTP")
        .unwrap_or_else(|| panic!("no metrics line in\n{}", logs()));
    assert_eq!(metrics["address"], address.as_str());

    let (status, text) = http_get(&address, "/metrics").unwrap();
    assert!(status.ends_with(" 200 OK"), "{status}");
    for line in [
        "\ncertgate_webhook_requests_total{path=\"/mutate\"",
        "\ncertgate_controller_leader ",
        "\nprocess_resident_memory_bytes ",
        "\ncertgate_build_info{version=\"v",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    assert_eq!(text.matches("# EOF").count(), 1, "{text}");
    assert_eq!(http_get(&address, "/readyz").unwrap().1, "ok");
}

#[test]
fn dev_honours_rust_log() {
    let dir = tempfile::tempdir().unwrap();
    let (process, _, log) = dev(dir.path(), &["--no-webhook"], Some("warn"));
    drop(process);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        !text.contains("serving the sandbox API server"),
        "info lines under RUST_LOG=warn:\n{text}"
    );
    assert!(!text.contains(" INFO "), "{text}");
}

#[test]
fn dev_serves_metrics_on_loopback_only() {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["dev", "--listen", "127.0.0.1:0", "--no-webhook", "--metrics-listen", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "error: --metrics-listen: the sandbox serves on loopback only; 0.0.0.0:0 is not a loopback address"
        ),
        "{stderr}"
    );
}
