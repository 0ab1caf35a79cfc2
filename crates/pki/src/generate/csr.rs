//! The PKCS#10 request cert-manager's request manager makes from a Certificate
//! (`pki.GenerateCSR`): the subject, the alternative names, keyUsage and extKeyUsage from
//! `spec.usages` (digital signature and key encipherment when none are listed, cert sign
//! added for a CA) unless `encodeUsagesInRequest: false`, and basicConstraints for a CA.

use std::net::IpAddr;

use rcgen::string::Ia5String;
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose, SanType,
};

use crate::usages::KnownExtKeyUsage;

/// `spec.subject`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SubjectSpec {
    pub organizations: Vec<String>,
    pub countries: Vec<String>,
    pub organizational_units: Vec<String>,
    pub localities: Vec<String>,
    pub provinces: Vec<String>,
    pub street_addresses: Vec<String>,
    pub postal_codes: Vec<String>,
    pub serial_number: Option<String>,
}

/// The Certificate fields a request is made from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CsrSpec {
    pub common_name: Option<String>,
    pub subject: SubjectSpec,
    pub dns_names: Vec<String>,
    pub ip_addresses: Vec<String>,
    pub uris: Vec<String>,
    pub email_addresses: Vec<String>,
    /// `spec.usages` as cert-manager names them.
    pub usages: Vec<String>,
    pub is_ca: bool,
    /// `spec.encodeUsagesInRequest` (true when unset).
    pub encode_usages: bool,
}

/// Why no request could be made; the field is named as in the Certificate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CsrError {
    #[error("spec.{field}: {value:?} is not valid: {reason}")]
    Field { field: &'static str, value: String, reason: String },
    #[error("spec.usages: unknown usage {0:?}")]
    Usage(String),
    #[error("the generated private key cannot sign: {0}")]
    Key(String),
    #[error("cannot write the certificate request: {0}")]
    Write(String),
}

const KEY_USAGES: [(&str, KeyUsagePurpose); 10] = [
    ("signing", KeyUsagePurpose::DigitalSignature),
    ("digital signature", KeyUsagePurpose::DigitalSignature),
    ("content commitment", KeyUsagePurpose::ContentCommitment),
    ("key encipherment", KeyUsagePurpose::KeyEncipherment),
    ("key agreement", KeyUsagePurpose::KeyAgreement),
    ("data encipherment", KeyUsagePurpose::DataEncipherment),
    ("cert sign", KeyUsagePurpose::KeyCertSign),
    ("crl sign", KeyUsagePurpose::CrlSign),
    ("encipher only", KeyUsagePurpose::EncipherOnly),
    ("decipher only", KeyUsagePurpose::DecipherOnly),
];

/// cert-manager's default usages (`DefaultKeyUsages`).
pub const DEFAULT_USAGES: [&str; 2] = ["digital signature", "key encipherment"];

fn ia5(field: &'static str, value: &str) -> Result<Ia5String, CsrError> {
    Ia5String::try_from(value.to_owned()).map_err(|e| CsrError::Field {
        field,
        value: value.to_owned(),
        reason: e.to_string(),
    })
}

fn eku(name: &str) -> Result<ExtendedKeyUsagePurpose, CsrError> {
    let known = KnownExtKeyUsage::by_name(name).ok_or_else(|| CsrError::Usage(name.to_owned()))?;
    Ok(match known.oid {
        "2.5.29.37.0" => ExtendedKeyUsagePurpose::Any,
        "1.3.6.1.5.5.7.3.1" => ExtendedKeyUsagePurpose::ServerAuth,
        "1.3.6.1.5.5.7.3.2" => ExtendedKeyUsagePurpose::ClientAuth,
        "1.3.6.1.5.5.7.3.3" => ExtendedKeyUsagePurpose::CodeSigning,
        "1.3.6.1.5.5.7.3.4" => ExtendedKeyUsagePurpose::EmailProtection,
        "1.3.6.1.5.5.7.3.8" => ExtendedKeyUsagePurpose::TimeStamping,
        "1.3.6.1.5.5.7.3.9" => ExtendedKeyUsagePurpose::OcspSigning,
        oid => ExtendedKeyUsagePurpose::Other(
            oid.split('.').map(|arc| arc.parse().unwrap_or_default()).collect(),
        ),
    })
}

