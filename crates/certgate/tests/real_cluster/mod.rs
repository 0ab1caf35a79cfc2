//! A real control plane for the end-to-end tests: etcd and kube-apiserver (built by
//! `tools/realk8s/build`) on free loopback ports in a temporary folder, with certgate
//! installed the way `certgate dev` installs it in the sandbox: certgate's CRDs and the typed
//! CRDs of cert-manager's `Certificate`, `Issuer` and `ClusterIssuer`, `certgate webhook`
//! registered with upstream's webhook configurations (`clientConfig.url` on loopback,
//! `caBundle` of its throw-away CA), and `certgate controller`. The webhook and the
//! controller run as the ServiceAccounts of `deploy/base` with exactly its RBAC, so the tests
//! also prove that RBAC is enough.
//!
//! Everything is stopped when the [`RealCluster`] is dropped (also on a panic): the
//! controller and the webhook, then kube-apiserver, then etcd (in that order: etcd stopped
//! first can keep kube-apiserver hanging), and the folder is removed. At most
//! [`MAX_CLUSTERS`] run at once in one test process (kube-apiserver takes a few hundred MB).
//! Every failure is loud: a missing binary, a server that does not become ready, a step of
//! the installation that fails; nothing is skipped. docs/real-cluster.md has the flags.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

#[path = "../real_tools/mod.rs"]
mod real_tools;

// Several harness modules include it; its reservations are process-wide (see there).
#[allow(clippy::duplicate_mod)]
#[path = "../ports/mod.rs"]
mod ports;

/// Real clusters running at once in one test process.
pub const MAX_CLUSTERS: usize = 2;
/// How long etcd plus kube-apiserver may take to become ready (about 4 s on a loaded
/// two-core machine).
const READY_DEADLINE: Duration = Duration::from_secs(90);
/// The admin's bearer token (system:masters); the cluster only listens on loopback and
/// lives for one test.
pub const ADMIN_TOKEN: &str = "certgate-real-cluster-admin-token";

/// The sandbox's static users (`dev_support::USERS`) as kube-apiserver's `--token-auth-file`
/// lines, after the admin's: `token,user,uid,"group,..."`.
const TOKENS: &str = "bob-token,bob,1002,\"approvers\"\n";

/// A counting semaphore over the real clusters of this process.
struct Slots {
    taken: Mutex<usize>,
    freed: Condvar,
}

static SLOTS: Slots = Slots { taken: Mutex::new(0), freed: Condvar::new() };

/// One slot of [`SLOTS`], given back on drop.
struct Slot;

