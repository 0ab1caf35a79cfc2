//! Shared helpers: fixtures, a tiny DER writer for requests rcgen cannot produce, and an
//! Ed25519 signer so hand-built requests carry a valid self-signature.
#![allow(dead_code)] // Each test crate uses a different subset.

use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair as _};

pub fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

pub fn fixture_text(name: &str) -> String {
    String::from_utf8(fixture(name)).expect("fixture is UTF-8")
}

/// Tag-length-value with DER length encoding.
pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> = len.to_be_bytes().into_iter().skip_while(|&b| b == 0).collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

pub fn seq(items: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &items.concat())
}

pub fn set(items: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x31, &items.concat())
}

pub fn oid(dotted: &str) -> Vec<u8> {
    let arcs: Vec<u64> = dotted.split('.').map(|a| a.parse().unwrap()).collect();
    let mut content = Vec::new();
    let mut encode = |mut value: u64| {
        let mut groups = vec![(value & 0x7f) as u8];
        value >>= 7;
        while value > 0 {
            groups.push(0x80 | (value & 0x7f) as u8);
            value >>= 7;
        }
        content.extend(groups.into_iter().rev());
    };
    encode(arcs[0] * 40 + arcs[1]);
    for &arc in &arcs[2..] {
        encode(arc);
    }
    tlv(0x06, &content)
}

pub fn utf8(s: &str) -> Vec<u8> {
    tlv(0x0c, s.as_bytes())
}

/// One AttributeTypeAndValue.
pub fn atv(oid_text: &str, value: Vec<u8>) -> Vec<u8> {
    seq(&[oid(oid_text), value])
}

/// A Name from RDNs, each a list of AttributeTypeAndValue.
pub fn name(rdns: &[Vec<Vec<u8>>]) -> Vec<u8> {
    seq(&rdns.iter().map(|rdn| set(rdn)).collect::<Vec<_>>())
}

/// One Extension (non-critical) wrapping `value`.
pub fn extension(oid_text: &str, value: Vec<u8>) -> Vec<u8> {
    seq(&[oid(oid_text), tlv(0x04, &value)])
}

/// An extensionRequest attribute holding `extensions`.
pub fn extension_request(extensions: &[Vec<u8>]) -> Vec<u8> {
    seq(&[oid("1.2.840.113549.1.9.14"), set(&[seq(extensions)])])
}

/// A subjectAltName extension from GeneralName encodings.
pub fn san(names: &[Vec<u8>]) -> Vec<u8> {
    extension("2.5.29.17", seq(names))
}

/// A request over `subject` (a full Name) and the given attributes, signed with a fresh
/// Ed25519 key.
pub fn signed_request(subject: Vec<u8>, attributes: &[Vec<u8>]) -> Vec<u8> {
    let (info, signature) = ed25519_signed_info(subject, attributes);
    assemble(info, seq(&[oid("1.3.101.112")]), &signature)
}

/// certificationRequestInfo with a fresh Ed25519 key, and its signature.
pub fn ed25519_signed_info(subject: Vec<u8>, attributes: &[Vec<u8>]) -> (Vec<u8>, Vec<u8>) {
    let rng = SystemRandom::new();
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let key = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
    let spki = seq(&[seq(&[oid("1.3.101.112")]), bit_string(key.public_key().as_ref())]);
    let info = seq(&[tlv(0x02, &[0]), subject, spki, tlv(0xa0, &attributes.concat())]);
    let signature = key.sign(&info).as_ref().to_vec();
    (info, signature)
}

/// CertificationRequest from its three parts.
pub fn assemble(info: Vec<u8>, algorithm: Vec<u8>, signature: &[u8]) -> Vec<u8> {
    seq(&[info, algorithm, bit_string(signature)])
}

pub fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut content = vec![0];
    content.extend_from_slice(bytes);
    tlv(0x03, &content)
}

/// PEM with the given label and 64-character lines.
pub fn pem(label: &str, der: &[u8]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> =
        b64.as_bytes().chunks(64).map(|c| std::str::from_utf8(c).unwrap()).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----\n", lines.join("\n"))
}

/// Decodes a PEM fixture's body to DER.
pub fn pem_to_der(text: &str) -> Vec<u8> {
    let body: String = text.lines().filter(|l| !l.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD.decode(body).unwrap()
}
