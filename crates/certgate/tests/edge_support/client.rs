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

/// [`get`], `client` presenting `chain` (its issuers) after its own certificate.
pub fn get_with_chain(
    addr: SocketAddr,
    pki: &Pki,
    client: &Leaf,
    chain: &[CertificateDer<'static>],
) -> Answer {
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
    let name = ServerName::try_from(SERVER_NAME).unwrap();
    let mut conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let mut socket = match TcpStream::connect_timeout(&addr, IO_TIMEOUT) {
        Ok(socket) => socket,
        Err(err) => return Answer::Refused(format!("connect: {err}")),
    };
    socket.set_read_timeout(Some(IO_TIMEOUT)).unwrap();
    socket.set_write_timeout(Some(IO_TIMEOUT)).unwrap();
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
