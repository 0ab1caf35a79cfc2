//! End to end: kubectl's client flags choose the cluster, the credentials and the identity of
//! the commands that talk to one (against the sandbox, `certgate dev`), and an API server that
//! cannot be reached gets the same message from every command.

use std::path::Path;
use std::process::Command;

mod dev_support;
use dev_support::*;

#[allow(clippy::duplicate_mod)]
#[path = "ports/mod.rs"]
mod ports;

/// What a run printed and how it ended.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `certgate ARGS` with no kubeconfig of its own: `$KUBECONFIG` names a file that does not
/// exist and `$HOME` is an empty directory, so only the flags say where the cluster is.
fn certgate(home: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(args)
        .env("HOME", home)
        .env("KUBECONFIG", home.join("no-such-kubeconfig"))
        .env_remove("KUBERNETES_SERVICE_HOST")
        .output()
        .unwrap();
    Run {
        code: output.status.code().unwrap(),
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8(output.stderr).unwrap(),
    }
}

/// The value of the first `key: value` line of the sandbox's kubeconfig.
fn kubeconfig_value(kubeconfig: &Path, key: &str) -> String {
    let text = std::fs::read_to_string(kubeconfig).unwrap();
    let prefix = format!("{key}: ");
    text.lines()
        .find_map(|line| line.trim().strip_prefix(&prefix).map(str::to_owned))
        .unwrap_or_else(|| panic!("no {key} in the sandbox's kubeconfig:\n{text}"))
}

