//! The filters every request passes before a handler, in kube-apiserver's order:
//! authentication (bearer token, or anonymous), impersonation (when the caller may), then
//! authorization of what the request asks for. The handler finds the resulting user in the
//! request's extensions.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use certgate_access::{
    Impersonation, RequestAuthorizer, ServiceAccounts, StatusError, forbidden_status,
    request_attributes,
};
use certgate_rbac::UserInfo;

use crate::api::key;
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;

/// Authenticates, impersonates and authorizes; answers 401, 403 (or 400/500 for malformed
/// requests) itself, or passes the request on with its [`UserInfo`].
pub async fn filter(
    State(sandbox): State<Arc<Sandbox>>,
    mut request: Request,
    next: Next,
) -> Response {
    match admit(&sandbox, &request) {
        Ok(user) => {
            request.extensions_mut().insert(user);
            next.run(request).await
        }
        Err(Refusal::Api(err)) => err.into_response(),
        Err(Refusal::PlainInternal(body)) => plain_internal_error(body),
    }
}

/// How a request is refused before its handler.
enum Refusal {
    Api(ApiError),
    /// kube-apiserver's filters answer some malformed requests with a plain-text 500.
    PlainInternal(String),
}

impl From<ApiError> for Refusal {
    fn from(err: ApiError) -> Self {
        Refusal::Api(err)
    }
}

impl From<StatusError> for Refusal {
    fn from(err: StatusError) -> Self {
        Refusal::Api(err.into())
    }
}

fn plain_internal_error(body: String) -> Response {
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

fn admit(sandbox: &Sandbox, request: &Request) -> Result<UserInfo, Refusal> {
    let authorization = request.headers().get(header::AUTHORIZATION).map(|v| v.as_bytes());
    let user = sandbox
        .authenticator
        .authenticate(authorization, chrono::Utc::now(), &StoredAccounts(sandbox))
        .map_err(|err| {
            // The reason goes to the log only: clients learn nothing about tokens.
            tracing::info!(reason = %err.detail(), path = %request.uri().path(), "request not authenticated");
            StatusError::unauthorized()
        })?;
    let authorizer = sandbox.authorizer();
    let headers = request.headers().iter().map(|(name, value)| (name.as_str(), value.as_bytes()));
    let user = match Impersonation::from_headers(headers) {
        Ok(None) => user,
        Ok(Some(impersonation)) => {
            impersonation.authorize(&user, &*authorizer).inspect_err(|err| {
                tracing::info!(user = %user.username, path = %request.uri().path(), reason = %err.message, "impersonation refused");
            })?
        }
        Err(err) => {
            let body = err.plain_text_body(&uri(request));
            tracing::info!(user = %user.username, path = %request.uri().path(), reason = %body.trim_end(), "impersonation headers refused");
            return Err(Refusal::PlainInternal(body));
        }
    };
    let attributes = request_attributes(
        request.method().as_str(),
        request.uri().path(),
        request.uri().query().unwrap_or_default(),
    )
    .map_err(|err| {
        let body = certgate_access::plain_internal_error(&uri(request), &err);
        tracing::info!(user = %user.username, path = %request.uri().path(), reason = %body.trim_end(), "request attributes refused");
        Refusal::PlainInternal(body)
    })?;
    let decision = RequestAuthorizer::authorize(&*authorizer, &user, &attributes);
    if !decision.allowed {
        let status = forbidden_status(&user.username, &attributes, &decision.reason);
        tracing::info!(user = %user.username, method = %request.method(), path = %request.uri().path(), reason = %status.message, "request forbidden");
        return Err(status.into());
    }
    Ok(user)
}

/// The request URI as Go prints it in plain-text errors: path, then `?query`.
fn uri(request: &Request) -> String {
    request
        .uri()
        .path_and_query()
        .map_or_else(|| request.uri().path().to_owned(), |pq| pq.as_str().to_owned())
}

/// ServiceAccounts and Secrets as stored now: a token of a deleted (or deleted and
/// re-created) ServiceAccount, or bound to a deleted Secret, no longer authenticates.
pub(crate) struct StoredAccounts<'a>(pub &'a Sandbox);

impl StoredAccounts<'_> {
    fn uid(&self, plural: &str, namespace: &str, name: &str) -> Option<String> {
        let resource = self.0.registry.get("", "v1", plural)?;
        let target = Target {
            resource,
            namespace: Some(namespace.to_owned()),
            name: None,
            subresource: None,
        };
        let stored = self.0.store.get(&key(&target, name))?;
        stored.object.pointer("/metadata/uid").and_then(|u| u.as_str()).map(str::to_owned)
    }
}

impl ServiceAccounts for StoredAccounts<'_> {
    fn service_account_uid(&self, namespace: &str, name: &str) -> Option<String> {
        self.uid("serviceaccounts", namespace, name)
    }

    fn secret_uid(&self, namespace: &str, name: &str) -> Option<String> {
        self.uid("secrets", namespace, name)
    }
}
