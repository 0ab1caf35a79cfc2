//! `clientConfig` validation (upstream's `ValidateWebhookURL` and `ValidateWebhookService`),
//! with the part of Go's `url.Parse` those checks depend on.

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_gofmt::quote;
use k8s_openapi::api::admissionregistration::v1::{ServiceReference, WebhookClientConfig};

use super::field::string;
use super::names::{dns1123_subdomain, port_number};

const FORM: &str = "; desired format: https://host[/path]";

/// The URL parts the checks look at, as Go's `url.Parse` splits them.
#[derive(Debug, Default, PartialEq, Eq)]
struct GoUrl {
    scheme: String,
    user: Option<String>,
    host: String,
    raw_query: String,
    fragment: String,
}

/// Go's `url.Parse`, reduced to what validation needs; errors carry Go's texts.
fn parse_go_url(raw: &str) -> Result<GoUrl, String> {
    let fail = |detail: &str| format!("parse {}: {detail}", quote(raw));
    if raw.chars().any(|c| (c as u32) < 0x20 || c == '\u{7f}') {
        return Err(fail("net/url: invalid control character in URL"));
    }
    let mut url = GoUrl::default();
    let (rest, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    url.fragment = fragment.to_owned();

    // A scheme is letters, then letters, digits, '+', '-' or '.', up to a ':'.
    let mut rest = rest;
    for (i, c) in rest.char_indices() {
        match c {
            'a'..='z' | 'A'..='Z' => {}
            '0'..='9' | '+' | '-' | '.' if i > 0 => {}
            ':' if i == 0 => return Err(fail("missing protocol scheme")),
            ':' => {
                url.scheme = rest[..i].to_ascii_lowercase();
                rest = &rest[i + 1..];
                break;
            }
            _ => break,
        }
    }
    if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_owned();
        rest = before;
    }
    if !rest.starts_with('/') {
        if url.scheme.is_empty()
            && let Some(colon) = rest.find(':')
            && rest.find('/').is_none_or(|slash| colon < slash)
        {
            return Err(fail("first path segment in URL cannot contain colon"));
        }
        // Opaque (`https:host`) or relative: no host.
        return Ok(url);
    }
    if let Some(after) = rest.strip_prefix("//") {
        let authority = &after[..after.find('/').unwrap_or(after.len())];
        let host = match authority.rfind('@') {
            Some(at) => {
                url.user = Some(authority[..at].to_owned());
                &authority[at + 1..]
            }
            None => authority,
        };
        check_port(host).map_err(|detail| fail(&detail))?;
        url.host = host.to_owned();
    }
    Ok(url)
}

/// Go's `parseHost` port check: what follows the host's last `:` must be digits.
fn check_port(host: &str) -> Result<(), String> {
    let after_host = if host.starts_with('[') {
        match host.find(']') {
            Some(end) => &host[end + 1..],
            None => return Err("missing ']' in host".to_owned()),
        }
    } else {
        match host.rfind(':') {
            Some(colon) => &host[colon..],
            None => "",
        }
    };
    if after_host.is_empty() {
        return Ok(());
    }
    let valid =
        after_host.strip_prefix(':').is_some_and(|port| port.bytes().all(|b| b.is_ascii_digit()));
    if valid { Ok(()) } else { Err(format!("invalid port {} after host", quote(after_host))) }
}

/// `ValidateWebhookURL` with `forceHttps`.
fn validate_url(path: Path, url: &str) -> Vec<FieldError> {
    let parsed = match parse_go_url(url) {
        Ok(parsed) => parsed,
        Err(error) => {
            return vec![FieldError::required(
                path,
                format!("url must be a valid URL: {error}{FORM}"),
            )];
        }
    };
    let invalid =
        |value: &str, detail: &str| FieldError::invalid(path.clone(), string(value), detail);
    let mut errors = Vec::new();
    if parsed.scheme != "https" {
        errors.push(invalid(
            &parsed.scheme,
            &format!("'https' is the only allowed URL scheme{FORM}"),
        ));
    }
    if parsed.host.is_empty() {
        errors.push(invalid(&parsed.host, &format!("host must be provided{FORM}")));
    }
    if let Some(user) = &parsed.user {
        errors.push(invalid(user, "user information is not permitted in the URL"));
    }
    if !parsed.fragment.is_empty() {
        errors.push(invalid(&parsed.fragment, "fragments are not permitted in the URL"));
    }
    if !parsed.raw_query.is_empty() {
        errors.push(invalid(&parsed.raw_query, "query parameters are not permitted in the URL"));
    }
    errors
}

/// `ValidateWebhookService`.
fn validate_service(path: &Path, service: &ServiceReference) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if service.name.is_empty() {
        errors.push(FieldError::required(path.child("name"), "service name is required"));
    }
    if service.namespace.is_empty() {
        errors.push(FieldError::required(path.child("namespace"), "service namespace is required"));
    }
    // Unset is the v1 default, 443.
    let port = service.port.unwrap_or(443);
    let problems = port_number(port);
    if !problems.is_empty() {
        errors.push(FieldError::invalid(
            path.child("port"),
            BadValue::Int(port.into()),
            format!("port is not valid: {}", problems.join(", ")),
        ));
    }
    let Some(url_path) = service.path.as_deref() else { return errors };
    let field = path.child("path");
    let invalid = |detail: &str| FieldError::invalid(field.clone(), string(url_path), detail);
    if url_path == "/" || url_path.is_empty() {
        return errors;
    }
    if url_path == "//" {
        errors.push(invalid("segment[0] may not be empty"));
        return errors;
    }
    if !url_path.starts_with('/') {
        errors.push(invalid("must start with a '/'"));
    }
    // Upstream drops the first character whether or not it was a '/'.
    let mut to_check = url_path.get(1..).unwrap_or_default();
    to_check = to_check.strip_suffix('/').unwrap_or(to_check);
    for (i, step) in to_check.split('/').enumerate() {
        if step.is_empty() {
            errors.push(invalid(&format!("segment[{i}] may not be empty")));
            continue;
        }
        for failure in dns1123_subdomain(step) {
            errors.push(invalid(&format!("segment[{i}]: {failure}")));
        }
    }
    errors
}

/// Exactly one of `url` and `service`, each valid.
pub(crate) fn validate(path: &Path, config: &WebhookClientConfig) -> Vec<FieldError> {
    match (&config.url, &config.service) {
        (Some(url), None) => validate_url(path.child("url"), url),
        (None, Some(service)) => validate_service(&path.child("service"), service),
        _ => vec![FieldError::required(path.clone(), "exactly one of url or service is required")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_urls_like_go() {
        let url = parse_go_url("HTTPS://u:p@host:8443/a?b=c#d").unwrap();
        assert_eq!(
            url,
            GoUrl {
                scheme: "https".into(),
                user: Some("u:p".into()),
                host: "host:8443".into(),
                raw_query: "b=c".into(),
                fragment: "d".into()
            }
        );
        assert_eq!(parse_go_url("example.com/x").unwrap().scheme, "");
        assert_eq!(parse_go_url(":x").unwrap_err(), "parse \":x\": missing protocol scheme");
        assert_eq!(
            parse_go_url("https://host:x/").unwrap_err(),
            "parse \"https://host:x/\": invalid port \":x\" after host"
        );
        assert_eq!(parse_go_url("https://[::1]:443/").unwrap().host, "[::1]:443");
    }
}