impl Slot {
    fn take() -> Slot {
        let mut taken = SLOTS.taken.lock().unwrap_or_else(|e| e.into_inner());
        while *taken >= MAX_CLUSTERS {
            taken = SLOTS.freed.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
        *taken += 1;
        Slot
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut taken = SLOTS.taken.lock().unwrap_or_else(|e| e.into_inner());
        *taken -= 1;
        SLOTS.freed.notify_one();
    }
}

/// What to run besides the API server, as `certgate dev`'s flags say it.
#[derive(Clone, Debug)]
pub struct Options {
    /// Register and run certgate's webhook (`certgate dev` without `--no-webhook`).
    pub webhook: bool,
    /// `--controllers` of `certgate controller`; `None` when no controller is to run.
    pub controllers: Option<String>,
}

impl Options {
    /// From `certgate dev` flags: `--no-webhook` and `--controllers=LIST` are understood;
    /// any other flag is a sandbox-only flag and fails the test.
    pub fn from_dev_flags(flags: &[&str]) -> Options {
        let mut options = Options { webhook: true, controllers: Some("*".to_owned()) };
        for flag in flags {
            if *flag == "--no-webhook" {
                options.webhook = false;
            } else if let Some(list) = flag.strip_prefix("--controllers=") {
                options.controllers = Some(list.to_owned());
            } else {
                panic!("the real-cluster harness has no equivalent of `certgate dev {flag}`");
            }
        }
        // A selection of none (`-*`, or every default removed): the sandbox runs none, and
        // so does the harness (no process to start).
        if let Some(list) = &options.controllers {
            let items: Vec<String> = list.split(',').map(str::to_owned).collect();
            let selected = certgate::controllers::REGISTRY
                .select(&items)
                .unwrap_or_else(|err| panic!("--controllers={list}: {err}"));
            if selected.is_empty() {
                options.controllers = None;
            }
        }
        options
    }
}

/// A running etcd + kube-apiserver with certgate installed.
pub struct RealCluster {
    /// In stop order: controller, webhook, kube-apiserver, etcd.
    processes: Mutex<Vec<(&'static str, Child)>>,
    dir: Option<tempfile::TempDir>,
    /// The admin kubeconfig (token in system:masters, the API server's CA).
    pub kubeconfig: PathBuf,
    /// `https://127.0.0.1:PORT`.
    pub server: String,
    _slot: Slot,
}

impl RealCluster {
    /// Starts etcd and kube-apiserver, waits for `/readyz`, and installs certgate.
    pub fn start(options: &Options) -> RealCluster {
        let slot = Slot::take();
        let bin = real_tools::realk8s_bin();
        let dir = tempfile::Builder::new().prefix("certgate-real-cluster").tempdir().unwrap();
        let mut cluster = RealCluster {
            processes: Mutex::new(Vec::new()),
            kubeconfig: dir.path().join("kubeconfig"),
            server: String::new(),
            dir: Some(dir),
            _slot: slot,
        };
        let root = cluster.dir().to_owned();
        let [etcd_client, etcd_peer, api] = ports::free_ports();

        // A throw-away service-account signing key, and the users.
        let genrsa = Command::new("openssl")
            .args(["genrsa", "-out"])
            .arg(root.join("sa.key"))
            .arg("2048")
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|err| panic!("openssl is required for the real cluster: {err}"));
        assert!(genrsa.success(), "openssl genrsa failed");
        std::fs::write(
            root.join("tokens.csv"),
            format!("{ADMIN_TOKEN},admin,admin-uid,\"system:masters\"\n{TOKENS}"),
        )
        .unwrap();

        let etcd = spawn(
            &root,
            "etcd",
            Command::new(bin.join("etcd"))
                .args(["--name", "certgate", "--data-dir"])
                .arg(root.join("etcd"))
                .arg(format!("--listen-client-urls=http://127.0.0.1:{etcd_client}"))
                .arg(format!("--advertise-client-urls=http://127.0.0.1:{etcd_client}"))
                .arg(format!("--listen-peer-urls=http://127.0.0.1:{etcd_peer}"))
                .arg(format!("--initial-advertise-peer-urls=http://127.0.0.1:{etcd_peer}"))
                .arg(format!("--initial-cluster=certgate=http://127.0.0.1:{etcd_peer}"))
                .args(["--log-level", "warn"]),
        );
        cluster.add("etcd", etcd);
        let apiserver = spawn(
            &root,
            "kube-apiserver",
            Command::new(bin.join("kube-apiserver"))
                .arg(format!("--etcd-servers=http://127.0.0.1:{etcd_client}"))
                .args(["--bind-address=127.0.0.1", "--advertise-address=127.0.0.1"])
                .arg(format!("--secure-port={api}"))
                // Required on loopback (tools/README.md).
                .arg("--endpoint-reconciler-type=none")
                .arg(format!("--cert-dir={}", root.join("certs").display()))
                .arg("--service-account-issuer=https://kubernetes.default.svc")
                .arg(format!("--service-account-key-file={}", root.join("sa.key").display()))
                .arg(format!(
                    "--service-account-signing-key-file={}",
                    root.join("sa.key").display()
                ))
                .arg("--authorization-mode=Node,RBAC")
                .arg(format!("--token-auth-file={}", root.join("tokens.csv").display()))
                .arg("--service-cluster-ip-range=10.0.0.0/24"),
        );
        // Stopped before etcd.
        cluster.add("kube-apiserver", apiserver);
        cluster.server = format!("https://127.0.0.1:{api}");

