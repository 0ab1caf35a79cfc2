//! A rustls client: TLS with SNI [`SERVER_NAME`], a client certificate, `GET /`.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};

use super::pki::{Leaf, Pki, SERVER_NAME};

const IO_TIMEOUT: Duration = Duration::from_secs(20);

/// What the client saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The HTTP status line and the body.
    Http { status: String, body: String },
    /// No HTTP answer: the connection, the handshake or the read failed (a refused client
    /// certificate shows as an alert or, with TLS 1.3, as EOF after the handshake).
    Refused(String),
}

impl Answer {
    pub fn is_ok_with(&self, body: &str) -> bool {
        matches!(self, Answer::Http { status, body: b } if status.starts_with("HTTP/1.1 200") && b.contains(body))
    }
}

/// `GET /` to `addr` over TLS, presenting `client`.
pub fn get(addr: SocketAddr, pki: &Pki, client: &Leaf) -> Answer {
    get_with_chain(addr, pki, client, &[])
}

/// The rustls configuration of a client presenting `client` and then `chain` (its issuers),
/// trusting the serving CA of `pki`.
fn config(
    pki: &Pki,
    client: &Leaf,
    chain: &[CertificateDer<'static>],
) -> Arc<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    roots.add(pki.server_ca.clone()).unwrap();
    let mut certs = vec![client.der.clone()];
    certs.extend(chain.iter().cloned());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_client_auth_cert(
            certs,
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(client.key_der.clone())),
        )
        .unwrap();
    Arc::new(config)
}

fn connect(addr: SocketAddr) -> Result<TcpStream, String> {
    let socket =
        TcpStream::connect_timeout(&addr, IO_TIMEOUT).map_err(|e| format!("connect: {e}"))?;
    socket.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    socket.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
    Ok(socket)
}

/// [`get`], `client` presenting `chain` (its issuers) after its own certificate.
pub fn get_with_chain(
    addr: SocketAddr,
    pki: &Pki,
    client: &Leaf,
    chain: &[CertificateDer<'static>],
) -> Answer {
    let name = ServerName::try_from(SERVER_NAME).unwrap();
    let mut conn = rustls::ClientConnection::new(config(pki, client, chain), name).unwrap();
    let mut socket = match connect(addr) {
        Ok(socket) => socket,
        Err(err) => return Answer::Refused(err),
    };
    let mut tls = rustls::Stream::new(&mut conn, &mut socket);
    let request = format!("GET / HTTP/1.1\r\nHost: {SERVER_NAME}\r\nConnection: close\r\n\r\n");
    if let Err(err) = tls.write_all(request.as_bytes()).and_then(|()| tls.flush()) {
        return Answer::Refused(format!("write: {err}"));
    }
    let mut response = Vec::new();
    let read = tls.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response).into_owned();
    match response.split_once("\r\n\r\n") {
        Some((head, body)) => Answer::Http {
            status: head.lines().next().unwrap_or_default().to_owned(),
            body: body.to_owned(),
        },
        None => Answer::Refused(match read {
            Err(err) => format!("read: {err}"),
            Ok(_) => format!("no HTTP answer: {response:?}"),
        }),
    }
}

/// One response on a kept-alive connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: String,
    /// Header lines, names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// A TLS connection kept open across requests (HTTP/1.1 keep-alive), to see whether a
/// configuration change ends it.
pub struct Held {
    tls: rustls::StreamOwned<rustls::ClientConnection, TcpStream>,
}

impl Held {
    pub fn open(addr: SocketAddr, pki: &Pki, client: &Leaf) -> Result<Held, String> {
        let name = ServerName::try_from(SERVER_NAME).unwrap();
        let conn = rustls::ClientConnection::new(config(pki, client, &[]), name).unwrap();
        Ok(Held { tls: rustls::StreamOwned::new(conn, connect(addr)?) })
    }

    /// `GET /` on this connection; the body read by `content-length`.
    pub fn get(&mut self) -> Result<Response, String> {
        let request = format!("GET / HTTP/1.1\r\nHost: {SERVER_NAME}\r\n\r\n");
        self.tls
            .write_all(request.as_bytes())
            .and_then(|()| self.tls.flush())
            .map_err(|e| format!("write: {e}"))?;
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            match self.tls.read(&mut byte) {
                Ok(1) => head.push(byte[0]),
                Ok(_) => return Err(format!("closed after {:?}", String::from_utf8_lossy(&head))),
                Err(err) => return Err(format!("read: {err}")),
            }
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        let mut lines = head.lines();
        let status = lines.next().unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let length: usize = headers
            .iter()
            .find(|(n, _)| n == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .ok_or_else(|| format!("no content-length in {head:?}"))?;
        let mut body = vec![0u8; length];
        self.tls.read_exact(&mut body).map_err(|e| format!("read body: {e}"))?;
        Ok(Response { status, headers, body: String::from_utf8_lossy(&body).into_owned() })
    }
}
