//! `spec.request` read as cert-manager reads it before signing
//! (`DecodeX509CertificateRequestBytes` in pkg/util/pki/parse.go, then Go's
//! `x509.ParseCertificateRequest` and `CheckSignature`): at most 36,500 bytes, the first PEM
//! block whatever its label (no DER fallback), every requested extension with its
//! criticality, duplicates refused, and the SAN checks Go's parser applies.

use std::net::{AddrParseError, IpAddr};

use asn1_rs::Tag;
use certgate_gofmt::quote;
use certgate_gofmt::url::GoUrl;

use super::TemplateError;
use crate::csr::CsrError;
use crate::der::{Element, boolean, read, read_oid, read_universal, tlv};
use crate::{key, pem, request, signature, subject};

/// cert-manager's size limit for a PEM CSR (`maxLeafCertificatePEMSize` in internal/pem).
pub const MAX_REQUEST_PEM_BYTES: usize = 36_500;

const EXTENSION_REQUEST: &str = "1.2.840.113549.1.9.14";
pub(super) const SUBJECT_ALT_NAME: &str = "2.5.29.17";

/// The parts of a request a certificate is made from.
#[derive(Clone, Debug)]
pub(super) struct Request {
    /// The full encoding of the subject Name, as written in the request.
    pub(super) subject: Vec<u8>,
    /// The full encoding of the SubjectPublicKeyInfo.
    pub(super) spki: Vec<u8>,
    pub(super) extensions: Vec<RequestedExtension>,
}

/// One requested extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RequestedExtension {
    pub(super) oid: String,
    pub(super) critical: bool,
    /// Content of extnValue.
    pub(super) value: Vec<u8>,
}

/// Decodes and verifies `spec.request`.
pub(super) fn read_request(input: &[u8]) -> Result<Request, TemplateError> {
    if input.len() > MAX_REQUEST_PEM_BYTES {
        return Err(TemplateError::RequestTooLarge { limit: MAX_REQUEST_PEM_BYTES });
    }
    let Some((block, _)) = pem::decode(input) else {
        return Err(TemplateError::NoPem);
    };
    let parts = request::parse(&block.der)?;
    let public_key =
        key::parse_spki(parts.spki).map_err(|reason| CsrError::PublicKey { reason })?;
    subject::decode(parts.subject).map_err(|reason| CsrError::Subject { reason })?;
    let extensions = requested_extensions(parts.attributes)?;
    for extension in &extensions {
        if extension.oid == SUBJECT_ALT_NAME {
            check_subject_alt_name(&extension.value)
                .map_err(|reason| TemplateError::SubjectAltName { reason })?;
        }
    }
    signature::verify_request(
        &parts.signature_algorithm,
        &public_key,
        parts.signed,
        parts.signature,
    )?;
    Ok(Request { subject: tlv(0x30, parts.subject), spki: parts.spki.to_vec(), extensions })
}

fn der_error(reason: String) -> TemplateError {
    TemplateError::Csr(CsrError::Der { reason })
}

/// Go's `parseCSRExtensions`: attributes that do not parse are skipped, the first value of
/// each extensionRequest must be an extension list, and an OID may be requested only once.
fn requested_extensions(mut attributes: &[u8]) -> Result<Vec<RequestedExtension>, TemplateError> {
    let mut extensions: Vec<RequestedExtension> = Vec::new();
    let mut index = 0usize;
    while !attributes.is_empty() {
        let (attribute, rest) =
            read(attributes, &format!("attribute {index}")).map_err(der_error)?;
        attributes = rest;
        if let Some(first_value) = extension_request_value(&attribute) {
            let field = format!("attribute {index} (extensionRequest)");
            for extension in extension_list(first_value, &field).map_err(der_error)? {
                if extensions.iter().any(|seen| seen.oid == extension.oid) {
                    return Err(TemplateError::DuplicateExtension);
                }
                extensions.push(extension);
            }
        }
        index += 1;
    }
    Ok(extensions)
}

/// The first value of an extensionRequest attribute; `None` for other attributes and for
/// attributes that do not parse.
fn extension_request_value<'a>(attribute: &Element<'a>) -> Option<&'a [u8]> {
    if !attribute.is_universal() || attribute.tag_number() != Tag::Sequence.0 {
        return None;
    }
    let (oid, rest) = read_oid(attribute.content(), "attribute type").ok()?;
    let (values, _) = read_universal(rest, Tag::Set, "attribute values").ok()?;
    let mut remaining = values.content();
    let (first, _) = read(remaining, "attribute value").ok()?;
    // Go parses every value of the SET; one that does not parse discards the attribute.
    while !remaining.is_empty() {
        remaining = read(remaining, "attribute value").ok()?.1;
    }
    (oid == EXTENSION_REQUEST).then_some(first.raw())
}

