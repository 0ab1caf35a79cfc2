//! Network and TLS failures worded as Go's net/http and crypto/tls word them, so
//! `Post "<url>": <cause>` reads like kube-apiserver's. Where Rust's errors carry less (or
//! other) detail the wording differs; docs/dispatch.md lists the cases.

use std::io;

/// Go's wording of a socket error, without Rust's `(os error N)` suffix.
fn io_cause(error: &io::Error) -> String {
    match error.kind() {
        io::ErrorKind::ConnectionRefused => "connection refused".to_owned(),
        io::ErrorKind::ConnectionReset => "connection reset by peer".to_owned(),
        io::ErrorKind::ConnectionAborted => "software caused connection abort".to_owned(),
        io::ErrorKind::TimedOut => "i/o timeout".to_owned(),
        io::ErrorKind::HostUnreachable => "no route to host".to_owned(),
        io::ErrorKind::NetworkUnreachable => "network is unreachable".to_owned(),
        io::ErrorKind::AddrNotAvailable => "cannot assign requested address".to_owned(),
        io::ErrorKind::UnexpectedEof => "EOF".to_owned(),
        _ => {
            let text = error.to_string();
            match text.find(" (os error") {
                Some(i) => text[..i].to_lowercase(),
                None => text,
            }
        }
    }
}

/// `dial tcp <addr>: connect: <cause>`.
pub(crate) fn dial(address: &str, error: &io::Error) -> String {
    format!("dial tcp {address}: connect: {}", io_cause(error))
}

/// `dial tcp: lookup <host>: <cause>`.
pub(crate) fn lookup(host: &str, error: &io::Error) -> String {
    format!("dial tcp: lookup {host}: {}", io_cause(error))
}

/// A failed TLS handshake. `host` is the verified name; `no_ca_bundle` adds why no
/// certificate can be trusted.
pub(crate) fn handshake(error: &io::Error, host: &str, no_ca_bundle: bool) -> String {
    let Some(tls) = error.get_ref().and_then(|e| e.downcast_ref::<rustls::Error>()) else {
        return io_cause(error);
    };
    let cause = match tls {
        rustls::Error::InvalidCertificate(certificate) => {
            format!("tls: failed to verify certificate: {}", certificate_cause(certificate, host))
        }
        rustls::Error::AlertReceived(alert) => {
            format!("remote error: tls: {}", alert_text(*alert))
        }
        other => format!("tls: {other}"),
    };
    if no_ca_bundle && matches!(tls, rustls::Error::InvalidCertificate(_)) {
        format!(
            "{cause} (the webhook has no caBundle and the certgate sandbox trusts no system roots: set clientConfig.caBundle)"
        )
    } else {
        cause
    }
}

/// A TLS alert as Go's crypto/tls words it (`bad certificate`, `unknown certificate
/// authority`), not as rustls's `Debug` names it.
fn alert_text(alert: rustls::AlertDescription) -> String {
    use rustls::AlertDescription as A;
    let text = match alert {
        A::CloseNotify => "close notify",
        A::UnexpectedMessage => "unexpected message",
        A::BadRecordMac => "bad record MAC",
        A::RecordOverflow => "record overflow",
        A::HandshakeFailure => "handshake failure",
        A::BadCertificate => "bad certificate",
        A::UnsupportedCertificate => "unsupported certificate",
        A::CertificateRevoked => "revoked certificate",
        A::CertificateExpired => "expired certificate",
        A::CertificateUnknown => "unknown certificate",
        A::IllegalParameter => "illegal parameter",
        A::UnknownCA => "unknown certificate authority",
        A::AccessDenied => "access denied",
        A::DecodeError => "error decoding message",
        A::DecryptError => "error decrypting message",
        A::ProtocolVersion => "protocol version not supported",
        A::InsufficientSecurity => "insufficient security level",
        A::InternalError => "internal error",
        A::InappropriateFallback => "inappropriate fallback",
        A::UserCanceled => "user canceled",
        A::NoRenegotiation => "no renegotiation",
        A::MissingExtension => "missing extension",
        A::UnsupportedExtension => "unsupported extension",
        A::UnrecognisedName => "unrecognized name",
        A::CertificateRequired => "certificate required",
        A::NoApplicationProtocol => "no application protocol",
        other => return format!("alert({})", u8::from(other)),
    };
    text.to_owned()
}

fn certificate_cause(error: &rustls::CertificateError, host: &str) -> String {
    use rustls::CertificateError as E;
    match error {
        // A bad signature means a CA of the same name but another key: to Go, too, the
        // chain has no known authority.
        E::UnknownIssuer | E::BadSignature => {
            "x509: certificate signed by unknown authority".to_owned()
        }
        E::NotValidForNameContext { presented, .. } if !presented.is_empty() => {
            format!("x509: certificate is valid for {}, not {host}", presented.join(", "))
        }
        E::NotValidForName | E::NotValidForNameContext { .. } => {
            format!("x509: certificate is not valid for {host}")
        }
        E::Expired | E::ExpiredContext { .. } | E::NotValidYet | E::NotValidYetContext { .. } => {
            "x509: certificate has expired or is not yet valid".to_owned()
        }
        other => format!("x509: {other}"),
    }
}

/// An HTTP exchange failure after the connection was up.
pub(crate) fn exchange(error: &hyper::Error) -> String {
    if error.is_incomplete_message() || error.is_closed() || error.is_canceled() {
        return "EOF".to_owned();
    }
    if let Some(io) = std::error::Error::source(error).and_then(|s| s.downcast_ref::<io::Error>()) {
        return io_cause(io);
    }
    error.to_string()
}

#[cfg(test)]
mod alert_tests {
    use rustls::AlertDescription;

    use super::alert_text;

    #[test]
    fn alerts_read_as_go_words_them() {
        assert_eq!(alert_text(AlertDescription::BadCertificate), "bad certificate");
        assert_eq!(alert_text(AlertDescription::UnknownCA), "unknown certificate authority");
        assert_eq!(alert_text(AlertDescription::CertificateRequired), "certificate required");
        assert_eq!(alert_text(AlertDescription::Unknown(200)), "alert(200)");
    }
}
