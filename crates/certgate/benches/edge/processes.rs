//! The benchmark's processes: a loopback HTTP backend (a thread), `certgate edge serve` and a
//! real Envoy bootstrapped by `certgate edge bootstrap` (children, killed when dropped), what
//! their `/proc` entries say (peak memory, CPU), and a child run to its end under
//! `/usr/bin/time` (wall time and peak memory of a short command).

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Bounds every wait that is not itself measured.
pub const HANG_GUARD: Duration = Duration::from_secs(120);

pub fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A port free on 127.0.0.1 now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Polls `probe` every `every` until it gives `Some`, at most `limit`; panics with `what`
/// and `context()` after that.
pub fn wait_for<T>(
    what: &str,
    limit: Duration,
    every: Duration,
    mut probe: impl FnMut() -> Option<T>,
    context: impl Fn() -> String,
) -> T {
    let started = Instant::now();
    loop {
        if let Some(value) = probe() {
            return value;
        }
        assert!(started.elapsed() < limit, "gave up waiting for {what}\n{}", context());
        std::thread::sleep(every);
    }
}

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
                    let mut head = Vec::new();
                    let mut buffer = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buffer) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buffer[..n]),
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

/// What a child's output said, with when each line of interest was read.
#[derive(Default)]
pub struct Log {
    pub text: String,
    /// `serving /metrics … address=HOST:PORT` of `certgate edge serve`.
    pub metrics_address: Option<String>,
    pub caches_filled: Option<Instant>,
    /// Each `edge configuration rebuilt … published=true`.
    pub published: Vec<Instant>,
    /// Each `edge configuration rebuilt`, published or not.
    pub rebuilt: Vec<Instant>,
    pub warnings: Vec<String>,
    /// Envoy's `starting workers`: every initial listener's dependencies (SDS secrets, RDS
    /// route configurations) are in, and its listeners start accepting.
    pub workers_started: Option<Instant>,
    /// Envoy's `lds: add/update listener 'ingress_https'`: the listener built from LDS.
    pub https_listener_added: Option<Instant>,
}

impl Log {
    fn read(&mut self, line: &str, now: Instant) {
        if self.text.len() < 1 << 20 {
            self.text.push_str(line);
            self.text.push('\n');
        }
        if line.contains("serving /metrics")
            && let Some(at) = line.find("address=")
        {
            let address = line[at + "address=".len()..].split_whitespace().next();
            self.metrics_address = address.map(str::to_owned);
        }
        if line.contains("edge caches filled") {
            self.caches_filled = Some(now);
        }
        if line.contains("edge configuration rebuilt") {
            self.rebuilt.push(now);
            if line.contains("published=true") {
                self.published.push(now);
            }
        }
        if line.contains("starting workers") && self.workers_started.is_none() {
            self.workers_started = Some(now);
        }
        if line.contains("add/update listener 'ingress_https'")
            && self.https_listener_added.is_none()
        {
            self.https_listener_added = Some(now);
        }
        if (line.contains(" WARN ") || line.contains(" ERROR ")) && self.warnings.len() < 20 {
            self.warnings.push(line.to_owned());
        }
    }
}

/// A child process killed and waited for on drop; its output read into a [`Log`].
pub struct Process {
    pub name: &'static str,
    child: Child,
    pub log: Arc<Mutex<Log>>,
    pub started: Instant,
}

