//! Who is asking: the `Authorization` header turned into a user, as kube-apiserver's
//! authentication chain does it (token file, service-account JWTs, anonymous fallback).

mod jwt;
mod signer;
mod static_users;
mod token_request;

use std::collections::BTreeMap;

use certgate_gofmt::{quote, quote_list};
use certgate_rbac::UserInfo;
use chrono::{DateTime, Utc};

use crate::status::StatusError;

pub use signer::{SignerError, TokenSigner};
pub use static_users::{MAX_USERS_FILE_BYTES, StaticUsers, UsersFileError};
pub use token_request::{TokenRequestError, bound_secret_name, token_request};

use static_users::TokenDigest;

/// The issuer of the sandbox's service-account tokens, and the audience the API server
/// accepts (kube-apiserver's `--api-audiences` default).
pub const ISSUER: &str = "https://kubernetes.default.svc.cluster.local";
/// The user the admin token authenticates as.
pub const ADMIN_USERNAME: &str = "sandbox-admin";
/// Longest bearer token looked at; longer ones are refused unread.
pub const MAX_BEARER_TOKEN_BYTES: usize = 16 * 1024;
pub const ANONYMOUS_USERNAME: &str = "system:anonymous";
pub const AUTHENTICATED_GROUP: &str = "system:authenticated";
pub const UNAUTHENTICATED_GROUP: &str = "system:unauthenticated";
/// The `extra` key kube-apiserver (1.30+) sets to identify the credential used.
pub const CREDENTIAL_ID_KEY: &str = "authentication.kubernetes.io/credential-id";

/// Clock skew go-jose tolerates on `exp`, `nbf` and `iat` (`jwt.DefaultLeeway`).
const LEEWAY_SECONDS: i64 = 60;

/// The ServiceAccounts and Secrets that exist now, so that tokens of deleted (or deleted and
/// recreated) ServiceAccounts and of deleted bound Secrets stop working.
pub trait ServiceAccounts {
    /// The `metadata.uid` of the ServiceAccount, if it exists.
    fn service_account_uid(&self, namespace: &str, name: &str) -> Option<String>;
    /// The `metadata.uid` of the Secret, if it exists.
    fn secret_uid(&self, namespace: &str, name: &str) -> Option<String>;
}

/// A request's identity and the audiences its credential was accepted for (empty for
/// anonymous requests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authenticated {
    pub user: UserInfo,
    pub audiences: Vec<String>,
}

/// Why a bearer token was refused. Every variant is answered with 401 `Unauthorized`
/// ([`Self::status`]); the message is kube-apiserver's (what a TokenReview reports in
/// `status.error`) and never contains the token. [`Self::detail`] adds the reason for logs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AuthenticationError {
    /// No authenticator knows the token.
    #[error("invalid bearer token")]
    InvalidBearerToken { why: &'static str },
    #[error("go-jose/go-jose: error in cryptographic primitive")]
    BadSignature,
    #[error("service account token has expired")]
    Expired,
    #[error("service account token is not valid yet")]
    NotYetValid,
    #[error("service account token is issued in the future")]
    IssuedInTheFuture,
    #[error(
        "token audiences {} is invalid for the target audiences {}",
        quote_list(token),
        quote_list(requested)
    )]
    Audience { token: Vec<String>, requested: Vec<String> },
    #[error("serviceaccounts {} not found", quote(name))]
    ServiceAccountNotFound { namespace: String, name: String },
    #[error("service account UID ({current}) does not match claim ({claimed})")]
    ServiceAccountUid { current: String, claimed: String },
    /// The Secret the token is bound to is gone.
    #[error("service account token has been invalidated")]
    SecretNotFound { namespace: String, name: String },
    #[error("secret UID ({current}) does not match service account secret ref claim ({claimed})")]
    SecretUid { current: String, claimed: String },
}

impl AuthenticationError {
    /// What the sandbox answers: 401 `Unauthorized`, message `Unauthorized`, whatever the
    /// cause (kube-apiserver does not tell clients why).
    pub fn status(&self) -> StatusError {
        StatusError::unauthorized()
    }

    /// The message with the reason behind it, for the server log.
    pub fn detail(&self) -> String {
        match self {
            AuthenticationError::InvalidBearerToken { why } => {
                format!("invalid bearer token: {why}")
            }
            AuthenticationError::ServiceAccountNotFound { namespace, name }
            | AuthenticationError::SecretNotFound { namespace, name } => {
                format!(
                    "{self} (namespace {}, name {})",
                    certgate_gofmt::quote(namespace),
                    certgate_gofmt::quote(name)
                )
            }
            other => other.to_string(),
        }
    }
}