/// Extensions ::= SEQUENCE OF Extension.
fn extension_list(value: &[u8], field: &str) -> Result<Vec<RequestedExtension>, String> {
    let (list, _) = read_universal(value, Tag::Sequence, field)?;
    let mut remaining = list.content();
    let mut extensions = Vec::new();
    while !remaining.is_empty() {
        let entry_field = format!("{field} extension {}", extensions.len());
        let (entry, rest) = read_universal(remaining, Tag::Sequence, &entry_field)?;
        remaining = rest;
        extensions.push(extension(entry.content(), &entry_field)?);
    }
    Ok(extensions)
}

/// Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }.
fn extension(content: &[u8], field: &str) -> Result<RequestedExtension, String> {
    let (oid, rest) = read_oid(content, &format!("{field} extnID"))?;
    let field = format!("{field} ({oid})");
    let (next, rest) = read(rest, &field)?;
    let (critical, value) = if next.is_universal_primitive(Tag::Boolean) {
        let critical = boolean(&next, &format!("{field} critical"))?;
        (critical, read_universal(rest, Tag::OctetString, &format!("{field} extnValue"))?.0)
    } else if next.is_universal_primitive(Tag::OctetString) {
        (false, next)
    } else {
        return Err(format!("{field} extnValue: expected OCTET STRING, found {}", next.describe()));
    };
    Ok(RequestedExtension { oid, critical, value: value.content().to_vec() })
}

