//! The processes of a live edge test: a loopback HTTP backend, `certgate edge serve`, and a
//! real Envoy started from `certgate edge bootstrap`'s output.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// A thread answering every request on 127.0.0.1 with `200` and `body`.
pub struct Backend {
    pub port: u16,
}

impl Backend {
    pub fn start(body: &'static str) -> Backend {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                std::thread::spawn(move || {
                    // One request per connection is enough: answer once the head is in.
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        match stream.read(&mut byte) {
                            Ok(1) => head.push(byte[0]),
                            _ => return,
                        }
                    }
                    let _ = write!(
                        stream,
                        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                });
            }
        });
        Backend { port }
    }
}

/// A child process killed and waited for on drop, its standard error kept for failures.
pub struct Process {
    name: &'static str,
    child: Child,
    log: Arc<Mutex<String>>,
}

impl Process {
    /// The last 8 KiB of its log.
    pub fn log(&self) -> String {
        let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let start = log.len().saturating_sub(8192);
        let start = (start..log.len()).find(|i| log.is_char_boundary(*i)).unwrap_or(log.len());
        format!("--- {} log ---\n{}", self.name, &log[start..])
    }

    /// The body of `GET path` on the `/metrics` endpoint `certgate edge serve` logged
    /// (`serving /metrics … address=HOST:PORT`); `None` until it is logged or when it fails.
    pub fn get(&self, path: &str) -> Option<String> {
        let address = {
            let log = self.log.lock().unwrap_or_else(|e| e.into_inner());
            let line = log.lines().find(|l| l.contains("serving /metrics"))?.to_owned();
            let at = line.find("address=")? + "address=".len();
            line[at..].split_whitespace().next()?.to_owned()
        };
        let mut stream = std::net::TcpStream::connect(address).ok()?;
        write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        Some(response)
    }

    /// SIGTERM, then the exit status (bounded by [`super::HANG_GUARD`]: a process that does
    /// not stop is killed and the test fails).
    pub fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").arg(&pid).status().unwrap();
        assert!(sent.success(), "kill {pid} failed");
        let deadline = std::time::Instant::now() + super::HANG_GUARD;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{} did not stop on SIGTERM\n{}",
                self.name,
                self.log()
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn spawn(name: &'static str, command: &mut Command) -> Process {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {name}: {err}"));
    let log = Arc::new(Mutex::new(String::new()));
    for pipe in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let log = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { return };
                let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
                log.push_str(&line);
                log.push('\n');
            }
        });
    }
    Process { name, child, log }
}

/// The ports `certgate edge serve` is given.
#[derive(Clone, Copy, Debug)]
pub struct EdgePorts {
    pub xds: u16,
    pub http: u16,
    pub https: u16,
}

/// `certgate edge serve` against `kubeconfig`, Envoy's listeners on 127.0.0.1.
pub fn edge_serve(kubeconfig: &Path, ports: EdgePorts, extra: &[String]) -> Process {
    let port = |p: u16| p.to_string();
    spawn(
        "certgate edge serve",
        Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(["edge", "serve", "--kubeconfig"])
            .arg(kubeconfig)
            .args(["--xds-address", "127.0.0.1", "--xds-port", &port(ports.xds)])
            .args(["--envoy-service-http-address", "127.0.0.1"])
            .args(["--envoy-service-http-port", &port(ports.http)])
            .args(["--envoy-service-https-address", "127.0.0.1"])
            .args(["--envoy-service-https-port", &port(ports.https)])
            .args(["--listen", "127.0.0.1:0"])
            .env_remove("CONTOUR_CERT_FILE")
            .env_remove("CONTOUR_KEY_FILE")
            .env_remove("CONTOUR_CAFILE")
            .args(extra)
            .env("RUST_LOG", "info"),
    )
}

/// A real Envoy from `certgate edge bootstrap` (xDS at 127.0.0.1:`xds_port`, with
/// `tls_args`, the bootstrap's `--envoy-*` TLS flags, or none for plain gRPC), its admin
/// interface on a Unix socket in `dir`.
pub fn envoy(dir: &Path, xds_port: u16, tls_args: &[String]) -> Process {
    let config: PathBuf = dir.join("envoy.json");
    let admin = dir.join("admin.sock");
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["edge", "bootstrap"])
        .arg(&config)
        .args(["--xds-address=127.0.0.1", &format!("--xds-port={xds_port}")])
        .arg(format!("--admin-address={}", admin.display()))
        .args(tls_args)
        .env_remove("ENVOY_CAFILE")
        .env_remove("ENVOY_CERT_FILE")
        .env_remove("ENVOY_KEY_FILE")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "certgate edge bootstrap: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    // Contour's Envoy DaemonSet names the node on the command line; hot restart off, so
    // parallel Envoys share no shared memory. A draining filter chain closes its connections
    // at once (`immediate`: `connection: close` on the next response) instead of over the
    // default 600 s, so a test sees a drain when one happens.
    spawn(
        "envoy",
        Command::new(envoy_binary())
            .arg("-c")
            .arg(&config)
            .args(["--service-node", "envoy-0", "--service-cluster", "certgate"])
            .args(["--disable-hot-restart", "--concurrency", "1", "-l", "info"])
            .args(["--drain-strategy", "immediate"]),
    )
}

/// The body of `GET path` on the admin interface of the Envoy started by [`envoy`] in `dir`.
pub fn envoy_admin(dir: &Path, path: &str) -> Result<String, String> {
    let mut socket = std::os::unix::net::UnixStream::connect(dir.join("admin.sock"))
        .map_err(|e| format!("Envoy admin: {e}"))?;
    socket.set_read_timeout(Some(std::time::Duration::from_secs(20))).unwrap();
    write!(socket, "GET {path} HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\r\n")
        .map_err(|e| format!("Envoy admin: {e}"))?;
    let mut response = String::new();
    socket.read_to_string(&mut response).map_err(|e| format!("Envoy admin: {e}"))?;
    match response.split_once("\r\n\r\n") {
        Some((head, body))
            if head.starts_with("HTTP/1.0 200") || head.starts_with("HTTP/1.1 200") =>
        {
            Ok(body.to_owned())
        }
        _ => Err(format!("Envoy admin {path}: {response}")),
    }
}

/// A counter or gauge of Envoy's `/stats` (0 when absent).
pub fn envoy_stat(dir: &Path, name: &str) -> Result<u64, String> {
    let stats = envoy_admin(dir, &format!("/stats?filter=^{name}$"))?;
    Ok(stats
        .lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(": ")?.trim().parse().ok())
        .unwrap_or(0))
}

/// The real Envoy (`CERTGATE_ENVOY`, else `tools/envoy/install`), as `real_tools::envoy`
/// finds it; that module is already part of `dev_support` and may not be loaded twice.
fn envoy_binary() -> PathBuf {
    certgate_oracles::tool_path("CERTGATE_ENVOY", "envoy/install")
}

/// The address of Envoy's HTTPS listener.
pub fn https(ports: EdgePorts) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], ports.https))
}
