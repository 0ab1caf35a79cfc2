//! A requested nameConstraints extension, read as cert-manager's `UnmarshalNameConstraints`
//! (pkg/util/pki/nameconstraints.go) reads it and written back as Go's `CreateCertificate`
//! writes the template fields it fills: DNS, IP, email and URI subtrees only, in that order
//! within each of permitted and excluded, minimum/maximum dropped, IP ranges masked.

use asn1_rs::Tag;
use certgate_gofmt::quote_bytes;

use super::request::domain_name_valid;
use crate::der::{Element, end, read, read_universal, tlv};

const DNS: u8 = 0x82;
const EMAIL: u8 = 0x81;
const URI: u8 = 0x86;
const IP: u8 = 0x87;

/// One of permitted or excluded, split by kind as Go's template holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Subtrees {
    dns: Vec<Vec<u8>>,
    /// Address followed by mask, 8 or 32 bytes.
    ips: Vec<Vec<u8>>,
    emails: Vec<Vec<u8>>,
    uri_domains: Vec<Vec<u8>>,
}

impl Subtrees {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut push = |tag: u8, value: &[u8]| out.extend(tlv(0x30, &tlv(tag, value)));
        self.dns.iter().for_each(|name| push(DNS, name));
        for range in &self.ips {
            let (address, mask) = range.split_at(range.len() / 2);
            let masked: Vec<u8> = address.iter().zip(mask).map(|(a, m)| a & m).collect();
            push(IP, &[masked.as_slice(), mask].concat());
        }
        self.emails.iter().for_each(|email| push(EMAIL, email));
        self.uri_domains.iter().for_each(|domain| push(URI, domain));
        out
    }
}

/// The extension value Go writes for the constraints in `value` (a requested
/// nameConstraints extnValue); the error is cert-manager's text.
pub(super) fn reencode(value: &[u8]) -> Result<Vec<u8>, String> {
    let (permitted, excluded) = parse(value)?;
    let permitted = permitted.encode();
    let excluded = excluded.encode();
    let mut content = Vec::new();
    if !permitted.is_empty() {
        content.extend(tlv(0xa0, &permitted));
    }
    if !excluded.is_empty() {
        content.extend(tlv(0xa1, &excluded));
    }
    Ok(tlv(0x30, &content))
}

/// The further checks Go's certificate parser makes on the names in a nameConstraints
/// extension (cert-manager parses every certificate it signs): DNS and URI constraints must
/// be domain names, a URI constraint not an IP address, an email constraint without `@` a
/// domain. (Go's mailbox check of constraints with `@` is not made.)
pub(super) fn check_as_go_parses(value: &[u8]) -> Result<(), String> {
    let (permitted, excluded) = parse(value)?;
    for subtrees in [permitted, excluded] {
        for name in &subtrees.dns {
            if !domain_name_valid(name, true) {
                return Err(format!(
                    "x509: failed to parse dnsName constraint {}",
                    quote_bytes(name)
                ));
            }
        }
        for email in &subtrees.emails {
            if !email.contains(&b'@') && !domain_name_valid(email, true) {
                return Err(format!(
                    "x509: failed to parse rfc822Name constraint {}",
                    quote_bytes(email)
                ));
            }
        }
        for domain in &subtrees.uri_domains {
            let text = String::from_utf8_lossy(domain);
            if text.parse::<std::net::IpAddr>().is_ok() {
                return Err(format!(
                    "x509: failed to parse URI constraint {}: cannot be IP address",
                    quote_bytes(domain)
                ));
            }
            if !domain_name_valid(domain, true) {
                return Err(format!(
                    "x509: failed to parse URI constraint {}",
                    quote_bytes(domain)
                ));
            }
        }
    }
    Ok(())
}

