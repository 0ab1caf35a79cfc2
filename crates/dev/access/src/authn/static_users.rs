//! The `--users FILE` of `certgate dev`: static bearer tokens and the identities they stand
//! for (the sandbox's counterpart of kube-apiserver's `--token-auth-file`).
//!
//! Tokens are kept only as SHA-256 digests and compared in constant time, so neither memory
//! dumps, `Debug` output nor timing give them away.

use std::collections::BTreeMap;
use std::fmt;

use certgate_rbac::UserInfo;
use serde_json::{Map, Value};

use super::MAX_BEARER_TOKEN_BYTES;
use crate::names::SERVICE_ACCOUNT_PREFIX;

/// Largest users file accepted.
pub const MAX_USERS_FILE_BYTES: usize = 1024 * 1024;

const FIELDS: [&str; 5] = ["token", "username", "uid", "groups", "extra"];

/// Why a users file was refused. Messages name the entry and field, never a token.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UsersFileError {
    #[error(
        "the users file is {size} bytes; at most {MAX_USERS_FILE_BYTES} bytes (1 MiB) are \
         accepted, so remove unused entries"
    )]
    TooLarge { size: usize },
    #[error("the users file is not valid YAML{}; fix the syntax there", at(*line, *column))]
    Syntax { line: Option<u64>, column: Option<u64> },
    #[error(
        "the users file must be a mapping with a `users` list, e.g. \
         `users: [{{token: t0ken, username: alice}}]`"
    )]
    NotAMapping,
    #[error("the users file has an unknown top-level field {}; the only field is `users`", certgate_gofmt::quote(.field))]
    UnknownTopLevelField { field: String },
    #[error("`users` must be a list of entries, each with a `token` and a `username`")]
    UsersNotAList,
    #[error("users[{index}] must be a mapping with a `token` and a `username`")]
    EntryNotAMapping { index: usize },
    #[error(
        "users[{index}] has an unknown field {}; the fields are token, username, uid, \
         groups and extra",
        certgate_gofmt::quote(.field)
    )]
    UnknownField { index: usize, field: String },
    #[error("users[{index}].{field} is required")]
    Missing { index: usize, field: &'static str },
    #[error("users[{index}].{field} must not be empty")]
    Empty { index: usize, field: String },
    #[error(
        "users[{index}].{field} must be {expected}; quote values that YAML would read as \
         numbers, booleans or null"
    )]
    WrongType { index: usize, field: String, expected: &'static str },
    #[error(
        "users[{index}].token must be printable ASCII without spaces, as it is sent in \
         `Authorization: Bearer <token>`"
    )]
    TokenCharacters { index: usize },
    #[error(
        "users[{index}].token is longer than {MAX_BEARER_TOKEN_BYTES} bytes, the longest bearer \
         token the sandbox accepts"
    )]
    TokenTooLong { index: usize },
    #[error(
        "users[{index}].token is the same as users[{first}].token; give every user a token of \
         their own"
    )]
    DuplicateToken { index: usize, first: usize },
    #[error("users[{index}].token is the sandbox admin token; give the user a token of their own")]
    AdminToken { index: usize },
    #[error(
        "users[{index}].username {} starts with `system:serviceaccount:`; \
         ServiceAccounts authenticate with tokens from `kubectl create token`, not from the \
         users file",
        certgate_gofmt::quote(.username)
    )]
    ServiceAccountUsername { index: usize, username: String },
}

fn at(line: Option<u64>, column: Option<u64>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(" (line {line}, column {column})"),
        (Some(line), None) => format!(" (line {line})"),
        _ => String::new(),
    }
}

/// The SHA-256 of a token.
pub(crate) type TokenDigest = [u8; 32];

pub(crate) fn digest(token: &[u8]) -> TokenDigest {
    let mut out = [0u8; 32];
    out.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, token).as_ref());
    out
}

/// Equality that takes the same time whatever the inputs, so a caller cannot learn a digest
/// byte by byte.
pub(crate) fn digests_equal(a: &TokenDigest, b: &TokenDigest) -> bool {
    let difference = a.iter().zip(b.iter()).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}

#[derive(Clone)]
struct StaticUser {
    token: TokenDigest,
    user: UserInfo,
}

/// Users authenticated by static bearer tokens.
#[derive(Clone, Default)]
pub struct StaticUsers {
    users: Vec<StaticUser>,
}

impl StaticUsers {
    /// No users.
    pub fn empty() -> Self {
        StaticUsers::default()
    }

