//! HTTPS POSTs to webhooks over kept-alive HTTP/1.1 connections. One [`Transport`] exists per
//! distinct caBundle; it keeps idle connections per host and port for reuse.

pub(crate) mod endpoint;
mod go_errors;
mod tls;

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;
use std::time::Duration;

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::call_error::CallError;
use crate::review::HttpAnswer;
pub(crate) use endpoint::Endpoint;

/// The most response body read from a webhook: the API server's own request body limit.
pub(crate) const MAX_RESPONSE_BYTES: usize = 3 * 1024 * 1024;
/// Idle connections kept per host and port.
const MAX_IDLE_PER_HOST: usize = 8;

type Sender = SendRequest<Full<Bytes>>;

pub(crate) struct Transport {
    connector: TlsConnector,
    has_ca_bundle: bool,
    idle: Mutex<HashMap<(String, u16), Vec<Sender>>>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("has_ca_bundle", &self.has_ca_bundle)
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// A transport trusting exactly the certificates in `ca_bundle` (PEM).
    pub(crate) fn new(ca_bundle: &[u8]) -> Result<Transport, CallError> {
        Ok(Transport {
            connector: TlsConnector::from(tls::client_config(ca_bundle)?),
            has_ca_bundle: !ca_bundle.is_empty(),
            idle: Mutex::new(HashMap::new()),
        })
    }

    /// POSTs `body` as JSON, giving up after `timeout` with Go's deadline error.
    pub(crate) async fn post(
        &self,
        endpoint: &Endpoint,
        body: Vec<u8>,
        timeout: Duration,
    ) -> Result<HttpAnswer, CallError> {
        let failure = |cause: String| CallError::Transport { url: endpoint.url.clone(), cause };
        match tokio::time::timeout(timeout, self.exchange(endpoint, body)).await {
            Ok(result) => result.map_err(failure),
            Err(_) => Err(failure("context deadline exceeded".to_owned())),
        }
    }

    async fn exchange(&self, endpoint: &Endpoint, body: Vec<u8>) -> Result<HttpAnswer, String> {
        let mut request = Some(build_request(endpoint, body)?);
        // A pooled connection may have been closed by the server meanwhile; hyper hands the
        // request back when it never went out, and a fresh connection takes it.
        while let Some(mut sender) = self.take_idle(endpoint) {
            let Some(req) = request.take() else { break };
            match sender.try_send_request(req).await {
                Ok(response) => return self.finish(endpoint, sender, response).await,
                Err(mut error) => match error.take_message() {
                    Some(req) => request = Some(req),
                    None => return Err(go_errors::exchange(error.error())),
                },
            }
        }
        let Some(req) = request else { return Err("EOF".to_owned()) };
        let mut sender = self.connect(endpoint).await?;
        let response = sender.send_request(req).await.map_err(|e| go_errors::exchange(&e))?;
        self.finish(endpoint, sender, response).await
    }

    fn take_idle(&self, endpoint: &Endpoint) -> Option<Sender> {
        let mut idle = self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let senders = idle.get_mut(&(endpoint.host.clone(), endpoint.port))?;
        while let Some(sender) = senders.pop() {
            if !sender.is_closed() {
                return Some(sender);
            }
        }
        None
    }

    fn put_idle(&self, endpoint: &Endpoint, sender: Sender) {
        if sender.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let senders = idle.entry((endpoint.host.clone(), endpoint.port)).or_default();
        senders.retain(|s| !s.is_closed());
        if senders.len() < MAX_IDLE_PER_HOST {
            senders.push(sender);
        }
    }

    /// Reads the whole (bounded) body, then returns the connection to the pool.
    async fn finish(
        &self,
        endpoint: &Endpoint,
        sender: Sender,
        response: http::Response<hyper::body::Incoming>,
    ) -> Result<HttpAnswer, String> {
        let (parts, body) = response.into_parts();
        let collected = Limited::new(body, MAX_RESPONSE_BYTES).collect().await.map_err(|error| {
            if error.downcast_ref::<http_body_util::LengthLimitError>().is_some() {
                format!("the response body is larger than the {MAX_RESPONSE_BYTES} bytes the sandbox reads from a webhook")
            } else if let Some(hyper_error) = error.downcast_ref::<hyper::Error>() {
                go_errors::exchange(hyper_error)
            } else {
                error.to_string()
            }
        })?;
        self.put_idle(endpoint, sender);
        let content_type = parts
            .headers
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Ok(HttpAnswer {
            status: parts.status.as_u16(),
            content_type,
            body: collected.to_bytes().to_vec(),
        })
    }

    async fn connect(&self, endpoint: &Endpoint) -> Result<Sender, String> {
        let addresses: Vec<SocketAddr> = match endpoint.host.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, endpoint.port)],
            Err(_) => tokio::net::lookup_host((endpoint.host.as_str(), endpoint.port))
                .await
                .map_err(|e| go_errors::lookup(&endpoint.host, &e))?
                .collect(),
        };
        let mut last_error = format!("dial tcp: lookup {}: no such host", endpoint.host);
        let mut stream = None;
        for address in addresses {
            match TcpStream::connect(address).await {
                Ok(s) => {
                    stream = Some(s);
                    break;
                }
                Err(e) => last_error = go_errors::dial(&address.to_string(), &e),
            }
        }
        let stream = stream.ok_or(last_error)?;
        let _ = stream.set_nodelay(true);
        let server_name = ServerName::try_from(endpoint.host.clone()).map_err(|_| {
            format!("tls: invalid server name {}", certgate_gofmt::quote(&endpoint.host))
        })?;
        let tls = self
            .connector
            .connect(server_name, stream)
            .await
            .map_err(|e| go_errors::handshake(&e, &endpoint.host, !self.has_ca_bundle))?;
        let (sender, connection) =
            http1::handshake(TokioIo::new(tls)).await.map_err(|e| go_errors::exchange(&e))?;
        // The connection task ends when the connection closes or every sender is dropped.
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "webhook connection ended");
            }
        });
        Ok(sender)
    }
}

fn build_request(endpoint: &Endpoint, body: Vec<u8>) -> Result<http::Request<Full<Bytes>>, String> {
    http::Request::builder()
        .method(http::Method::POST)
        .uri(&endpoint.target)
        .header(http::header::HOST, &endpoint.authority)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json")
        .header(http::header::USER_AGENT, "kube-apiserver-admission")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| format!("net/http: invalid request: {e}"))
}