/// cert-manager's `UnmarshalNameConstraints`: (permitted, excluded).
fn parse(value: &[u8]) -> Result<(Subtrees, Subtrees), String> {
    let invalid = || "x509: invalid NameConstraints extension".to_string();
    let (outer, rest) = read(value, "NameConstraints").map_err(|_| invalid())?;
    if !is_tag(&outer, 0x30) || !rest.is_empty() {
        return Err(invalid());
    }
    let mut remaining = outer.content();
    let mut permitted = None;
    let mut excluded = None;
    for (tag, slot) in [(0xa0, &mut permitted), (0xa1, &mut excluded)] {
        if remaining.is_empty() {
            break;
        }
        let (element, rest) = read(remaining, "GeneralSubtrees").map_err(|_| invalid())?;
        if is_tag(&element, tag) {
            *slot = Some(element.content());
            remaining = rest;
        }
    }
    end(remaining, "NameConstraints").map_err(|_| invalid())?;
    let permitted = permitted.unwrap_or_default();
    let excluded = excluded.unwrap_or_default();
    if permitted.is_empty() && excluded.is_empty() {
        return Err("x509: empty name constraints extension".to_string());
    }
    Ok((subtrees(permitted)?, subtrees(excluded)?))
}

/// The single identifier octet of `element` is `tag` (Go's cryptobyte compares that octet).
fn is_tag(element: &Element<'_>, tag: u8) -> bool {
    identifier(element) == Some(tag)
}

fn identifier(element: &Element<'_>) -> Option<u8> {
    let number = u8::try_from(element.tag_number()).ok().filter(|n| *n < 31)?;
    let class = if element.is_universal() {
        0x00
    } else if element.is_context_specific() {
        0x80
    } else {
        // Application or private: no subtree base Go reads has these classes.
        0x40
    };
    Some(class | if element.is_constructed() { 0x20 } else { 0 } | number)
}

fn subtrees(mut content: &[u8]) -> Result<Subtrees, String> {
    let invalid = || "x509: invalid NameConstraints extension".to_string();
    let mut out = Subtrees::default();
    while !content.is_empty() {
        let (subtree, rest) =
            read_universal(content, Tag::Sequence, "GeneralSubtree").map_err(|_| invalid())?;
        content = rest;
        let (base, _) = read(subtree.content(), "GeneralSubtree base").map_err(|_| invalid())?;
        let tag = identifier(&base).ok_or_else(invalid)?;
        let value = base.content();
        match tag {
            DNS => out.dns.push(ia5(value)?),
            IP => out.ips.push(ip_range(value)?),
            EMAIL => out.emails.push(ia5(value)?),
            URI => out.uri_domains.push(ia5(value)?),
            other => return Err(format!("x509: unsupported NameConstraints tag: {other}")),
        }
    }
    Ok(out)
}

fn ia5(value: &[u8]) -> Result<Vec<u8>, String> {
    if value.is_ascii() {
        Ok(value.to_vec())
    } else {
        Err(format!(
            "x509: invalid constraint value: x509: {} cannot be encoded as an IA5String",
            quote_bytes(value)
        ))
    }
}

fn ip_range(value: &[u8]) -> Result<Vec<u8>, String> {
    if value.len() != 8 && value.len() != 32 {
        return Err(format!("x509: IP constraint contained value of length {}", value.len()));
    }
    let mask = &value[value.len() / 2..];
    if !is_valid_mask(mask) {
        let hex: String = mask.iter().map(|b| format!("{b:02x}")).collect();
        return Err(format!("x509: IP constraint contained invalid mask {hex}"));
    }
    Ok(value.to_vec())
}