fn subject(spec: &CsrSpec) -> DistinguishedName {
    let mut dn = DistinguishedName::new();
    let s = &spec.subject;
    // Go's pkix.Name.ToRDNSequence order: C, ST, L, street, postal code, O, OU, CN, serial.
    let groups: [(DnType, &[String]); 7] = [
        (DnType::CountryName, &s.countries),
        (DnType::StateOrProvinceName, &s.provinces),
        (DnType::LocalityName, &s.localities),
        (DnType::CustomDnType(vec![2, 5, 4, 9]), &s.street_addresses),
        (DnType::CustomDnType(vec![2, 5, 4, 17]), &s.postal_codes),
        (DnType::OrganizationName, &s.organizations),
        (DnType::OrganizationalUnitName, &s.organizational_units),
    ];
    for (ty, values) in groups {
        for value in values {
            dn.push(ty.clone(), value.as_str());
        }
    }
    if let Some(cn) = spec.common_name.as_deref().filter(|cn| !cn.is_empty()) {
        dn.push(DnType::CommonName, cn);
    }
    if let Some(serial) = s.serial_number.as_deref().filter(|v| !v.is_empty()) {
        dn.push(DnType::CustomDnType(vec![2, 5, 4, 5]), serial);
    }
    dn
}

/// The request, PEM (`CERTIFICATE REQUEST`), signed with `pkcs8_der`.
pub fn build_csr(spec: &CsrSpec, pkcs8_der: &[u8]) -> Result<String, CsrError> {
    let mut params = CertificateParams::default();
    params.distinguished_name = subject(spec);
    let mut names = Vec::new();
    for dns in &spec.dns_names {
        names.push(SanType::DnsName(ia5("dnsNames", dns)?));
    }
    for ip in &spec.ip_addresses {
        let parsed: IpAddr = ip.parse().map_err(|_| CsrError::Field {
            field: "ipAddresses",
            value: ip.clone(),
            reason: "not an IP address".to_owned(),
        })?;
        names.push(SanType::IpAddress(parsed));
    }
    for uri in &spec.uris {
        names.push(SanType::URI(ia5("uris", uri)?));
    }
    for email in &spec.email_addresses {
        names.push(SanType::Rfc822Name(ia5("emailAddresses", email)?));
    }
    params.subject_alt_names = names;
    if spec.encode_usages {
        let listed: Vec<&str> = if spec.usages.is_empty() {
            DEFAULT_USAGES.to_vec()
        } else {
            spec.usages.iter().map(String::as_str).collect()
        };
        if spec.is_ca {
            params.key_usages.push(KeyUsagePurpose::KeyCertSign);
        }
        for usage in listed {
            if let Some((_, ku)) = KEY_USAGES.iter().find(|(name, _)| *name == usage) {
                if !params.key_usages.contains(ku) {
                    params.key_usages.push(*ku);
                }
            } else {
                let purpose = eku(usage)?;
                if !params.extended_key_usages.contains(&purpose) {
                    params.extended_key_usages.push(purpose);
                }
            }
        }
    }
    params.is_ca = if spec.is_ca { IsCa::Ca(BasicConstraints::Unconstrained) } else { IsCa::NoCa };
    let key = KeyPair::try_from(pkcs8_der).map_err(|e| CsrError::Key(e.to_string()))?;
    let request = params.serialize_request(&key).map_err(|e| CsrError::Write(e.to_string()))?;
    request.pem().map_err(|e| CsrError::Write(e.to_string()))
}

#[cfg(test)]
mod tests;
