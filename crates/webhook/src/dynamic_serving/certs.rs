//! Defensive PEM and X.509 parsing of what a CA Secret holds: bounded sizes and counts, no
//! panics on any input, every problem named by the Secret key it was found in. PEM and the
//! self-signature are `certgate-pki`'s, the workspace's one implementation of each.

use std::time::SystemTime;

use certgate_pki::pem::{self, Body};
use certgate_pki::signature::{Policy, verify_certificate};
use x509_parser::prelude::{FromDer, X509Certificate};

use super::error::InvalidCa;
use super::validity::Validity;

/// The most bytes read from one Secret key. A CA certificate, its key or a bundle of a few
/// CAs is a few kilobytes; anything much larger is not ours.
pub const MAX_PEM_BYTES: usize = 64 * 1024;

/// The most certificates taken from one Secret key.
pub const MAX_CERTIFICATES: usize = 16;

/// A parsed CA certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaCertificate {
    pub der: Vec<u8>,
    pub validity: Validity,
    /// Hexadecimal serial number, for logs.
    pub serial: String,
    /// The subjectPublicKey bits, to match the private key against.
    pub public_key: Vec<u8>,
}

impl CaCertificate {
    /// The certificate as one PEM block.
    pub fn pem(&self) -> String {
        to_pem(&self.der)
    }

    /// Checks that the certificate is usable at `now`.
    pub fn check_time(&self, key: &'static str, now: SystemTime) -> Result<(), InvalidCa> {
        if now < self.validity.not_before {
            return Err(InvalidCa::NotYetValid { key, not_before: self.validity.not_before });
        }
        if self.validity.expired(now) {
            return Err(InvalidCa::Expired { key, not_after: self.validity.not_after });
        }
        Ok(())
    }
}

fn check_size(key: &'static str, bytes: &[u8]) -> Result<(), InvalidCa> {
    if bytes.len() > MAX_PEM_BYTES {
        return Err(InvalidCa::TooLarge { key, size: bytes.len(), limit: MAX_PEM_BYTES });
    }
    Ok(())
}

/// The first certificate of the PEM in `bytes` (Secret key `key`), parsed as a self-signed
/// CA certificate.
pub fn first_ca(key: &'static str, bytes: &[u8]) -> Result<CaCertificate, InvalidCa> {
    check_size(key, bytes)?;
    let der = match certificate_blocks(bytes).next() {
        None => return Err(InvalidCa::NoCertificate { key }),
        Some(Err(reason)) => return Err(InvalidCa::Certificate { key, reason }),
        Some(Ok(der)) => der,
    };
    let ca = parse_ca(key, &der)?;
    check_self_signed(key, &der)?;
    Ok(ca)
}

/// Every certificate of the PEM in `bytes` that parses as a CA certificate, in order, at
/// most [`MAX_CERTIFICATES`]. Anything else (oversized input, malformed PEM from the first
/// bad block on, certificates that are not CAs) is left out: a bundle is rebuilt from what
/// can be trusted to be a CA, never refused as a whole.
pub fn lenient_cas(key: &'static str, bytes: &[u8]) -> Vec<CaCertificate> {
    if check_size(key, bytes).is_err() {
        return Vec::new();
    }
    certificate_blocks(bytes)
        .take(MAX_CERTIFICATES)
        .map_while(Result::ok)
        .filter_map(|der| parse_ca(key, &der).ok())
        .collect()
}

/// The DER of each `CERTIFICATE` block of `bytes` in order (other block types are passed
/// over), ending with an `Err` naming the first malformed PEM block, if any: what follows a
/// broken block is not trusted.
fn certificate_blocks(bytes: &[u8]) -> impl Iterator<Item = Result<Vec<u8>, String>> + '_ {
    let mut rest = bytes;
    let mut offset = 0usize;
    let mut done = false;
    std::iter::from_fn(move || {
        while !done {
            let mut malformed = None;
            let block = pem::next_block(rest, Body::Decode, &mut |mut skipped| {
                if malformed.is_none() {
                    skipped.begin += offset;
                    malformed = Some(skipped.to_string());
                }
            });
            if let Some(reason) = malformed {
                done = true;
                return Some(Err(reason));
            }
            let block = block?;
            rest = rest.get(block.end..).unwrap_or_default();
            offset += block.end;
            if block.label == b"CERTIFICATE" {
                return Some(Ok(block.der));
            }
        }
        None
    })
}

/// Parses one DER certificate and checks it is a CA that may sign certificates.
pub fn parse_ca(key: &'static str, der: &[u8]) -> Result<CaCertificate, InvalidCa> {
    let cert = parse(key, der)?;
    let is_ca = matches!(cert.basic_constraints(), Ok(Some(ext)) if ext.value.ca);
    if !is_ca {
        return Err(InvalidCa::NotCa { key });
    }
    match cert.key_usage() {
        Ok(Some(usage)) if !usage.value.key_cert_sign() => {
            return Err(InvalidCa::CannotSign { key });
        }
        Ok(_) => {}
        Err(err) => return Err(InvalidCa::Certificate { key, reason: err.to_string() }),
    }
    let validity = cert.validity();
    Ok(CaCertificate {
        der: der.to_vec(),
        validity: Validity::from_unix(
            validity.not_before.timestamp(),
            validity.not_after.timestamp(),
        ),
        serial: cert.raw_serial_as_string(),
        public_key: cert.public_key().subject_public_key.data.to_vec(),
    })
}

