//! The client flags over a kubeconfig with two contexts, clusters and users: each flag's
//! effect on the client configuration, with kubectl's precedence.

use std::time::Duration;

use super::*;
use clap::Parser;

const KUBECONFIG: &str = "\
apiVersion: v1
kind: Config
current-context: alpha
contexts:
- name: alpha
  context: {cluster: alpha-cluster, user: alpha-user, namespace: team-a}
- name: beta
  context: {cluster: beta-cluster, user: beta-user}
clusters:
- name: alpha-cluster
  cluster: {server: 'https://alpha.example:6443', tls-server-name: alpha.internal}
- name: beta-cluster
  cluster: {server: 'https://beta.example:7443', insecure-skip-tls-verify: true}
users:
- name: alpha-user
  user: {token: alpha-token}
- name: beta-user
  user:
    exec: {apiVersion: client.authentication.k8s.io/v1, command: get-beta-token}
";

#[derive(Parser)]
struct Flags {
    #[command(flatten)]
    cluster: KubeconfigArgs,
}

/// The flags of `args`, with `--kubeconfig` set to a file holding [`KUBECONFIG`].
fn flags(dir: &tempfile::TempDir, args: &[&str]) -> KubeconfigArgs {
    let path = dir.path().join("config");
    std::fs::write(&path, KUBECONFIG).unwrap();
    let mut argv = vec!["test", "--kubeconfig", path.to_str().unwrap()];
    argv.extend_from_slice(args);
    Flags::try_parse_from(argv).unwrap().cluster
}

fn load(args: &[&str]) -> kube::Config {
    let dir = tempfile::tempdir().unwrap();
    let flags = flags(&dir, args);
    runtime().block_on(flags.config()).unwrap()
}

