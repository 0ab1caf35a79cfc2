//! The one message for an API server that cannot be reached (connection refused, a host
//! name that does not resolve, a TLS handshake that fails, a timeout): every command that
//! talks to a cluster says it the same way, in kubectl's words where kubectl has them.

use std::error::Error;

/// What to print when `err` means the server at `server` (its URL) could not be reached;
/// `None` for any other error (the server answered, or the answer did not decode).
pub fn message(server: &str, err: &kube::Error) -> Option<String> {
    if !matches!(err, kube::Error::HyperError(_) | kube::Error::Service(_)) {
        return None;
    }
    let host = host(server);
    let chain = chain(err);
    let refused = chain.iter().any(|link| {
        link.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused)
            || link.to_string().to_ascii_lowercase().contains("connection refused")
    });
    if refused {
        return Some(format!(
            "The connection to the server {host} was refused - did you specify the right host or port?"
        ));
    }
    if let Some(tls) = chain.iter().find_map(|link| link.downcast_ref::<rustls::Error>()) {
        let (cause, what_to_do) = tls_failure(tls);
        return Some(format!("Unable to connect to the server {host}: {cause} - {what_to_do}"));
    }
    let cause = chain.last().map(|link| one_line(&link.to_string())).unwrap_or_default();
    Some(format!(
        "Unable to connect to the server {host}: {cause} - check that the cluster is running and \
         that --server, --context or --kubeconfig point at it"
    ))
}

/// [`message`] for the first Kubernetes client error among `err` and its causes: for errors
/// of other libraries that carry one (leader election's).
pub fn in_chain(server: &str, err: &(dyn Error + 'static)) -> Option<String> {
    chain(err)
        .into_iter()
        .filter_map(|link| link.downcast_ref::<kube::Error>())
        .find_map(|kube| message(server, kube))
}

/// What a server command says when it cannot take part in leader election because the API
/// server cannot be reached (it cannot wait for the server there: exiting lets its Pod restart
/// with a back-off); `None` for any other failure.
pub fn leader_election(
    server: &str,
    err: &certgate_runtime::leader::LeaderError,
) -> Option<String> {
    let certgate_runtime::leader::LeaderError::Lease { namespace, name, .. } = err;
    in_chain(server, err).map(|message| {
        format!("cannot use Lease {namespace}/{name} for leader election: {message}")
    })
}

/// A failed TLS handshake in words (rustls' own text shows Rust names such as
/// `UnknownIssuer`), and what to do about it.
fn tls_failure(err: &rustls::Error) -> (&'static str, &'static str) {
    use rustls::CertificateError as Cert;
    const TRUST: &str = "give the server's CA with --certificate-authority (or fix the \
                         kubeconfig's certificate-authority-data)";
    match err {
        rustls::Error::InvalidCertificate(cert) => match cert {
            Cert::UnknownIssuer => {
                ("the server's certificate is not signed by a trusted CA", TRUST)
            }
            Cert::NotValidForName | Cert::NotValidForNameContext { .. } => (
                "the server's certificate is not valid for the name checked",
                "give the name it holds with --tls-server-name, or reach the server by that name",
            ),
            Cert::Expired | Cert::ExpiredContext { .. } => (
                "the server's certificate has expired",
                "renew the API server's serving certificate",
            ),
            Cert::NotValidYet | Cert::NotValidYetContext { .. } => (
                "the server's certificate is not valid yet",
                "check this machine's clock and the server's",
            ),
            _ => ("the server's certificate was not accepted", TRUST),
        },
        _ => (
            "the TLS handshake failed",
            "check that --server is the API server's HTTPS address, and the client certificate \
             if the server asks for one",
        ),
    }
}

/// `host:port` of a URL (kubectl's `url.Host`), or the text itself when it is not one.
pub fn host(server: &str) -> &str {
    let rest = server.split_once("://").map_or(server, |(_, rest)| rest);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    authority.rsplit_once('@').map_or(authority, |(_, host)| host)
}

/// The error and its causes, looking inside I/O errors that wrap another error.
fn chain<'a>(err: &'a (dyn Error + 'static)) -> Vec<&'a (dyn Error + 'static)> {
    let mut links = Vec::new();
    let mut next = Some(err);
    while let Some(link) = next {
        links.push(link);
        next = match link.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref) {
            Some(inner) => Some(inner as &(dyn Error + 'static)),
            None => link.source(),
        };
        if links.len() > 32 {
            break;
        }
    }
    links
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_kubectls_url_host() {
        assert_eq!(host("https://127.0.0.1:6443"), "127.0.0.1:6443");
        assert_eq!(host("https://example.com:443/prefix/"), "example.com:443");
        assert_eq!(host("https://[::1]:6443"), "[::1]:6443");
        assert_eq!(host("https://example.com"), "example.com");
        assert_eq!(host("example.com:6443"), "example.com:6443");
    }

    #[test]
    fn a_kube_error_inside_another_error_is_found() {
        #[derive(Debug, thiserror::Error)]
        #[error("cannot use Lease certgate/x for leader election: {0}")]
        struct Lease(#[source] kube::Error);
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let err = Lease(kube::Error::Service(Box::new(io)));
        assert_eq!(
            in_chain("https://127.0.0.1:1", &err).as_deref(),
            Some(
                "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?"
            )
        );
        let answered = Lease(kube::Error::Api(Box::new(
            kube::core::Status::failure("nope", "Forbidden").with_code(403),
        )));
        assert_eq!(in_chain("https://127.0.0.1:1", &answered), None);
    }

    #[test]
    fn an_answer_from_the_server_is_not_unreachable() {
        let status = kube::core::Status::failure("nope", "Forbidden").with_code(403);
        let err = kube::Error::Api(Box::new(status));
        assert_eq!(message("https://127.0.0.1:6443", &err), None);
    }

    #[test]
    fn a_refused_connection_is_worded_as_kubectl_words_it() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let err = kube::Error::Service(Box::new(std::io::Error::other(io)));
        assert_eq!(
            message("https://127.0.0.1:1/", &err).unwrap(),
            "The connection to the server 127.0.0.1:1 was refused - did you specify the right \
             host or port?"
        );
    }

    #[test]
    fn other_failures_name_the_cause_and_what_to_check() {
        let io = std::io::Error::other("failed to lookup address information: no such host");
        let err = kube::Error::Service(Box::new(io));
        let text = message("https://nowhere.invalid:6443", &err).unwrap();
        assert_eq!(
            text,
            "Unable to connect to the server nowhere.invalid:6443: failed to lookup address \
             information: no such host - check that the cluster is running and that --server, \
             --context or --kubeconfig point at it"
        );
        let tls = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let err = kube::Error::Service(Box::new(std::io::Error::other(tls)));
        assert_eq!(
            message("https://a:1", &err).unwrap(),
            "Unable to connect to the server a:1: the server's certificate is not signed by a \
             trusted CA - give the server's CA with --certificate-authority (or fix the \
             kubeconfig's certificate-authority-data)"
        );
        let name = rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName);
        let err = kube::Error::Service(Box::new(std::io::Error::other(name)));
        assert!(message("https://a:1", &err).unwrap().contains("--tls-server-name"));
    }
}
