//! Mutual TLS between Envoy and the xDS server, as `contour serve` sets it up: the server
//! presents its certificate, and accepts only clients presenting a certificate signed by the
//! CA given (Envoy's, from `certgate edge bootstrap --envoy-cert-file`).
//!
//! The three files are read again when any of them changes (checked at each new connection,
//! as Contour reads them per handshake), so a rotated certificate is served without a restart;
//! a rotation caught half-written (a key that does not match the certificate) is refused and
//! the previous configuration kept. Handshakes run in their own tasks with a deadline, so a
//! client that connects and says nothing holds no other connection up.

use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use certgate_serving::{PemPair, TlsError, mutual_tls_server_config};
use futures_util::Stream;
use rustls::ServerConfig;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// How long a client may take to complete its TLS handshake.
const HANDSHAKE_DEADLINE: Duration = Duration::from_secs(10);
/// Completed handshakes waiting for the gRPC server to take them.
const READY_CONNECTIONS: usize = 64;

/// The xDS server's certificate and key, and the CA that signs its clients' certificates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XdsTlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub client_ca: PathBuf,
}

/// The current server configuration, rebuilt when the files change.
pub struct ReloadingTls {
    files: XdsTlsFiles,
    current: Mutex<(Stamp, Arc<ServerConfig>)>,
}

/// What identifies the files' contents cheaply: their modification times and lengths.
type Stamp = Vec<(Option<SystemTime>, u64)>;

impl ReloadingTls {
    /// Reads the files; fails when they do not make a usable configuration.
    pub fn load(files: XdsTlsFiles) -> Result<ReloadingTls, TlsError> {
        let stamp = stamp(&files);
        let config = build(&files)?;
        Ok(ReloadingTls { files, current: Mutex::new((stamp, config)) })
    }

    /// The configuration for a new connection: rebuilt first when a file changed.
    pub fn config(&self) -> Arc<ServerConfig> {
        let now = stamp(&self.files);
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if current.0 != now {
            match build(&self.files) {
                Ok(config) => {
                    tracing::info!(cert = %self.files.cert.display(), "xDS server certificate files changed; reloaded");
                    *current = (now, config);
                }
                // Kept, and tried again at the next connection: the files may be mid-rotation.
                Err(error) => tracing::warn!(cert = %self.files.cert.display(), error = %error,
                    "xDS server certificate files changed but cannot be used; keeping the previous ones"),
            }
        }
        current.1.clone()
    }
}

fn stamp(files: &XdsTlsFiles) -> Stamp {
    [&files.cert, &files.key, &files.client_ca]
        .into_iter()
        .map(|path| match std::fs::metadata(path) {
            Ok(meta) => (meta.modified().ok(), meta.len()),
            Err(_) => (None, 0),
        })
        .collect()
}

fn build(files: &XdsTlsFiles) -> Result<Arc<ServerConfig>, TlsError> {
    let read = |role: &'static str, path: &PathBuf| {
        std::fs::read(path).map_err(|source| TlsError::Read { role, path: path.clone(), source })
    };
    let pair = PemPair {
        cert: read("TLS certificate", &files.cert)?,
        key: read("TLS private key", &files.key)?,
    };
    mutual_tls_server_config(&pair, &read("client CA", &files.client_ca)?)
}

/// A client connection after its handshake.
pub struct TlsConnection(TlsStream<TcpStream>);

impl Connected for TlsConnection {
    // The TCP peer, so the xDS streams log the address Envoy connects from.
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.0.get_ref().0.connect_info()
    }
}

impl AsyncRead for TlsConnection {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for TlsConnection {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// The connections accepted on `listener` whose clients completed a mutual-TLS handshake.
/// Refused handshakes are logged and dropped; the stream ends, and accepting stops, when it
/// is dropped.
pub fn incoming(
    listener: TcpListener,
    tls: Arc<ReloadingTls>,
) -> impl Stream<Item = io::Result<TlsConnection>> + Send + 'static {
    let (ready, mut taken) = mpsc::channel(READY_CONNECTIONS);
    let accepting = tokio::spawn(accept(listener, tls, ready));
    let guard = AbortOnDrop(accepting);
    futures_util::stream::poll_fn(move |cx| {
        let _keep = &guard;
        taken.poll_recv(cx).map(|next| next.map(Ok))
    })
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

async fn accept(listener: TcpListener, tls: Arc<ReloadingTls>, ready: mpsc::Sender<TlsConnection>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors and the like: wait instead of spinning.
                tracing::warn!(error = %error, "xDS server cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let acceptor = TlsAcceptor::from(tls.config());
        let ready = ready.clone();
        tokio::spawn(async move {
            match tokio::time::timeout(HANDSHAKE_DEADLINE, acceptor.accept(stream)).await {
                Ok(Ok(connection)) => {
                    let _ = ready.send(TlsConnection(connection)).await;
                }
                Ok(Err(error)) => {
                    tracing::warn!(peer = %peer, error = %error, "xDS client refused: TLS handshake failed");
                }
                Err(_) => {
                    tracing::warn!(peer = %peer, "xDS client refused: no TLS handshake within 10 s");
                }
            }
        });
    }
}
