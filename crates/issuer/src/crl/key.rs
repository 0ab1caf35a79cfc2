//! cert-manager's CA Secrets may hold PKCS#1 (`RSA PRIVATE KEY`) and SEC1 (`EC PRIVATE KEY`)
//! keys; the CRL signer takes PKCS#8. The conversion only wraps the key (RFC 5208
//! `PrivateKeyInfo`), the key bytes are copied as they are.

use certgate_pki::der::{self, Reader, tlv};

/// rsaEncryption with its NULL parameters.
const RSA_ALGORITHM: &[u8] =
    &[0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
/// id-ecPublicKey.
const EC_PUBLIC_KEY: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];

/// The PKCS#8 DER of a PKCS#1 or SEC1 key (`label` is the PEM block's).
pub(crate) fn to_pkcs8(label: &[u8], key_der: &[u8]) -> Result<Vec<u8>, String> {
    let algorithm = match label {
        b"RSA PRIVATE KEY" => RSA_ALGORITHM.to_vec(),
        b"EC PRIVATE KEY" => tlv(der::SEQUENCE, &[EC_PUBLIC_KEY, &ec_curve(key_der)?].concat()),
        _ => return Err("not a PKCS#1 or SEC1 key".into()),
    };
    let version = [der::INTEGER, 1, 0];
    Ok(tlv(der::SEQUENCE, &[&version[..], &algorithm, &tlv(der::OCTET_STRING, key_der)].concat()))
}

/// The named curve's OID element of a SEC1 `ECPrivateKey` (its `[0] parameters`).
fn ec_curve(key_der: &[u8]) -> Result<Vec<u8>, String> {
    let unreadable = |e: der::DerError| format!("the EC private key does not parse ({e})");
    let key = Reader::new(key_der).read(der::SEQUENCE).map_err(unreadable)?;
    let mut fields = Reader::nested(&key);
    fields.read(der::INTEGER).map_err(unreadable)?;
    fields.read(der::OCTET_STRING).map_err(unreadable)?;
    let parameters = fields
        .read_optional(der::CONTEXT_0_CONSTRUCTED)
        .map_err(unreadable)?
        .ok_or("the EC private key does not name its curve")?;
    let curve = Reader::nested(&parameters).read(der::OID).map_err(unreadable)?;
    Ok(curve.raw.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sec1_key_is_wrapped_with_its_curve_and_signs() {
        // rcgen writes PKCS#8; its inner ECPrivateKey is the SEC1 key OpenSSL would write
        // as `EC PRIVATE KEY` (version, key, [0] curve, [1] public key).
        let pair = rcgen::KeyPair::generate().unwrap();
        let pkcs8 = pair.serialize_der();
        let mut outer = Reader::new(&pkcs8);
        let info = outer.read(der::SEQUENCE).unwrap();
        let mut fields = Reader::nested(&info);
        fields.read(der::INTEGER).unwrap();
        let algorithm = fields.read(der::SEQUENCE).unwrap();
        let inner = fields.read(der::OCTET_STRING).unwrap().content;
        // The inner key of rcgen (ring) names no curve: add it as OpenSSL does.
        let mut sec1 = Reader::nested(&Reader::new(inner).read(der::SEQUENCE).unwrap());
        let version = sec1.read(der::INTEGER).unwrap().raw;
        let private = sec1.read(der::OCTET_STRING).unwrap().raw;
        let rest = sec1.remaining();
        let curve = Reader::nested(&algorithm).remaining();
        let curve_oid =
            Reader::new(curve.get(EC_PUBLIC_KEY.len()..).unwrap()).read(der::OID).unwrap().raw;
        let openssl_style = tlv(
            der::SEQUENCE,
            &[version, private, &tlv(der::CONTEXT_0_CONSTRUCTED, curve_oid), rest].concat(),
        );
        let wrapped = to_pkcs8(b"EC PRIVATE KEY", &openssl_style).unwrap();
        let again =
            rcgen::KeyPair::try_from(wrapped.as_slice()).expect("ring reads the wrapped key");
        assert_eq!(again.public_key_raw(), pair.public_key_raw());
    }

    #[test]
    fn unusable_keys_are_refused_with_a_reason() {
        assert_eq!(
            to_pkcs8(b"EC PRIVATE KEY", &tlv(der::SEQUENCE, &[2, 1, 1, 4, 1, 0])).unwrap_err(),
            "the EC private key does not name its curve"
        );
        assert!(
            to_pkcs8(b"EC PRIVATE KEY", b"junk")
                .unwrap_err()
                .starts_with("the EC private key does not parse")
        );
        assert_eq!(to_pkcs8(b"X", b"").unwrap_err(), "not a PKCS#1 or SEC1 key");
        let rsa = to_pkcs8(b"RSA PRIVATE KEY", &[0x30, 0]).unwrap();
        assert_eq!(rsa.get(..2), Some(&[0x30, 0x16][..]));
    }
}
