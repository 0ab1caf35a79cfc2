//! Helpers for the serving-certificate end-to-end tests: a `certgate dev --no-webhook`
//! sandbox, `certgate webhook` processes pointed at it, the real kubectl, polling, and an
//! HTTPS client that trusts exactly a given CA bundle.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

/// How long any one condition is waited for: generous, the tests assert outcomes, not speed.
pub const DEADLINE: Duration = Duration::from_secs(90);

/// A running `certgate dev --no-webhook` and its admin kubeconfig.
pub struct Sandbox {
    child: Child,
    pub dir: tempfile::TempDir,
    pub kubeconfig: PathBuf,
}

impl Sandbox {
    pub fn start() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let (child, kubeconfig, _) = crate::dev_support::spawn_dev(dir.path(), &["--no-webhook"]);
        Sandbox { child, dir, kubeconfig }
    }

    /// Runs the real kubectl with the sandbox's admin kubeconfig.
    pub fn kubectl(&self, args: &[&str], input: Option<&str>) -> Output {
        crate::dev_support::kubectl(Some(&self.kubeconfig), args, input)
    }

    /// kubectl's standard output; panics when it fails.
    pub fn ok(&self, args: &[&str], input: Option<&str>) -> String {
        self.try_ok(args, input).unwrap_or_else(|err| panic!("{err}"))
    }

    /// kubectl's standard output, or its failure as text.
    pub fn try_ok(&self, args: &[&str], input: Option<&str>) -> Result<String, String> {
        let output = self.kubectl(args, input);
        if output.status.success() {
            Ok(String::from_utf8(output.stdout).unwrap())
        } else {
            Err(format!(
                "kubectl {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    }

    /// `certgate webhook` with `args`, KUBECONFIG pointing at this sandbox, listening on a
    /// free loopback port.
    pub fn webhook(&self, name: &str, args: &[&str]) -> Webhook {
        self.webhook_as(name, &self.kubeconfig, args)
    }

    /// `certgate webhook` with `args` and KUBECONFIG `kubeconfig`.
    pub fn webhook_as(&self, name: &str, kubeconfig: &Path, args: &[&str]) -> Webhook {
        Webhook::start(kubeconfig, &self.dir.path().join(format!("{name}.log")), args)
    }

    /// A kubeconfig like the admin's, authenticating with `token` instead.
    pub fn kubeconfig_for(&self, name: &str, token: &str) -> PathBuf {
        let admin = std::fs::read_to_string(&self.kubeconfig).unwrap();
        let start = admin.find("token: ").unwrap() + "token: ".len();
        let end = start + admin[start..].find('\n').unwrap();
        let path = self.dir.path().join(format!("kubeconfig-{name}"));
        std::fs::write(&path, format!("{}{token}{}", &admin[..start], &admin[end..])).unwrap();
        path
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// A running `certgate webhook`, its port and its log file.
pub struct Webhook {
    child: Child,
    pub port: u16,
    log: PathBuf,
}

impl Webhook {
    pub fn start(kubeconfig: &Path, log: &Path, args: &[&str]) -> Webhook {
        let port = free_port();
        let listen = format!("127.0.0.1:{port}");
        let child = Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(["webhook", "--listen", &listen])
            .args(args)
            .env("KUBECONFIG", kubeconfig)
            .env_remove("POD_NAMESPACE")
            .env("RUST_LOG", "info")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap();
        Webhook { child, port, log: log.to_path_buf() }
    }

    /// What the process logged so far, for failure messages.
    pub fn logs(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Panics with the logs when the process has exited.
    pub fn assert_running(&mut self) {
        if let Some(status) = self.child.try_wait().unwrap() {
            panic!("certgate webhook exited with {status}:\n{}", self.logs());
        }
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

fn stop(child: &mut Child) {
    let _ = Command::new("kill").arg(child.id().to_string()).status();
    let _ = child.wait();
}

// Several harness modules include it; its reservations are process-wide (see there).
#[allow(clippy::duplicate_mod)]
#[path = "../ports/mod.rs"]
mod ports;
pub use ports::free_port;

/// Calls `check` until it returns `Ok`, at most [`DEADLINE`]; panics with the last error and
/// `context()` (e.g. a process's logs).
pub fn eventually<T>(
    what: &str,
    context: impl Fn() -> String,
    mut check: impl FnMut() -> Result<T, String>,
) -> T {
    let start = Instant::now();
    loop {
        match check() {
            Ok(value) => return value,
            Err(err) if start.elapsed() > DEADLINE => {
                panic!("{what}: still not so after {DEADLINE:?}: {err}\n{}", context())
            }
            Err(_) => std::thread::sleep(Duration::from_millis(250)),
        }
    }
}

/// The answer to an HTTPS GET.
pub struct HttpsAnswer {
    /// The status line, e.g. `HTTP/1.1 200 OK`.
    pub status: String,
    pub body: String,
    /// The certificate chain the server presented (DER), leaf first.
    pub chain: Vec<Vec<u8>>,
}

/// `GET path` over HTTPS to 127.0.0.1:`port`, verifying the server as `server_name` against
/// exactly the certificates of `bundle_pem` and nothing else.
pub fn https_get(
    port: u16,
    server_name: &str,
    bundle_pem: &[u8],
    path: &str,
) -> Result<HttpsAnswer, String> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_slice_iter(bundle_pem) {
        roots.add(cert.map_err(|e| format!("bundle: {e}"))?).map_err(|e| e.to_string())?;
    }
    if roots.is_empty() {
        return Err("the bundle holds no certificate".to_owned());
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from(server_name.to_owned()).map_err(|e| e.to_string())?;
    let connection =
        rustls::ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())?;
    let socket = TcpStream::connect(("127.0.0.1", port)).map_err(|e| format!("connect: {e}"))?;
    socket.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    socket.set_write_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tls = rustls::StreamOwned::new(connection, socket);
    let request =
        format!("GET {path} HTTP/1.1\r\nHost: {server_name}\r\nConnection: close\r\n\r\n");
    tls.write_all(request.as_bytes()).map_err(|e| format!("TLS: {e}"))?;
    let mut response = Vec::new();
    if let Err(err) = tls.read_to_end(&mut response) {
        // A server closing without close_notify still answered.
        if response.is_empty() {
            return Err(format!("TLS: {err}"));
        }
    }
    let chain = tls
        .conn
        .peer_certificates()
        .map(|certs| certs.iter().map(|c| c.to_vec()).collect())
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.lines().next().unwrap_or_default().to_owned();
    Ok(HttpsAnswer { status, body: body.to_owned(), chain })
}

/// Standard base64 decoding of kubectl's jsonpath output for a Secret key or caBundle.
pub fn base64_decode(text: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.decode(text.trim()).map_err(|e| e.to_string())
}

/// How many PEM certificates `pem` holds.
pub fn certificate_count(pem: &[u8]) -> usize {
    CertificateDer::pem_slice_iter(pem).filter(Result::is_ok).count()
}
