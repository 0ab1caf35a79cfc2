//! `certgate crl check` and `certgate crl verify` against a real Envoy (issue #18, item 5).
//!
//! Each case builds the Kubernetes objects of one HTTPProxy with `clientValidation.crlSecret`,
//! asks `certgate crl check -o json` for the `DownstreamTlsContext` Contour would program, and
//! serves it from a real Envoy (`tools/envoy/install`, 1.40.0, BoringSSL): a static bootstrap
//! with one TLS listener on 127.0.0.1 answering `200` from a `direct_response` route. The only
//! change to the context is the serving certificate: its SDS reference keeps its name but loses
//! its `sdsConfig`, and a static secret of that name holds the certificate and key.
//!
//! A rustls client then sends `GET /` with the case's client certificate. Envoy's verdict is
//! binary: an HTTP 200 is `accepted`; anything else (an alert during or just after the
//! handshake, or EOF, which is how TLS 1.3 shows a refused client certificate) is `refused`.
//! It is compared with `certgate crl verify`, run on exactly the `trustedCa`, `crl` and
//! `onlyVerifyLeafCertCrl` of the printed context, and with the verdict written in the case.
//!
//! The certificates and CRLs are generated here with rcgen (the fixtures in
//! tests/fixtures/crl keep no private keys, and a TLS client needs one). All validity dates are
//! fixed and far from today (2025-01-01 to 2125-01-01; the expired CRL and the expired client
//! certificate end in 2025), and both Envoy and certgate read the real clock.
//!
//! Every Envoy runs in its own temporary directory, listens on loopback only (listener and
//! admin on port 0, the bound ports read back from the admin interface), and is killed and its
//! directory removed when the case ends, also on panic.

mod real_tools;
mod revocation_lists;

use std::fmt;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use base64::Engine as _;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SerialNumber, date_time_ymd,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use serde_json::{Value, json};

/// How long Envoy may take to start serving, and a client exchange to finish. Generous on
/// purpose (a busy two-core machine); they bound waits, they are not measured.
const STARTUP_DEADLINE: Duration = Duration::from_secs(30);
const IO_TIMEOUT: Duration = Duration::from_secs(20);
/// The name the serving certificate is issued for and the client asks for.
const SERVER_NAME: &str = "edge.example.com";

// ---------------------------------------------------------------------------------------------
// The PKI: root -> intermediate -> clients, CRLs for both CAs, and a separate serving chain.

struct Ca {
    params: CertificateParams,
    key: KeyPair,
    pem: String,
    der: CertificateDer<'static>,
}

impl Ca {
    fn issuer(&self) -> Issuer<'_, &KeyPair> {
        Issuer::from_params(&self.params, &self.key)
    }

    fn kid(&self) -> Vec<u8> {
        self.params.key_identifier(&self.key)
    }
}

/// A certificate with its key, as PEM (for certgate and Envoy) and DER (for rustls).
struct Leaf {
    pem: String,
    der: CertificateDer<'static>,
    key_pem: String,
    key_der: Vec<u8>,
}

struct Pki {
    /// `ca.crt`: root then intermediate, as in the fixtures.
    ca_bundle: String,
    server: Leaf,
    /// The CA the client trusts for the serving certificate.
    server_ca: CertificateDer<'static>,
    good: Leaf,
    revoked: Leaf,
    expired: Leaf,
    other: Leaf,
    /// Empty CRL of the root.
    root_crl: String,
    /// The intermediate's CRL, revoking `revoked`.
    inter_crl: String,
    /// The same, but its nextUpdate (2025-01-01) is long past.
    inter_crl_expired: String,
}

const START: (i32, u8, u8) = (2025, 1, 1);
const LONG: (i32, u8, u8) = (2125, 1, 1);
const REVOKED_SERIAL: u64 = 0x1002;

fn ca_params(cn: &str, serial: u64) -> CertificateParams {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, cn);
    params.distinguished_name.push(DnType::OrganizationName, "certgate envoy edge test");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    params.not_before = date_time_ymd(START.0, START.1, START.2);
    params.not_after = date_time_ymd(LONG.0, LONG.1, LONG.2);
    params.serial_number = Some(SerialNumber::from(serial));
    params
}

