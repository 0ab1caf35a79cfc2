//! Fields Contour acts on that certgate does not serve yet. Each one turns the proxy invalid
//! with an explicit certgate error instead of being accepted and served differently from
//! Contour (the type and reason are certgate's own: `status::UNSUPPORTED_ERROR`).

use crate::status::{StatusBuilder, UNSUPPORTED_ERROR, UNSUPPORTED_REASON};
use crate::types::{HttpProxy, Route, Service, Tls};

/// Records that `field` (named as a path into the manifest) is not served.
pub fn report(status: &mut StatusBuilder, field: &str) {
    let message = format!("{field} is not supported by certgate");
    status.add_error(UNSUPPORTED_ERROR, UNSUPPORTED_REASON, &message);
}

/// The first virtual-host level feature of a root proxy that certgate does not serve.
pub fn vhost_feature(proxy: &HttpProxy) -> Option<String> {
    let spec = &proxy.spec;
    if let Some(key) = spec.extra.keys().next() {
        return Some(format!("Spec.{key}"));
    }
    let vhost = spec.virtualhost.as_ref()?;
    if vhost.fqdn.starts_with("*.") {
        return Some("Spec.VirtualHost.Fqdn with a wildcard".to_string());
    }
    let present = [
        ("authorization", vhost.authorization.is_some()),
        ("jwtProviders", vhost.jwt_providers.as_ref().is_some_and(|v| !v.is_empty())),
        ("ipAllowPolicy", vhost.ip_allow_policy.as_ref().is_some_and(|v| !v.is_empty())),
        ("ipDenyPolicy", vhost.ip_deny_policy.as_ref().is_some_and(|v| !v.is_empty())),
        ("corsPolicy", vhost.cors_policy.is_some()),
        ("rateLimitPolicy", vhost.rate_limit_policy.is_some()),
    ];
    if let Some((key, _)) = present.iter().find(|(_, on)| *on) {
        return Some(format!("Spec.VirtualHost.{key}"));
    }
    if let Some(key) = vhost.extra.keys().next() {
        return Some(format!("Spec.VirtualHost.{key}"));
    }
    vhost.tls.as_ref().and_then(tls_feature)
}

fn tls_feature(tls: &Tls) -> Option<String> {
    if tls.passthrough() {
        return Some("Spec.VirtualHost.TLS.passthrough".to_string());
    }
    if tls.enable_fallback_certificate() {
        return Some("Spec.VirtualHost.TLS.enableFallbackCertificate".to_string());
    }
    if let Some(key) = tls.extra.keys().next() {
        return Some(format!("Spec.VirtualHost.TLS.{key}"));
    }
    let cv = tls.client_validation.as_ref()?;
    if let Some(key) = cv.extra.keys().next() {
        return Some(format!("Spec.VirtualHost.TLS.clientValidation.{key}"));
    }
    cv.forward_client_certificate
        .as_ref()
        .and_then(|f| f.extra.keys().next())
        .map(|key| format!("Spec.VirtualHost.TLS.clientValidation.forwardClientCertificate.{key}"))
}

/// The first route-level field (beyond conditions, services, `enableWebsockets` and
/// `permitInsecure`) of route `index`.
pub fn route_feature(route: &Route, index: usize) -> Option<String> {
    route.extra.keys().next().map(|key| format!("Spec.Routes[{index}].{key}"))
}

/// The first service-level field certgate does not serve (`protocol` is checked separately,
/// as Contour validates its value first).
pub fn service_feature(service: &Service, at: &str) -> Option<String> {
    if service.mirror == Some(true) {
        return Some(format!("{at}.mirror"));
    }
    if service.validation.is_some() {
        return Some(format!("{at}.validation"));
    }
    service.extra.keys().next().map(|key| format!("{at}.{key}"))
}
