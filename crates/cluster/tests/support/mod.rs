//! An in-process stand-in for the API server: canned JSON per method and path, and a log
//! of every request the client sent, so tests can assert bodies and count round trips.
#![allow(dead_code)] // each test binary uses a different part of the helper

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use http::{Method, Request, Response, StatusCode};
use kube::client::Body;
use serde_json::{Value, json};

#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    pub method: Method,
    pub path: String,
    /// The JSON request body, `Value::Null` when there was none.
    pub body: Value,
}

#[derive(Default)]
pub struct FakeApi {
    routes: Mutex<HashMap<(Method, String), (StatusCode, Value)>>,
    log: Mutex<Vec<Recorded>>,
}

impl FakeApi {
    pub fn new() -> Arc<Self> {
        Arc::new(FakeApi::default())
    }

    /// Answers `method path` with `status` and `body` from now on (replacing any earlier answer).
    pub fn respond(&self, method: Method, path: &str, status: u16, body: Value) {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        self.routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((method, path.to_owned()), (status, body));
    }

    /// Stops answering `method path`: the fake then replies 404 like an API server.
    pub fn forget(&self, method: Method, path: &str) {
        self.routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(method, path.to_owned()));
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Requests sent so far, as `METHOD path` lines.
    pub fn calls(&self) -> Vec<String> {
        self.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect()
    }

    pub fn client(self: &Arc<Self>) -> kube::Client {
        let fake = Arc::clone(self);
        let service = tower::service_fn(move |request: Request<Body>| {
            let fake = Arc::clone(&fake);
            async move { Ok::<_, Infallible>(fake.handle(request).await) }
        });
        kube::Client::new(service, "default")
    }

    async fn handle(&self, request: Request<Body>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let bytes = body.collect_bytes().await.map(|b| b.to_vec()).unwrap_or_default();
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or(Value::String(String::from_utf8_lossy(&bytes).into()))
        };
        let path = parts.uri.path().to_owned();
        self.log.lock().unwrap_or_else(PoisonError::into_inner).push(Recorded {
            method: parts.method.clone(),
            path: path.clone(),
            body,
        });
        let answer = self
            .routes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(parts.method, path))
            .cloned();
        let (status, body) = answer.unwrap_or_else(|| (StatusCode::NOT_FOUND, not_found()));
        let mut response = Response::new(Body::from(body.to_string().into_bytes()));
        *response.status_mut() = status;
        response
    }
}

/// The `Status` the API server sends for a path it does not serve.
pub fn not_found() -> Value {
    status_body(404, "NotFound", "the server could not find the requested resource")
}

pub fn status_body(code: u16, reason: &str, message: &str) -> Value {
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    })
}
