//! The connection flags of every command that serves (`webhook`, `controller`, `dev`): the
//! same names and defaults everywhere, turned into one [`ConnectionPolicy`].

use std::time::Duration;

use certgate_serving::{ConnectionPolicy, MIN_HEADER_BYTES};
use clap::Args;

use crate::shared::duration::parse_timeout;

/// Timeouts and limits of plain-HTTP and HTTPS connections.
#[derive(Clone, Debug, Args)]
pub struct HttpConnectionArgs {
    /// Close a connection whose request headers are not complete this long after it is
    /// ready (accepted, or its TLS handshake done) or, on a reused HTTP/1 connection, after
    /// their first byte.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
    pub http_header_read_timeout: Duration,

    /// Close a connection with no request in flight this long after its last response
    /// (keep-alive). A response still streaming (a watch) keeps its connection open.
    #[arg(long, value_name = "DURATION", default_value = "90s", value_parser = parse_timeout)]
    pub http_idle_timeout: Duration,

    /// Ping each HTTP/2 connection this often, so one whose client vanished (even in the
    /// middle of a long response) is noticed.
    #[arg(long, value_name = "DURATION", default_value = "30s", value_parser = parse_timeout)]
    pub http2_keepalive_interval: Duration,

    /// Close an HTTP/2 connection whose client does not answer a ping within this long.
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = parse_timeout)]
    pub http2_keepalive_timeout: Duration,

    /// Requests one HTTP/2 connection may have in progress at once.
    #[arg(long, value_name = "N", default_value_t = 250, value_parser = clap::value_parser!(u32).range(1..))]
    pub http2_max_streams_per_connection: u32,

    /// Largest request header block, in bytes (8192 to 16777216): a request with more is
    /// answered 431. HTTP/1 requests may also carry at most 100 header fields.
    #[arg(long, value_name = "BYTES", default_value_t = 65_536, value_parser = clap::value_parser!(u64).range(MIN_HEADER_BYTES as u64..=16 * 1024 * 1024))]
    pub http_max_header_bytes: u64,
}

/// [`HttpConnectionArgs`] and the TLS handshake timeout, for HTTPS servers.
#[derive(Clone, Debug, Args)]
pub struct ConnectionArgs {
    /// Close a connection whose TLS handshake is not done this long after it is accepted.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_timeout)]
    pub tls_handshake_timeout: Duration,

    #[command(flatten)]
    pub http: HttpConnectionArgs,
}

impl HttpConnectionArgs {
    /// The policy of a plain-HTTP server.
    pub fn policy(&self) -> ConnectionPolicy {
        ConnectionPolicy {
            header_read_timeout: self.http_header_read_timeout,
            idle_timeout: self.http_idle_timeout,
            http2_keep_alive_interval: self.http2_keepalive_interval,
            http2_keep_alive_timeout: self.http2_keepalive_timeout,
            http2_max_concurrent_streams: self.http2_max_streams_per_connection,
            // Bounded by the flag's range, far below usize::MAX.
            max_header_bytes: usize::try_from(self.http_max_header_bytes).unwrap_or(usize::MAX),
            ..ConnectionPolicy::DEFAULT
        }
    }
}

impl ConnectionArgs {
    /// The policy of an HTTPS server.
    pub fn policy(&self) -> ConnectionPolicy {
        ConnectionPolicy { tls_handshake_timeout: self.tls_handshake_timeout, ..self.http.policy() }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        connections: ConnectionArgs,
    }

    fn parse(args: &[&str]) -> Result<ConnectionPolicy, String> {
        Cli::try_parse_from(std::iter::once("certgate").chain(args.iter().copied()))
            .map(|cli| cli.connections.policy())
            .map_err(|err| err.to_string())
    }

    #[test]
    fn defaults_are_the_policy_defaults() {
        assert_eq!(parse(&[]), Ok(ConnectionPolicy::DEFAULT));
    }

    #[test]
    fn every_flag_reaches_the_policy() {
        let policy = parse(&[
            "--tls-handshake-timeout=1s",
            "--http-header-read-timeout=2s",
            "--http-idle-timeout=3s",
            "--http2-keepalive-interval=4s",
            "--http2-keepalive-timeout=5s",
            "--http2-max-streams-per-connection=6",
            "--http-max-header-bytes=9000",
        ])
        .unwrap();
        assert_eq!(
            policy,
            ConnectionPolicy {
                tls_handshake_timeout: Duration::from_secs(1),
                header_read_timeout: Duration::from_secs(2),
                idle_timeout: Duration::from_secs(3),
                http2_keep_alive_interval: Duration::from_secs(4),
                http2_keep_alive_timeout: Duration::from_secs(5),
                http2_max_concurrent_streams: 6,
                max_header_bytes: 9000,
                http1_max_headers: 100,
            }
        );
    }

    #[test]
    fn zero_timeouts_and_tiny_header_budgets_are_refused() {
        let zero = parse(&["--http-idle-timeout=0s"]).unwrap_err();
        assert!(
            zero.contains("0s would close every connection; give a positive duration, e.g. 10s"),
            "{zero}"
        );
        let small = parse(&["--http-max-header-bytes=100"]).unwrap_err();
        assert!(small.contains("100 is not in 8192..=16777216"), "{small}");
        let streams = parse(&["--http2-max-streams-per-connection=0"]).unwrap_err();
        assert!(streams.contains("0 is not in 1..=4294967295"), "{streams}");
    }
}
