//! `POST .../serviceaccounts/<name>/token` (TokenRequest, what `kubectl create token` sends):
//! a signed, bound, expiring service-account token.

use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

use crate::api::{key, parse_body};
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;
use crate::writes::Answer;

pub fn create(
    sandbox: &Sandbox,
    target: &Target,
    name: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Answer {
    let namespace = target.namespace.as_deref().unwrap_or_default();
    let account = sandbox
        .store
        .get(&key(target, name))
        .ok_or_else(|| ApiError::not_found(&target.resource.qualified_plural(), name))?;
    let account_uid = uid(&account.object);
    let request = parse_body(headers, body)?;
    let secret = certgate_access::bound_secret_name(&request).and_then(|secret| {
        let resource = sandbox.registry.get("", "v1", "secrets")?;
        let secrets = Target { resource, ..target.clone() };
        let stored = sandbox.store.get(&key(&secrets, &secret))?;
        Some((secret, uid(&stored.object).to_owned()))
    });
    let token = certgate_access::token_request(
        sandbox.authenticator.signer(),
        &request,
        namespace,
        name,
        account_uid,
        secret.as_ref().map(|(name, uid)| (name.as_str(), uid.as_str())),
        chrono::Utc::now(),
    )
    .map_err(|err| ApiError::from(err.status()))?;
    Ok((StatusCode::CREATED, token))
}

fn uid(object: &Value) -> &str {
    object.pointer("/metadata/uid").and_then(Value::as_str).unwrap_or_default()
}