fn root_ca(cn: &str) -> Ca {
    let params = ca_params(cn, 1);
    let key = KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    Ca { pem: cert.pem(), der: cert.der().clone(), params, key }
}

fn leaf(
    cn: &str,
    sans: Vec<String>,
    serial: u64,
    usage: ExtendedKeyUsagePurpose,
    parent: &Ca,
    until: (i32, u8, u8),
) -> Leaf {
    let mut params = CertificateParams::new(sans).unwrap();
    params.distinguished_name.push(DnType::CommonName, cn);
    params.extended_key_usages = vec![usage];
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.not_before = date_time_ymd(START.0, START.1, START.2);
    params.not_after = date_time_ymd(until.0, until.1, until.2);
    params.serial_number = Some(SerialNumber::from(serial));
    let key = KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, &parent.issuer()).unwrap();
    Leaf {
        pem: cert.pem(),
        der: cert.der().clone(),
        key_pem: key.serialize_pem(),
        key_der: key.serialize_der(),
    }
}

fn client(cn: &str, serial: u64, parent: &Ca, until: (i32, u8, u8)) -> Leaf {
    leaf(cn, Vec::new(), serial, ExtendedKeyUsagePurpose::ClientAuth, parent, until)
}

fn crl(ca: &Ca, serials: &[u64], from: (i32, u8, u8), to: (i32, u8, u8), number: u64) -> String {
    revocation_lists::crl(&ca.issuer(), ca.kid(), serials, from, to, number)
}

fn pki() -> &'static Pki {
    static PKI: OnceLock<Pki> = OnceLock::new();
    PKI.get_or_init(|| {
        let root = root_ca("edge test root");
        let inter_params = ca_params("edge test intermediate", 2);
        let inter_key = KeyPair::generate().unwrap();
        let inter_cert = inter_params.signed_by(&inter_key, &root.issuer()).unwrap();
        let inter = Ca {
            pem: inter_cert.pem(),
            der: inter_cert.der().clone(),
            params: inter_params,
            key: inter_key,
        };
        let other = root_ca("edge test other CA");
        let server_ca = root_ca("edge test serving CA");
        let server = leaf(
            SERVER_NAME,
            vec![SERVER_NAME.to_owned()],
            0x5001,
            ExtendedKeyUsagePurpose::ServerAuth,
            &server_ca,
            LONG,
        );
        Pki {
            ca_bundle: format!("{}{}", root.pem, inter.pem),
            server,
            server_ca: server_ca.der.clone(),
            good: client("client good", 0x1001, &inter, LONG),
            revoked: client("client revoked", REVOKED_SERIAL, &inter, LONG),
            expired: client("client expired", 0x1003, &inter, (2025, 6, 1)),
            other: client("client of another CA", 0x2001, &other, LONG),
            root_crl: crl(&root, &[], START, LONG, 1),
            inter_crl: crl(&inter, &[REVOKED_SERIAL], START, LONG, 2),
            inter_crl_expired: crl(&inter, &[REVOKED_SERIAL], (2024, 1, 1), START, 1),
        }
    })
}

// ---------------------------------------------------------------------------------------------
// The cases.

#[derive(Clone, Copy)]
enum Crls {
    /// The root's and the intermediate's CRL (the intermediate's revokes `revoked`).
    Both,
    /// The root's CRL and an expired CRL of the intermediate.
    IntermediateExpired,
    /// Only the intermediate's CRL: the root, a CA of the chain, has none.
    IntermediateOnly,
}

#[derive(Clone, Copy)]
enum ClientCert {
    Good,
    Revoked,
    Expired,
    OtherCa,
    None,
}

/// Envoy's side of a case: the HTTP answer, or what the client saw instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Accepted,
    Refused,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Accepted => "accepted",
            Outcome::Refused => "refused",
        })
    }
}

/// certgate's verdict word for "no client certificate while `requireClientCertificate` is
/// set" (`crl verify` needs a certificate; this one is read off the printed context).
const NO_CERTIFICATE: &str = "no-certificate";

