//! An in-process stand-in for the API server: canned JSON per method and path (optionally
//! preceded by one-off replies, including broken connections), and a log of every request
//! the client sent, so tests can assert bodies and count round trips.
#![allow(dead_code)] // each test binary uses a different part of the helper

use std::collections::{HashMap, VecDeque};
use std::io;
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

/// A one-off reply queued with [`FakeApi::then`].
#[derive(Clone, Debug)]
pub enum Reply {
    /// An HTTP answer: status code and JSON body.
    Answer(u16, Value),
    /// No answer: the connection fails with this I/O error kind, as a reset socket would.
    Broken(io::ErrorKind),
}

type Route = (Method, String);

#[derive(Default)]
pub struct FakeApi {
    routes: Mutex<HashMap<Route, (StatusCode, Value)>>,
    queued: Mutex<HashMap<Route, VecDeque<Reply>>>,
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

    /// Queues `reply` for the next request to `method path` not taken by an earlier queued
    /// reply; once the queue is empty the [`FakeApi::respond`] answer applies again.
    pub fn then(&self, method: Method, path: &str, reply: Reply) {
        self.queued
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry((method, path.to_owned()))
            .or_default()
            .push_back(reply);
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
            async move { fake.handle(request).await }
        });
        kube::Client::new(service, "default")
    }

    async fn handle(&self, request: Request<Body>) -> Result<Response<Body>, io::Error> {
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
        let route = (parts.method, path);
        let queued = self
            .queued
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(&route)
            .and_then(VecDeque::pop_front);
        let (status, body) = match queued {
            Some(Reply::Broken(kind)) => {
                return Err(io::Error::new(kind, "the fake API server dropped the connection"));
            }
            Some(Reply::Answer(status, body)) => {
                (StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), body)
            }
            None => self
                .routes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&route)
                .cloned()
                .unwrap_or_else(|| (StatusCode::NOT_FOUND, not_found())),
        };
        let mut response = Response::new(Body::from(body.to_string().into_bytes()));
        *response.status_mut() = status;
        Ok(response)
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
