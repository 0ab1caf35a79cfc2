use std::collections::HashMap;

use chrono::{Duration, TimeZone};

use super::*;

const USERS: &str = r#"
users:
- token: alice-token
  username: alice
  uid: "1001"
  groups: [team-a]
  extra:
    scopes: [read]
- token: viewer-token
  username: viewer
  groups: [system:unauthenticated]
"#;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 1, 2, 3, 4, 5).single().expect("valid time")
}

#[derive(Default)]
struct Objects {
    accounts: HashMap<(String, String), String>,
    secrets: HashMap<(String, String), String>,
}

impl Objects {
    fn with_account(mut self, namespace: &str, name: &str, uid: &str) -> Self {
        self.accounts.insert((namespace.into(), name.into()), uid.into());
        self
    }
    fn with_secret(mut self, namespace: &str, name: &str, uid: &str) -> Self {
        self.secrets.insert((namespace.into(), name.into()), uid.into());
        self
    }
}

impl ServiceAccounts for Objects {
    fn service_account_uid(&self, namespace: &str, name: &str) -> Option<String> {
        self.accounts.get(&(namespace.to_owned(), name.to_owned())).cloned()
    }
    fn secret_uid(&self, namespace: &str, name: &str) -> Option<String> {
        self.secrets.get(&(namespace.to_owned(), name.to_owned())).cloned()
    }
}

fn authenticator() -> Authenticator {
    let users = StaticUsers::from_yaml(USERS).expect("users");
    Authenticator::new("admin-token", users, TokenSigner::generate().expect("key"))
        .expect("authenticator")
}

fn claims() -> jwt::ServiceAccountClaims {
    jwt::ServiceAccountClaims {
        audiences: vec![ISSUER.into()],
        issued_at: now().timestamp(),
        expires: now().timestamp() + 3600,
        id: "id-1".into(),
        namespace: "ns".into(),
        name: "builder".into(),
        uid: "uid-1".into(),
        secret: None,
    }
}

fn bearer(token: &str) -> Vec<u8> {
    format!("Bearer {token}").into_bytes()
}

#[test]
fn no_bearer_token_is_anonymous() {
    let auth = authenticator();
    let objects = Objects::default();
    let anonymous_user = UserInfo {
        username: "system:anonymous".into(),
        groups: vec!["system:unauthenticated".into()],
        ..UserInfo::default()
    };
    for header in [
        None,
        Some(&b""[..]),
        Some(b"Basic YWxpY2U6cHc="),
        Some(b"Bearer"),
        Some(b"Bearer "),
        Some(b"Bearer  alice-token"),
    ] {
        assert_eq!(
            auth.authenticate(header, now(), &objects),
            Ok(anonymous_user.clone()),
            "{header:?}"
        );
    }
}

#[test]
fn admin_and_static_users() {
    let auth = authenticator();
    let objects = Objects::default();
    let admin = auth.authenticate(Some(b"Bearer admin-token"), now(), &objects).expect("admin");
    assert_eq!(admin.username, "sandbox-admin");
    assert_eq!(admin.groups, ["system:masters", "system:authenticated"]);
    // The scheme is case-insensitive and surrounding spaces do not matter; a third part is ignored.
    for header in
        [&b"bearer alice-token"[..], b"  BEARER alice-token  ", b"Bearer alice-token extra"]
    {
        let alice = auth.authenticate(Some(header), now(), &objects).expect("alice");
        assert_eq!(alice.username, "alice");
        assert_eq!(alice.uid, "1001");
        assert_eq!(alice.groups, ["team-a", "system:authenticated"]);
        assert_eq!(alice.extra["scopes"], ["read"]);
    }
    // A user already in system:unauthenticated does not get system:authenticated.
    let viewer = auth.authenticate(Some(&bearer("viewer-token")), now(), &objects).expect("viewer");
    assert_eq!(viewer.groups, ["system:unauthenticated"]);
}

#[test]
fn unknown_tokens_are_refused_without_echoing_them() {
    let auth = authenticator();
    let objects = Objects::default();
    for token in ["nope", "alice-token2", "a.b.c", "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"] {
        let error = auth.authenticate(Some(&bearer(token)), now(), &objects).unwrap_err();
        assert_eq!(error.to_string(), "invalid bearer token");
        assert!(!error.detail().contains(token), "{}", error.detail());
        assert!(!format!("{error:?}").contains(token));
        assert_eq!(error.status(), StatusError::unauthorized());
    }
    let long = "x".repeat(MAX_BEARER_TOKEN_BYTES + 1);
    let error = auth.authenticate(Some(&bearer(&long)), now(), &objects).unwrap_err();
    assert_eq!(error.detail(), "invalid bearer token: longer than 16 KiB");
    let error = auth.authenticate(Some(b"Bearer \xff\xfe"), now(), &objects).unwrap_err();
    assert_eq!(error.to_string(), "invalid bearer token");
}