struct Case {
    name: &'static str,
    crls: Crls,
    leaf_only: bool,
    client: ClientCert,
    /// certgate's expected verdict word; Envoy is expected to accept exactly when it is
    /// `accepted`.
    expected: &'static str,
}

fn run_case(case: Case) {
    let pki = pki();
    let dir = tempfile::Builder::new().prefix("certgate-envoy-edge-").tempdir().unwrap();

    // 1. What Contour would program, according to certgate.
    let crl_pem = match case.crls {
        Crls::Both => format!("{}{}", pki.root_crl, pki.inter_crl),
        Crls::IntermediateExpired => format!("{}{}", pki.root_crl, pki.inter_crl_expired),
        Crls::IntermediateOnly => pki.inter_crl.clone(),
    };
    let manifests = dir.path().join("manifests.yaml");
    std::fs::write(&manifests, manifests_yaml(pki, &crl_pem, case.leaf_only)).unwrap();
    let check = run_certgate(&["crl", "check", "-f", path_str(&manifests), "-o", "json"]);
    assert_eq!(check.code, 0, "{}: crl check: {}{}", case.name, check.stdout, check.stderr);
    let json: Value = serde_json::from_str(&check.stdout).expect("crl check prints JSON");
    assert_eq!(json["results"].as_array().map(Vec::len), Some(1), "{}: one HTTPProxy", case.name);
    let result = &json["results"][0];
    assert_eq!(result["valid"], true, "{}: Contour accepts the HTTPProxy: {result}", case.name);
    let context = result["envoy"].clone();
    assert!(context.is_object(), "{}: an Envoy context is programmed: {result}", case.name);
    let validation = &context["commonTlsContext"]["validationContext"];
    assert_eq!(
        validation["onlyVerifyLeafCertCrl"] == true,
        case.leaf_only,
        "{}: crlOnlyVerifyLeafCert becomes onlyVerifyLeafCertCrl: {validation}",
        case.name
    );

    // 2. certgate's verdict on exactly the inputs of that context.
    let certgate_verdict = match client_leaf(pki, case.client) {
        Some(client) => {
            let ca = dir.path().join("trusted_ca.pem");
            let crl = dir.path().join("crl.pem");
            let cert = dir.path().join("client.crt");
            std::fs::write(&ca, inline_bytes(&validation["trustedCa"])).unwrap();
            std::fs::write(&crl, inline_bytes(&validation["crl"])).unwrap();
            std::fs::write(&cert, &client.pem).unwrap();
            let mut args = vec!["crl", "verify", "--ca", path_str(&ca), "--crl", path_str(&crl)];
            if validation["onlyVerifyLeafCertCrl"] == true {
                args.push("--leaf-only");
            }
            args.push(path_str(&cert));
            let verify = run_certgate(&args);
            assert!(
                verify.code == 0 || verify.code == 1,
                "{}: crl verify: {}{}",
                case.name,
                verify.stdout,
                verify.stderr
            );
            verify.stdout.lines().next().unwrap_or_default().to_owned()
        }
        None if context["requireClientCertificate"] == true => NO_CERTIFICATE.to_owned(),
        None => "accepted".to_owned(),
    };

    // 3. Envoy's verdict.
    let envoy = Envoy::start(dir.path(), &context, pki);
    let (envoy_verdict, detail) = exchange(envoy.listener, pki, case.client);
    drop(envoy);

    let expected_envoy =
        if case.expected == "accepted" { Outcome::Accepted } else { Outcome::Refused };
    let certgate_outcome =
        if certgate_verdict == "accepted" { Outcome::Accepted } else { Outcome::Refused };
    println!("| {} | {envoy_verdict} | {certgate_verdict} | {detail} |", case.name);
    // Envoy is the reference: certgate predicts what it does.
    assert_eq!(
        envoy_verdict, certgate_outcome,
        "{}: Envoy {envoy_verdict} ({detail}), certgate says {certgate_verdict}",
        case.name
    );
    assert_eq!(envoy_verdict, expected_envoy, "{}: Envoy ({detail})", case.name);
    assert_eq!(certgate_verdict, case.expected, "{}: certgate's verdict word", case.name);
}

