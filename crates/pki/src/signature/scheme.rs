//! Signature schemes: what an AlgorithmIdentifier selects, and how it is named in messages.

use crate::der::{Element, read, read_oid};

use super::pss;

/// Message digests used by the supported signature algorithms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hash {
    Sha1,
    Sha256,
    Sha384,
    Sha512,
}

impl Hash {
    /// Output length in bytes.
    pub fn output_len(self) -> usize {
        match self {
            Hash::Sha1 => 20,
            Hash::Sha256 => 32,
            Hash::Sha384 => 48,
            Hash::Sha512 => 64,
        }
    }

    /// The name used in messages (`SHA-256`).
    pub fn name(self) -> &'static str {
        match self {
            Hash::Sha1 => "SHA-1",
            Hash::Sha256 => "SHA-256",
            Hash::Sha384 => "SHA-384",
            Hash::Sha512 => "SHA-512",
        }
    }
}

/// A signature scheme and its digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    RsaPkcs1(Hash),
    RsaPss(Hash),
    Ecdsa(Hash),
    Ed25519,
}

impl Scheme {
    /// The key type the scheme needs, with its article, for messages (`an RSA`).
    pub fn key_kind(self) -> &'static str {
        match self {
            Scheme::RsaPkcs1(_) | Scheme::RsaPss(_) => "an RSA",
            Scheme::Ecdsa(_) => "an ECDSA",
            Scheme::Ed25519 => "an Ed25519",
        }
    }
}

/// An AlgorithmIdentifier: dotted OID and optional parameters.
#[derive(Clone, Debug)]
pub(crate) struct Algorithm<'a> {
    pub(crate) oid: String,
    pub(crate) params: Option<Element<'a>>,
}

impl Algorithm<'_> {
    /// The scheme it selects; `None` for algorithms not supported at all, an error for bad
    /// parameters of a supported one.
    pub(crate) fn scheme(&self) -> Result<Option<Scheme>, String> {
        let scheme = match self.oid.as_str() {
            "1.2.840.113549.1.1.5" | "1.3.14.3.2.29" => Scheme::RsaPkcs1(Hash::Sha1),
            "1.2.840.113549.1.1.11" => Scheme::RsaPkcs1(Hash::Sha256),
            "1.2.840.113549.1.1.12" => Scheme::RsaPkcs1(Hash::Sha384),
            "1.2.840.113549.1.1.13" => Scheme::RsaPkcs1(Hash::Sha512),
            "1.2.840.113549.1.1.10" => Scheme::RsaPss(pss::hash(self.params.as_ref())?),
            "1.2.840.10045.4.1" => Scheme::Ecdsa(Hash::Sha1),
            "1.2.840.10045.4.3.2" => Scheme::Ecdsa(Hash::Sha256),
            "1.2.840.10045.4.3.3" => Scheme::Ecdsa(Hash::Sha384),
            "1.2.840.10045.4.3.4" => Scheme::Ecdsa(Hash::Sha512),
            "1.3.101.112" => {
                if self.params.is_some() {
                    return Err("Ed25519 signatures must not have algorithm parameters".to_string());
                }
                Scheme::Ed25519
            }
            _ => return Ok(None),
        };
        Ok(Some(scheme))
    }

    /// The conventional name of the algorithm, with its OID.
    pub(crate) fn display_name(&self) -> String {
        display_name(&self.oid)
    }
}

/// Reads the content of an AlgorithmIdentifier SEQUENCE; `field` names it in errors.
pub(crate) fn algorithm_identifier<'a>(
    content: &'a [u8],
    field: &str,
) -> Result<Algorithm<'a>, String> {
    let (oid, params) = read_oid(content, field)?;
    let params = if params.is_empty() {
        None
    } else {
        Some(read(params, &format!("{field} parameters"))?.0)
    };
    Ok(Algorithm { oid, params })
}

fn display_name(oid: &str) -> String {
    let name = match oid {
        "1.2.840.113549.1.1.4" => "md5WithRSAEncryption",
        "1.2.840.113549.1.1.5" => "sha1WithRSAEncryption",
        "1.3.14.3.2.29" => "sha1WithRSASignature",
        "1.2.840.113549.1.1.11" => "sha256WithRSAEncryption",
        "1.2.840.113549.1.1.12" => "sha384WithRSAEncryption",
        "1.2.840.113549.1.1.13" => "sha512WithRSAEncryption",
        "1.2.840.113549.1.1.10" => "RSASSA-PSS",
        "1.2.840.10040.4.3" => "dsa-with-sha1",
        "2.16.840.1.101.3.4.3.2" => "dsa-with-sha256",
        "1.2.840.10045.4.1" => "ecdsa-with-SHA1",
        "1.2.840.10045.4.3.2" => "ecdsa-with-SHA256",
        "1.2.840.10045.4.3.3" => "ecdsa-with-SHA384",
        "1.2.840.10045.4.3.4" => "ecdsa-with-SHA512",
        "1.3.101.112" => "Ed25519",
        _ => return oid.to_string(),
    };
    format!("{name} ({oid})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_names_include_the_oid() {
        assert_eq!(display_name("1.2.840.10045.4.3.2"), "ecdsa-with-SHA256 (1.2.840.10045.4.3.2)");
        assert_eq!(display_name("1.2.3"), "1.2.3");
    }

    #[test]
    fn identifiers_select_schemes() {
        // ecdsa-with-SHA384, no parameters.
        let content = [0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03];
        let algorithm = algorithm_identifier(&content, "alg").unwrap();
        assert_eq!(algorithm.scheme(), Ok(Some(Scheme::Ecdsa(Hash::Sha384))));
        // Ed25519 with a NULL parameter is refused.
        let content = [0x06, 0x03, 0x2b, 0x65, 0x70, 0x05, 0x00];
        let algorithm = algorithm_identifier(&content, "alg").unwrap();
        assert_eq!(
            algorithm.scheme(),
            Err("Ed25519 signatures must not have algorithm parameters".to_string())
        );
    }
}
