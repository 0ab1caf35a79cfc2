//! RSASSA-PSS parameters (RFC 4055). Like Go, only the three sets where MGF1 uses the
//! message hash, the salt is as long as the hash and the trailer is 1 are accepted; they
//! are also the only sets `ring` verifies.

use asn1_rs::Tag;

use super::Hash;
use crate::der::{Element, positive_integer, read, read_oid, read_universal};

const MGF1: &str = "1.2.840.113549.1.1.8";

/// The hash a PSS AlgorithmIdentifier's parameters select, or why they are not accepted.
pub(crate) fn hash(params: Option<&Element<'_>>) -> Result<Hash, String> {
    let params = params
        .filter(|p| p.is_universal() && p.is_constructed() && p.tag_number() == Tag::Sequence.0)
        .ok_or_else(|| "parameters must be a RSASSA-PSS-params SEQUENCE".to_string())?;

    let (hash_field, rest) = explicit(params.content(), 0, "hashAlgorithm")?;
    let (mgf_field, rest) = explicit(rest, 1, "maskGenAlgorithm")?;
    let (salt_field, rest) = explicit(rest, 2, "saltLength")?;
    let trailer = if rest.is_empty() {
        1
    } else {
        small_integer(explicit(rest, 3, "trailerField")?.0, "trailerField")?
    };

    let hash = hash_algorithm(hash_field, "hashAlgorithm")?;
    let (mgf_oid, mgf_params) = read_oid(
        read_universal(mgf_field, Tag::Sequence, "maskGenAlgorithm")?.0.content(),
        "maskGenAlgorithm",
    )?;
    if mgf_oid != MGF1 {
        return Err(format!("mask generation function {mgf_oid} is not MGF1"));
    }
    if hash_algorithm(mgf_params, "MGF1 hash")? != hash {
        return Err("MGF1 hash differs from the message hash".to_string());
    }
    let salt = small_integer(salt_field, "saltLength")?;
    if salt != hash.output_len() {
        return Err(format!(
            "salt length {salt} differs from the {}-byte hash length",
            hash.output_len()
        ));
    }
    if trailer != 1 {
        return Err(format!("trailer field {trailer} is not 1"));
    }
    Ok(hash)
}

/// Content of the `[tag]` explicit wrapper that must come next.
fn explicit<'a>(input: &'a [u8], tag: u32, field: &str) -> Result<(&'a [u8], &'a [u8]), String> {
    let (element, rest) = read(input, field)?;
    if element.is_context_specific() && element.is_constructed() && element.tag_number() == tag {
        Ok((element.content(), rest))
    } else {
        Err(format!("{field}: expected [{tag}], found {}", element.describe()))
    }
}

/// A SHA-2 AlgorithmIdentifier whose parameters are absent or NULL.
fn hash_algorithm(input: &[u8], field: &str) -> Result<Hash, String> {
    let (identifier, _) = read_universal(input, Tag::Sequence, field)?;
    let (oid, params) = read_oid(identifier.content(), field)?;
    if !params.is_empty() && params != [0x05, 0x00] {
        return Err(format!("{field}: parameters must be absent or NULL"));
    }
    match oid.as_str() {
        "2.16.840.1.101.3.4.2.1" => Ok(Hash::Sha256),
        "2.16.840.1.101.3.4.2.2" => Ok(Hash::Sha384),
        "2.16.840.1.101.3.4.2.3" => Ok(Hash::Sha512),
        _ => Err(format!("{field}: {oid} is not SHA-256, SHA-384 or SHA-512")),
    }
}

fn small_integer(input: &[u8], field: &str) -> Result<usize, String> {
    let (integer, _) = read_universal(input, Tag::Integer, field)?;
    let magnitude = positive_integer(integer.content(), field)?;
    if magnitude.len() > 2 {
        return Err(format!("{field} is too large"));
    }
    Ok(magnitude.iter().fold(0usize, |acc, &b| (acc << 8) | usize::from(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::der::tlv;

    fn sha(n: u8) -> Vec<u8> {
        let oid = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, n];
        tlv(0x30, &[tlv(0x06, &oid), vec![0x05, 0x00]].concat())
    }

    fn mgf1(hash: &[u8]) -> Vec<u8> {
        let oid = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08];
        tlv(0x30, &[tlv(0x06, &oid), hash.to_vec()].concat())
    }

    fn params(hash: u8, mgf_hash: u8, salt: u8, trailer: Option<u8>) -> Vec<u8> {
        let mut content = [
            tlv(0xa0, &sha(hash)),
            tlv(0xa1, &mgf1(&sha(mgf_hash))),
            tlv(0xa2, &tlv(0x02, &[salt])),
        ]
        .concat();
        if let Some(t) = trailer {
            content.extend(tlv(0xa3, &tlv(0x02, &[t])));
        }
        tlv(0x30, &content)
    }

    fn check(der: &[u8]) -> Result<Hash, String> {
        let (element, _) = read(der, "p").unwrap();
        hash(Some(&element))
    }

    #[test]
    fn standard_sets_are_accepted() {
        assert_eq!(check(&params(1, 1, 32, None)), Ok(Hash::Sha256));
        assert_eq!(check(&params(2, 2, 48, Some(1))), Ok(Hash::Sha384));
        assert_eq!(check(&params(3, 3, 64, None)), Ok(Hash::Sha512));
    }

    #[test]
    fn other_sets_are_refused_with_the_reason() {
        assert_eq!(
            check(&params(1, 3, 32, None)),
            Err("MGF1 hash differs from the message hash".into())
        );
        assert_eq!(
            check(&params(1, 1, 20, None)),
            Err("salt length 20 differs from the 32-byte hash length".into())
        );
        assert_eq!(check(&params(1, 1, 32, Some(2))), Err("trailer field 2 is not 1".into()));
        assert_eq!(hash(None), Err("parameters must be a RSASSA-PSS-params SEQUENCE".into()));
        // Defaults (SHA-1) are not accepted: the hashAlgorithm must be present.
        assert_eq!(
            check(&[0x30, 0x00]),
            Err("hashAlgorithm: missing (the structure ends early)".into())
        );
    }
}