fn client_leaf(pki: &Pki, client: ClientCert) -> Option<&Leaf> {
    match client {
        ClientCert::Good => Some(&pki.good),
        ClientCert::Revoked => Some(&pki.revoked),
        ClientCert::Expired => Some(&pki.expired),
        ClientCert::OtherCa => Some(&pki.other),
        ClientCert::None => None,
    }
}

fn inline_bytes(source: &Value) -> Vec<u8> {
    let text = source["inlineBytes"].as_str().unwrap_or_else(|| panic!("inlineBytes in {source}"));
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// The Secrets and the HTTPProxy of one case, as Contour would read them.
fn manifests_yaml(pki: &Pki, crl_pem: &str, leaf_only: bool) -> String {
    let b64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    let secret = |name: &str, type_: &str, data: &[(&str, &str)]| {
        let mut out = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: default\n  name: {name}\ntype: {type_}\ndata:\n"
        );
        for (key, value) in data {
            out.push_str(&format!("  {key}: {}\n", b64(value)));
        }
        out
    };
    let leaf_only = if leaf_only { "        crlOnlyVerifyLeafCert: true\n" } else { "" };
    let proxy = format!(
        "apiVersion: projectcontour.io/v1\nkind: HTTPProxy\nmetadata:\n  namespace: default\n  name: edge\n  generation: 1\nspec:\n  virtualhost:\n    fqdn: {SERVER_NAME}\n    tls:\n      secretName: server\n      clientValidation:\n        caSecret: client-ca\n        crlSecret: crl\n{leaf_only}  routes:\n    - services:\n        - name: app\n          port: 80\n"
    );
    [
        secret(
            "server",
            "kubernetes.io/tls",
            &[("tls.crt", &pki.server.pem), ("tls.key", &pki.server.key_pem)],
        ),
        secret("client-ca", "Opaque", &[("ca.crt", &pki.ca_bundle)]),
        secret("crl", "Opaque", &[("crl.pem", crl_pem)]),
        proxy,
    ]
    .join("---\n")
}

