//! The request attributes the `allowed` evaluator checks, extracted once per review from the
//! decoded CSR and the CertificateRequest, so that no policy re-reads the CSR.
//!
//! Each attribute keeps the shape approver-policy gives it: CN and serialNumber are read
//! from every Subject RDN (so duplicates are visible), the other named Subject slices keep
//! only string values (as Go's `pkix.Name` does), and otherName / unnamed Subject OIDs are
//! grouped by OID in first-seen order.

use std::collections::{HashMap, HashSet};

use certgate_api::CertificateRequest;
use certgate_pki::{AttributeValue, DecodedCsr, UnsupportedSan};

pub(crate) const OID_COMMON_NAME: &str = "2.5.4.3";
pub(crate) const OID_SERIAL_NUMBER: &str = "2.5.4.5";

/// The Subject slices with a named `allowed.subject` field, in evaluation order:
/// (field name, OID).
pub(crate) const SUBJECT_SLICES: [(&str, &str); 7] = [
    ("organizations", "2.5.4.10"),
    ("countries", "2.5.4.6"),
    ("organizationalUnits", "2.5.4.11"),
    ("localities", "2.5.4.7"),
    ("provinces", "2.5.4.8"),
    ("streetAddresses", "2.5.4.9"),
    ("postalCodes", "2.5.4.17"),
];

/// Every Subject OID covered by a named field (`commonName` or `subject.*`).
pub(crate) fn is_named_subject_oid(oid: &str) -> bool {
    oid == OID_COMMON_NAME
        || oid == OID_SERIAL_NUMBER
        || SUBJECT_SLICES.iter().any(|(_, named)| *named == oid)
}

/// Non-standard SAN kinds in the order their errors are reported.
pub(crate) const UNSUPPORTED_SAN_ORDER: [UnsupportedSan; 4] = [
    UnsupportedSan::DirectoryName,
    UnsupportedSan::X400Address,
    UnsupportedSan::EdiPartyName,
    UnsupportedSan::RegisteredId,
];

/// The values of CN or serialNumber across all RDNs.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum SubjectStrings<'a> {
    Values(Vec<&'a str>),
    /// At least one value is not an ASN.1 string type Go decodes to a string.
    NonString,
}

/// Values of one OID, in encoded order.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct OidGroup<'a> {
    pub oid: &'a str,
    pub values: Vec<&'a str>,
}

/// A Subject attribute (other than CN / serialNumber) whose value is not a string.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NonStringAttribute<'a> {
    pub oid: &'a str,
    /// The named `allowed.subject` field covering the OID, if any.
    pub named_field: Option<&'static str>,
}

/// Everything `allowed` evaluates about one request.
#[derive(Debug)]
pub(crate) struct RequestAttributes<'a> {
    /// Set when the SAN extensions alone deny the request (before any attribute check).
    pub san_denial: Option<String>,
    pub common_names: SubjectStrings<'a>,
    pub dns_names: Vec<&'a str>,
    pub ip_addresses: Vec<&'a str>,
    pub uris: Vec<&'a str>,
    pub email_addresses: Vec<&'a str>,
    pub is_ca: bool,
    pub usages: Vec<&'a str>,
    /// Non-standard SAN entries, in [`UNSUPPORTED_SAN_ORDER`].
    pub unsupported_sans: Vec<UnsupportedSan>,
    pub other_names: Vec<OidGroup<'a>>,
    /// String values of the named Subject slices, indexed like [`SUBJECT_SLICES`].
    pub subject_slices: [Vec<&'a str>; 7],
    pub serial_numbers: SubjectStrings<'a>,
    /// Non-string Subject values other than CN / serialNumber, in RDN order.
    pub non_string: Vec<NonStringAttribute<'a>>,
    /// String values of Subject OIDs without a named field.
    pub other_attributes: Vec<OidGroup<'a>>,
    /// Subject OIDs without a named field present in the request, string-valued or not.
    pub other_attribute_oids: HashSet<&'a str>,
}

pub(crate) const MULTIPLE_SAN_EXTENSIONS: &str =
    "CSR contains multiple SAN extensions; at most one is permitted";