#[test]
fn service_account_tokens() {
    let auth = authenticator();
    let objects = Objects::default().with_account("ns", "builder", "uid-1");
    let token = jwt::issue(auth.signer(), ISSUER, &claims()).expect("token");
    let user = auth.authenticate(Some(&bearer(&token)), now(), &objects).expect("valid");
    let mut expected = UserInfo::service_account("ns", "builder", "uid-1");
    expected.extra.insert(CREDENTIAL_ID_KEY.into(), vec!["JTI=id-1".into()]);
    assert_eq!(user, expected);
    assert_eq!(
        user.groups,
        ["system:serviceaccounts", "system:serviceaccounts:ns", "system:authenticated"]
    );

    let recreated = Objects::default().with_account("ns", "builder", "uid-2");
    assert_eq!(
        auth.authenticate(Some(&bearer(&token)), now(), &recreated).unwrap_err().to_string(),
        "service account UID (uid-2) does not match claim (uid-1)"
    );
    assert_eq!(
        auth.authenticate(Some(&bearer(&token)), now(), &Objects::default())
            .unwrap_err()
            .to_string(),
        r#"serviceaccounts "builder" not found"#
    );
    let other_key = authenticator();
    assert_eq!(
        other_key.authenticate(Some(&bearer(&token)), now(), &objects).unwrap_err(),
        AuthenticationError::BadSignature
    );
}

#[test]
fn token_lifetime_has_one_minute_of_leeway() {
    let auth = authenticator();
    let objects = Objects::default().with_account("ns", "builder", "uid-1");
    let token = jwt::issue(auth.signer(), ISSUER, &claims()).expect("token");
    let header = bearer(&token);
    let at = |offset: Duration| auth.authenticate(Some(&header), now() + offset, &objects);
    assert!(at(Duration::seconds(3600 + 60)).is_ok());
    assert_eq!(
        at(Duration::seconds(3600 + 60) + Duration::nanoseconds(1)).unwrap_err(),
        AuthenticationError::Expired
    );
    assert!(at(Duration::seconds(-60)).is_ok());
    assert_eq!(
        at(Duration::seconds(-60) - Duration::nanoseconds(1)).unwrap_err(),
        AuthenticationError::NotYetValid
    );

    let mut future = claims();
    future.issued_at += 120;
    future.expires += 120;
    let issued_later = jwt::issue(auth.signer(), ISSUER, &future).expect("token");
    assert_eq!(
        auth.authenticate(Some(&bearer(&issued_later)), now(), &objects).unwrap_err().to_string(),
        "service account token is not valid yet"
    );
}

#[test]
fn audiences_must_meet() {
    let auth = authenticator();
    let objects = Objects::default().with_account("ns", "builder", "uid-1");
    let mut vault = claims();
    vault.audiences = vec!["vault".into()];
    let token = jwt::issue(auth.signer(), ISSUER, &vault).expect("token");
    assert_eq!(
        auth.authenticate(Some(&bearer(&token)), now(), &objects).unwrap_err().to_string(),
        r#"token audiences ["vault"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]"#
    );
    let targets = ["other".to_owned(), "vault".to_owned()];
    let accepted =
        auth.authenticate_for(Some(&bearer(&token)), &targets, now(), &objects).expect("vault");
    assert_eq!(accepted.audiences, ["vault"]);
    // Static tokens are only good for the API server itself.
    assert_eq!(
        auth.authenticate_for(Some(&bearer("alice-token")), &targets, now(), &objects)
            .unwrap_err()
            .to_string(),
        "invalid bearer token"
    );
    let own = [ISSUER.to_owned()];
    let alice =
        auth.authenticate_for(Some(&bearer("alice-token")), &own, now(), &objects).expect("alice");
    assert_eq!(alice.audiences, own);
}

#[test]
fn bound_secrets_must_still_exist() {
    let auth = authenticator();
    let mut bound = claims();
    bound.secret = Some(("s".into(), "uid-s".into()));
    let token = jwt::issue(auth.signer(), ISSUER, &bound).expect("token");
    let header = bearer(&token);
    let account = || Objects::default().with_account("ns", "builder", "uid-1");
    assert!(
        auth.authenticate(Some(&header), now(), &account().with_secret("ns", "s", "uid-s")).is_ok()
    );
    assert_eq!(
        auth.authenticate(Some(&header), now(), &account()).unwrap_err().to_string(),
        "service account token has been invalidated"
    );
    assert_eq!(
        auth.authenticate(Some(&header), now(), &account().with_secret("ns", "s", "uid-t"))
            .unwrap_err()
            .to_string(),
        "secret UID (uid-t) does not match service account secret ref claim (uid-s)"
    );
}

#[test]
fn admin_token_cannot_be_reused_and_debug_is_redacted() {
    let users =
        StaticUsers::from_yaml("users: [{token: admin-token, username: mallory}]").expect("users");
    let error = Authenticator::new("admin-token", users, TokenSigner::generate().expect("key"))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "users[0].token is the sandbox admin token; give the user a token of their own"
    );
    let debug = format!("{:?}", authenticator());
    assert!(!debug.contains("admin-token") && !debug.contains("alice-token"), "{debug}");
    let no_admin =
        Authenticator::new("", StaticUsers::empty(), TokenSigner::generate().expect("key"))
            .expect("ok");
    assert_eq!(
        no_admin
            .authenticate(Some(b"Bearer x"), now(), &Objects::default())
            .unwrap_err()
            .to_string(),
        "invalid bearer token"
    );
}
