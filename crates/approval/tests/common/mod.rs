//! Real CSRs for the integration tests: generated with rcgen (every key type it can sign
//! with here, every SAN kind, hand-made SAN extensions for the kinds rcgen cannot emit),
//! decoded by certgate-pki, and reviewed by the approver.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Arc;

use certgate_api::{
    CertificateRequest, CertificateRequestPolicy, CertificateRequestSpec, IssuerReference,
};
use certgate_approval::{
    Approver, Decision, NamespaceLookup, PolicyEntry, Readiness, Request, ReviewError,
    ReviewOptions,
};
use certgate_cel::PolicyCel;
use certgate_pki::DecodedCsr;
use certgate_rbac::AllowAll;
use rcgen::{CertificateParams, CustomExtension, DnType, DnValue, KeyPair, SanType};

/// Key types rcgen can sign CSRs with in this build (ring: no P-521, no RSA generation,
/// so RSA keys come from fixtures).
#[derive(Clone, Copy, Debug)]
pub enum Key {
    EcdsaP256,
    EcdsaP384,
    Ed25519,
    Rsa2048,
    Rsa3072,
}

impl Key {
    pub const ALL: [Key; 5] =
        [Key::EcdsaP256, Key::EcdsaP384, Key::Ed25519, Key::Rsa2048, Key::Rsa3072];

    fn key_pair(self) -> KeyPair {
        let generated = |alg| KeyPair::generate_for(alg).expect("rcgen generates the key");
        let fixture = |pem: &str| KeyPair::from_pem(pem).expect("fixture key parses");
        match self {
            Key::EcdsaP256 => generated(&rcgen::PKCS_ECDSA_P256_SHA256),
            Key::EcdsaP384 => generated(&rcgen::PKCS_ECDSA_P384_SHA384),
            Key::Ed25519 => generated(&rcgen::PKCS_ED25519),
            Key::Rsa2048 => fixture(include_str!("../fixtures/rsa-2048.pem")),
            Key::Rsa3072 => fixture(include_str!("../fixtures/rsa-3072.pem")),
        }
    }
}

/// Builds a CSR.
pub struct Csr {
    params: CertificateParams,
    key: Key,
}

impl Csr {
    pub fn new(key: Key) -> Self {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("empty params");
        params.distinguished_name = rcgen::DistinguishedName::new();
        Csr { params, key }
    }

    pub fn subject(mut self, ty: DnType, value: impl Into<DnValue>) -> Self {
        self.params.distinguished_name.push(ty, value);
        self
    }

    /// A Subject attribute by dotted OID.
    pub fn subject_oid(self, oid: &[u64], value: impl Into<DnValue>) -> Self {
        self.subject(DnType::CustomDnType(oid.to_vec()), value)
    }

    pub fn dns(mut self, name: &str) -> Self {
        self.params.subject_alt_names.push(SanType::DnsName(name.try_into().expect("IA5")));
        self
    }

    pub fn ip(mut self, ip: &str) -> Self {
        let ip: IpAddr = ip.parse().expect("IP literal");
        self.params.subject_alt_names.push(SanType::IpAddress(ip));
        self
    }

    pub fn uri(mut self, uri: &str) -> Self {
        self.params.subject_alt_names.push(SanType::URI(uri.try_into().expect("IA5")));
        self
    }

    pub fn email(mut self, email: &str) -> Self {
        self.params.subject_alt_names.push(SanType::Rfc822Name(email.try_into().expect("IA5")));
        self
    }

    pub fn other_name(mut self, oid: &[u64], value: &str) -> Self {
        let value = rcgen::OtherNameValue::Utf8String(value.to_owned());
        self.params.subject_alt_names.push(SanType::OtherName((oid.to_vec(), value)));
        self
    }

    /// An extra subjectAltName extension with the given GeneralNames content bytes
    /// (the entries inside the SEQUENCE).
    pub fn raw_san(mut self, general_names: &[u8]) -> Self {
        let content = der(0x30, general_names);
        self.params
            .custom_extensions
            .push(CustomExtension::from_oid_content(&[2, 5, 29, 17], content));
        self
    }

    /// A subjectAltName extension whose content is not DER at all.
    pub fn garbage_san(mut self) -> Self {
        self.params
            .custom_extensions
            .push(CustomExtension::from_oid_content(&[2, 5, 29, 17], vec![0x30, 0x05, 0x82]));
        self
    }

    pub fn pem(&self) -> String {
        let key = self.key.key_pair();
        self.params.serialize_request(&key).expect("rcgen signs the CSR").pem().expect("PEM")
    }

    pub fn decode(&self) -> DecodedCsr {
        certgate_pki::decode_csr(self.pem().as_bytes()).expect("certgate-pki decodes rcgen's CSR")
    }
}

/// One DER TLV with a short or long length.
pub fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    match u8::try_from(content.len()) {
        Ok(len) if len < 0x80 => out.push(len),
        Ok(len) => out.extend([0x81, len]),
        Err(_) => {
            let len = u16::try_from(content.len()).expect("test DER is small");
            out.push(0x82);
            out.extend(len.to_be_bytes());
        }
    }
    out.extend_from_slice(content);
    out
}

/// GeneralName `directoryName` holding an empty Name.
pub fn directory_name() -> Vec<u8> {
    der(0xa4, &der(0x30, &[]))
}

/// GeneralName `registeredID` 1.2.3.4.
pub fn registered_id() -> Vec<u8> {
    der(0x88, &[0x2a, 0x03, 0x04])
}

/// GeneralName `dNSName`.
pub fn dns_name(name: &str) -> Vec<u8> {
    der(0x82, name.as_bytes())
}

/// A CertificateRequest `team-a/req` by `alice`, for Issuer `ca`, carrying `pem`.
pub fn request(pem: &str) -> CertificateRequest {
    let mut cr = CertificateRequest::new(
        "req",
        CertificateRequestSpec {
            issuer_ref: IssuerReference { name: "ca".into(), ..Default::default() },
            request: pem.as_bytes().to_vec(),
            username: Some("alice".into()),
            groups: Some(vec!["dev".into()]),
            ..Default::default()
        },
    );
    cr.metadata.namespace = Some("team-a".into());
    cr
}

/// A policy as users write it.
pub fn policy(yaml: &str) -> CertificateRequestPolicy {
    serde_saphyr::from_str(yaml).expect("test policy YAML parses")
}

pub struct NoNamespaces;

impl NamespaceLookup for NoNamespaces {
    fn labels(&self, namespace: &str) -> Result<BTreeMap<String, String>, String> {
        Err(format!("namespaces {namespace:?} not found"))
    }
}

/// Reviews with every policy Ready and RBAC allowing everything.
pub fn review(
    cr: &CertificateRequest,
    csr: &DecodedCsr,
    policies: &[&CertificateRequestPolicy],
) -> Result<Decision, ReviewError> {
    let approver = Approver::new(Arc::new(PolicyCel::default()));
    let entries: Vec<PolicyEntry<'_>> =
        policies.iter().map(|policy| PolicyEntry { policy, readiness: Readiness::Ready }).collect();
    let request = Request { cr, csr: Ok(csr) };
    approver.review(&request, &entries, &NoNamespaces, &AllowAll, ReviewOptions::default()).outcome
}

/// The Denied message, failing the test on any other outcome.
pub fn denial(outcome: Result<Decision, ReviewError>) -> String {
    match outcome {
        Ok(Decision::Denied(message)) => message,
        other => panic!("expected a denial, got {other:?}"),
    }
}