#[test]
fn server_token_and_tls_flags_reach_the_sandbox_without_a_kubeconfig() {
    let dev = Dev::start_with(&["--no-webhook", "--controllers=-*"]);
    let home = tempfile::tempdir().unwrap();
    let server = kubeconfig_value(&dev.kubeconfig, "server");
    let token = kubeconfig_value(&dev.kubeconfig, "token");
    let renew = |extra: &[&str]| {
        let mut args = vec!["renew", "--all", "-n", "default", "--server", &server];
        args.extend_from_slice(extra);
        certgate(home.path(), &args)
    };

    // The admin token over an unverified connection: the list is made, and is empty.
    let run = renew(&["--token", &token, "--insecure-skip-tls-verify"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stderr, "No Certificates found in default namespace.\n");

    // The sandbox's CA on the command line verifies it as well.
    let ca = base64_decode(&kubeconfig_value(&dev.kubeconfig, "certificate-authority-data"));
    let ca_file = home.path().join("ca.crt");
    std::fs::write(&ca_file, ca).unwrap();
    let run = renew(&["--token", &token, "--certificate-authority", ca_file.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);

    // Without either, the sandbox's certificate is not trusted, and the message says what to do.
    let run = renew(&["--token", &token]);
    assert_eq!(run.code, 1);
    let host = server.trim_start_matches("https://");
    assert!(
        run.stdout.starts_with(&format!("Unable to connect to the server {host}: "))
            && run.stdout.contains("--certificate-authority"),
        "{}",
        run.stdout
    );

    // Another token is another user: the server does not know it.
    let run = renew(&["--token", "not-a-token", "--insecure-skip-tls-verify"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.starts_with("error: You must be logged in to the server"), "{}", run.stdout);
}

#[test]
fn context_and_cluster_choose_among_the_kubeconfigs_clusters() {
    let dev = Dev::start_with(&["--no-webhook", "--controllers=-*"]);
    let home = tempfile::tempdir().unwrap();
    let closed = ports::free_port();
    // The sandbox's kubeconfig, plus a current context whose cluster listens nowhere.
    let sandbox = std::fs::read_to_string(&dev.kubeconfig).unwrap();
    let two = sandbox
        .replace("current-context: certgate-sandbox", "current-context: nowhere")
        .replace(
            "clusters:\n",
            &format!("clusters:\n- name: nowhere\n  cluster:\n    server: https://127.0.0.1:{closed}\n"),
        )
        .replace(
            "contexts:\n",
            "contexts:\n- name: nowhere\n  context:\n    cluster: nowhere\n    user: certgate-sandbox-admin\n    namespace: team-x\n",
        );
    let kubeconfig = home.path().join("two-clusters");
    std::fs::write(&kubeconfig, two).unwrap();
    let path = kubeconfig.to_str().unwrap();
    let refused = format!(
        "The connection to the server 127.0.0.1:{closed} was refused - did you specify the right host or port?\n"
    );

    let run = certgate(home.path(), &["renew", "--all", "--kubeconfig", path]);
    assert_eq!((run.code, run.stdout.as_str()), (1, refused.as_str()));

    let run = certgate(
        home.path(),
        &["renew", "--all", "--kubeconfig", path, "--context", "certgate-sandbox"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // The chosen context's namespace is the default one.
    assert_eq!(run.stderr, "No Certificates found in default namespace.\n");

    // --cluster keeps the current context (its namespace and user) with another cluster.
    let run = certgate(
        home.path(),
        &["renew", "--all", "--kubeconfig", path, "--cluster", "certgate-sandbox"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stderr, "No Certificates found in team-x namespace.\n");

    let run = certgate(home.path(), &["renew", "--all", "--kubeconfig", path, "--context", "gone"]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("context \"gone\" is not in the kubeconfig"), "{}", run.stdout);
}

#[test]
fn as_impersonates_a_user_the_server_then_authorizes() {
    let dev = Dev::start_with(&["--no-webhook", "--controllers=-*"]);
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = dev.kubeconfig.to_str().unwrap();
    let run = certgate(
        home.path(),
        &[
            "renew",
            "--all",
            "-n",
            "default",
            "--kubeconfig",
            kubeconfig,
            "--as",
            "eve",
            "--as-group",
            "viewers",
        ],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.starts_with("Error from server (Forbidden): ")
            && run.stdout.contains("User \"eve\" cannot list resource \"certificates\""),
        "{}",
        run.stdout
    );
    // The admin itself may list them.
    let run =
        certgate(home.path(), &["renew", "--all", "-n", "default", "--kubeconfig", kubeconfig]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn an_unreachable_server_gets_the_same_message_from_every_command() {
    let home = tempfile::tempdir().unwrap();
    // Nothing is started on this port.
    let port = ports::free_port();
    let server = format!("https://127.0.0.1:{port}");
    let expected = format!(
        "The connection to the server 127.0.0.1:{port} was refused - did you specify the right host or port?"
    );
    let client = ["--server", server.as_str(), "--token", "t", "--insecure-skip-tls-verify"];
    let commands: [&[&str]; 7] = [
        &["approve", "req"],
        &["deny", "req"],
        &["renew", "web"],
        &["status", "certificate", "web"],
        &["explain", "certificaterequest/req"],
        &["revoke", "certificate", "web"],
        &["revoke", "certificaterequest", "req"],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.extend_from_slice(&client);
        let run = certgate(home.path(), &args);
        let name = command.join(" ");
        // The cmctl commands print errors on standard output as cmctl does; explain and revoke
        // on standard error after "error: ", as all their errors.
        let (code, printed) = match command[0] {
            "explain" => (2, run.stderr.strip_prefix("error: ").unwrap_or(&run.stderr)),
            "revoke" => (1, run.stderr.strip_prefix("error: ").unwrap_or(&run.stderr)),
            _ => (1, run.stdout.as_str()),
        };
        assert_eq!(run.code, code, "{name}: {}{}", run.stdout, run.stderr);
        assert_eq!(printed.trim_end(), expected, "{name}");
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(text).unwrap()
}

#[test]
fn servers_log_the_same_message_when_the_api_server_cannot_be_reached() {
    let dir = tempfile::tempdir().unwrap();
    let closed = ports::free_port();
    let listen = format!("127.0.0.1:{}", ports::free_port());
    let server = format!("https://127.0.0.1:{closed}");
    let log = dir.path().join("webhook.log");
    let mut child = Command::new(env!("CARGO_BIN_EXE_certgate"))
        .args(["webhook", "--dev-self-signed", "--listen", &listen, "--server", &server])
        .args(["--token", "t", "--insecure-skip-tls-verify"])
        .env("HOME", dir.path())
        .env("KUBECONFIG", dir.path().join("no-such-kubeconfig"))
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    let expected = format!(
        "The connection to the server 127.0.0.1:{closed} was refused - did you specify the right \
         host or port? (retrying until it answers)"
    );
    // The webhook keeps serving and retrying; its log says why the cluster is not used.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let logged = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains(&expected) {
            break true;
        }
        if std::time::Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let _ = child.kill();
    let _ = child.wait();
    assert!(logged, "{}", std::fs::read_to_string(&log).unwrap_or_default());
}

#[test]
fn leader_electing_servers_that_cannot_reach_the_server_exit_with_the_same_message() {
    // The lease cannot wait for the server: they exit, and the Pod restarts with a back-off.
    let dir = tempfile::tempdir().unwrap();
    let closed = ports::free_port();
    let server = format!("https://127.0.0.1:{closed}");
    for (command, lease) in [
        (&["controller"][..], "certgate/certgate-controller"),
        (&["edge", "serve", "--insecure", "--xds-port=0"][..], "certgate/certgate-edge"),
    ] {
        let listen = format!("127.0.0.1:{}", ports::free_port());
        let log = dir.path().join("server.log");
        let mut child = Command::new(env!("CARGO_BIN_EXE_certgate"))
            .args(command)
            .args(["--listen", &listen, "--server", &server, "--token", "t"])
            .arg("--insecure-skip-tls-verify")
            .env("HOME", dir.path())
            .env("KUBECONFIG", dir.path().join("no-such-kubeconfig"))
            .env_remove("KUBERNETES_SERVICE_HOST")
            .env("POD_NAMESPACE", "certgate")
            .env("RUST_LOG", "off")
            .stdout(std::process::Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        // Bounded: a process that does not exit fails the test instead of hanging it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        };
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let status = status.unwrap_or_else(|| panic!("{command:?} kept running:\n{text}"));
        assert!(!status.success(), "{command:?}: {status}\n{text}");
        assert_eq!(
            text.lines().last().unwrap_or_default(),
            format!(
                "error: cannot use Lease {lease} for leader election: The connection to the \
                 server 127.0.0.1:{closed} was refused - did you specify the right host or port?"
            ),
            "{command:?}:\n{text}"
        );
    }
}