        // The generated serving certificate (leaf then its CA) is written before listening.
        let ca = root.join("certs/apiserver.crt");
        cluster.wait("kube-apiserver's serving certificate", || ca.is_file().then_some(()));
        std::fs::write(
            &cluster.kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: real\n  cluster:\n    server: {}\n    certificate-authority: {}\n\
                 users:\n- name: admin\n  user:\n    token: {ADMIN_TOKEN}\n\
                 contexts:\n- name: real\n  context:\n    cluster: real\n    user: admin\n    namespace: default\n\
                 current-context: real\n",
                cluster.server,
                ca.display()
            ),
        )
        .unwrap();
        cluster.wait("kube-apiserver's /readyz", || {
            let output = cluster.kubectl(&["get", "--raw", "/readyz"], None);
            output.status.success().then_some(())
        });
        // The bootstrap RBAC and namespaces are there once /readyz says ok, but `default`
        // can take a moment more.
        cluster.wait("the default namespace", || {
            cluster.kubectl(&["get", "namespace", "default"], None).status.success().then_some(())
        });
        cluster.install(options);
        cluster
    }

    /// Keeps `child` to be stopped before every process started earlier.
    fn add(&self, name: &'static str, child: Child) {
        self.processes.lock().unwrap_or_else(|e| e.into_inner()).insert(0, (name, child));
    }

    fn dir(&self) -> &Path {
        self.dir.as_ref().unwrap().path()
    }

    /// Runs the real kubectl with the admin kubeconfig.
    pub fn kubectl(&self, args: &[&str], input: Option<&str>) -> Output {
        run_kubectl(&self.kubeconfig, args, input)
    }

