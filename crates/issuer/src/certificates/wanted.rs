//! What a Certificate's spec asks for, in the forms the other modules compare and generate
//! with: the key ([`KeySpec`]), the request ([`CsrSpec`] and the CertificateRequest's own
//! fields), the names a certificate must carry, and the renewal settings.

use std::net::IpAddr;

use certgate_api::IssuerReference;
use certgate_api::cert_manager::Certificate;
use certgate_gofmt::GoDuration;
use certgate_issuance::RenewalSpec;
use certgate_pki::generate::{CsrSpec, KeyError, KeySpec, SubjectSpec};

/// `spec.privateKey` as a [`KeySpec`].
pub(crate) fn key_spec(certificate: &Certificate) -> Result<KeySpec, KeyError> {
    let key = certificate.spec.private_key.as_ref();
    KeySpec::from_fields(
        key.and_then(|k| k.algorithm.as_deref()),
        key.and_then(|k| k.size),
        key.and_then(|k| k.encoding.as_deref()),
    )
}

/// `spec.privateKey.rotationPolicy: Never`: keep the Secret's key while it matches the
/// spec. cert-manager's default became `Always` in v1.18; certgate follows it.
pub(crate) fn keeps_key(certificate: &Certificate) -> bool {
    certificate.spec.private_key.as_ref().and_then(|k| k.rotation_policy.as_deref())
        == Some("Never")
}

fn list(values: &Option<Vec<String>>) -> Vec<String> {
    values.clone().unwrap_or_default()
}

/// The request the Certificate's spec makes.
pub(crate) fn csr_spec(certificate: &Certificate) -> CsrSpec {
    let spec = &certificate.spec;
    let subject = spec.subject.as_ref();
    let field = |f: fn(&certgate_api::cert_manager::X509Subject) -> &Option<Vec<String>>| {
        subject.map(|s| list(f(s))).unwrap_or_default()
    };
    CsrSpec {
        common_name: spec.common_name.clone(),
        subject: SubjectSpec {
            organizations: field(|s| &s.organizations),
            countries: field(|s| &s.countries),
            organizational_units: field(|s| &s.organizational_units),
            localities: field(|s| &s.localities),
            provinces: field(|s| &s.provinces),
            street_addresses: field(|s| &s.street_addresses),
            postal_codes: field(|s| &s.postal_codes),
            serial_number: subject.and_then(|s| s.serial_number.clone()),
        },
        dns_names: list(&spec.dns_names),
        ip_addresses: list(&spec.ip_addresses),
        uris: list(&spec.uris),
        email_addresses: list(&spec.email_addresses),
        usages: list(&spec.usages),
        is_ca: spec.is_ca.unwrap_or(false),
        encode_usages: spec.encode_usages_in_request.unwrap_or(true),
    }
}

/// `spec.renewBefore`, `renewBeforePercentage` and `renewal.policy`.
pub(crate) fn renewal_spec(certificate: &Certificate) -> RenewalSpec {
    let spec = &certificate.spec;
    RenewalSpec {
        renew_before: spec.renew_before.as_deref().and_then(|d| GoDuration::parse(d).ok()),
        renew_before_percentage: spec.renew_before_percentage,
        disabled: spec.renewal.as_ref().and_then(|r| r.policy.as_deref()) == Some("Disabled"),
    }
}

/// The issuer reference with cert-manager's defaults filled in, for comparisons.
pub(crate) fn issuer_ref(reference: &IssuerReference) -> (String, String, String) {
    let or = |v: &Option<String>, d: &str| {
        v.as_deref().filter(|v| !v.is_empty()).unwrap_or(d).to_owned()
    };
    (
        reference.name.clone(),
        or(&reference.kind, "Issuer"),
        or(&reference.group, certgate_issuance::signing::GROUP),
    )
}

/// The names a certificate or request carries, normalised for comparison: sorted and
/// deduplicated, IP addresses in Go's rendering.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Names {
    pub(crate) common_name: String,
    pub(crate) dns_names: Vec<String>,
    pub(crate) ip_addresses: Vec<String>,
    pub(crate) uris: Vec<String>,
    pub(crate) email_addresses: Vec<String>,
}

fn normalised(mut values: Vec<String>) -> Vec<String> {
    values.sort();
    values.dedup();
    values
}

impl Names {
    pub(crate) fn new(
        common_name: String,
        dns_names: Vec<String>,
        ip_addresses: Vec<String>,
        uris: Vec<String>,
        email_addresses: Vec<String>,
    ) -> Self {
        let ips = ip_addresses
            .into_iter()
            .map(|ip| ip.parse::<IpAddr>().map_or(ip, |parsed| parsed.to_string()))
            .collect();
        Names {
            common_name,
            dns_names: normalised(dns_names),
            ip_addresses: normalised(ips),
            uris: normalised(uris),
            email_addresses: normalised(email_addresses),
        }
    }

    /// The names `spec` asks for.
    pub(crate) fn of_spec(spec: &CsrSpec) -> Self {
        Names::new(
            spec.common_name.clone().unwrap_or_default(),
            spec.dns_names.clone(),
            spec.ip_addresses.clone(),
            spec.uris.clone(),
            spec.email_addresses.clone(),
        )
    }

    /// The spec fields `self` (what a certificate or request carries) does not honour, as
    /// cert-manager names them. A common name the spec leaves unset may appear (some issuers
    /// copy the first DNS name there), and a certificate may list the common name among its
    /// DNS names.
    pub(crate) fn violations(&self, wanted: &Names) -> Vec<&'static str> {
        let mut out = Vec::new();
        if !wanted.common_name.is_empty() && self.common_name != wanted.common_name {
            out.push("spec.commonName");
        }
        let extra_cn = |dns: &[String]| -> Vec<String> {
            dns.iter()
                .filter(|d| **d != wanted.common_name || wanted.dns_names.contains(d))
                .cloned()
                .collect()
        };
        if extra_cn(&self.dns_names) != wanted.dns_names {
            out.push("spec.dnsNames");
        }
        if self.ip_addresses != wanted.ip_addresses {
            out.push("spec.ipAddresses");
        }
        if self.uris != wanted.uris {
            out.push("spec.uris");
        }
        if self.email_addresses != wanted.email_addresses {
            out.push("spec.emailAddresses");
        }
        out
    }
}
