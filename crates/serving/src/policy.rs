//! The limits every certgate server puts on a client connection.

use std::time::Duration;

/// Smallest HTTP/1 header budget hyper accepts as its read buffer (it panics below it), so
/// a smaller `max_header_bytes` is raised to this.
pub const MIN_HEADER_BYTES: usize = 8 * 1024;

/// How long a connection may take to get somewhere, and how much it may ask for.
///
/// A connection is closed (without a response: nobody is waiting for one) when
/// - its TLS handshake is not done `tls_handshake_timeout` after the TCP accept;
/// - its first request's headers are not complete `header_read_timeout` after the
///   connection is ready (TLS done, or accepted for plain HTTP);
/// - no request is in flight for `idle_timeout` after its last response (HTTP/1 keep-alive
///   and HTTP/2 alike), or, on HTTP/1, the next request's headers are not complete
///   `header_read_timeout` after its first byte;
/// - over HTTP/2, a keep-alive ping sent every `http2_keep_alive_interval` is not answered
///   within `http2_keep_alive_timeout` (this also ends long watches whose client vanished).
///
/// A request in flight (its response streaming, e.g. a watch) is never cut by these
/// timeouts: they govern only the time a connection spends waiting for a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionPolicy {
    pub tls_handshake_timeout: Duration,
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
    pub http2_keep_alive_interval: Duration,
    pub http2_keep_alive_timeout: Duration,
    /// Concurrent requests (streams) one HTTP/2 connection may have open.
    pub http2_max_concurrent_streams: u32,
    /// Bytes of one request's header block: beyond it the request is answered 431 (over
    /// HTTP/2, SETTINGS_MAX_HEADER_LIST_SIZE, the stream is then reset).
    pub max_header_bytes: usize,
    /// Header fields of one HTTP/1 request; more are answered with 431.
    pub http1_max_headers: usize,
}

impl ConnectionPolicy {
    /// The defaults, as constants so the command-line flags can show them.
    pub const DEFAULT: ConnectionPolicy = ConnectionPolicy {
        // axum-server's and Go's crypto/tls-based servers' usual figure.
        tls_handshake_timeout: Duration::from_secs(10),
        // Go's net/http ReadHeaderTimeout is commonly set to 10–32 s; a client on loopback or
        // in a cluster sends its headers in milliseconds.
        header_read_timeout: Duration::from_secs(10),
        // kube-apiserver's (Go net/http) keep-alive idle timeout: 90 s.
        idle_timeout: Duration::from_secs(90),
        http2_keep_alive_interval: Duration::from_secs(30),
        http2_keep_alive_timeout: Duration::from_secs(20),
        // Go's net/http2 default (kube-apiserver uses it unless
        // --http2-max-streams-per-connection is set).
        http2_max_concurrent_streams: 250,
        max_header_bytes: 64 * 1024,
        // hyper's default.
        http1_max_headers: 100,
    };

    /// `max_header_bytes`, raised to what hyper can use.
    pub(crate) fn header_bytes(&self) -> usize {
        self.max_header_bytes.max(MIN_HEADER_BYTES)
    }
}

impl Default for ConnectionPolicy {
    fn default() -> ConnectionPolicy {
        ConnectionPolicy::DEFAULT
    }
}
