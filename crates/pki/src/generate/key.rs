//! Private keys as cert-manager generates them for a Certificate: `spec.privateKey.algorithm`
//! (`RSA` by default, `ECDSA`, `Ed25519`), `size` (RSA 2048 by default, up to 8192; ECDSA 256
//! by default, or 384) and `encoding` (`PKCS1` by default, i.e. `RSA PRIVATE KEY` and
//! `EC PRIVATE KEY`; `PKCS8`, i.e. `PRIVATE KEY`). Ed25519 keys are always PKCS#8, as Go can
//! marshal them no other way.

use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, ECDSA_P384_SHA384_ASN1_SIGNING};
use ring::signature::{EcdsaKeyPair, Ed25519KeyPair};
use rsa::pkcs1::EncodeRsaPrivateKey as _;
use rsa::pkcs8::EncodePrivateKey as _;

use crate::pem;

/// The key type and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// RSA with a modulus of this many bits.
    Rsa(usize),
    /// ECDSA on P-256 or P-384 (the curve's bits).
    Ecdsa(usize),
    Ed25519,
}

/// How the key is written to `tls.key`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeyEncoding {
    /// `RSA PRIVATE KEY` (PKCS#1) or `EC PRIVATE KEY` (SEC 1).
    #[default]
    Pkcs1,
    /// `PRIVATE KEY` (PKCS#8).
    Pkcs8,
}

/// A key to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeySpec {
    pub key_type: KeyType,
    pub encoding: KeyEncoding,
}

/// Why a key spec cannot be honoured, worded as cert-manager words it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("RSA key size must be between 2048 and 8192 bits, got {0}")]
    RsaSize(i64),
    #[error("unsupported ecdsa keysize specified: {0}")]
    EcdsaSize(i64),
    #[error("unsupported private key algorithm specified: {0}")]
    Algorithm(String),
    #[error("unsupported private key encoding specified: {0}")]
    Encoding(String),
    #[error("error generating {what} private key: {reason}")]
    Generate { what: &'static str, reason: String },
}

/// RSA's default size, and ECDSA's.
pub const DEFAULT_RSA_BITS: usize = 2048;
pub const DEFAULT_ECDSA_BITS: usize = 256;
/// The largest RSA key cert-manager generates.
pub const MAX_RSA_BITS: i64 = 8192;

impl KeySpec {
    /// The spec from a Certificate's `spec.privateKey` fields (each as written, `None` when
    /// unset). Algorithm names are matched as cert-manager's API spells them.
    pub fn from_fields(
        algorithm: Option<&str>,
        size: Option<i64>,
        encoding: Option<&str>,
    ) -> Result<Self, KeyError> {
        let size = size.filter(|s| *s != 0);
        let key_type = match algorithm.unwrap_or("RSA") {
            "" | "RSA" => match size {
                None => KeyType::Rsa(DEFAULT_RSA_BITS),
                Some(bits) if (2048..=MAX_RSA_BITS).contains(&bits) => {
                    KeyType::Rsa(usize::try_from(bits).map_err(|_| KeyError::RsaSize(bits))?)
                }
                Some(bits) => return Err(KeyError::RsaSize(bits)),
            },
            "ECDSA" => match size {
                None | Some(256) => KeyType::Ecdsa(DEFAULT_ECDSA_BITS),
                Some(384) => KeyType::Ecdsa(384),
                Some(bits) => return Err(KeyError::EcdsaSize(bits)),
            },
            "Ed25519" => KeyType::Ed25519,
            other => return Err(KeyError::Algorithm(other.to_owned())),
        };
        let encoding = match encoding.unwrap_or("") {
            "" | "PKCS1" => KeyEncoding::Pkcs1,
            "PKCS8" => KeyEncoding::Pkcs8,
            other => return Err(KeyError::Encoding(other.to_owned())),
        };
        Ok(KeySpec { key_type, encoding })
    }
}

/// A new private key: the PEM for `tls.key` and the PKCS#8 DER to sign the request with.
/// `Debug` hides both.
pub struct GeneratedKey {
    pub pem: String,
    pub pkcs8_der: Vec<u8>,
}

impl std::fmt::Debug for GeneratedKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GeneratedKey { .. }")
    }
}

/// Generates a key as the spec says.
pub fn generate_private_key(spec: &KeySpec) -> Result<GeneratedKey, KeyError> {
    match spec.key_type {
        KeyType::Rsa(bits) => rsa_key(bits, spec.encoding),
        KeyType::Ecdsa(bits) => ecdsa_key(bits, spec.encoding),
        KeyType::Ed25519 => ed25519_key(),
    }
}

fn failed(what: &'static str) -> impl Fn(String) -> KeyError {
    move |reason| KeyError::Generate { what, reason }
}