impl<'a> RequestAttributes<'a> {
    pub(crate) fn new(cr: &'a CertificateRequest, csr: &'a DecodedCsr) -> Self {
        let mut subject_slices: [Vec<&'a str>; 7] = Default::default();
        let mut non_string = Vec::new();
        let mut other_attributes = Grouping::default();
        let mut other_attribute_oids = HashSet::new();
        for attribute in &csr.subject {
            let oid = attribute.oid.as_str();
            if oid == OID_COMMON_NAME || oid == OID_SERIAL_NUMBER {
                continue;
            }
            let named = SUBJECT_SLICES.iter().position(|(_, named)| *named == oid);
            match (&attribute.value, named) {
                (AttributeValue::String(value), Some(index)) => {
                    if let Some(slice) = subject_slices.get_mut(index) {
                        slice.push(value.as_str());
                    }
                }
                (AttributeValue::NonString, Some(index)) => non_string.push(NonStringAttribute {
                    oid,
                    named_field: SUBJECT_SLICES.get(index).map(|(field, _)| *field),
                }),
                (value, None) => {
                    other_attribute_oids.insert(oid);
                    match value {
                        AttributeValue::String(value) => other_attributes.push(oid, value),
                        AttributeValue::NonString => {
                            non_string.push(NonStringAttribute { oid, named_field: None })
                        }
                    }
                }
            }
        }

        let mut other_names = Grouping::default();
        for name in &csr.san.other_names {
            other_names.push(&name.oid, &name.value);
        }

        let mut unsupported_sans = Vec::with_capacity(csr.san.unsupported.len());
        for kind in UNSUPPORTED_SAN_ORDER {
            unsupported_sans.extend(csr.san.unsupported.iter().filter(|k| **k == kind));
        }

        RequestAttributes {
            san_denial: san_denial(csr),
            common_names: subject_strings(csr, OID_COMMON_NAME),
            dns_names: strs(&csr.san.dns_names),
            ip_addresses: strs(&csr.san.ip_addresses),
            uris: strs(&csr.san.uris),
            email_addresses: strs(&csr.san.email_addresses),
            is_ca: cr.spec.is_ca.unwrap_or(false),
            usages: cr.spec.usages.as_deref().map(strs).unwrap_or_default(),
            unsupported_sans,
            other_names: other_names.groups,
            subject_slices,
            serial_numbers: subject_strings(csr, OID_SERIAL_NUMBER),
            non_string,
            other_attributes: other_attributes.groups,
            other_attribute_oids,
        }
    }
}

/// The denial upstream issues while walking the CSR's extensions: an undecodable first SAN
/// extension is reported as such, any second SAN extension as "multiple". The decoded CSR
/// does not say which extension failed to decode, so with several SAN extensions the
/// "multiple" denial is given (a request is denied either way).
fn san_denial(csr: &DecodedCsr) -> Option<String> {
    if csr.san_extension_count > 1 {
        return Some(MULTIPLE_SAN_EXTENSIONS.to_owned());
    }
    let err = csr.san_decode_error.as_ref()?;
    Some(format!("subjectAltName (SAN) extension could not be decoded: {err}"))
}

fn subject_strings<'a>(csr: &'a DecodedCsr, oid: &str) -> SubjectStrings<'a> {
    let mut values = Vec::new();
    for attribute in csr.subject.iter().filter(|a| a.oid == oid) {
        match &attribute.value {
            AttributeValue::String(value) => values.push(value.as_str()),
            AttributeValue::NonString => return SubjectStrings::NonString,
        }
    }
    SubjectStrings::Values(values)
}

fn strs(values: &[String]) -> Vec<&str> {
    values.iter().map(String::as_str).collect()
}

/// Groups values by OID in first-seen order (an index keeps hostile CSRs with thousands of
/// distinct OIDs linear).
#[derive(Default)]
struct Grouping<'a> {
    groups: Vec<OidGroup<'a>>,
    index: HashMap<&'a str, usize>,
}

