//! A blocking rustls client: a fresh TCP connection, a TLS handshake with SNI and a client
//! certificate, `GET /`, the answer read to the end. One [`Client`] per (server name, client
//! certificate), its configuration built once so that a poll costs only the connection.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};

use super::pki::Leaf;

const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// What one request saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// An HTTP answer: its status line and body.
    Served { status: String, body: String },
    /// No HTTP answer: the connection, the handshake or the read failed. A refused client
    /// certificate shows, with TLS 1.3, as an alert on the first read.
    Refused(String),
}

impl Outcome {
    pub fn is_ok_with(&self, body: &str) -> bool {
        matches!(self, Outcome::Served { status, body: b } if status.starts_with("HTTP/1.1 200") && b.contains(body))
    }

    pub fn is_refused(&self) -> bool {
        matches!(self, Outcome::Refused(_))
    }

    /// The refusal as a short kind: the TLS alert, or the I/O error.
    pub fn kind(&self) -> String {
        match self {
            Outcome::Served { status, .. } => status.clone(),
            Outcome::Refused(text) => text.clone(),
        }
    }
}

pub struct Client {
    config: Arc<rustls::ClientConfig>,
    name: ServerName<'static>,
    host: String,
}

impl Client {
    /// A client trusting `server_ca` for `host`, presenting `leaf`.
    pub fn new(server_ca: &CertificateDer<'static>, leaf: &Leaf, host: &str) -> Client {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut roots = rustls::RootCertStore::empty();
        roots.add(server_ca.clone()).unwrap();
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_client_auth_cert(
                vec![leaf.der.clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf.key_der.clone())),
            )
            .unwrap();
        Client {
            config: Arc::new(config),
            name: ServerName::try_from(host.to_owned()).unwrap(),
            host: host.to_owned(),
        }
    }

    /// `GET /` on a new connection to `addr`.
    pub fn get(&self, addr: SocketAddr) -> Outcome {
        let mut conn =
            rustls::ClientConnection::new(self.config.clone(), self.name.clone()).unwrap();
        let mut socket = match TcpStream::connect_timeout(&addr, IO_TIMEOUT) {
            Ok(socket) => socket,
            Err(err) => return Outcome::Refused(format!("connect: {err}")),
        };
        socket.set_nodelay(true).unwrap();
        socket.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
        socket.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
        let mut tls = rustls::Stream::new(&mut conn, &mut socket);
        let request = format!("GET / HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n", self.host);
        if let Err(err) = tls.write_all(request.as_bytes()).and_then(|()| tls.flush()) {
            return Outcome::Refused(format!("write: {err}"));
        }
        let mut response = Vec::new();
        let read = tls.read_to_end(&mut response);
        let response = String::from_utf8_lossy(&response).into_owned();
        match response.split_once("\r\n\r\n") {
            Some((head, body)) => Outcome::Served {
                status: head.lines().next().unwrap_or_default().to_owned(),
                body: body.to_owned(),
            },
            None => Outcome::Refused(match read {
                Err(err) => format!("read: {err}"),
                Ok(_) => format!("no HTTP answer ({} bytes)", response.len()),
            }),
        }
    }

    /// [`Client::get`] with how long it took.
    pub fn timed_get(&self, addr: SocketAddr) -> (Outcome, Duration, Instant) {
        let started = Instant::now();
        let outcome = self.get(addr);
        let ended = Instant::now();
        (outcome, ended - started, ended)
    }

    /// Requests until `done` accepts an answer or `limit` passes. A fresh connection each
    /// time, no pause.
    pub fn poll_until(
        &self,
        addr: SocketAddr,
        limit: Duration,
        done: impl Fn(&Outcome) -> bool,
    ) -> Option<Polled> {
        let started = Instant::now();
        let (mut attempts, mut slowest) = (0, Duration::ZERO);
        loop {
            let before = Instant::now();
            let outcome = self.get(addr);
            attempts += 1;
            let now = Instant::now();
            slowest = slowest.max(now - before);
            if done(&outcome) {
                return Some(Polled { outcome, at: now, attempts, last: now - before, slowest });
            }
            if now - started > limit {
                return None;
            }
        }
    }
}

/// What [`Client::poll_until`] ended with.
pub struct Polled {
    /// The accepted answer and when its request ended.
    pub outcome: Outcome,
    pub at: Instant,
    /// Requests made, the accepted one included.
    pub attempts: usize,
    /// How long the accepted request took, and the slowest of all.
    pub last: Duration,
    pub slowest: Duration,
}