    fn ok(&self, args: &[&str], input: Option<&str>) -> String {
        let output = self.kubectl(args, input);
        assert!(
            output.status.success(),
            "kubectl {} failed on the real server: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr),
            self.logs()
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// Polls `check` every 100 ms until `Some`, failing with the processes' logs after
    /// [`READY_DEADLINE`] or when one of them exits.
    fn wait<T>(&self, what: &str, mut check: impl FnMut() -> Option<T>) -> T {
        let start = Instant::now();
        loop {
            if let Some(value) = check() {
                return value;
            }
            let exited = self.processes.lock().unwrap().iter_mut().find_map(|(name, child)| {
                child.try_wait().ok().flatten().map(|status| (*name, status))
            });
            if let Some((name, status)) = exited {
                panic!("{name} exited ({status}) while waiting for {what}{}", self.logs());
            }
            assert!(
                start.elapsed() < READY_DEADLINE,
                "timed out after {READY_DEADLINE:?} waiting for {what}{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The last lines of every process's log.
    pub fn logs(&self) -> String {
        let mut text = String::new();
        for name in ["etcd", "kube-apiserver", "certgate-webhook", "certgate-controller"] {
            if let Ok(log) = std::fs::read_to_string(self.dir().join(format!("{name}.log"))) {
                let lines: Vec<&str> = log.lines().collect();
                let tail = lines[lines.len().saturating_sub(25)..].join("\n");
                text.push_str(&format!("\n--- {name}.log (last lines) ---\n{tail}"));
            }
        }
        text
    }

    /// What `certgate dev` installs in the sandbox, installed the way a cluster gets it.
    fn install(&self, options: &Options) {
        // certgate's CRD and the cert-manager kinds certgate works with, for a cluster without
        // cert-manager (server-side: they are too big for kubectl's last-applied annotation),
        // which also proves that a real API server takes them.
        let crds = Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(["crds", "--include", "cert-manager"])
            .output()
            .unwrap();
        assert!(crds.status.success(), "certgate crds failed");
        let crds = String::from_utf8(crds.stdout).unwrap();
        self.ok(&["apply", "--server-side", "-f", "-"], Some(&crds));
        self.ok(
            &[
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                "crd/certificaterequests.cert-manager.io",
                "crd/certificaterequestpolicies.policy.cert-manager.io",
                "crd/certificates.cert-manager.io",
                "crd/issuers.cert-manager.io",
                "crd/clusterissuers.cert-manager.io",
            ],
            None,
        );
        if !options.webhook && options.controllers.is_none() {
            return;
        }
        // deploy/base's namespace, ServiceAccounts and RBAC for the webhook and controller.
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/base");
        for file in ["namespace.yaml", "webhook-rbac.yaml", "controller-rbac.yaml"] {
            self.ok(&["apply", "-f", base.join(file).to_str().unwrap()], None);
        }
        if options.webhook {
            self.start_webhook();
        }
        if let Some(controllers) = &options.controllers {
            self.start_controller(controllers);
        }
    }

    /// A kubeconfig for the ServiceAccount `certgate/NAME` (a bound token, one day).
    fn service_account_kubeconfig(&self, name: &str) -> PathBuf {
        let token = self.ok(&["create", "token", name, "-n", "certgate", "--duration=24h"], None);
        let admin = std::fs::read_to_string(&self.kubeconfig).unwrap();
        let path = self.dir().join(format!("kubeconfig-{name}"));
        std::fs::write(&path, admin.replace(ADMIN_TOKEN, token.trim())).unwrap();
        path
    }

    /// `certgate webhook` on a free loopback port with a throw-away CA, as the
    /// certgate-webhook ServiceAccount, registered with upstream's configurations (the ones
    /// `certgate dev` registers in the sandbox) at `https://127.0.0.1:PORT`.
    fn start_webhook(&self) {
        let kubeconfig = self.service_account_kubeconfig("certgate-webhook");
        let ca = self.dir().join("webhook-ca.crt");
        let child = spawn(
            self.dir(),
            "certgate-webhook",
            Command::new(env!("CARGO_BIN_EXE_certgate"))
                .args(["webhook", "--dev-self-signed", "--listen", "127.0.0.1:0"])
                .arg("--ca-bundle-out")
                .arg(&ca)
                // As `certgate dev`: an RBAC change counts at the next request.
                .args(["--sar-cache-ttl", "0s", "--shutdown-grace-period", "1s"])
                .env("KUBECONFIG", &kubeconfig),
        );
        self.add("certgate-webhook", child);
        let log = self.dir().join("certgate-webhook.log");
        let address = self.wait("certgate webhook to serve", || {
            let text = std::fs::read_to_string(&log).ok()?;
            let line = text.lines().find(|l| l.contains("serving admission webhooks"))?;
            let at = line.find("address=")?;
            Some(line[at + "address=".len()..].split_whitespace().next()?.to_owned())
        });
        let ca_pem = std::fs::read_to_string(&ca).unwrap();
        let endpoint = certgate_webhook::registration::Endpoint::Url(format!("https://{address}"));
        for configuration in certgate_webhook::registration::configurations(&endpoint, &ca_pem) {
            self.ok(&["apply", "--server-side", "-f", "-"], Some(&configuration.to_string()));
        }
    }

    /// `certgate controller` as the certgate-controller ServiceAccount, without leader
    /// election (as the sandbox runs its controllers).
    fn start_controller(&self, controllers: &str) {
        let kubeconfig = self.service_account_kubeconfig("certgate-controller");
        let child = spawn(
            self.dir(),
            "certgate-controller",
            Command::new(env!("CARGO_BIN_EXE_certgate"))
                .args(["controller", "--listen", "127.0.0.1:0", "--leader-elect=false"])
                .arg(format!("--controllers={controllers}"))
                .arg("--kubeconfig")
                .arg(&kubeconfig),
        );
        self.add("certgate-controller", child);
        let log = self.dir().join("certgate-controller.log");
        self.wait("certgate controller to start its controllers", || {
            let text = std::fs::read_to_string(&log).ok()?;
            text.contains("starting controllers").then_some(())
        });
    }
}

impl Drop for RealCluster {
    fn drop(&mut self) {
        let processes = self.processes.get_mut().unwrap_or_else(|e| e.into_inner());
        for (name, mut child) in processes.drain(..) {
            stop(name, &mut child);
        }
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_owned();
            if let Err(err) = dir.close() {
                eprintln!("cannot remove {}: {err}", path.display());
            }
        }
    }
}

/// SIGTERM, up to 10 s to exit, then SIGKILL.
fn stop(name: &str, child: &mut Child) {
    let _ = Command::new("kill").arg(child.id().to_string()).status();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!("{name} did not stop within 10 s of SIGTERM; killing it");
    let _ = child.kill();
    let _ = child.wait();
}

/// Starts `command` with standard output and error appended to DIR/NAME.log.
fn spawn(dir: &Path, name: &str, command: &mut Command) -> Child {
    let log = std::fs::File::create(dir.join(format!("{name}.log"))).unwrap();
    command
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .unwrap_or_else(|err| panic!("cannot start {name}: {err}"))
}

fn run_kubectl(kubeconfig: &Path, args: &[&str], input: Option<&str>) -> Output {
    let mut child = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| panic!("kubectl is required but could not be run: {err}"));
    if let Some(input) = input {
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}