fn parse<'a>(key: &'static str, der: &'a [u8]) -> Result<X509Certificate<'a>, InvalidCa> {
    match X509Certificate::from_der(der) {
        Ok((rest, _)) if !rest.is_empty() => Err(InvalidCa::Certificate {
            key,
            reason: format!("{} bytes follow the certificate", rest.len()),
        }),
        Ok((_, cert)) => Ok(cert),
        Err(err) => Err(InvalidCa::Certificate { key, reason: err.to_string() }),
    }
}

fn check_self_signed(key: &'static str, der: &[u8]) -> Result<(), InvalidCa> {
    let cert = parse(key, der)?;
    if cert.subject() != cert.issuer() {
        return Err(InvalidCa::NotSelfSigned {
            key,
            reason: "its issuer is not its subject".to_owned(),
        });
    }
    // ring's standard verifiers, as the rustls side of certgate verifies.
    verify_certificate(der, None, Policy::Ring)
        .map_err(|err| InvalidCa::NotSelfSigned { key, reason: err.to_string() })
}

/// One PEM CERTIFICATE block (64-character lines, trailing newline).
pub fn to_pem(der: &[u8]) -> String {
    pem::encode("CERTIFICATE", der)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamic_serving::generate::generate_ca;
    use std::time::{Duration, UNIX_EPOCH};

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    fn ca_pem() -> String {
        generate_ca(now(), Duration::from_secs(3_600)).unwrap().cert_pem
    }

    #[test]
    fn reads_a_generated_ca_and_writes_it_back_identically() {
        let pem = ca_pem();
        let ca = first_ca("tls.crt", pem.as_bytes()).unwrap();
        assert_eq!(ca.pem(), pem);
        assert_eq!(ca.validity.not_after, now() + Duration::from_secs(3_600));
        ca.check_time("tls.crt", now()).unwrap();
    }

    #[test]
    fn names_every_problem_by_key() {
        let err = first_ca("tls.crt", b"").unwrap_err();
        assert_eq!(err.to_string(), "tls.crt holds no PEM CERTIFICATE block");
        let garbage = b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        let err = first_ca("tls.crt", garbage).unwrap_err();
        assert!(err.to_string().starts_with("tls.crt is not a valid X.509 certificate: "), "{err}");
        let big = vec![b'A'; MAX_PEM_BYTES + 1];
        let err = first_ca("tls.crt", &big).unwrap_err();
        assert_eq!(
            err.to_string(),
            "tls.crt holds 65537 bytes, more than the 65536 a CA Secret needs"
        );
        let ca = first_ca("tls.crt", ca_pem().as_bytes()).unwrap();
        let err = ca.check_time("tls.crt", now() + Duration::from_secs(3_601)).unwrap_err();
        assert_eq!(err.to_string(), "tls.crt expired at 2027-01-15T09:00:00Z");
        let err = ca.check_time("tls.crt", now() - Duration::from_secs(301)).unwrap_err();
        assert_eq!(err.to_string(), "tls.crt is not valid before 2027-01-15T07:55:00Z");
    }

    #[test]
    fn refuses_a_leaf_as_ca() {
        let leaf = rcgen::generate_simple_self_signed(vec!["a.example".to_owned()]).unwrap();
        let err = first_ca("tls.crt", leaf.cert.pem().as_bytes()).unwrap_err();
        assert_eq!(err, InvalidCa::NotCa { key: "tls.crt" });
    }

    #[test]
    fn refuses_a_ca_signed_by_another() {
        let root_key = rcgen::KeyPair::generate().unwrap();
        let mut root = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        root.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        root.distinguished_name.push(rcgen::DnType::CommonName, "root");
        let root = rcgen::CertifiedIssuer::self_signed(root, root_key).unwrap();
        let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
        params.distinguished_name.push(rcgen::DnType::CommonName, "intermediate");
        let key = rcgen::KeyPair::generate().unwrap();
        let intermediate = params.signed_by(&key, &root).unwrap();
        let err = first_ca("tls.crt", intermediate.pem().as_bytes()).unwrap_err();
        assert!(matches!(err, InvalidCa::NotSelfSigned { .. }), "{err}");
    }

    #[test]
    fn a_lenient_read_keeps_the_cas_before_the_first_bad_block() {
        let (a, b) = (ca_pem(), ca_pem());
        let leaf = rcgen::generate_simple_self_signed(vec!["a.example".to_owned()]).unwrap();
        let text = format!(
            "{a}{}{b}-----BEGIN CERTIFICATE-----\n!!\n-----END CERTIFICATE-----\n{a}",
            leaf.cert.pem()
        );
        let cas = lenient_cas("ca.crt", text.as_bytes());
        let pems: Vec<String> = cas.iter().map(CaCertificate::pem).collect();
        assert_eq!(pems, [a, b]);
        assert!(lenient_cas("ca.crt", &vec![0u8; MAX_PEM_BYTES + 1]).is_empty());
        assert!(lenient_cas("ca.crt", b"\xff\xfe not text").is_empty());
    }
}