fn error(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let flags = flags(&dir, args);
    runtime().block_on(flags.config()).unwrap_err().to_string()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// The bearer token, as the kubeconfig would hold it (kube serializes it in the clear).
fn token(config: &kube::Config) -> Option<String> {
    let user = serde_json::to_value(&config.auth_info).unwrap();
    user.get("token").and_then(serde_json::Value::as_str).map(str::to_owned)
}

#[test]
fn without_flags_the_current_context_decides() {
    let config = load(&[]);
    assert_eq!(config.cluster_url.to_string(), "https://alpha.example:6443/");
    assert_eq!(config.default_namespace, "team-a");
    assert_eq!(token(&config).as_deref(), Some("alpha-token"));
    assert_eq!(config.tls_server_name.as_deref(), Some("alpha.internal"));
    assert!(!config.accept_invalid_certs);
    assert_eq!(config.read_timeout, None);
}

#[test]
fn context_picks_the_other_cluster_user_and_namespace() {
    let config = load(&["--context", "beta"]);
    assert_eq!(config.cluster_url.to_string(), "https://beta.example:7443/");
    // A context without a namespace defaults to "default", as kubectl's does.
    assert_eq!(config.default_namespace, "default");
    assert!(config.auth_info.exec.is_some());
    assert_eq!(token(&config), None);
    assert!(config.accept_invalid_certs);
}

#[test]
fn cluster_and_user_override_the_contexts_choice() {
    let config = load(&["--cluster", "beta-cluster"]);
    assert_eq!(config.cluster_url.to_string(), "https://beta.example:7443/");
    assert_eq!(token(&config).as_deref(), Some("alpha-token"));
    assert_eq!(config.default_namespace, "team-a");
    let config = load(&["--user", "beta-user"]);
    assert_eq!(config.cluster_url.to_string(), "https://alpha.example:6443/");
    assert!(config.auth_info.exec.is_some());
}

#[test]
fn server_overrides_the_url_and_the_tls_server_name() {
    let config = load(&["--server", "https://203.0.113.7:6443"]);
    assert_eq!(config.cluster_url.to_string(), "https://203.0.113.7:6443/");
    assert_eq!(config.tls_server_name, None, "kubectl drops the kubeconfig's name with --server");
    assert_eq!(token(&config).as_deref(), Some("alpha-token"));
    let config = load(&["-s", "203.0.113.7:6443", "--tls-server-name", "api.internal"]);
    assert_eq!(config.cluster_url.to_string(), "https://203.0.113.7:6443/");
    assert_eq!(config.tls_server_name.as_deref(), Some("api.internal"));
}

#[test]
fn token_replaces_the_users_credentials() {
    let config = load(&["--context", "beta", "--token", "flag-token"]);
    assert_eq!(token(&config).as_deref(), Some("flag-token"));
    assert!(config.auth_info.exec.is_none(), "the exec plugin would win over the token");
}

#[test]
fn impersonation_flags_set_the_impersonation_headers_fields() {
    let config = load(&[
        "--as",
        "system:serviceaccount:team-a:robot",
        "--as-group",
        "approvers",
        "--as-group",
        "system:authenticated",
        "--as-uid",
        "1234",
    ]);
    let auth = &config.auth_info;
    assert_eq!(auth.impersonate.as_deref(), Some("system:serviceaccount:team-a:robot"));
    assert_eq!(
        auth.impersonate_groups.as_deref(),
        Some(["approvers".to_owned(), "system:authenticated".to_owned()].as_slice())
    );
    assert_eq!(auth.impersonate_uid.as_deref(), Some("1234"));
    assert_eq!(token(&config).as_deref(), Some("alpha-token"), "the credentials stay");
}

#[test]
fn tls_flags_choose_how_the_server_is_verified() {
    let config = load(&["--insecure-skip-tls-verify"]);
    assert!(config.accept_invalid_certs);
    let config = load(&["--context", "beta", "--insecure-skip-tls-verify=false"]);
    assert!(config.accept_invalid_certs, "=false keeps the kubeconfig's setting");

    let dir = tempfile::tempdir().unwrap();
    let ca = dir.path().join("ca.crt");
    std::fs::write(&ca, "-----BEGIN CERTIFICATE-----\nAQID\n-----END CERTIFICATE-----\n").unwrap();
    let args = flags(&dir, &["--context", "beta", "--certificate-authority", ca.to_str().unwrap()]);
    let config = runtime().block_on(args.config()).unwrap();
    assert!(!config.accept_invalid_certs, "a CA on the command line turns verification on");
    assert_eq!(config.root_cert, Some(vec![vec![1, 2, 3]]));

    let args = flags_both(&dir, &ca);
    let err = runtime().block_on(args.config()).unwrap_err().to_string();
    assert!(err.contains("exclude each other"), "{err}");

    let empty = dir.path().join("empty.crt");
    std::fs::write(&empty, "").unwrap();
    let args = flags(&dir, &["--certificate-authority", empty.to_str().unwrap()]);
    let err = runtime().block_on(args.config()).unwrap_err().to_string();
    assert!(err.contains("holds no PEM CERTIFICATE block"), "{err}");
}

fn flags_both(dir: &tempfile::TempDir, ca: &std::path::Path) -> KubeconfigArgs {
    flags(dir, &["--insecure-skip-tls-verify", "--certificate-authority", ca.to_str().unwrap()])
}

#[test]
fn client_certificate_flags_point_at_the_files() {
    let config = load(&["--client-certificate", "/pki/me.crt", "--client-key", "/pki/me.key"]);
    assert_eq!(config.auth_info.client_certificate.as_deref(), Some("/pki/me.crt"));
    assert_eq!(config.auth_info.client_key.as_deref(), Some("/pki/me.key"));
}

#[test]
fn request_timeout_reads_as_kubectl_reads_it() {
    assert_eq!(parse_request_timeout("0").unwrap(), Duration::ZERO);
    assert_eq!(parse_request_timeout("30").unwrap(), Duration::from_secs(30));
    assert_eq!(parse_request_timeout("1m30s").unwrap(), Duration::from_secs(90));
    assert_eq!(parse_request_timeout("1.5s").unwrap(), Duration::from_millis(1500));
    let err = parse_request_timeout("1d").unwrap_err().to_string();
    assert!(err.contains("unknown unit") && err.contains("1m30s"), "{err}");
    assert!(parse_request_timeout("-1s").is_err());

    let config = load(&["--request-timeout", "45"]);
    assert_eq!(config.read_timeout, Some(Duration::from_secs(45)));
    assert_eq!(config.connect_timeout, Some(Duration::from_secs(45)));
    assert_eq!(config.write_timeout, Some(Duration::from_secs(45)));
    let default = load(&["--request-timeout=0"]);
    assert_eq!(default.read_timeout, None, "0 is no limit");
}

#[test]
fn disable_compression_and_cache_dir_are_accepted() {
    let config = load(&["--disable-compression", "--cache-dir", "/tmp/kube-cache"]);
    assert!(config.disable_compression);
}

#[test]
fn names_missing_from_the_kubeconfig_are_errors_that_say_where_to_look() {
    assert_eq!(
        error(&["--context", "gamma"]),
        "context \"gamma\" is not in the kubeconfig: pick one that `kubectl config get-contexts` \
         lists"
    );
    assert!(error(&["--cluster", "gamma"]).contains("kubectl config get-clusters"));
    assert!(error(&["--user", "gamma"]).contains("kubectl config get-users"));
    assert!(error(&["--server", "https://"]).contains("is not a URL"));
}

#[test]
fn a_missing_kubeconfig_file_named_by_the_flag_is_an_error() {
    let args = Flags::try_parse_from(["test", "--kubeconfig", "/nonexistent/config"]).unwrap();
    let err = runtime().block_on(args.cluster.config()).unwrap_err().to_string();
    assert!(err.starts_with("cannot read the kubeconfig /nonexistent/config"), "{err}");
}

#[test]
fn without_any_kubeconfig_server_and_token_are_enough() {
    let args = Flags::try_parse_from(["test", "-s", "https://127.0.0.1:6443", "--token", "t"])
        .unwrap()
        .cluster;
    let resolved = args.resolve(Kubeconfig::default()).unwrap();
    let mut config = runtime()
        .block_on(kube::Config::from_custom_kubeconfig(resolved, &Default::default()))
        .unwrap();
    args.apply(&mut config).unwrap();
    assert_eq!(config.cluster_url.to_string(), "https://127.0.0.1:6443/");
    assert_eq!(token(&config).as_deref(), Some("t"));
    assert_eq!(config.default_namespace, "default");

    let none = Flags::try_parse_from(["test"]).unwrap().cluster;
    let err = none.resolve(Kubeconfig::default()).unwrap_err().to_string();
    assert!(err.starts_with("no cluster to connect to: give --server"), "{err}");
}
