//! What the servers (`webhook`, `controller`, `edge serve`, `dev`) share about metrics: the
//! build they declare in `certgate_build_info`, and the webhook's `--metrics-listen` flag
//! (the plain-HTTP metrics port, cert-manager's 9402).
//!
//! The families themselves are added to every `/metrics` in one place,
//! `certgate_serving::exposition`.

use std::net::{SocketAddr, TcpListener};

/// Declares this binary's release, commit and build date (those of `certgate version`) as
/// the labels of `certgate_build_info`. Called by each server before it serves.
pub fn declare_build_info() {
    certgate_serving::set_build_info(certgate_serving::BuildInfo {
        version: format!("v{}", env!("CARGO_PKG_VERSION")),
        commit: env!("CERTGATE_GIT_COMMIT").to_owned(),
        build_date: env!("CERTGATE_BUILD_DATE").to_owned(),
    });
}

/// The plain-HTTP metrics port when `--metrics-listen` is not given: cert-manager's.
pub const DEFAULT_METRICS_LISTEN: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), 9402);

/// A `--metrics-listen` value: an address, or off (`--metrics-listen=` or `0`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricsListen {
    Address(SocketAddr),
    Off,
}

/// Parses a `--metrics-listen` value.
pub fn parse_metrics_listen(text: &str) -> Result<MetricsListen, String> {
    match text.trim() {
        "" | "0" => Ok(MetricsListen::Off),
        // clap names the flag and the value before this message.
        address => address.parse().map(MetricsListen::Address).map_err(|_| {
            "not an address and port such as 0.0.0.0:9402; give an empty value or 0 to serve no metrics port".to_owned()
        }),
    }
}

/// Why the metrics port given could not be bound.
#[derive(Debug, thiserror::Error)]
#[error(
    "--metrics-listen {address}: cannot listen: {source}; choose a free address, or --metrics-listen=0 for no metrics port"
)]
pub struct MetricsBindError {
    pub address: SocketAddr,
    #[source]
    pub source: std::io::Error,
}

/// Binds the metrics port `flag` asks for. An address given explicitly that cannot be bound
/// is an error; the default one taken (another certgate server on the same host network) is
/// logged as a warning and the server runs without it, since `/metrics` stays on its main
/// port and admission must not stop for want of a scrape port.
pub fn bind_metrics_port(
    flag: Option<MetricsListen>,
) -> Result<Option<TcpListener>, MetricsBindError> {
    match flag {
        Some(MetricsListen::Off) => Ok(None),
        Some(MetricsListen::Address(address)) => TcpListener::bind(address)
            .map(Some)
            .map_err(|source| MetricsBindError { address, source }),
        None => match TcpListener::bind(DEFAULT_METRICS_LISTEN) {
            Ok(listener) => Ok(Some(listener)),
            Err(error) => {
                tracing::warn!(
                    address = %DEFAULT_METRICS_LISTEN,
                    error = %error,
                    "cannot serve the default metrics port; /metrics is served on the HTTPS port only (set --metrics-listen to choose another port)"
                );
                Ok(None)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_or_off() {
        assert_eq!(
            parse_metrics_listen("127.0.0.1:9402"),
            Ok(MetricsListen::Address("127.0.0.1:9402".parse().unwrap()))
        );
        assert_eq!(parse_metrics_listen(""), Ok(MetricsListen::Off));
        assert_eq!(parse_metrics_listen("0"), Ok(MetricsListen::Off));
        assert_eq!(
            parse_metrics_listen("9402").unwrap_err(),
            "not an address and port such as 0.0.0.0:9402; give an empty value or 0 to serve no metrics port"
        );
    }

    #[test]
    fn an_explicit_address_must_bind() {
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = taken.local_addr().unwrap();
        let err = bind_metrics_port(Some(MetricsListen::Address(address))).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!("--metrics-listen {address}: cannot listen: ")),
            "{err}"
        );
        assert!(bind_metrics_port(Some(MetricsListen::Off)).unwrap().is_none());
        let free = bind_metrics_port(Some(MetricsListen::Address("127.0.0.1:0".parse().unwrap())))
            .unwrap()
            .unwrap();
        assert_ne!(free.local_addr().unwrap().port(), 0);
    }
}