/// The sandbox's authentication chain: the admin token, the users file, then service-account
/// tokens; requests without a bearer token are anonymous.
pub struct Authenticator {
    admin: Option<TokenDigest>,
    users: StaticUsers,
    signer: TokenSigner,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("admin", &self.admin.map(|_| "<redacted>"))
            .field("users", &self.users)
            .field("signer", &self.signer)
            .finish()
    }
}

impl Authenticator {
    /// `admin_token` authenticates as [`ADMIN_USERNAME`] in `system:masters`; an empty one
    /// authenticates nobody. A users-file entry reusing the admin token is refused.
    pub fn new(
        admin_token: &str,
        users: StaticUsers,
        signer: TokenSigner,
    ) -> Result<Self, UsersFileError> {
        let admin = (!admin_token.is_empty()).then(|| static_users::digest(admin_token.as_bytes()));
        if let Some(index) = admin.as_ref().and_then(|digest| users.position(digest)) {
            return Err(UsersFileError::AdminToken { index });
        }
        Ok(Authenticator { admin, users, signer })
    }

    /// The key service-account tokens are signed with.
    pub fn signer(&self) -> &TokenSigner {
        &self.signer
    }

    /// The user of a request with this `Authorization` header, for the API server's own
    /// audience.
    pub fn authenticate(
        &self,
        authorization_header: Option<&[u8]>,
        now: DateTime<Utc>,
        accounts: &dyn ServiceAccounts,
    ) -> Result<UserInfo, AuthenticationError> {
        let audiences = [ISSUER.to_owned()];
        self.authenticate_for(authorization_header, &audiences, now, accounts).map(|a| a.user)
    }

    /// [`Self::authenticate`] for other target audiences (TokenReview's `spec.audiences`),
    /// with the audiences the credential was accepted for.
    pub fn authenticate_for(
        &self,
        authorization_header: Option<&[u8]>,
        audiences: &[String],
        now: DateTime<Utc>,
        accounts: &dyn ServiceAccounts,
    ) -> Result<Authenticated, AuthenticationError> {
        let Some(token) = bearer_token(authorization_header)? else {
            return Ok(Authenticated { user: anonymous(), audiences: Vec::new() });
        };
        let mut authenticated = self.authenticate_token(token, audiences, now, accounts)?;
        add_authenticated_group(&mut authenticated.user);
        Ok(authenticated)
    }

    fn authenticate_token(
        &self,
        token: &[u8],
        requested: &[String],
        now: DateTime<Utc>,
        accounts: &dyn ServiceAccounts,
    ) -> Result<Authenticated, AuthenticationError> {
        // Static tokens are not issued for an audience: they are good for the API server's
        // own audience only, as kube-apiserver's audience-agnostic wrapper has it.
        let static_audiences = intersect(&[ISSUER.to_owned()], requested);
        if !static_audiences.is_empty() {
            let digest = static_users::digest(token);
            let admin =
                self.admin.as_ref().is_some_and(|a| static_users::digests_equal(a, &digest));
            if admin {
                return Ok(Authenticated { user: admin_user(), audiences: static_audiences });
            }
            if let Some(user) = self.users.find(token) {
                return Ok(Authenticated { user: user.clone(), audiences: static_audiences });
            }
        }
        let Ok(token) = std::str::from_utf8(token) else {
            return Err(AuthenticationError::InvalidBearerToken { why: "not valid UTF-8" });
        };
        let claims = match jwt::verify(&self.signer, ISSUER, token) {
            Ok(claims) => claims,
            Err(jwt::Rejection::NotOurs(why)) => {
                return Err(AuthenticationError::InvalidBearerToken {
                    why: if why.starts_with("not a JWT") {
                        "neither the admin token, a users-file token nor a JWT"
                    } else {
                        "a JWT of another issuer"
                    },
                });
            }
            Err(jwt::Rejection::Signature(_)) => return Err(AuthenticationError::BadSignature),
            Err(jwt::Rejection::Claims(why)) => {
                return Err(AuthenticationError::InvalidBearerToken { why });
            }
        };
        let token_audiences = if claims.audiences.is_empty() {
            vec![ISSUER.to_owned()]
        } else {
            claims.audiences.clone()
        };
        let audiences = intersect(&token_audiences, requested);
        if audiences.is_empty() {
            return Err(AuthenticationError::Audience {
                token: token_audiences,
                requested: requested.to_vec(),
            });
        }
        check_times(&claims, now)?;
        check_objects(&claims, accounts)?;
        let mut user = UserInfo::service_account(&claims.namespace, &claims.name, &claims.uid);
        if !claims.id.is_empty() {
            user.extra.insert(CREDENTIAL_ID_KEY.to_owned(), vec![format!("JTI={}", claims.id)]);
        }
        Ok(Authenticated { user, audiences })
    }
}

