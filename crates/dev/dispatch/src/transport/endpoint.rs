//! Where a webhook is called: the request URL as client-go builds it from `clientConfig`
//! (cleaned path, `?timeout=<N>s`), and the host and port to connect to.

use http::Uri;
use k8s_openapi::api::admissionregistration::v1::WebhookClientConfig;

use crate::call_error::CallError;
use certgate_gofmt::quote;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// The full URL as it appears in Go's `Post "<url>"` errors.
    pub url: String,
    /// Host name or IP address (without IPv6 brackets): what is dialled and verified.
    pub host: String,
    pub port: u16,
    /// The `Host` header value.
    pub authority: String,
    /// Request target: path and query.
    pub target: String,
}

/// How a webhook's `clientConfig` resolves.
#[derive(Debug)]
pub(crate) enum Resolved {
    Url(Endpoint),
    /// A `service` reference: the sandbox has no Services, so the call fails at dial time
    /// with upstream's not-found cause, naming the URL it would have used.
    Service {
        url: String,
        name: String,
    },
}

/// Go's `path.Clean` of `"/" + path`: collapses `//`, resolves `.` and `..`, no trailing `/`.
pub(crate) fn clean_path(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The URL and endpoint for `client_config`, with the timeout client-go appends.
pub(crate) fn resolve(
    client_config: &WebhookClientConfig,
    timeout_seconds: i32,
) -> Result<Resolved, CallError> {
    let query = format!("timeout={timeout_seconds}s");
    if let Some(url) = &client_config.url {
        return from_url(url, &query).map(Resolved::Url);
    }
    let Some(service) = &client_config.service else {
        return Err(CallError::RestClient(
            "no URL or service in the webhook's clientConfig".to_owned(),
        ));
    };
    let port = service.port.unwrap_or(443);
    let path = clean_path(service.path.as_deref().unwrap_or_default());
    Ok(Resolved::Service {
        url: format!("https://{}.{}.svc:{port}{path}?{query}", service.name, service.namespace),
        name: service.name.clone(),
    })
}

fn from_url(url: &str, query: &str) -> Result<Endpoint, CallError> {
    let parse_error =
        |detail: &str| CallError::RestClient(format!("parse {}: {detail}", quote(url)));
    let uri: Uri = url.parse().map_err(|e: http::uri::InvalidUri| parse_error(&e.to_string()))?;
    let scheme = uri.scheme_str().unwrap_or_default().to_ascii_lowercase();
    if scheme != "https" {
        // Validation only admits https URLs; anything else was stored without it.
        return Err(CallError::RestClient(format!(
            "{} is not an https URL; the sandbox calls webhooks over https only",
            quote(url)
        )));
    }
    let authority = uri.authority().ok_or_else(|| parse_error("missing host"))?;
    let host = authority.host().trim_start_matches('[').trim_end_matches(']').to_owned();
    if host.is_empty() {
        return Err(parse_error("missing host"));
    }
    let port = authority.port_u16().unwrap_or(443);
    let path = clean_path(uri.path());
    let base = format!("https://{}", authority.as_str());
    Ok(Endpoint {
        url: format!("{base}{path}?{query}"),
        host,
        port,
        authority: authority.as_str().to_owned(),
        target: format!("{path}?{query}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::admissionregistration::v1::ServiceReference;

    fn url_config(url: &str) -> WebhookClientConfig {
        WebhookClientConfig { url: Some(url.to_owned()), ..Default::default() }
    }

    #[test]
    fn builds_urls_as_client_go() {
        let Ok(Resolved::Url(e)) = resolve(&url_config("https://127.0.0.1:8443/validate/"), 10)
        else {
            panic!("expected a URL endpoint")
        };
        assert_eq!(e.url, "https://127.0.0.1:8443/validate?timeout=10s");
        assert_eq!(e.target, "/validate?timeout=10s");
        assert_eq!((e.host.as_str(), e.port), ("127.0.0.1", 8443));

        let Ok(Resolved::Url(e)) = resolve(&url_config("https://[::1]"), 3) else { panic!() };
        assert_eq!(e.url, "https://[::1]/?timeout=3s");
        assert_eq!((e.host.as_str(), e.port, e.authority.as_str()), ("::1", 443, "[::1]"));
    }

    #[test]
    fn service_references_name_the_in_cluster_url() {
        let config = WebhookClientConfig {
            service: Some(ServiceReference {
                name: "hook".into(),
                namespace: "system".into(),
                path: Some("/mutate".into()),
                port: None,
            }),
            ..Default::default()
        };
        let Ok(Resolved::Service { url, name }) = resolve(&config, 10) else { panic!() };
        assert_eq!(url, "https://hook.system.svc:443/mutate?timeout=10s");
        assert_eq!(name, "hook");
    }

    #[test]
    fn refuses_plain_http() {
        let err = resolve(&url_config("http://127.0.0.1/x"), 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            "could not get REST client: \"http://127.0.0.1/x\" is not an https URL; the sandbox calls webhooks over https only"
        );
    }

    #[test]
    fn cleans_paths_like_go() {
        assert_eq!(clean_path(""), "/");
        assert_eq!(clean_path("a//b/./c/../d/"), "/a/b/d");
    }
}
