//! Who is asking and may they, end to end with the real `kubectl`: static users, service
//! account tokens from `kubectl create token`, RBAC with the API server's 403 messages,
//! impersonation and `kubectl auth can-i`.

mod support;

use certgate_access::StaticUsers;
use certgate_sandbox::SandboxOptions;
use support::Harness;

const USERS: &str =
    "users:\n- token: bob-token\n  username: bob\n  uid: \"1002\"\n  groups: [dev]\n";

fn sandbox() -> Harness {
    Harness::start_with_options(SandboxOptions {
        users: StaticUsers::from_yaml(USERS).unwrap(),
        ..SandboxOptions::default()
    })
}

/// `kubectl auth can-i`'s answer (it exits 1 on "no").
fn can_i(h: &Harness, args: &[&str]) -> String {
    let output = h.kubectl(&[&["auth", "can-i"], args].concat());
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

#[test]
fn a_service_account_token_authenticates_and_rbac_decides() {
    let h = sandbox();
    h.ok(&["create", "namespace", "apps"]);
    h.ok(&["create", "serviceaccount", "robot", "-n", "apps"]);
    let token = h.ok(&["create", "token", "robot", "-n", "apps", "--duration=10m"]);
    let token = token.trim();
    assert_eq!(token.split('.').count(), 3, "a JWT: {token}");
    let short = h.fails(&["create", "token", "robot", "-n", "apps", "--duration=5m"]);
    assert!(
        short.contains(r#"TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes"#),
        "{short}"
    );

    let whoami = h.ok(&[
        "--token",
        token,
        "auth",
        "whoami",
        "-o",
        "jsonpath={.status.userInfo.username} {.status.userInfo.groups}",
    ]);
    assert_eq!(
        whoami,
        r#"system:serviceaccount:apps:robot ["system:serviceaccounts","system:serviceaccounts:apps","system:authenticated"]"#
    );
    let forbidden = h.fails(&["--token", token, "get", "configmaps", "-n", "apps"]);
    assert_eq!(
        forbidden.trim(),
        r#"Error from server (Forbidden): configmaps is forbidden: User "system:serviceaccount:apps:robot" cannot list resource "configmaps" in API group "" in the namespace "apps""#
    );
    assert_eq!(
        can_i(
            &h,
            &["list", "configmaps", "-n", "apps", "--as", "system:serviceaccount:apps:robot"]
        ),
        "no"
    );

    h.ok(&[
        "create",
        "rolebinding",
        "robot-view",
        "-n",
        "apps",
        "--clusterrole=view",
        "--serviceaccount=apps:robot",
    ]);
    h.ok(&["--token", token, "get", "configmaps", "-n", "apps"]);
    assert_eq!(
        can_i(
            &h,
            &["list", "configmaps", "-n", "apps", "--as", "system:serviceaccount:apps:robot"]
        ),
        "yes"
    );
    // view does not read Secrets.
    let secrets = h.fails(&["--token", token, "get", "secrets", "-n", "apps"]);
    assert!(
        secrets
            .contains(r#"cannot list resource "secrets" in API group "" in the namespace "apps""#),
        "{secrets}"
    );

    // A deleted ServiceAccount's tokens stop working at once.
    h.ok(&["delete", "serviceaccount", "robot", "-n", "apps"]);
    let gone = h.fails(&["--token", token, "get", "configmaps", "-n", "apps"]);
    assert_eq!(gone.trim(), "error: You must be logged in to the server (Unauthorized)");
}

#[test]
fn expired_and_unknown_tokens_are_refused() {
    let data = tempfile::tempdir().unwrap();
    let h = Harness::start_with_options(SandboxOptions {
        data_dir: Some(data.path().to_owned()),
        ..SandboxOptions::default()
    });
    h.ok(&["create", "serviceaccount", "robot"]);
    let uid = h.ok(&["get", "serviceaccount", "robot", "-o", "jsonpath={.metadata.uid}"]);
    // Sign a token with the sandbox's own key, issued two hours ago for ten minutes.
    let key = std::fs::read(data.path().join(certgate_sandbox::SERVICE_ACCOUNT_KEY_FILE)).unwrap();
    let signer = certgate_access::TokenSigner::from_pkcs8(&key).unwrap();
    let issued = chrono::Utc::now() - chrono::Duration::hours(2);
    let request = serde_json::json!({"spec": {"expirationSeconds": 600}});
    let expired =
        certgate_access::token_request(&signer, &request, "default", "robot", &uid, None, issued)
            .unwrap();
    let expired = expired["status"]["token"].as_str().unwrap();
    let refused = h.fails(&["--token", expired, "get", "configmaps"]);
    assert_eq!(refused.trim(), "error: You must be logged in to the server (Unauthorized)");
    // The same key issuing now is accepted: only the expiry made the difference.
    let fresh = certgate_access::token_request(
        &signer,
        &request,
        "default",
        "robot",
        &uid,
        None,
        chrono::Utc::now(),
    )
    .unwrap();
    h.ok(&["--token", fresh["status"]["token"].as_str().unwrap(), "auth", "whoami"]);

    let unknown = h.fails(&["--token", "not-a-token", "get", "configmaps"]);
    assert_eq!(unknown.trim(), "error: You must be logged in to the server (Unauthorized)");
}

#[test]
fn impersonation_needs_the_impersonate_verb() {
    let h = sandbox();
    // The admin (system:masters) may impersonate anyone.
    assert_eq!(
        h.ok(&[
            "auth",
            "whoami",
            "--as",
            "alice",
            "--as-group",
            "team-a",
            "-o",
            "jsonpath={.status.userInfo.username} {.status.userInfo.groups}"
        ]),
        r#"alice ["team-a","system:authenticated"]"#
    );
    // bob may not, until a ClusterRole grants it. (`get --raw`: kubectl's discovery reports
    // a refused discovery request only as "unknown", with a real API server too.)
    let refused = h.fails(&[
        "--token",
        "bob-token",
        "get",
        "--raw",
        "/api/v1/namespaces/default/configmaps",
        "--as",
        "alice",
    ]);
    assert_eq!(
        refused.trim(),
        r#"Error from server (Forbidden): users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope"#
    );
    h.ok(&[
        "create",
        "clusterrole",
        "impersonator",
        "--verb=impersonate",
        "--resource=users",
        "--resource-name=alice",
    ]);
    h.ok(&[
        "create",
        "clusterrolebinding",
        "bob-impersonates",
        "--clusterrole=impersonator",
        "--user=bob",
    ]);
    assert_eq!(
        h.ok(&[
            "--token",
            "bob-token",
            "auth",
            "whoami",
            "--as",
            "alice",
            "-o",
            "jsonpath={.status.userInfo.username}"
        ]),
        "alice"
    );
    // ... but not as someone else, nor with a group it may not impersonate. (`auth whoami`
    // words any refusal as "not enabled or no permission", hence `get --raw`.)
    let raw = ["get", "--raw", "/api/v1/namespaces/default/configmaps", "--token", "bob-token"];
    let other = h.fails(&[&raw[..], &["--as", "carol"]].concat());
    assert!(
        other.contains(
            r#"users "carol" is forbidden: User "bob" cannot impersonate resource "users""#
        ),
        "{other}"
    );
    let group = h.fails(&[&raw[..], &["--as", "alice", "--as-group", "system:masters"]].concat());
    assert!(group.contains(r#"groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups""#), "{group}");
}

#[test]
fn anonymous_requests_see_only_public_information() {
    let h = sandbox();
    let admin = std::fs::read_to_string(&h.kubeconfig).unwrap();
    let token_line = format!("\n    token: {}", h.sandbox.token);
    let anonymous = admin.replace(&format!("user:{token_line}"), "user: {}");
    assert_ne!(anonymous, admin);
    // kubectl prompts for a password without credentials, so ask with kube-rs.
    h.runtime.block_on(async move {
        let kubeconfig = kube::config::Kubeconfig::from_yaml(&anonymous).unwrap();
        let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default()).await.unwrap();
        let client = kube::Client::try_from(config).unwrap();
        let version = client.apiserver_version().await.unwrap();
        assert_eq!(version.git_version, "v1.33.0-certgate-sandbox");
        let api: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(client);
        match api.list(&Default::default()).await {
            Err(kube::Error::Api(status)) => {
                assert_eq!(status.code, 403);
                assert_eq!(
                    status.message,
                    r#"namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope"#
                );
            }
            other => panic!("anonymous list should be forbidden: {other:?}"),
        }
    });
}
