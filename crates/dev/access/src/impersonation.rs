//! `Impersonate-User`, `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-<key>`:
//! acting as another user, as kube-apiserver's impersonation filter allows it.

use std::collections::BTreeMap;
use std::fmt;

use certgate_gofmt::url::{Mode, unescape};
use certgate_rbac::{ResourceAttributes, UserInfo};

use crate::authn::{ANONYMOUS_USERNAME, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP};
use crate::forbidden::forbidden_status;
use crate::names::split_service_account_username;
use crate::status::{StatusError, plain_internal_error};
use crate::{RequestAttributes, RequestAuthorizer};

const USER_HEADER: &str = "impersonate-user";
const GROUP_HEADER: &str = "impersonate-group";
const UID_HEADER: &str = "impersonate-uid";
const EXTRA_PREFIX: &str = "impersonate-extra-";
const AUTHENTICATION_GROUP: &str = "authentication.k8s.io";

/// One thing asked to be impersonated (kube-apiserver's `ObjectReference`s).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Request {
    User(String),
    ServiceAccount { namespace: String, name: String },
    Group(String),
    Extra { key: String, value: String },
    Uid(String),
}

impl Request {
    /// The `impersonate` authorization it needs.
    fn check(&self) -> ResourceAttributes {
        let check = |group: &str, resource: &str, namespace: &str, name: &str, sub: &str| {
            ResourceAttributes {
                namespace: namespace.to_owned(),
                verb: "impersonate".to_owned(),
                group: group.to_owned(),
                version: if group.is_empty() { String::new() } else { "v1".to_owned() },
                resource: resource.to_owned(),
                subresource: sub.to_owned(),
                name: name.to_owned(),
            }
        };
        match self {
            Request::User(name) => check("", "users", "", name, ""),
            Request::ServiceAccount { namespace, name } => {
                check("", "serviceaccounts", namespace, name, "")
            }
            Request::Group(name) => check("", "groups", "", name, ""),
            Request::Extra { key, value } => {
                check(AUTHENTICATION_GROUP, "userextras", "", value, key)
            }
            Request::Uid(uid) => check(AUTHENTICATION_GROUP, "uids", "", uid, ""),
        }
    }
}

impl fmt::Display for Request {
    /// Go's `%v` of a `v1.ObjectReference`: `{Kind Namespace Name UID APIVersion
    /// ResourceVersion FieldPath}`, empty fields included.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v1 = "authentication.k8s.io/v1";
        let (kind, namespace, name, api_version, field_path) = match self {
            Request::User(name) => ("User", "", name.as_str(), "", ""),
            Request::ServiceAccount { namespace, name } => {
                ("ServiceAccount", namespace.as_str(), name.as_str(), "", "")
            }
            Request::Group(name) => ("Group", "", name.as_str(), "", ""),
            Request::Extra { key, value } => ("UserExtra", "", value.as_str(), v1, key.as_str()),
            Request::Uid(uid) => ("UID", "", uid.as_str(), v1, ""),
        };
        write!(f, "{{{kind} {namespace} {name}  {api_version}  {field_path}}}")
    }
}

/// Impersonation headers kube-apiserver refuses before authorizing anything.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImpersonationError {
    /// Groups, extras or a UID without `Impersonate-User`.
    #[error("requested [{}] without impersonating a user", join(.requests))]
    NoUser { requests: Vec<String> },
}

impl ImpersonationError {
    /// kube-apiserver answers these with 500 and a plain-text body (not a `Status`): send
    /// this body with code 500, `Content-Type: text/plain; charset=utf-8` and
    /// `X-Content-Type-Options: nosniff`.
    pub fn plain_text_body(&self, request_uri: &str) -> String {
        plain_internal_error(request_uri, self)
    }
}

fn join(requests: &[String]) -> String {
    requests.join(" ")
}

/// What a request asked to be impersonated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Impersonation {
    requests: Vec<Request>,
    /// Whether any `Impersonate-Group` header was sent: then the groups are exactly those
    /// (plus `system:authenticated`), even for a ServiceAccount.
    groups_specified: bool,
}