fn rsa_key(bits: usize, encoding: KeyEncoding) -> Result<GeneratedKey, KeyError> {
    let key = rsa::RsaPrivateKey::new(&mut rand_core::OsRng, bits)
        .map_err(|e| failed("RSA")(e.to_string()))?;
    let pkcs8_der = key.to_pkcs8_der().map_err(|e| failed("RSA")(e.to_string()))?;
    let pem = match encoding {
        KeyEncoding::Pkcs1 => {
            let der = key.to_pkcs1_der().map_err(|e| failed("RSA")(e.to_string()))?;
            pem::encode("RSA PRIVATE KEY", der.as_bytes())
        }
        KeyEncoding::Pkcs8 => pem::encode("PRIVATE KEY", pkcs8_der.as_bytes()),
    };
    Ok(GeneratedKey { pem, pkcs8_der: pkcs8_der.as_bytes().to_vec() })
}

/// id-ecPublicKey's named curves: prime256v1 and secp384r1, DER content octets.
const P256_OID: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const P384_OID: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];

fn ecdsa_key(bits: usize, encoding: KeyEncoding) -> Result<GeneratedKey, KeyError> {
    let (algorithm, curve) = match bits {
        384 => (&ECDSA_P384_SHA384_ASN1_SIGNING, P384_OID),
        _ => (&ECDSA_P256_SHA256_ASN1_SIGNING, P256_OID),
    };
    let document = EcdsaKeyPair::generate_pkcs8(algorithm, &SystemRandom::new())
        .map_err(|e| failed("ECDSA")(e.to_string()))?;
    let pkcs8_der = document.as_ref().to_vec();
    let pem = match encoding {
        KeyEncoding::Pkcs8 => pem::encode("PRIVATE KEY", &pkcs8_der),
        KeyEncoding::Pkcs1 => {
            let sec1 = sec1_from_pkcs8(&pkcs8_der, curve).map_err(failed("ECDSA"))?;
            pem::encode("EC PRIVATE KEY", &sec1)
        }
    };
    Ok(GeneratedKey { pem, pkcs8_der })
}

fn ed25519_key() -> Result<GeneratedKey, KeyError> {
    let document = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
        .map_err(|e| failed("Ed25519")(e.to_string()))?;
    // ring writes PKCS#8 v2 (with the public key); Go's MarshalPKCS8PrivateKey writes v1,
    // which every reader takes: PrivateKeyInfo { 0, id-Ed25519, OCTET STRING { seed } }.
    let seed = ed25519_seed(document.as_ref()).map_err(failed("Ed25519"))?;
    let mut der = vec![
        0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04,
        0x20,
    ];
    der.extend_from_slice(seed);
    Ok(GeneratedKey { pem: pem::encode("PRIVATE KEY", &der), pkcs8_der: der })
}

/// `tls.key` (any encoding [`generate_private_key`] writes, or OpenSSL's) as PKCS#8 DER, the
/// form a request is signed with.
pub fn key_to_pkcs8(pem_text: &[u8]) -> Result<Vec<u8>, KeyError> {
    use rsa::pkcs1::DecodeRsaPrivateKey as _;
    let bad = |reason: String| KeyError::Generate { what: "the stored", reason };
    let (block, _) = pem::decode(pem_text).ok_or_else(|| bad("no PEM block".to_owned()))?;
    match block.label {
        b"PRIVATE KEY" => Ok(block.der.to_vec()),
        b"RSA PRIVATE KEY" => {
            let key =
                rsa::RsaPrivateKey::from_pkcs1_der(&block.der).map_err(|e| bad(e.to_string()))?;
            Ok(key.to_pkcs8_der().map_err(|e| bad(e.to_string()))?.as_bytes().to_vec())
        }
        b"EC PRIVATE KEY" => pkcs8_from_sec1(&block.der).map_err(bad),
        _ => Err(bad(format!("unsupported PEM type {:?}", block.label_lossy()))),
    }
}

