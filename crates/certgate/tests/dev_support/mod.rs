//! The end-to-end harness: a running API server with certgate's webhook and controllers —
//! the sandbox (`certgate dev`) or a real kube-apiserver with etcd (`real_cluster`) — driven
//! by the real `kubectl` (which must be installed: the tests fail loudly without it, they
//! never skip). [`both!`] runs one test body against each (docs/real-cluster.md).
#![allow(dead_code)]

pub mod issuance;
#[path = "../real_cluster/mod.rs"]
pub mod real_cluster;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// A running API server with certgate installed and an admin kubeconfig for it: `certgate
/// dev` ([`Dev::start`]) or a real kube-apiserver ([`Dev::real`]).
pub struct Dev {
    backend: Backend,
    _dir: tempfile::TempDir,
    pub kubeconfig: PathBuf,
}

enum Backend {
    /// The `certgate dev` process.
    Sandbox(Child),
    /// etcd, kube-apiserver, `certgate webhook` and `certgate controller`.
    Real(Box<real_cluster::RealCluster>),
}

/// Which API server a test body runs against ([`both!`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Server {
    Sandbox,
    Real,
}

impl Server {
    pub fn start(self) -> Dev {
        self.start_with(&[])
    }

    /// The server with `certgate dev`'s `flags` (on the real server: `--controllers=LIST`
    /// and `--no-webhook`, the others fail the test).
    pub fn start_with(self, flags: &[&str]) -> Dev {
        match self {
            Server::Sandbox => Dev::start_with(flags),
            Server::Real => Dev::real_with(flags),
        }
    }
}

/// `both!(fn name(server) { body })`: the body as two tests, `name::on_sandbox` and
/// `name::on_real_server`, with `server` the [`Server`] to start
/// (`cargo test -- on_real_server` runs the second kind only).
#[macro_export]
macro_rules! both {
    ($(#[$meta:meta])* fn $name:ident($server:ident) $body:block) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            fn body($server: $crate::dev_support::Server) $body

            #[test]
            fn on_sandbox() {
                body($crate::dev_support::Server::Sandbox)
            }

            #[test]
            fn on_real_server() {
                body($crate::dev_support::Server::Real)
            }
        }
    };
}

pub const USERS: &str =
    "users:\n- token: bob-token\n  username: bob\n  uid: \"1002\"\n  groups: [approvers]\n";

impl Dev {
    pub fn start() -> Dev {
        Dev::start_with(&[])
    }

    /// `certgate dev` with extra flags.
    pub fn start_with(flags: &[&str]) -> Dev {
        let dir = tempfile::tempdir().unwrap();
        let users = dir.path().join("users.yaml");
        std::fs::write(&users, USERS).unwrap();
        let mut all = vec!["--users", users.to_str().unwrap()];
        all.extend_from_slice(flags);
        let (child, kubeconfig, printed) = spawn_dev(dir.path(), &all);
        if !flags.contains(&"--no-webhook") {
            assert!(printed.contains("certgate webhook at https://127.0.0.1:"), "{printed}");
        }
        Dev { backend: Backend::Sandbox(child), _dir: dir, kubeconfig }
    }

    /// A real kube-apiserver with certgate installed as `certgate dev` installs it.
    pub fn real() -> Dev {
        Dev::real_with(&[])
    }

    /// [`Dev::real`] with `certgate dev`'s `--controllers=LIST` and `--no-webhook`.
    pub fn real_with(flags: &[&str]) -> Dev {
        let dir = tempfile::tempdir().unwrap();
        let cluster =
            real_cluster::RealCluster::start(&real_cluster::Options::from_dev_flags(flags));
        // A copy beside the files kubeconfig_for writes.
        let kubeconfig = dir.path().join("kubeconfig");
        std::fs::copy(&cluster.kubeconfig, &kubeconfig).unwrap();
        Dev { backend: Backend::Real(Box::new(cluster)), _dir: dir, kubeconfig }
    }

    /// Whether this is the real API server.
    pub fn is_real(&self) -> bool {
        matches!(self.backend, Backend::Real(_))
    }

    /// The real server's processes' last log lines (empty for the sandbox, whose log is the
    /// test's standard error).
    pub fn logs(&self) -> String {
        match &self.backend {
            Backend::Real(cluster) => cluster.logs(),
            Backend::Sandbox(_) => String::new(),
        }
    }

