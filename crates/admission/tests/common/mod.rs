//! Shared test helpers: CertificateRequests, CSRs generated with rcgen, rendered errors.
#![allow(dead_code)] // each test binary uses a different subset

use certgate_api::field::{FieldError, aggregate};
use certgate_api::{
    CertificateRequest, CertificateRequestCondition, CertificateRequestSpec,
    CertificateRequestStatus, IssuerReference,
};
use rcgen::{
    BasicConstraints, CertificateParams, CustomExtension, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};

/// What the generated CSR encodes.
#[derive(Clone, Debug)]
pub struct Csr {
    pub key_usages: Vec<KeyUsagePurpose>,
    pub ext_key_usages: Vec<ExtendedKeyUsagePurpose>,
    pub is_ca: IsCa,
    pub custom: Vec<CustomExtension>,
}

impl Csr {
    /// What cert-manager encodes for a Certificate without usages: digital signature and
    /// key encipherment, no extended key usages, no basic constraints.
    pub fn cert_manager_default() -> Self {
        Csr {
            key_usages: vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment],
            ext_key_usages: vec![],
            is_ca: IsCa::NoCa,
            custom: vec![],
        }
    }

    pub fn key_usages(mut self, usages: &[KeyUsagePurpose]) -> Self {
        self.key_usages = usages.to_vec();
        self
    }

    pub fn ext_key_usages(mut self, usages: &[ExtendedKeyUsagePurpose]) -> Self {
        self.ext_key_usages = usages.to_vec();
        self
    }

    pub fn ca(mut self) -> Self {
        self.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        self
    }

    pub fn explicit_not_ca(mut self) -> Self {
        self.is_ca = IsCa::ExplicitNoCa;
        self
    }

    /// The PEM text of a freshly signed CSR for `example.com`.
    pub fn pem(&self) -> Vec<u8> {
        let mut params = CertificateParams::new(vec!["example.com".to_owned()]).unwrap();
        params.key_usages = self.key_usages.clone();
        params.extended_key_usages = self.ext_key_usages.clone();
        params.is_ca = self.is_ca;
        params.custom_extensions = self.custom.clone();
        let key = KeyPair::generate().unwrap();
        params.serialize_request(&key).unwrap().pem().unwrap().into_bytes()
    }
}

/// A spec that passes every check: a named issuer and cert-manager's default CSR.
pub fn valid_spec() -> CertificateRequestSpec {
    CertificateRequestSpec {
        issuer_ref: IssuerReference {
            name: "my-issuer".to_owned(),
            kind: Some("Issuer".to_owned()),
            group: Some("cert-manager.io".to_owned()),
        },
        request: Csr::cert_manager_default().pem(),
        ..Default::default()
    }
}

pub fn cr(spec: CertificateRequestSpec) -> CertificateRequest {
    CertificateRequest::new("my-cr", spec)
}

pub fn with_conditions(
    mut cr: CertificateRequest,
    conditions: &[(&str, &str)],
) -> CertificateRequest {
    let conditions = conditions
        .iter()
        .map(|(type_, status)| CertificateRequestCondition {
            type_: (*type_).to_owned(),
            status: (*status).to_owned(),
            ..Default::default()
        })
        .collect();
    cr.status =
        Some(CertificateRequestStatus { conditions: Some(conditions), ..Default::default() });
    cr
}

pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// The errors as the API server shows them.
pub fn render(errors: &[FieldError]) -> Option<String> {
    aggregate(errors)
}

/// How a request shows up as an error value: Go-quoted, and if longer than 100 bytes, its
/// first 97 bytes followed by `...`. Only for ASCII text without quotes or backslashes.
pub fn shown(request: &[u8]) -> String {
    let text = std::str::from_utf8(request).unwrap();
    let text = if text.len() > 100 { format!("{}...", &text[..97]) } else { text.to_owned() };
    format!("\"{}\"", text.replace('\n', "\\n"))
}

pub mod webhook;
