//! Reading what the Certificate controller compares: the certificate in a Secret or a
//! request's status, a request's CSR, a private key. Errors are texts for conditions; input
//! is hostile (a user may put anything in a Secret), so every size is bounded first.

use chrono::{DateTime, Utc};
use x509_parser::certification_request::X509CertificationRequest;
use x509_parser::extensions::{GeneralName, ParsedExtension};
use x509_parser::prelude::{FromDer as _, X509Certificate};

use super::wanted::Names;

/// The largest certificate chain or CSR read (cert-manager's own bound for chains).
pub(crate) const MAX_PEM_BYTES: usize = certgate_pki::issue::MAX_CHAIN_PEM_BYTES;

/// What the controller needs of an X.509 certificate (the first of a PEM chain).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CertificateInfo {
    pub(crate) not_before: DateTime<Utc>,
    pub(crate) not_after: DateTime<Utc>,
    /// The DER SubjectPublicKeyInfo.
    pub(crate) spki: Vec<u8>,
    pub(crate) names: Names,
    /// Subject organizations, in order.
    pub(crate) organizations: Vec<String>,
}

/// What the controller needs of a CSR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CsrInfo {
    pub(crate) spki: Vec<u8>,
    pub(crate) names: Names,
}

fn first_pem_der(input: &[u8], what: &str) -> Result<Vec<u8>, String> {
    if input.len() > MAX_PEM_BYTES {
        return Err(format!("{what} is larger than {MAX_PEM_BYTES} bytes"));
    }
    let (block, _) = certgate_pki::pem::decode(input)
        .ok_or_else(|| format!("error decoding {what} PEM block"))?;
    Ok(block.der.to_vec())
}

fn time(t: x509_parser::time::ASN1Time) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp(), 0).unwrap_or_default()
}

fn ip_text(bytes: &[u8]) -> String {
    match bytes.len() {
        4 => std::net::Ipv4Addr::new(bytes[0], bytes[1], bytes[2], bytes[3]).to_string(),
        16 => {
            let mut octets = [0u8; 16];
            octets.copy_from_slice(bytes);
            let ip = std::net::Ipv6Addr::from(octets);
            ip.to_ipv4_mapped().map_or_else(|| ip.to_string(), |v4| v4.to_string())
        }
        _ => String::new(),
    }
}

fn names_from<'a>(
    common_name: String,
    general_names: impl Iterator<Item = &'a GeneralName<'a>>,
) -> Names {
    let (mut dns, mut ips, mut uris, mut emails) = (vec![], vec![], vec![], vec![]);
    for name in general_names {
        match name {
            GeneralName::DNSName(d) => dns.push((*d).to_owned()),
            GeneralName::IPAddress(ip) => ips.push(ip_text(ip)),
            GeneralName::URI(u) => uris.push((*u).to_owned()),
            GeneralName::RFC822Name(e) => emails.push((*e).to_owned()),
            _ => {}
        }
    }
    Names::new(common_name, dns, ips, uris, emails)
}

/// The first certificate of a PEM chain.
pub(crate) fn certificate(pem: &[u8]) -> Result<CertificateInfo, String> {
    let der = first_pem_der(pem, "certificate")?;
    let (_, cert) = X509Certificate::from_der(&der).map_err(|e| format!("x509: {e}"))?;
    let subject = cert.subject();
    let common_name = subject
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .unwrap_or_default()
        .to_owned();
    let organizations =
        subject.iter_organization().filter_map(|o| o.as_str().ok().map(str::to_owned)).collect();
    let san = cert.subject_alternative_name().map_err(|e| format!("x509: {e}"))?;
    let names = names_from(common_name, san.iter().flat_map(|s| s.value.general_names.iter()));
    Ok(CertificateInfo {
        not_before: time(cert.validity().not_before),
        not_after: time(cert.validity().not_after),
        spki: cert.tbs_certificate.subject_pki.raw.to_vec(),
        names,
        organizations,
    })
}

/// A PEM CSR.
pub(crate) fn csr(pem: &[u8]) -> Result<CsrInfo, String> {
    let der = first_pem_der(pem, "CSR")?;
    let (_, csr) = X509CertificationRequest::from_der(&der).map_err(|e| format!("x509: {e}"))?;
    let info = &csr.certification_request_info;
    let common_name = info
        .subject
        .iter_common_name()
        .next()
        .and_then(|cn| cn.as_str().ok())
        .unwrap_or_default()
        .to_owned();
    let mut general_names = Vec::new();
    if let Some(extensions) = csr.requested_extensions() {
        for extension in extensions {
            if let ParsedExtension::SubjectAlternativeName(san) = extension {
                general_names.extend(san.general_names.iter().cloned());
            }
        }
    }
    Ok(CsrInfo {
        spki: info.subject_pki.raw.to_vec(),
        names: names_from(common_name, general_names.iter()),
    })
}

/// A private key's public half (DER SubjectPublicKeyInfo) and type (`RSA 2048`,
/// `ECDSA P-256`, `Ed25519`).
pub(crate) fn private_key(pem: &[u8]) -> Result<(Vec<u8>, String), String> {
    let key = certgate_pki::issue::parse_private_key(pem).map_err(|e| e.to_string())?;
    let spki = key
        .public_key_info()
        .ok_or_else(|| "the private key's public half cannot be derived".to_owned())?
        .to_vec();
    Ok((spki, key.algorithm()))
}

/// The type [`private_key`] reports for a key made from `spec`.
pub(crate) fn key_type_name(spec: &certgate_pki::generate::KeySpec) -> String {
    use certgate_pki::generate::KeyType;
    match spec.key_type {
        KeyType::Rsa(bits) => format!("RSA {bits}"),
        KeyType::Ecdsa(384) => "ECDSA P-384".to_owned(),
        KeyType::Ecdsa(_) => "ECDSA P-256".to_owned(),
        KeyType::Ed25519 => "Ed25519".to_owned(),
    }
}

/// How a key of type `actual` violates `spec.privateKey` (`PrivateKeyMatchesSpec`).
pub(crate) fn key_violations(
    actual: &str,
    wanted: &certgate_pki::generate::KeySpec,
) -> Vec<&'static str> {
    let want = key_type_name(wanted);
    let algorithm = |t: &str| t.split(' ').next().unwrap_or_default().to_owned();
    if algorithm(actual) != algorithm(&want) {
        vec!["spec.privateKey.algorithm"]
    } else if actual != want {
        vec!["spec.privateKey.size"]
    } else {
        vec![]
    }
}