    /// Runs the real kubectl with this sandbox's admin kubeconfig.
    pub fn kubectl(&self, args: &[&str], input: Option<&str>) -> Output {
        kubectl(Some(&self.kubeconfig), args, input)
    }

    pub fn ok(&self, args: &[&str]) -> String {
        self.ok_with(args, None)
    }

    pub fn ok_with(&self, args: &[&str], input: Option<&str>) -> String {
        let output = self.kubectl(args, input);
        assert!(
            output.status.success(),
            "kubectl {} failed: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr),
            self.logs()
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// The examples' namespaces and RBAC for team-a and the approvers group to create and
    /// update CertificateRequests. (Approvals are checked against the signer's resource, which
    /// must exist: the ClusterIssuer kind is there already, as `certgate dev` registers it.)
    pub fn prepare_requests(&self) {
        self.ok(&["apply", "-f", examples().join("namespaces.yaml").to_str().unwrap()]);
        self.ok_with(&["apply", "-f", "-"], Some(REQUESTERS));
    }

    /// `approve` on the signers of every ClusterIssuer for bob, as cert-manager's documentation
    /// grants it (kubectl's generator only knows served resources, and signers are not one).
    pub fn grant_bob_approve_on_cluster_issuers(&self) {
        self.ok_with(
            &["apply", "-f", "-"],
            Some(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: signer-approver\n\
                 rules:\n- apiGroups: [cert-manager.io]\n  resources: [signers]\n  verbs: [approve]\n\
                 \x20 resourceNames: [\"clusterissuers.cert-manager.io/*\"]\n",
            ),
        );
        self.ok(&[
            "create",
            "clusterrolebinding",
            "bob-approves",
            "--clusterrole=signer-approver",
            "--user=bob",
        ]);
    }

    /// Creates `manifest` as `user` with `groups` (kubectl's impersonation), as that requester
    /// would; the webhook stamps that identity.
    pub fn create_as(&self, user: &str, groups: &[&str], manifest: &str) {
        let mut args = vec!["create", "--as", user];
        for group in groups {
            args.extend(["--as-group", group]);
        }
        args.extend(["-f", "-"]);
        self.ok_with(&args, Some(manifest));
    }

    /// A kubeconfig like the admin's, authenticating with `token` instead.
    pub fn kubeconfig_for(&self, token: &str) -> PathBuf {
        let admin = std::fs::read_to_string(&self.kubeconfig).unwrap();
        let start = admin.find("token: ").unwrap() + "token: ".len();
        let end = start + admin[start..].find('\n').unwrap();
        let path = self.kubeconfig.with_file_name(format!("kubeconfig-{token}"));
        std::fs::write(&path, format!("{}{token}{}", &admin[..start], &admin[end..])).unwrap();
        path
    }

    /// Runs `certgate <args>`; returns (exit code, standard output).
    pub fn certgate(&self, kubeconfig: &Path, args: &[&str]) -> (i32, String) {
        let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(args)
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .output()
            .unwrap();
        (output.status.code().unwrap(), String::from_utf8(output.stdout).unwrap())
    }

    /// kubectl's standard error; panics when it succeeded.
    pub fn fails(&self, args: &[&str], input: Option<&str>) -> String {
        let output = self.kubectl(args, input);
        assert!(!output.status.success(), "kubectl {} should have failed", args.join(" "));
        String::from_utf8(output.stderr).unwrap()
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        // The real cluster stops everything when dropped, after this.
        if let Backend::Sandbox(child) = &mut self.backend {
            let _ = Command::new("kill").arg(child.id().to_string()).status();
            let _ = child.wait();
        }
    }
}

/// Runs the real kubectl (with `kubeconfig` when given, `input` on standard input); fails
/// loudly when it is not installed.
pub fn kubectl(kubeconfig: Option<&Path>, args: &[&str], input: Option<&str>) -> Output {
    use std::io::Write;
    let mut command = Command::new("kubectl");
    if let Some(kubeconfig) = kubeconfig {
        command.arg("--kubeconfig").arg(kubeconfig);
    }
    let mut child = command
        .args(args)
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| {
            panic!("kubectl is required for the end-to-end tests and is part of this machine image, but could not be run: {err}")
        });
    if let Some(input) = input {
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

/// Starts `certgate dev --listen 127.0.0.1:0 --kubeconfig-out DIR/kubeconfig FLAGS...` and
/// waits for its usage text, which ends once the API server (and the webhook, unless
/// `--no-webhook`) listens and the kubeconfig is written. Returns the process, the
/// kubeconfig's path and what it printed.
pub fn spawn_dev(dir: &Path, flags: &[&str]) -> (Child, PathBuf, String) {
    let kubeconfig = dir.join("kubeconfig");
    let mut child = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["dev", "--listen", "127.0.0.1:0", "--kubeconfig-out"])
        .arg(&kubeconfig)
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut printed = String::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        printed.push_str(&line);
        printed.push('\n');
        if line.starts_with("Stop with Ctrl-C") {
            break;
        }
    }
    assert!(printed.contains("kubeconfig (admin, system:masters) written to"), "{printed}");
    (child, kubeconfig, printed)
}

pub fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// The first CertificateRequest of the DNS example, without the identity the example shows.
pub fn request(name: &str) -> String {
    let all = std::fs::read_to_string(examples().join("dns/requests.yaml")).unwrap();
    let csr = all.lines().find_map(|l| l.trim().strip_prefix("request: ")).unwrap().to_owned();
    format!(
        "apiVersion: cert-manager.io/v1\nkind: CertificateRequest\nmetadata:\n  name: {name}\n  namespace: payments\n\
         spec:\n  issuerRef:\n    group: cert-manager.io\n    kind: ClusterIssuer\n    name: internal-ca\n\
         \x20 duration: 24h0m0s\n  usages: [digital signature, key encipherment, server auth]\n  request: {csr}\n"
    )
}

pub const REQUESTERS: &str = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: requester\n\
rules:\n- apiGroups: [cert-manager.io]\n  resources: [certificaterequests]\n  verbs: [create, get, list, update, patch]\n\
- apiGroups: [cert-manager.io]\n  resources: [certificaterequests/status]\n  verbs: [get, update, patch]\n---\n\
apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: requesters\n\
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: requester}\n\
subjects:\n- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: team-a}\n\
- {apiGroup: rbac.authorization.k8s.io, kind: Group, name: approvers}\n";