/// PKCS#8 around a SEC 1 key: the curve moves to the algorithm identifier, and the inner
/// ECPrivateKey keeps its version, key and public key (ring requires the public key).
fn pkcs8_from_sec1(sec1: &[u8]) -> Result<Vec<u8>, String> {
    let outer = elements(sec1)?;
    let [Tlv { tag: 0x30, content }] = outer.as_slice() else {
        return Err("ECPrivateKey is not one SEQUENCE".to_owned());
    };
    let fields = elements(content)?;
    let private = fields.iter().find(|f| f.tag == 0x04).ok_or("ECPrivateKey without key")?;
    let public = fields.iter().find(|f| f.tag == 0xa1).ok_or("ECPrivateKey without public key")?;
    let parameters = fields.iter().find(|f| f.tag == 0xa0).ok_or("ECPrivateKey without curve")?;
    let curve = match elements(parameters.content)?.as_slice() {
        [Tlv { tag: 0x06, content }] => content.to_vec(),
        _ => return Err("ECPrivateKey curve is not a named curve".to_owned()),
    };
    let mut inner = tlv(0x02, &[1]);
    inner.extend(tlv(0x04, private.content));
    inner.extend(tlv(0xa1, public.content));
    let mut algorithm = tlv(0x06, &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]);
    algorithm.extend(tlv(0x06, &curve));
    let mut body = tlv(0x02, &[0]);
    body.extend(tlv(0x30, &algorithm));
    body.extend(tlv(0x04, &tlv(0x30, &inner)));
    Ok(tlv(0x30, &body))
}

/// One DER element: tag, then its content.
struct Tlv<'a> {
    tag: u8,
    content: &'a [u8],
}

/// Splits `input` into its top-level elements (definite lengths up to 2^32).
fn elements(mut input: &[u8]) -> Result<Vec<Tlv<'_>>, String> {
    let mut out = Vec::new();
    while !input.is_empty() {
        let (&tag, rest) = input.split_first().ok_or("truncated element")?;
        let (&first, rest) = rest.split_first().ok_or("truncated length")?;
        let (len, rest) = if first < 0x80 {
            (usize::from(first), rest)
        } else {
            let n = usize::from(first & 0x7f);
            if n == 0 || n > 4 || rest.len() < n {
                return Err("unsupported length".to_owned());
            }
            let len = rest[..n].iter().fold(0usize, |acc, b| (acc << 8) | usize::from(*b));
            (len, &rest[n..])
        };
        if rest.len() < len {
            return Err("truncated content".to_owned());
        }
        out.push(Tlv { tag, content: &rest[..len] });
        input = &rest[len..];
    }
    Ok(out)
}

fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let len = content.len();
    if len < 0x80 {
        out.push(len as u8);
    } else {
        let bytes: Vec<u8> =
            len.to_be_bytes().iter().copied().skip_while(|b| *b == 0).collect::<Vec<_>>();
        out.push(0x80 | bytes.len() as u8);
        out.extend_from_slice(&bytes);
    }
    out.extend_from_slice(content);
    out
}

/// The PKCS#8 document's privateKey OCTET STRING content.
fn pkcs8_private_key(pkcs8: &[u8]) -> Result<&[u8], String> {
    let outer = elements(pkcs8)?;
    let [Tlv { tag: 0x30, content }] = outer.as_slice() else {
        return Err("PKCS#8 is not one SEQUENCE".to_owned());
    };
    match elements(content)?.as_slice() {
        [Tlv { tag: 0x02, .. }, Tlv { tag: 0x30, .. }, Tlv { tag: 0x04, content }, ..] => {
            Ok(content)
        }
        _ => Err("unexpected PKCS#8 layout".to_owned()),
    }
}

/// SEC 1 `ECPrivateKey` with the named curve, from ring's PKCS#8 (whose inner ECPrivateKey
/// leaves the curve out, as PKCS#8 names it outside): Go's ParseECPrivateKey needs it.
fn sec1_from_pkcs8(pkcs8: &[u8], curve: &[u8]) -> Result<Vec<u8>, String> {
    let inner = elements(pkcs8_private_key(pkcs8)?)?;
    let [Tlv { tag: 0x30, content }] = inner.as_slice() else {
        return Err("ECPrivateKey is not one SEQUENCE".to_owned());
    };
    let fields = elements(content)?;
    let version = fields.iter().find(|f| f.tag == 0x02).ok_or("ECPrivateKey without version")?;
    let private = fields.iter().find(|f| f.tag == 0x04).ok_or("ECPrivateKey without key")?;
    let public = fields.iter().find(|f| f.tag == 0xa1).ok_or("ECPrivateKey without public key")?;
    let mut body = tlv(0x02, version.content);
    body.extend(tlv(0x04, private.content));
    body.extend(tlv(0xa0, &tlv(0x06, curve)));
    body.extend(tlv(0xa1, public.content));
    Ok(tlv(0x30, &body))
}

/// The 32-byte seed of an Ed25519 PKCS#8 document.
fn ed25519_seed(pkcs8: &[u8]) -> Result<&[u8], String> {
    let wrapped = elements(pkcs8_private_key(pkcs8)?)?;
    match wrapped.as_slice() {
        [Tlv { tag: 0x04, content }] if content.len() == 32 => Ok(content),
        _ => Err("unexpected Ed25519 private key layout".to_owned()),
    }
}

#[cfg(test)]
mod tests;