    /// Parses the users file (see docs/access.md for the format).
    pub fn from_yaml(text: &str) -> Result<Self, UsersFileError> {
        if text.len() > MAX_USERS_FILE_BYTES {
            return Err(UsersFileError::TooLarge { size: text.len() });
        }
        // Parsed into a generic tree first so that every message is ours: the parser's own
        // messages quote the input, which holds tokens.
        let document: Value = serde_saphyr::from_str(text).map_err(|err| {
            let location = err.location();
            UsersFileError::Syntax {
                line: location.as_ref().map(|l| l.line()),
                column: location.as_ref().map(|l| l.column()),
            }
        })?;
        let entries = match document {
            Value::Null => return Ok(StaticUsers::empty()),
            Value::Object(top) => {
                if let Some(field) = top.keys().find(|key| *key != "users") {
                    return Err(UsersFileError::UnknownTopLevelField { field: field.clone() });
                }
                match top.get("users") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(entries)) => entries.clone(),
                    Some(_) => return Err(UsersFileError::UsersNotAList),
                }
            }
            _ => return Err(UsersFileError::NotAMapping),
        };
        let mut users: Vec<StaticUser> = Vec::with_capacity(entries.len());
        for (index, entry) in entries.iter().enumerate() {
            let user = entry_user(index, entry)?;
            if let Some(first) = users.iter().position(|u| digests_equal(&u.token, &user.token)) {
                return Err(UsersFileError::DuplicateToken { index, first });
            }
            users.push(user);
        }
        Ok(StaticUsers { users })
    }

    pub fn len(&self) -> usize {
        self.users.len()
    }

    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// The user whose token this is. Every entry is compared, each in constant time.
    pub(crate) fn find(&self, token: &[u8]) -> Option<&UserInfo> {
        let wanted = digest(token);
        let mut found = None;
        for user in &self.users {
            if digests_equal(&user.token, &wanted) && found.is_none() {
                found = Some(&user.user);
            }
        }
        found
    }

    /// The index of the entry using this token digest.
    pub(crate) fn position(&self, token: &TokenDigest) -> Option<usize> {
        self.users.iter().position(|user| digests_equal(&user.token, token))
    }
}

impl fmt::Debug for StaticUsers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.users.iter().map(|u| u.user.username.as_str()).collect();
        f.debug_struct("StaticUsers").field("usernames", &names).finish()
    }
}

fn entry_user(index: usize, entry: &Value) -> Result<StaticUser, UsersFileError> {
    let Value::Object(fields) = entry else {
        return Err(UsersFileError::EntryNotAMapping { index });
    };
    if let Some(field) = fields.keys().find(|key| !FIELDS.contains(&key.as_str())) {
        return Err(UsersFileError::UnknownField { index, field: field.clone() });
    }
    let token = required_string(index, fields, "token")?;
    if token.len() > MAX_BEARER_TOKEN_BYTES {
        return Err(UsersFileError::TokenTooLong { index });
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(UsersFileError::TokenCharacters { index });
    }
    let username = required_string(index, fields, "username")?;
    if username.starts_with(SERVICE_ACCOUNT_PREFIX) {
        return Err(UsersFileError::ServiceAccountUsername { index, username });
    }
    let uid = match fields.get("uid") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(uid)) => uid.clone(),
        Some(_) => return Err(wrong_type(index, "uid", "a string")),
    };
    let groups = match fields.get("groups") {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => string_list(index, "groups", value)?,
    };
    let extra = match fields.get("extra") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Object(map)) => {
            let mut extra = BTreeMap::new();
            for (key, values) in map {
                if key.is_empty() {
                    return Err(UsersFileError::Empty { index, field: "extra key".into() });
                }
                extra.insert(key.clone(), string_list(index, &format!("extra.{key}"), values)?);
            }
            extra
        }
        Some(_) => {
            return Err(wrong_type(index, "extra", "a mapping from keys to lists of strings"));
        }
    };
    Ok(StaticUser {
        token: digest(token.as_bytes()),
        user: UserInfo { username, uid, groups, extra },
    })
}

fn required_string(
    index: usize,
    fields: &Map<String, Value>,
    field: &'static str,
) -> Result<String, UsersFileError> {
    match fields.get(field) {
        None | Some(Value::Null) => Err(UsersFileError::Missing { index, field }),
        Some(Value::String(s)) if s.is_empty() => {
            Err(UsersFileError::Empty { index, field: field.to_owned() })
        }
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(wrong_type(index, field, "a string")),
    }
}

/// A list of non-empty strings.
fn string_list(index: usize, field: &str, value: &Value) -> Result<Vec<String>, UsersFileError> {
    let Value::Array(items) = value else {
        return Err(wrong_type(index, field, "a list of strings"));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) if s.is_empty() => {
                Err(UsersFileError::Empty { index, field: format!("{field}[{i}]") })
            }
            Value::String(s) => Ok(s.clone()),
            _ => Err(wrong_type(index, &format!("{field}[{i}]"), "a string")),
        })
        .collect()
}