/// Ones, then zeros.
fn is_valid_mask(mask: &[u8]) -> bool {
    let mut seen_zero = false;
    mask.iter().all(|&byte| {
        if seen_zero {
            byte == 0
        } else {
            seen_zero = byte != 0xff;
            byte.leading_ones() + byte.trailing_zeros() >= 8
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn subtree(base: Vec<u8>, extra: &[u8]) -> Vec<u8> {
        tlv(0x30, &[base, extra.to_vec()].concat())
    }

    #[test]
    fn reencodes_in_go_order_masking_ranges() {
        let permitted = [
            subtree(tlv(URI, b".example.com"), &[]),
            subtree(tlv(IP, &[10, 1, 2, 3, 255, 255, 0, 0]), &[]),
            subtree(tlv(DNS, b"example.com"), &[0x80, 0x01, 0x00]),
            subtree(tlv(EMAIL, b"example.com"), &[]),
        ]
        .concat();
        let excluded = subtree(tlv(DNS, b"bad.example.com"), &[]);
        let value = tlv(0x30, &[tlv(0xa0, &permitted), tlv(0xa1, &excluded)].concat());
        let expected_permitted = [
            subtree(tlv(DNS, b"example.com"), &[]),
            subtree(tlv(IP, &[10, 1, 0, 0, 255, 255, 0, 0]), &[]),
            subtree(tlv(EMAIL, b"example.com"), &[]),
            subtree(tlv(URI, b".example.com"), &[]),
        ]
        .concat();
        assert_eq!(
            reencode(&value).unwrap(),
            tlv(0x30, &[tlv(0xa0, &expected_permitted), tlv(0xa1, &excluded)].concat())
        );
        let only_excluded = tlv(0x30, &tlv(0xa1, &excluded));
        assert_eq!(reencode(&only_excluded).unwrap(), only_excluded);
    }

    #[test]
    fn errors_are_cert_managers() {
        let wrap = |subtrees: Vec<u8>| tlv(0x30, &tlv(0xa0, &subtrees));
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (tlv(0x31, &[]), "x509: invalid NameConstraints extension"),
            (tlv(0x30, &[]), "x509: empty name constraints extension"),
            (tlv(0x30, &tlv(0xa0, &[])), "x509: empty name constraints extension"),
            (tlv(0x30, &tlv(0xa2, &[])), "x509: invalid NameConstraints extension"),
            (
                wrap(subtree(tlv(0xa4, &tlv(0x30, &[])), &[])),
                "x509: unsupported NameConstraints tag: 164",
            ),
            (
                wrap(subtree(tlv(IP, &[1, 2, 3, 4, 255, 0, 255, 0]), &[])),
                "x509: IP constraint contained invalid mask ff00ff00",
            ),
            (
                wrap(subtree(tlv(IP, &[1, 2, 3]), &[])),
                "x509: IP constraint contained value of length 3",
            ),
            (
                wrap(subtree(tlv(DNS, "é".as_bytes()), &[])),
                "x509: invalid constraint value: x509: \"é\" cannot be encoded as an IA5String",
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(reencode(&value).unwrap_err(), expected);
        }
    }

    #[test]
    fn names_go_would_not_parse_back() {
        let wrap = |base: Vec<u8>| tlv(0x30, &tlv(0xa0, &subtree(base, &[])));
        assert_eq!(check_as_go_parses(&wrap(tlv(DNS, b".example.com"))), Ok(()));
        assert_eq!(check_as_go_parses(&wrap(tlv(EMAIL, b"me@example.com"))), Ok(()));
        let cases = [
            (
                tlv(DNS, b"example..com"),
                "x509: failed to parse dnsName constraint \"example..com\"",
            ),
            (
                tlv(DNS, b"example.com."),
                "x509: failed to parse dnsName constraint \"example.com.\"",
            ),
            (tlv(EMAIL, b"a b"), "x509: failed to parse rfc822Name constraint \"a b\""),
            (
                tlv(URI, b"10.0.0.1"),
                "x509: failed to parse URI constraint \"10.0.0.1\": cannot be IP address",
            ),
            (tlv(URI, b"a..b"), "x509: failed to parse URI constraint \"a..b\""),
        ];
        for (base, expected) in cases {
            assert_eq!(check_as_go_parses(&wrap(base)).unwrap_err(), expected);
        }
    }

    #[test]
    fn masks() {
        assert!(is_valid_mask(&[0xff, 0xff, 0xf0, 0]));
        assert!(is_valid_mask(&[0, 0, 0, 0]));
        assert!(!is_valid_mask(&[0xff, 0x0f, 0, 0]));
        assert!(!is_valid_mask(&[0xf0, 0xff, 0, 0]));
    }
}