impl Process {
    pub fn spawn(name: &'static str, command: &mut Command) -> Process {
        let started = Instant::now();
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("cannot start {name}: {err}"));
        let log = Arc::new(Mutex::new(Log::default()));
        let pipes: [Box<dyn std::io::Read + Send>; 2] =
            [Box::new(child.stdout.take().unwrap()), Box::new(child.stderr.take().unwrap())];
        for pipe in pipes {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { return };
                    lock(&log).read(&line, Instant::now());
                }
            });
        }
        Process { name, child, log, started }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The last 6 KiB of its output.
    pub fn tail(&self) -> String {
        let log = lock(&self.log);
        let start = log.text.len().saturating_sub(6144);
        let start = (start..log.text.len()).find(|i| log.text.is_char_boundary(*i)).unwrap_or(0);
        format!("--- {} ---\n{}", self.name, &log.text[start..])
    }

    /// A `/proc/PID/status` field in MiB (`VmHWM`, `VmRSS`).
    pub fn memory_mib(&self, field: &str) -> f64 {
        proc_status_mib(self.pid(), field)
    }

    /// utime + stime, seconds.
    pub fn cpu(&self) -> f64 {
        cpu_seconds(&format!("/proc/{}/stat", self.pid()))
    }

    /// The published rebuilds stamped after `at`.
    pub fn published_after(&self, at: Instant) -> Option<Instant> {
        lock(&self.log).published.iter().copied().find(|t| *t >= at)
    }

    /// `GET path` on the `/metrics` endpoint `certgate edge serve` logged.
    pub fn http_get(&self, path: &str) -> Option<String> {
        let address = lock(&self.log).metrics_address.clone()?;
        let mut stream = TcpStream::connect(address).ok()?;
        write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
        let mut response = String::new();
        stream.read_to_string(&mut response).ok()?;
        Some(response)
    }

    /// The value of the `/metrics` sample `name` (labels included, as exposed), if any.
    pub fn metric(&self, name: &str) -> Option<f64> {
        let text = self.http_get("/metrics")?;
        metric_value(&text, name)
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn metric_value(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

pub const LISTENER_TYPE: &str = "type.googleapis.com/envoy.config.listener.v3.Listener";
pub const SECRET_TYPE: &str =
    "type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.Secret";

/// The ports `certgate edge serve` gives Envoy's listeners, and its xDS port.
#[derive(Clone, Copy, Debug)]
pub struct Ports {
    pub xds: u16,
    pub http: u16,
    pub https: u16,
}

impl Ports {
    pub fn free() -> Ports {
        Ports { xds: free_port(), http: free_port(), https: free_port() }
    }

    pub fn https(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.https))
    }
}

/// `certgate edge serve --insecure --leader-elect=false` against `kubeconfig` with `extra`
/// flags; returns once it has logged its `/metrics` address (its xDS port is bound then).
pub fn edge_serve(kubeconfig: &Path, ports: Ports, extra: &[String]) -> Process {
    let process = Process::spawn(
        "certgate edge serve",
        Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(["edge", "serve", "--insecure", "--leader-elect=false", "--kubeconfig"])
            .arg(kubeconfig)
            .args(["--xds-address", "127.0.0.1", "--xds-port", &ports.xds.to_string()])
            .args(["--envoy-service-http-address", "127.0.0.1"])
            .args(["--envoy-service-http-port", &ports.http.to_string()])
            .args(["--envoy-service-https-address", "127.0.0.1"])
            .args(["--envoy-service-https-port", &ports.https.to_string()])
            .args(["--listen", "127.0.0.1:0"])
            .args(extra)
            .env_remove("CONTOUR_CERT_FILE")
            .env_remove("CONTOUR_KEY_FILE")
            .env_remove("CONTOUR_CAFILE")
            .env("RUST_LOG", "info"),
    );
    wait_for(
        "certgate edge serve to log its /metrics address",
        HANG_GUARD,
        Duration::from_millis(2),
        || lock(&process.log).metrics_address.clone(),
        || process.tail(),
    );
    process
}

/// Whether `certgate edge serve` has `--client-validation` (where the CA and CRL go).
pub fn has_client_validation_flag() -> bool {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["edge", "serve", "--help"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&output.stdout).contains("--client-validation")
}

/// The real Envoy (`CERTGATE_ENVOY`, else `tools/envoy/install`).
pub fn envoy_binary() -> PathBuf {
    certgate_oracles::tool_path("CERTGATE_ENVOY", "envoy/install")
}

