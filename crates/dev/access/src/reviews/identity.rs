//! SelfSubjectReview and TokenReview (`authentication.k8s.io/v1`): "who am I?"
//! (`kubectl auth whoami`) and "who does this token belong to?".

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value, json};

use super::ReviewError;
use crate::UserInfo;
use crate::authn::{Authenticator, ISSUER, ServiceAccounts};
use crate::decode::{Decoder, Field};
use crate::status::StatusError;

const API_VERSION: &str = "authentication.k8s.io/v1";

/// `POST /apis/authentication.k8s.io/v1/selfsubjectreviews`: the requester's identity.
pub fn self_subject_review(requester: &UserInfo, now: DateTime<Utc>) -> Value {
    json!({
        "kind": "SelfSubjectReview",
        "apiVersion": API_VERSION,
        "metadata": { "creationTimestamp": now.to_rfc3339_opts(SecondsFormat::Secs, true) },
        "status": { "userInfo": user_info(requester) },
    })
}

/// `POST /apis/authentication.k8s.io/v1/tokenreviews`: authenticates `spec.token` for
/// `spec.audiences` (default: the API server's) as a request carrying it would be.
pub fn token_review(
    body: &Value,
    authenticator: &Authenticator,
    accounts: &dyn ServiceAccounts,
    now: DateTime<Utc>,
) -> Result<Value, ReviewError> {
    let decoder = Decoder { kind: "TokenReview" };
    let bad = ReviewError::BadRequest;
    let root = decoder.root(body).map_err(bad)?;
    let spec = decoder
        .object(
            root.get("spec"),
            Field { go_struct: "TokenReview", path: "spec" },
            "v1.TokenReviewSpec",
        )
        .map_err(bad)?;
    let field = |path| Field { go_struct: "TokenReviewSpec", path };
    let token =
        decoder.string(spec.and_then(|s| s.get("token")), field("spec.token")).map_err(bad)?;
    let requested = decoder
        .strings(spec.and_then(|s| s.get("audiences")), field("spec.audiences"))
        .map_err(bad)?;
    if token.is_empty() {
        return Err(ReviewError::BadRequest(StatusError::bad_request(
            "token is required for TokenReview in authentication",
        )));
    }
    let audiences = if requested.is_empty() { vec![ISSUER.to_owned()] } else { requested.clone() };
    // The review authenticates a request with nothing but this header.
    let header = format!("Bearer {token}");
    let mut status = Map::new();
    match authenticator.authenticate_for(Some(header.as_bytes()), &audiences, now, accounts) {
        Ok(authenticated) => {
            // Only anonymous answers come without audiences (a token starting with a space
            // reads as no token); kube-apiserver refuses to vouch for them.
            if !authenticated.audiences.iter().any(|a| audiences.contains(a)) {
                return Err(ReviewError::Internal(StatusError::internal(
                    "error validating audiences",
                )));
            }
            status.insert("authenticated".into(), true.into());
            status.insert("user".into(), user_info(&authenticated.user));
            status.insert("audiences".into(), authenticated.audiences.into());
        }
        Err(error) => {
            status.insert("user".into(), json!({}));
            status.insert("error".into(), error.to_string().into());
        }
    }
    let mut spec = Map::new();
    spec.insert("token".into(), token.into());
    if !requested.is_empty() {
        spec.insert("audiences".into(), requested.into());
    }
    Ok(json!({
        "kind": "TokenReview",
        "apiVersion": API_VERSION,
        "metadata": { "creationTimestamp": null },
        "spec": Value::Object(spec),
        "status": Value::Object(status),
    }))
}

/// `authentication/v1.UserInfo`: empty fields left out.
fn user_info(user: &UserInfo) -> Value {
    let mut map = Map::new();
    if !user.username.is_empty() {
        map.insert("username".into(), user.username.clone().into());
    }
    if !user.uid.is_empty() {
        map.insert("uid".into(), user.uid.clone().into());
    }
    if !user.groups.is_empty() {
        map.insert("groups".into(), user.groups.clone().into());
    }
    if !user.extra.is_empty() {
        map.insert("extra".into(), json!(user.extra));
    }
    Value::Object(map)
}