impl Impersonation {
    /// Reads the impersonation headers from `(name, value)` pairs in the order received;
    /// names are matched case-insensitively. `Ok(None)` when there are none.
    pub fn from_headers<'a>(
        headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    ) -> Result<Option<Self>, ImpersonationError> {
        let mut user: Option<String> = None;
        let mut groups = Vec::new();
        let mut uid: Option<String> = None;
        let mut extras: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (name, value) in headers {
            let name = name.to_ascii_lowercase();
            let value = lossy(value);
            if name == USER_HEADER {
                // Header.Get: the first value counts, even an empty one.
                user.get_or_insert(value);
            } else if name == GROUP_HEADER {
                groups.push(value);
            } else if name == UID_HEADER {
                uid.get_or_insert(value);
            } else if let Some(key) = name.strip_prefix(EXTRA_PREFIX) {
                extras.entry(extra_key(key)).or_default().push(value);
            }
        }
        let user = user.filter(|u| !u.is_empty());
        let uid = uid.filter(|u| !u.is_empty());
        let groups_specified = !groups.is_empty();

        let mut requests = Vec::new();
        if let Some(user) = &user {
            requests.push(match split_service_account_username(user) {
                Some((namespace, name)) => Request::ServiceAccount {
                    namespace: namespace.to_owned(),
                    name: name.to_owned(),
                },
                None => Request::User(user.clone()),
            });
        }
        requests.extend(groups.into_iter().map(Request::Group));
        // kube-apiserver visits extra headers in Go map order (random); sorted by key here.
        for (key, values) in extras {
            requests
                .extend(values.into_iter().map(|value| Request::Extra { key: key.clone(), value }));
        }
        if let Some(uid) = uid {
            requests.push(Request::Uid(uid));
        }
        if requests.is_empty() {
            return Ok(None);
        }
        if user.is_none() {
            return Err(ImpersonationError::NoUser {
                requests: requests.iter().map(ToString::to_string).collect(),
            });
        }
        Ok(Some(Impersonation { requests, groups_specified }))
    }

    /// The `impersonate` authorizations the requester needs, in the order kube-apiserver
    /// checks them: the user (`users`, or `serviceaccounts` in the namespace for a
    /// ServiceAccount username), each group (`groups`), each extra value (`userextras/<key>`
    /// in `authentication.k8s.io`), the UID (`uids` in `authentication.k8s.io`).
    pub fn checks(&self) -> Vec<ResourceAttributes> {
        self.requests.iter().map(Request::check).collect()
    }

    /// The user the request then runs as.
    pub fn user_info(&self) -> UserInfo {
        let mut user = UserInfo::default();
        for request in &self.requests {
            match request {
                Request::User(name) => user.username = name.clone(),
                Request::ServiceAccount { namespace, name } => {
                    let account = UserInfo::service_account(namespace, name, "");
                    user.username = account.username;
                    if !self.groups_specified {
                        // Its groups are known: all but system:authenticated, added below.
                        user.groups = account
                            .groups
                            .into_iter()
                            .filter(|g| g != AUTHENTICATED_GROUP)
                            .collect();
                    }
                }
                Request::Group(group) => user.groups.push(group.clone()),
                Request::Extra { key, value } => {
                    user.extra.entry(key.clone()).or_default().push(value.clone());
                }
                Request::Uid(uid) => user.uid = uid.clone(),
            }
        }
        let has = |group: &str| user.groups.iter().any(|g| g == group);
        if user.username != ANONYMOUS_USERNAME {
            if !has(AUTHENTICATED_GROUP) && !has(UNAUTHENTICATED_GROUP) {
                user.groups.push(AUTHENTICATED_GROUP.to_owned());
            }
        } else if !has(UNAUTHENTICATED_GROUP) {
            user.groups.push(UNAUTHENTICATED_GROUP.to_owned());
        }
        user
    }

    /// Runs [`Self::checks`] for `requester` and returns the impersonated user, or the 403
    /// for the first check refused (e.g. `users "bob" is forbidden: User "alice" cannot
    /// impersonate resource "users" in API group "" at the cluster scope`).
    pub fn authorize(
        &self,
        requester: &UserInfo,
        authorizer: &dyn RequestAuthorizer,
    ) -> Result<UserInfo, StatusError> {
        for check in self.checks() {
            let attributes = RequestAttributes::Resource(check);
            let decision = authorizer.authorize(requester, &attributes);
            if !decision.allowed {
                return Err(forbidden_status(&requester.username, &attributes, &decision.reason));
            }
        }
        Ok(self.user_info())
    }
}

/// The extra key of an `Impersonate-Extra-<key>` header: lower-cased (header names are
/// case-insensitive; HTTP/2 sends them lower-case) then percent-decoded, or kept as written
/// when the escapes are malformed.
fn extra_key(raw: &str) -> String {
    match unescape(raw, Mode::Path) {
        Ok(bytes) => lossy(&bytes),
        Err(_) => raw.to_owned(),
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests;