fn wrong_type(index: usize, field: &str, expected: &'static str) -> UsersFileError {
    UsersFileError::WrongType { index, field: field.to_owned(), expected }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
users:
- token: alice-token
  username: alice
  uid: "1001"
  groups: [team-a, team-b]
  extra:
    scopes: [read, write]
- token: bob-token
  username: bob
"#;

    #[test]
    fn parses_the_documented_format() {
        let users = StaticUsers::from_yaml(FILE).expect("valid file");
        assert_eq!(users.len(), 2);
        let alice = users.find(b"alice-token").expect("alice");
        assert_eq!(alice.username, "alice");
        assert_eq!(alice.uid, "1001");
        assert_eq!(alice.groups, ["team-a", "team-b"]);
        assert_eq!(
            alice.extra.get("scopes").map(Vec::as_slice),
            Some(&["read".to_owned(), "write".to_owned()][..])
        );
        let bob = users.find(b"bob-token").expect("bob");
        assert_eq!((bob.uid.as_str(), bob.groups.len(), bob.extra.len()), ("", 0, 0));
        assert!(users.find(b"alice-toke").is_none());
        assert!(users.find(b"").is_none());
        assert_eq!(format!("{users:?}"), r#"StaticUsers { usernames: ["alice", "bob"] }"#);
        assert!(StaticUsers::from_yaml("").expect("empty").is_empty());
        assert!(StaticUsers::from_yaml("users: []").expect("no users").is_empty());
    }

    #[test]
    fn refuses_bad_files_with_pointed_messages() {
        #[rustfmt::skip]
        let cases: &[(&str, &str)] = &[
            ("- a", "the users file must be a mapping with a `users` list, e.g. `users: [{token: t0ken, username: alice}]`"),
            ("user: []", r#"the users file has an unknown top-level field "user"; the only field is `users`"#),
            ("users: {}", "`users` must be a list of entries, each with a `token` and a `username`"),
            ("users: [x]", "users[0] must be a mapping with a `token` and a `username`"),
            ("users: [{token: t, username: u, group: [a]}]", r#"users[0] has an unknown field "group"; the fields are token, username, uid, groups and extra"#),
            ("users: [{username: u}]", "users[0].token is required"),
            ("users: [{token: t}]", "users[0].username is required"),
            ("users: [{token: '', username: u}]", "users[0].token must not be empty"),
            ("users: [{token: t, username: ''}]", "users[0].username must not be empty"),
            ("users: [{token: 12345, username: u}]", "users[0].token must be a string; quote values that YAML would read as numbers, booleans or null"),
            ("users: [{token: t, username: u, uid: 7}]", "users[0].uid must be a string; quote values that YAML would read as numbers, booleans or null"),
            ("users: [{token: t, username: u, groups: a}]", "users[0].groups must be a list of strings; quote values that YAML would read as numbers, booleans or null"),
            ("users: [{token: t, username: u, groups: [a, 1]}]", "users[0].groups[1] must be a string; quote values that YAML would read as numbers, booleans or null"),
            ("users: [{token: t, username: u, groups: ['']}]", "users[0].groups[0] must not be empty"),
            ("users: [{token: t, username: u, extra: [a]}]", "users[0].extra must be a mapping from keys to lists of strings; quote values that YAML would read as numbers, booleans or null"),
            ("users: [{token: t, username: u, extra: {k: v}}]", "users[0].extra.k must be a list of strings; quote values that YAML would read as numbers, booleans or null"),
            ("users: [{token: 'a b', username: u}]", "users[0].token must be printable ASCII without spaces, as it is sent in `Authorization: Bearer <token>`"),
            ("users: [{token: t, username: a}, {token: s, username: b}, {token: t, username: c}]", "users[2].token is the same as users[0].token; give every user a token of their own"),
            ("users: [{token: t, username: 'system:serviceaccount:ns:sa'}]", r#"users[0].username "system:serviceaccount:ns:sa" starts with `system:serviceaccount:`; ServiceAccounts authenticate with tokens from `kubectl create token`, not from the users file"#),
        ];
        for (text, message) in cases {
            let error = StaticUsers::from_yaml(text).err().map(|e| e.to_string());
            assert_eq!(error.as_deref(), Some(*message), "{text}");
        }
    }

    #[test]
    fn syntax_errors_give_a_place_but_not_the_text() {
        let error =
            StaticUsers::from_yaml("users:\n- token: s3cr3t-t0ken\n  username: [unclosed\n")
                .expect_err("invalid YAML");
        let message = error.to_string();
        assert!(message.starts_with("the users file is not valid YAML"), "{message}");
        assert!(!message.contains("s3cr3t"), "{message}");
        assert!(matches!(error, UsersFileError::Syntax { line: Some(_), .. }), "{message}");
    }

    #[test]
    fn bounds_sizes() {
        let huge = format!("users: []\n#{}", "x".repeat(MAX_USERS_FILE_BYTES));
        assert!(matches!(StaticUsers::from_yaml(&huge), Err(UsersFileError::TooLarge { .. })));
        let long =
            format!("users: [{{token: {}, username: u}}]", "t".repeat(MAX_BEARER_TOKEN_BYTES + 1));
        assert!(matches!(
            StaticUsers::from_yaml(&long),
            Err(UsersFileError::TokenTooLong { index: 0 })
        ));
    }

    #[test]
    fn constant_time_equality_is_equality() {
        let a = digest(b"a");
        assert!(digests_equal(&a, &digest(b"a")));
        assert!(!digests_equal(&a, &digest(b"b")));
    }
}