struct CertgateRun {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_certgate(args: &[&str]) -> CertgateRun {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the certgate binary runs");
    CertgateRun {
        code: output.status.code().expect("certgate exits normally"),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

// ---------------------------------------------------------------------------------------------
// Envoy.

/// A running Envoy; killed (and waited for) on drop. Its files live in the case's directory,
/// which the case removes after this is dropped.
struct Envoy {
    child: Child,
    listener: SocketAddr,
}

impl Envoy {
    fn start(dir: &Path, context: &Value, pki: &Pki) -> Envoy {
        let config = dir.join("envoy.json");
        std::fs::write(&config, serde_json::to_vec_pretty(&bootstrap(context, pki)).unwrap())
            .unwrap();
        let admin_path = dir.join("admin-address");
        let log_path = dir.join("envoy.log");
        let log = File::create(&log_path).unwrap();
        // Distinct per process and per Envoy of the process, and above the port range other
        // tests derive their ids from.
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let base_id = std::process::id()
            .wrapping_mul(64)
            .wrapping_add(100_000 + NEXT.fetch_add(1, Ordering::Relaxed) % 64);
        let child = Command::new(real_tools::envoy())
            .arg("-c")
            .arg(&config)
            .args(["--base-id", &base_id.to_string()])
            .args(["--disable-hot-restart", "--concurrency", "1", "-l", "warning"])
            .arg("--admin-address-path")
            .arg(&admin_path)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {}: {err}", real_tools::envoy().display()));
        let mut envoy = Envoy { child, listener: SocketAddr::from(([127, 0, 0, 1], 0)) };
        envoy.listener = envoy.wait_until_serving(&admin_path, &log_path);
        envoy
    }

    /// Polls (bounded by STARTUP_DEADLINE) until the admin interface says LIVE, reports the
    /// listener's bound port, and that port accepts a TCP connection.
    fn wait_until_serving(&mut self, admin_path: &Path, log_path: &Path) -> SocketAddr {
        let deadline = Instant::now() + STARTUP_DEADLINE;
        let fail = |envoy: &mut Envoy, why: &str| -> ! {
            let status = envoy.child.try_wait().ok().flatten();
            let log = std::fs::read_to_string(log_path).unwrap_or_default();
            panic!("Envoy is not serving: {why} (exit status {status:?}); its log:\n{log}");
        };
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                fail(self, &format!("it exited with {status}"));
            }
            if Instant::now() > deadline {
                fail(self, "startup deadline passed");
            }
            if let Some(addr) = listener_address(admin_path)
                && TcpStream::connect_timeout(&addr, Duration::from_secs(2)).is_ok()
            {
                return addr;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Envoy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The listener's address once the admin interface (whose address Envoy wrote to
/// `admin_path`) reports the server LIVE; None while it is not there yet.
fn listener_address(admin_path: &Path) -> Option<SocketAddr> {
    let admin: SocketAddr = std::fs::read_to_string(admin_path).ok()?.trim().parse().ok()?;
    if admin_get(admin, "/ready")?.trim() != "LIVE" {
        return None;
    }
    let listeners: Value =
        serde_json::from_str(&admin_get(admin, "/listeners?format=json")?).ok()?;
    let socket = &listeners["listener_statuses"][0]["local_address"]["socket_address"];
    let port = u16::try_from(socket["port_value"].as_u64()?).ok()?;
    (port != 0).then(|| SocketAddr::from(([127, 0, 0, 1], port)))
}

/// The body of a plain-HTTP GET to the admin interface.
fn admin_get(admin: SocketAddr, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect_timeout(&admin, Duration::from_secs(2)).ok()?;
    stream.set_read_timeout(Some(IO_TIMEOUT)).ok()?;
    write!(stream, "GET {path} HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n").ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    let (head, body) = response.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    if !head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return Some(body.to_owned());
    }
    // Chunked: hex size line, data, CRLF; a zero size ends it.
    let mut rest = body;
    let mut out = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n")?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        out.push_str(after.get(..size)?);
        rest = after.get(size..)?.strip_prefix("\r\n")?;
    }
}

/// A static bootstrap serving `context` (certgate's DownstreamTlsContext) on one listener on
/// 127.0.0.1, port 0, with a direct 200 response; admin on 127.0.0.1, port 0.
fn bootstrap(context: &Value, pki: &Pki) -> Value {
    let mut context = context.clone();
    let sds = context["commonTlsContext"]["tlsCertificateSdsSecretConfigs"]
        .as_array_mut()
        .expect("the serving certificate comes by SDS");
    assert_eq!(sds.len(), 1, "one serving certificate: {sds:?}");
    let secret_name = sds[0]["name"].as_str().unwrap().to_owned();
    // Keep the reference by name; without sdsConfig Envoy resolves it to a static secret.
    sds[0].as_object_mut().unwrap().remove("sdsConfig");
    let loopback =
        |port: u16| json!({"socket_address": {"address": "127.0.0.1", "port_value": port}});
    json!({
        "admin": {"address": loopback(0)},
        "static_resources": {
            "secrets": [{
                "name": secret_name,
                "tls_certificate": {
                    "certificate_chain": {"inline_string": pki.server.pem},
                    "private_key": {"inline_string": pki.server.key_pem},
                },
            }],
            "listeners": [{
                "name": "edge",
                "address": loopback(0),
                "filter_chains": [{
                    "transport_socket": {
                        "name": "envoy.transport_sockets.tls",
                        "typed_config": context,
                    },
                    "filters": [{
                        "name": "envoy.filters.network.http_connection_manager",
                        "typed_config": {
                            "@type": "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager",
                            "stat_prefix": "edge",
                            "route_config": {
                                "virtual_hosts": [{
                                    "name": "all",
                                    "domains": ["*"],
                                    "routes": [{
                                        "match": {"prefix": "/"},
                                        "direct_response": {
                                            "status": 200,
                                            "body": {"inline_string": "edge ok"},
                                        },
                                    }],
                                }],
                            },
                            "http_filters": [{
                                "name": "envoy.filters.http.router",
                                "typed_config": {
                                    "@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router",
                                },
                            }],
                        },
                    }],
                }],
            }],
        },
    })
}

// ---------------------------------------------------------------------------------------------
// The client.

/// Connects to `addr` with rustls (trusting the serving CA, presenting `client` if any), sends
/// `GET /` and says whether the answer was HTTP 200, with what the client saw.
fn exchange(addr: SocketAddr, pki: &Pki, client: ClientCert) -> (Outcome, String) {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    roots.add(pki.server_ca.clone()).unwrap();
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let config = match client_leaf(pki, client) {
        Some(leaf) => builder
            .with_client_auth_cert(
                vec![leaf.der.clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf.key_der.clone())),
            )
            .unwrap(),
        None => builder.with_no_client_auth(),
    };
    let name = ServerName::try_from(SERVER_NAME).unwrap();
    let mut conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let mut socket = TcpStream::connect_timeout(&addr, IO_TIMEOUT)
        .unwrap_or_else(|err| panic!("Envoy's listener {addr} refuses TCP: {err}"));
    socket.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    socket.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    let mut tls = rustls::Stream::new(&mut conn, &mut socket);
    let request = format!("GET / HTTP/1.1\r\nHost: {SERVER_NAME}\r\nConnection: close\r\n\r\n");
    if let Err(err) = tls.write_all(request.as_bytes()).and_then(|()| tls.flush()) {
        return (Outcome::Refused, format!("write: {err}"));
    }
    // Keeps what arrived before an error (e.g. EOF without close_notify).
    let mut response = Vec::new();
    let read = tls.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response);
    let status = response.lines().next().unwrap_or_default().to_owned();
    if status.starts_with("HTTP/1.1 200") {
        return (Outcome::Accepted, status);
    }
    let detail = match read {
        Err(err) => format!("read: {err}"),
        Ok(_) if status.is_empty() => "EOF before any answer".to_owned(),
        Ok(_) => status,
    };
    (Outcome::Refused, detail)
}

// ---------------------------------------------------------------------------------------------
// One test per case; each runs its own Envoy.

#[test]
fn unrevoked_client_is_accepted() {
    run_case(Case {
        name: "unrevoked client",
        crls: Crls::Both,
        leaf_only: false,
        client: ClientCert::Good,
        expected: "accepted",
    });
}

#[test]
fn revoked_client_is_refused() {
    run_case(Case {
        name: "revoked client",
        crls: Crls::Both,
        leaf_only: false,
        client: ClientCert::Revoked,
        expected: "revoked",
    });
}

#[test]
fn expired_crl_refuses_an_unrevoked_client() {
    run_case(Case {
        name: "expired CRL",
        crls: Crls::IntermediateExpired,
        leaf_only: false,
        client: ClientCert::Good,
        expected: "crl-expired",
    });
}

#[test]
fn missing_root_crl_refuses_an_unrevoked_client_with_full_chain_checking() {
    run_case(Case {
        name: "missing CRL (root has none), full chain",
        crls: Crls::IntermediateOnly,
        leaf_only: false,
        client: ClientCert::Good,
        expected: "unknown-ca",
    });
}

#[test]
fn leaf_only_needs_only_the_issuers_crl() {
    run_case(Case {
        name: "leaf-only, root has no CRL, unrevoked client",
        crls: Crls::IntermediateOnly,
        leaf_only: true,
        client: ClientCert::Good,
        expected: "accepted",
    });
}

#[test]
fn leaf_only_still_refuses_a_revoked_client() {
    run_case(Case {
        name: "leaf-only, root has no CRL, revoked client",
        crls: Crls::IntermediateOnly,
        leaf_only: true,
        client: ClientCert::Revoked,
        expected: "revoked",
    });
}

#[test]
fn no_client_certificate_is_refused() {
    run_case(Case {
        name: "no client certificate",
        crls: Crls::Both,
        leaf_only: false,
        client: ClientCert::None,
        expected: NO_CERTIFICATE,
    });
}

#[test]
fn expired_client_certificate_is_refused() {
    run_case(Case {
        name: "expired client certificate",
        crls: Crls::Both,
        leaf_only: false,
        client: ClientCert::Expired,
        expected: "rejected",
    });
}

#[test]
fn client_of_another_ca_is_refused() {
    run_case(Case {
        name: "client of another CA",
        crls: Crls::Both,
        leaf_only: false,
        client: ClientCert::OtherCa,
        expected: "unknown-ca",
    });
}