/// The token of `Authorization: Bearer <token>`, as kube-apiserver reads the header: spaces
/// around it trimmed, the scheme case-insensitive, the token up to the next space. Anything
/// else (no header, another scheme, an empty token) is not a bearer token at all, which
/// makes the request anonymous.
fn bearer_token(header: Option<&[u8]>) -> Result<Option<&[u8]>, AuthenticationError> {
    let Some(value) = header.map(<[u8]>::trim_ascii) else { return Ok(None) };
    let mut parts = value.splitn(3, |b| *b == b' ');
    let (Some(scheme), Some(token)) = (parts.next(), parts.next()) else { return Ok(None) };
    if !scheme.eq_ignore_ascii_case(b"bearer") || token.is_empty() {
        return Ok(None);
    }
    if token.len() > MAX_BEARER_TOKEN_BYTES {
        return Err(AuthenticationError::InvalidBearerToken { why: "longer than 16 KiB" });
    }
    Ok(Some(token))
}

/// kube-apiserver's anonymous user.
pub fn anonymous() -> UserInfo {
    UserInfo {
        username: ANONYMOUS_USERNAME.to_owned(),
        uid: String::new(),
        groups: vec![UNAUTHENTICATED_GROUP.to_owned()],
        extra: BTreeMap::new(),
    }
}

fn admin_user() -> UserInfo {
    UserInfo {
        username: ADMIN_USERNAME.to_owned(),
        uid: String::new(),
        groups: vec![certgate_rbac::SYSTEM_MASTERS.to_owned(), AUTHENTICATED_GROUP.to_owned()],
        extra: BTreeMap::new(),
    }
}

/// `AuthenticatedGroupAdder`: every authenticated user is in `system:authenticated`, unless
/// it is anonymous or already names `system:authenticated` or `system:unauthenticated`.
fn add_authenticated_group(user: &mut UserInfo) {
    let named = user.groups.iter().any(|g| g == AUTHENTICATED_GROUP || g == UNAUTHENTICATED_GROUP);
    if user.username != ANONYMOUS_USERNAME && !named {
        user.groups.push(AUTHENTICATED_GROUP.to_owned());
    }
}

/// `Audiences.Intersect`: the target audiences the credential's audiences contain, in
/// target order.
fn intersect(have: &[String], targets: &[String]) -> Vec<String> {
    targets.iter().filter(|target| have.contains(target)).cloned().collect()
}

/// `exp`, `nbf` and `iat` with go-jose's one-minute leeway, compared at nanosecond precision
/// as Go compares `time.Time`s.
fn check_times(
    claims: &jwt::VerifiedClaims,
    now: DateTime<Utc>,
) -> Result<(), AuthenticationError> {
    const NANOS: i128 = 1_000_000_000;
    let now = i128::from(now.timestamp()) * NANOS + i128::from(now.timestamp_subsec_nanos());
    let leeway = i128::from(LEEWAY_SECONDS) * NANOS;
    let at = |seconds: i64| i128::from(seconds) * NANOS;
    if claims.not_before.is_some_and(|nbf| now + leeway < at(nbf)) {
        return Err(AuthenticationError::NotYetValid);
    }
    if claims.expires.is_some_and(|exp| now - leeway > at(exp)) {
        return Err(AuthenticationError::Expired);
    }
    if claims.issued_at.is_some_and(|iat| now + leeway < at(iat)) {
        return Err(AuthenticationError::IssuedInTheFuture);
    }
    Ok(())
}

/// The ServiceAccount must still be the one the token was issued for, and a bound Secret
/// must still exist as it was.
fn check_objects(
    claims: &jwt::VerifiedClaims,
    accounts: &dyn ServiceAccounts,
) -> Result<(), AuthenticationError> {
    let namespace = &claims.namespace;
    let current = accounts.service_account_uid(namespace, &claims.name).ok_or_else(|| {
        AuthenticationError::ServiceAccountNotFound {
            namespace: namespace.clone(),
            name: claims.name.clone(),
        }
    })?;
    if current != claims.uid {
        return Err(AuthenticationError::ServiceAccountUid {
            current,
            claimed: claims.uid.clone(),
        });
    }
    if let Some((name, uid)) = &claims.secret {
        let current = accounts.secret_uid(namespace, name).ok_or_else(|| {
            AuthenticationError::SecretNotFound { namespace: namespace.clone(), name: name.clone() }
        })?;
        if &current != uid {
            return Err(AuthenticationError::SecretUid { current, claimed: uid.clone() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