/// A real Envoy from `certgate edge bootstrap` (plain xDS to 127.0.0.1:`xds_port`), its admin
/// interface on a Unix socket in `dir`; one worker thread, as the live tests run it.
pub struct Envoy {
    pub process: Process,
    admin: PathBuf,
}

impl Envoy {
    pub fn start(dir: &Path, xds_port: u16) -> Envoy {
        let config = dir.join("envoy.json");
        let admin = dir.join("admin.sock");
        let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(["edge", "bootstrap"])
            .arg(&config)
            .args(["--xds-address=127.0.0.1", &format!("--xds-port={xds_port}")])
            .arg(format!("--admin-address={}", admin.display()))
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
        let process = Process::spawn(
            "envoy",
            Command::new(envoy_binary())
                .arg("-c")
                .arg(&config)
                .args(["--service-node", "envoy-0", "--service-cluster", "certgate"])
                .args(["--disable-hot-restart", "--concurrency", "1", "-l", "info"]),
        );
        Envoy { process, admin }
    }

    /// The body of `GET path` on the admin interface.
    pub fn admin(&self, path: &str) -> Option<String> {
        let mut stream = UnixStream::connect(&self.admin).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(60))).ok()?;
        // Envoy's admin answers HTTP/1.0 with 426.
        write!(stream, "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            .ok()?;
        let mut response = Vec::new();
        stream.read_to_end(&mut response).ok()?;
        let split = response.windows(4).position(|w| w == b"\r\n\r\n")?;
        let head = String::from_utf8_lossy(&response[..split]).to_ascii_lowercase();
        let body = &response[split + 4..];
        if !head.starts_with("http/1.1 200") {
            return None;
        }
        let body = if head.contains("transfer-encoding: chunked") {
            dechunk(body)?
        } else {
            body.to_vec()
        };
        Some(String::from_utf8_lossy(&body).into_owned())
    }
}

/// The body of a chunked HTTP/1.1 answer.
fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(body);
        }
        let chunk = rest.get(line_end + 2..line_end + 2 + size)?;
        body.extend_from_slice(chunk);
        rest = rest.get(line_end + 4 + size..)?;
    }
}

pub fn proc_status_mib(pid: u32, field: &str) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    kib_field(&status, field) / 1024.0
}

fn kib_field(status: &str, field: &str) -> f64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .unwrap_or(0.0)
}

pub fn own_peak_mib() -> f64 {
    kib_field(&std::fs::read_to_string("/proc/self/status").unwrap_or_default(), "VmHWM") / 1024.0
}

fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok())
        .unwrap_or(100.0)
}

pub fn cpu_seconds(stat_path: &str) -> f64 {
    let stat = std::fs::read_to_string(stat_path).unwrap_or_default();
    // utime and stime are fields 14 and 15; the command name before them may hold spaces.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<f64> = after.split_whitespace().map(|f| f.parse().unwrap_or(0.0)).collect();
    let ticks = fields.get(11).copied().unwrap_or(0.0) + fields.get(12).copied().unwrap_or(0.0);
    ticks / clock_ticks()
}

/// A command run to its end under `/usr/bin/time`: wall time (measured here), peak memory
/// (its maximum resident set size), exit code and standard output.
pub struct Timed {
    pub wall: Duration,
    pub peak_mib: f64,
    pub code: Option<i32>,
    pub stdout: String,
}

impl std::fmt::Debug for Timed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.2?}, {:.0} MiB peak, exit {:?}", self.wall, self.peak_mib, self.code)
    }
}

pub fn timed(program: &Path, args: &[&str], scratch: &Path) -> Timed {
    let report = scratch.join("time.out");
    let started = Instant::now();
    let output = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(&report)
        .arg(program)
        .args(args)
        .output()
        .expect("/usr/bin/time");
    let wall = started.elapsed();
    let kib: f64 = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| t.lines().last()?.trim().parse().ok())
        .unwrap_or(0.0);
    Timed {
        wall,
        peak_mib: kib / 1024.0,
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
    }
}