/// A standalone `certgate controller` process against the API server of a kubeconfig.
pub struct ControllerProcess {
    child: Child,
    metrics: String,
}

impl ControllerProcess {
    pub fn start(kubeconfig: &Path, extra: &[&str]) -> ControllerProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args([
                "controller",
                "--listen",
                "127.0.0.1:0",
                "--leader-election-namespace",
                "default",
            ])
            .args(["--leader-election-lease-duration", "4s", "--kubeconfig"])
            .arg(kubeconfig)
            .args(extra)
            .env("POD_NAMESPACE", "ignored-when-the-flag-is-given")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let mut lines = BufReader::new(stderr).lines();
        let mut seen = String::new();
        let metrics = loop {
            let line =
                lines.next().unwrap_or_else(|| panic!("controller exited:\n{seen}")).unwrap();
            seen.push_str(&line);
            seen.push('\n');
            if let Some(at) = line.find("address=") {
                break line[at + "address=".len()..].split_whitespace().next().unwrap().to_owned();
            }
        };
        // Keep draining the log so the process never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        ControllerProcess { child, metrics }
    }

    /// The body of `GET path` on the metrics and health listener.
    pub fn get(&self, path: &str) -> String {
        let mut stream = TcpStream::connect(&self.metrics).unwrap();
        write!(stream, "GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }

    pub fn is_leader(&self) -> bool {
        self.get("/metrics").contains("\ncertgate_controller_leader 1\n")
    }

    /// SIGTERM, then the exit status.
    pub fn terminate(mut self) -> std::process::ExitStatus {
        Command::new("kill").arg(self.child.id().to_string()).status().unwrap();
        self.child.wait().unwrap()
    }
}

impl Drop for ControllerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn lease_holder(dev: &Dev) -> String {
    dev.ok(&[
        "get",
        "lease",
        "certgate-controller",
        "-n",
        "default",
        "-o",
        "jsonpath={.spec.holderIdentity}",
    ])
}