/// The checks Go's `parseSANExtension` makes while parsing a request: the entries it reads
/// (rfc822Name, dNSName, URI, iPAddress) must be well formed; other kinds pass unread.
fn check_subject_alt_name(value: &[u8]) -> Result<(), String> {
    let invalid_names = || "x509: invalid subject alternative names".to_string();
    let (names, _) = read(value, "GeneralNames").map_err(|_| invalid_names())?;
    if !names.is_universal() || names.tag_number() != Tag::Sequence.0 || !names.is_constructed() {
        return Err(invalid_names());
    }
    let mut remaining = names.content();
    while !remaining.is_empty() {
        let (name, rest) = read(remaining, "GeneralName")
            .map_err(|_| "x509: invalid subject alternative name".to_string())?;
        remaining = rest;
        if name.tag_number() >= 31 {
            return Err("x509: invalid subject alternative name".to_string());
        }
        if !name.is_context_specific() || name.is_constructed() {
            continue;
        }
        let data = name.content();
        match name.tag_number() {
            1 if !data.is_ascii() => return Err("x509: SAN rfc822Name is malformed".into()),
            2 if !data.is_ascii() => return Err("x509: SAN dNSName is malformed".into()),
            6 if !data.is_ascii() => {
                return Err("x509: SAN uniformResourceIdentifier is malformed".into());
            }
            6 => check_uri(&String::from_utf8_lossy(data))?,
            7 if data.len() != 4 && data.len() != 16 => {
                return Err(format!("x509: cannot parse IP address of length {}", data.len()));
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_uri(uri: &str) -> Result<(), String> {
    let url = GoUrl::parse(uri, &ip_literal).map_err(|(input, reason)| {
        format!("x509: cannot parse URI {}: parse {}: {reason}", quote(uri), quote(&input))
    })?;
    let host = url.host();
    if !host.is_empty() && !domain_name_valid(host, false) {
        return Err(format!("x509: cannot parse URI {}: invalid domain", quote(uri)));
    }
    Ok(())
}

/// The address inside a bracketed URI host, zone dropped (Go's `netip.ParseAddr` there).
fn ip_literal(text: &str) -> Result<IpAddr, AddrParseError> {
    text.split_once('%').map_or(text, |(address, _zone)| address).parse()
}

/// Go's `domainNameValid` (crypto/x509/parser.go) as Go 1.26 applies it: empty is valid; no
/// trailing dot, no empty label (a constraint may start with one dot), printable ASCII.
pub(super) fn domain_name_valid(name: &[u8], constraint: bool) -> bool {
    if name.is_empty() {
        return true;
    }
    if name.last() == Some(&b'.') {
        return false;
    }
    let name = match name.strip_prefix(b".") {
        Some(rest) if constraint => rest,
        _ => name,
    };
    name.split(|&b| b == b'.').all(|label| !label.is_empty())
        && name.iter().all(|&b| (33..=126).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAN_OID: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x11];
    const EXT_REQ: &[u8] = &[0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x0e];

    fn attribute(extensions: &[Vec<u8>]) -> Vec<u8> {
        let list = tlv(0x30, &extensions.concat());
        tlv(0x30, &[EXT_REQ, &tlv(0x31, &list)].concat())
    }

    fn ext(oid: &[u8], critical: bool, value: &[u8]) -> Vec<u8> {
        let boolean: &[u8] = if critical { &[0x01, 0x01, 0xff] } else { &[] };
        tlv(0x30, &[oid, boolean, &tlv(0x04, value)].concat())
    }

    #[test]
    fn extensions_keep_criticality_and_order() {
        let ku = [0x06, 0x03, 0x55, 0x1d, 0x0f];
        let attributes = attribute(&[ext(SAN_OID, false, b"a"), ext(&ku, true, b"b")]);
        let found = requested_extensions(&attributes).unwrap();
        assert_eq!(
            found,
            [
                RequestedExtension { oid: "2.5.29.17".into(), critical: false, value: b"a".into() },
                RequestedExtension { oid: "2.5.29.15".into(), critical: true, value: b"b".into() },
            ]
        );
    }

    #[test]
    fn duplicates_across_attributes_are_refused() {
        let attributes =
            [attribute(&[ext(SAN_OID, false, b"a")]), attribute(&[ext(SAN_OID, true, b"b")])]
                .concat();
        assert_eq!(requested_extensions(&attributes), Err(TemplateError::DuplicateExtension));
        assert_eq!(
            TemplateError::DuplicateExtension.to_string(),
            "x509: certificate request contains duplicate requested extensions"
        );
    }

    #[test]
    fn attributes_that_do_not_parse_are_skipped() {
        let empty_values = tlv(0x30, &[EXT_REQ, &tlv(0x31, &[])].concat());
        let not_a_sequence = tlv(0x31, &[]);
        let attributes =
            [empty_values, not_a_sequence, attribute(&[ext(SAN_OID, false, b"a")])].concat();
        assert_eq!(requested_extensions(&attributes).unwrap().len(), 1);
    }

    #[test]
    fn san_checks_follow_go() {
        let names = |items: &[Vec<u8>]| tlv(0x30, &items.concat());
        let ok = names(&[
            tlv(0x82, b"a.example"),
            tlv(0x87, &[10, 0, 0, 1]),
            tlv(0x86, b"spiffe://td/ns/x"),
            // Kinds Go does not read pass, even malformed: constructed dNSName, registeredID.
            tlv(0xa2, &[]),
            tlv(0x88, &[0xff]),
        ]);
        assert_eq!(check_subject_alt_name(&ok), Ok(()));
        let cases: [(Vec<u8>, &str); 7] = [
            (tlv(0x04, b""), "x509: invalid subject alternative names"),
            (names(&[vec![0x82, 0x05, b'a']]), "x509: invalid subject alternative name"),
            (names(&[tlv(0x82, &[0xc3, 0xa9])]), "x509: SAN dNSName is malformed"),
            (names(&[tlv(0x81, &[0xff])]), "x509: SAN rfc822Name is malformed"),
            (names(&[tlv(0x87, &[1, 2, 3])]), "x509: cannot parse IP address of length 3"),
            (
                names(&[tlv(0x86, b"https://h:port/")]),
                "x509: cannot parse URI \"https://h:port/\": parse \"https://h:port/\": invalid port \":port\" after host",
            ),
            (
                names(&[tlv(0x86, b"https://a..b/")]),
                "x509: cannot parse URI \"https://a..b/\": invalid domain",
            ),
        ];
        for (der, expected) in cases {
            assert_eq!(check_subject_alt_name(&der).unwrap_err(), expected);
        }
    }

    #[test]
    fn size_limit_and_pem_are_cert_managers() {
        let big = vec![b'a'; MAX_REQUEST_PEM_BYTES + 1];
        assert_eq!(
            read_request(&big).unwrap_err().to_string(),
            "error decoding certificate request PEM block: provided PEM data was larger than the maximum 36500B"
        );
        assert_eq!(
            read_request(b"\x30\x00").unwrap_err().to_string(),
            "error decoding certificate request PEM block: no PEM data was found in given input"
        );
    }
}
