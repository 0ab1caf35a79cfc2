//! RFC 4514 rendering of X.509 names (most significant RDN last, as OpenSSL's `-nameopt
//! RFC2253` prints them), used in every message that names an issuer or subject.

use std::fmt::Write;

use x509_parser::prelude::{FromDer, X509Name};

/// Renders a DER `Name`. Unparsable names are shown as `#` + hex so messages stay useful.
pub(crate) fn rfc4514(raw: &[u8]) -> String {
    match X509Name::from_der(raw) {
        Ok((_, name)) => render(&name),
        Err(_) => format!("#{}", hex(raw)),
    }
}

fn render(name: &X509Name<'_>) -> String {
    let mut out = String::new();
    let rdns: Vec<_> = name.iter_rdn().collect();
    for (i, rdn) in rdns.into_iter().rev().enumerate() {
        if i > 0 {
            out.push(',');
        }
        for (j, attr) in rdn.iter().enumerate() {
            if j > 0 {
                out.push('+');
            }
            out.push_str(&short_name(&attr.attr_type().to_id_string()));
            out.push('=');
            match attr.as_str() {
                Ok(s) => escape_into(&mut out, s),
                Err(_) => {
                    // RFC 4514 §2.4: values that are not strings are written as `#` + the hex
                    // of their BER encoding (short-form header for the common small values).
                    let value = attr.attr_value();
                    let data = value.data;
                    out.push('#');
                    let tag = u8::try_from(value.header.tag().0).unwrap_or(0);
                    let _ = write!(out, "{tag:02x}");
                    if let Ok(len) = u8::try_from(data.len()).map(|l| l.min(0x7f)) {
                        let _ = write!(out, "{len:02x}");
                    }
                    out.push_str(&hex(data));
                }
            }
        }
    }
    out
}

fn short_name(oid: &str) -> String {
    match oid {
        "2.5.4.3" => "CN",
        "2.5.4.7" => "L",
        "2.5.4.8" => "ST",
        "2.5.4.10" => "O",
        "2.5.4.11" => "OU",
        "2.5.4.6" => "C",
        "2.5.4.9" => "STREET",
        "0.9.2342.19200300.100.1.25" => "DC",
        "0.9.2342.19200300.100.1.1" => "UID",
        other => other,
    }
    .to_string()
}

fn escape_into(out: &mut String, value: &str) {
    let last = value.chars().count().saturating_sub(1);
    for (i, c) in value.chars().enumerate() {
        match c {
            '"' | '+' | ',' | ';' | '<' | '>' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '#' if i == 0 => out.push_str("\\#"),
            ' ' if i == 0 || i == last => out.push_str("\\ "),
            '\0' => out.push_str("\\00"),
            _ => out.push(c),
        }
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}
