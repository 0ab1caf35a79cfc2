//! Test material: a CA, a certificate that is not a CA, CSRs, requests and issuers.

use std::collections::BTreeMap;

use certgate_api::CertificateRequest;
use certgate_api::cert_manager::{CaIssuer, IssuerConfig, SelfSignedIssuer};
use certgate_api::certificate_request::{CertificateRequestCondition, CertificateRequestStatus};
use chrono::{DateTime, TimeZone as _, Utc};
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, KeyPair};

use crate::setup::SecretData;

/// 2026-11-04T11:30:45Z.
pub(crate) fn now() -> DateTime<Utc> {
    Utc.timestamp_opt(1_793_791_845, 0).unwrap()
}

pub(crate) const NOW: &str = "2026-11-04T11:30:45Z";

/// A key pair's PEM and its rcgen handle.
pub(crate) struct Key {
    pub(crate) pair: KeyPair,
    pub(crate) pem: String,
}

pub(crate) fn key() -> Key {
    let pair = KeyPair::generate().unwrap();
    let pem = pair.serialize_pem();
    Key { pair, pem }
}

/// A self-signed certificate for `name`, a CA when `ca`: (certificate PEM, key).
pub(crate) fn certificate(name: &str, ca: bool) -> (String, Key) {
    let key = key();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, name);
    if ca {
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    }
    let certificate = params.self_signed(&key.pair).unwrap();
    (certificate.pem(), key)
}

/// A Secret's data with `tls.crt` and `tls.key`.
pub(crate) fn tls_secret(certificate: &str, key: &str) -> SecretData {
    BTreeMap::from([
        ("tls.crt".to_owned(), certificate.as_bytes().to_vec()),
        ("tls.key".to_owned(), key.as_bytes().to_vec()),
    ])
}

/// A CSR for `dns` with common name `cn` (empty: no subject), signed by `key`.
pub(crate) fn csr(cn: &str, dns: &str, key: &Key) -> Vec<u8> {
    let mut params = CertificateParams::new(vec![dns.to_owned()]).unwrap();
    params.distinguished_name = rcgen::DistinguishedName::new();
    if !cn.is_empty() {
        params.distinguished_name.push(DnType::CommonName, cn);
    }
    params.serialize_request(&key.pair).unwrap().pem().unwrap().into_bytes()
}

pub(crate) fn ca_config(secret: &str) -> IssuerConfig {
    IssuerConfig {
        ca: Some(CaIssuer { secret_name: secret.to_owned(), ..CaIssuer::default() }),
        ..IssuerConfig::default()
    }
}

pub(crate) fn self_signed_config() -> IssuerConfig {
    IssuerConfig { self_signed: Some(SelfSignedIssuer::default()), ..IssuerConfig::default() }
}

pub(crate) fn condition(type_: &str, status: &str, reason: &str) -> CertificateRequestCondition {
    CertificateRequestCondition {
        type_: type_.to_owned(),
        status: status.to_owned(),
        reason: Some(reason.to_owned()),
        message: Some(format!("{reason} message")),
        last_transition_time: Some("2026-11-04T10:00:00Z".to_owned()),
    }
}

/// A request in `payments` for the issuer `kind`/`name`, with these conditions.
pub(crate) fn request(
    kind: &str,
    issuer: &str,
    request: Vec<u8>,
    conditions: Vec<CertificateRequestCondition>,
) -> CertificateRequest {
    let mut cr = CertificateRequest::new("web", Default::default());
    cr.metadata.namespace = Some("payments".to_owned());
    cr.spec.issuer_ref.name = issuer.to_owned();
    cr.spec.issuer_ref.kind = (!kind.is_empty()).then(|| kind.to_owned());
    cr.spec.request = request;
    cr.spec.duration = Some("1h".to_owned());
    cr.spec.usages = Some(vec!["digital signature".to_owned(), "server auth".to_owned()]);
    cr.status = Some(CertificateRequestStatus {
        conditions: (!conditions.is_empty()).then_some(conditions),
        ..CertificateRequestStatus::default()
    });
    cr
}

pub(crate) fn approved() -> Vec<CertificateRequestCondition> {
    vec![condition("Approved", "True", "cert-manager.io")]
}