impl<'a> Grouping<'a> {
    fn push(&mut self, oid: &'a str, value: &'a str) {
        let next = self.groups.len();
        let at = *self.index.entry(oid).or_insert(next);
        match self.groups.get_mut(at) {
            Some(group) => group.values.push(value),
            None => self.groups.push(OidGroup { oid, values: vec![value] }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_api::CertificateRequestSpec;
    use certgate_pki::{KeyAlgorithm, OtherName, PublicKeyInfo, SanEntries, SubjectAttribute};

    fn attr(oid: &str, value: Option<&str>) -> SubjectAttribute {
        SubjectAttribute {
            oid: oid.to_owned(),
            value: value.map_or(AttributeValue::NonString, |v| AttributeValue::String(v.into())),
        }
    }

    fn csr(subject: Vec<SubjectAttribute>, san: SanEntries) -> DecodedCsr {
        DecodedCsr {
            subject,
            san,
            san_extension_count: 1,
            san_decode_error: None,
            public_key: PublicKeyInfo { algorithm: KeyAlgorithm::Ed25519, size: -1 },
            basic_constraints_ca: None,
            key_usages: vec![],
            ext_key_usages: vec![],
            usage_extensions_present: false,
        }
    }

    fn cr() -> CertificateRequest {
        CertificateRequest::new("cr", CertificateRequestSpec::default())
    }

    #[test]
    fn subject_is_split_into_named_slices_other_oids_and_non_strings() {
        let csr = csr(
            vec![
                attr("2.5.4.3", Some("cn-1")),
                attr("2.5.4.10", Some("org")),
                attr("0.9.2342.19200300.100.1.25", Some("dc1")),
                attr("2.5.4.11", None),
                attr("1.2.840.113549.1.9.1", None),
                attr("0.9.2342.19200300.100.1.25", Some("dc2")),
                attr("2.5.4.3", Some("cn-2")),
                attr("2.5.4.10", Some("")),
            ],
            SanEntries::default(),
        );
        let cr = cr();
        let attrs = RequestAttributes::new(&cr, &csr);
        assert_eq!(attrs.common_names, SubjectStrings::Values(vec!["cn-1", "cn-2"]));
        assert_eq!(attrs.subject_slices[0], vec!["org", ""]);
        assert!(attrs.subject_slices[2].is_empty());
        assert_eq!(
            attrs.non_string,
            vec![
                NonStringAttribute { oid: "2.5.4.11", named_field: Some("organizationalUnits") },
                NonStringAttribute { oid: "1.2.840.113549.1.9.1", named_field: None },
            ]
        );
        assert_eq!(
            attrs.other_attributes,
            vec![OidGroup { oid: "0.9.2342.19200300.100.1.25", values: vec!["dc1", "dc2"] }]
        );
        assert_eq!(
            attrs.other_attribute_oids,
            HashSet::from(["0.9.2342.19200300.100.1.25", "1.2.840.113549.1.9.1"])
        );
        assert_eq!(attrs.serial_numbers, SubjectStrings::Values(vec![]));
    }

    #[test]
    fn one_non_string_common_name_makes_the_attribute_non_string() {
        let csr =
            csr(vec![attr("2.5.4.3", Some("a")), attr("2.5.4.3", None)], SanEntries::default());
        let cr = cr();
        assert_eq!(RequestAttributes::new(&cr, &csr).common_names, SubjectStrings::NonString);
    }

    #[test]
    fn other_names_group_by_oid_in_first_seen_order_and_unsupported_sans_are_ordered() {
        let san = SanEntries {
            other_names: vec![
                OtherName { oid: "1.2.3".into(), value: "a".into() },
                OtherName { oid: "1.3.6.1.4.1.311.20.2.3".into(), value: "upn".into() },
                OtherName { oid: "1.2.3".into(), value: "b".into() },
            ],
            unsupported: vec![
                UnsupportedSan::RegisteredId,
                UnsupportedSan::DirectoryName,
                UnsupportedSan::X400Address,
                UnsupportedSan::DirectoryName,
            ],
            ..SanEntries::default()
        };
        let csr = csr(vec![], san);
        let cr = cr();
        let attrs = RequestAttributes::new(&cr, &csr);
        assert_eq!(
            attrs.other_names,
            vec![
                OidGroup { oid: "1.2.3", values: vec!["a", "b"] },
                OidGroup { oid: "1.3.6.1.4.1.311.20.2.3", values: vec!["upn"] },
            ]
        );
        assert_eq!(
            attrs.unsupported_sans,
            vec![
                UnsupportedSan::DirectoryName,
                UnsupportedSan::DirectoryName,
                UnsupportedSan::X400Address,
                UnsupportedSan::RegisteredId,
            ]
        );
    }

    #[test]
    fn san_extension_problems_deny_before_any_attribute() {
        let mut two = csr(vec![], SanEntries::default());
        two.san_extension_count = 2;
        let cr = cr();
        assert_eq!(
            RequestAttributes::new(&cr, &two).san_denial.as_deref(),
            Some(MULTIPLE_SAN_EXTENSIONS)
        );
        let mut broken = csr(vec![], SanEntries::default());
        broken.san_decode_error = Some("trailing data".into());
        assert_eq!(
            RequestAttributes::new(&cr, &broken).san_denial.as_deref(),
            Some("subjectAltName (SAN) extension could not be decoded: trailing data")
        );
    }
}
