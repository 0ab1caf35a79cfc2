//! Private keys and certificates (`genPrivateKey`, `genCA`, `genSelfSignedCert`,
//! `genSignedCert`, their `*WithKey` forms and `buildCustomCert`). A certificate is a
//! dictionary with `Cert` and `Key` (PEM), the fields of sprig's `certificate` struct.

use std::net::IpAddr;

use base64::Engine;
use certgate_gotemplate::{FuncError, FuncMap, Value};
use certgate_pki::der::{Reader, tlv};
use certgate_pki::pem::{self, encode as pem};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose, SanType, SerialNumber,
};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_ASN1_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair as _};
use rsa::pkcs1::{DecodeRsaPrivateKey, EncodeRsaPrivateKey};
use rsa::pkcs8::EncodePrivateKey;

use crate::args::{Arity, Map, call_err, map_value, reg, s};
use crate::convert::strval;

/// The first PEM block, found as Go's `pem.Decode` finds it (sprig calls it): (label, DER).
fn pem_decode(text: &str) -> Option<(String, Vec<u8>)> {
    let (block, _) = pem::decode(text.as_bytes())?;
    Some((block.label_lossy(), block.der))
}

// --- minimal DER, for converting between SEC1 and PKCS#8 EC keys ---

/// The contents of the elements of the SEQUENCE `der`, in order (at most `N`).
fn sequence_items<const N: usize>(der: &[u8]) -> Option<[&[u8]; N]> {
    let outer = Reader::new(der).read_any().ok()?;
    let mut items = Reader::nested(&outer);
    let mut out = [&[][..]; N];
    for item in &mut out {
        *item = items.read_any().ok()?.content;
    }
    Some(out)
}

const OID_EC_PUBLIC_KEY: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
const OID_P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];

/// SEC1 `EC PRIVATE KEY` (with the curve named) from ring's PKCS#8 P-256 key.
fn sec1_from_ring_pkcs8(pkcs8: &[u8], public: &[u8]) -> Option<Vec<u8>> {
    // PrivateKeyInfo { version, algorithm, privateKey OCTET STRING { ECPrivateKey } }.
    let [_version, _algorithm, inner] = sequence_items::<3>(pkcs8)?;
    let [_version, d] = sequence_items::<2>(inner)?;
    let mut body = tlv(0x02, &[1]);
    body.extend(tlv(0x04, d));
    body.extend(tlv(0xa0, &tlv(0x06, OID_P256)));
    let mut bits = vec![0u8];
    bits.extend_from_slice(public);
    body.extend(tlv(0xa1, &tlv(0x03, &bits)));
    Some(tlv(0x30, &body))
}

/// PKCS#8 wrapping of a SEC1 key, so ring (through rcgen) can load it.
fn pkcs8_from_sec1(sec1: &[u8]) -> Option<Vec<u8>> {
    let curve = if sec1.windows(OID_P256.len()).any(|w| w == OID_P256) {
        OID_P256
    } else if sec1.windows(OID_P384.len()).any(|w| w == OID_P384) {
        OID_P384
    } else {
        return None;
    };
    let mut alg = tlv(0x06, OID_EC_PUBLIC_KEY);
    alg.extend(tlv(0x06, curve));
    let mut body = tlv(0x02, &[0]);
    body.extend(tlv(0x30, &alg));
    body.extend(tlv(0x04, sec1));
    Some(tlv(0x30, &body))
}

fn gen_rsa(bits: usize) -> Result<rsa::RsaPrivateKey, String> {
    rsa::RsaPrivateKey::new(&mut rand_core::OsRng, bits).map_err(|e| e.to_string())
}

/// `genPrivateKey`: PEM of a new key; unknown types give sprig's text instead of an error.
fn gen_private_key(kind: &str) -> Result<String, FuncError> {
    let fail = |e: String| Ok(format!("failed to generate private key: {e}"));
    match kind {
        "" | "rsa" => match gen_rsa(4096).and_then(|k| k.to_pkcs1_der().map_err(|e| e.to_string()))
        {
            Ok(der) => Ok(pem("RSA PRIVATE KEY", der.as_bytes())),
            Err(e) => fail(e),
        },
        "ecdsa" => {
            let rng = SystemRandom::new();
            let Ok(doc) = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, &rng)
            else {
                return fail("ecdsa key generation failed".into());
            };
            let pair =
                EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_ASN1_SIGNING, doc.as_ref(), &rng)
                    .map_err(|e| call_err(e.to_string()))?;
            match sec1_from_ring_pkcs8(doc.as_ref(), pair.public_key().as_ref()) {
                Some(der) => Ok(pem("EC PRIVATE KEY", &der)),
                None => fail("ecdsa key encoding failed".into()),
            }
        }
        "ed25519" => match Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()) {
            Ok(doc) => Ok(pem("PRIVATE KEY", doc.as_ref())),
            Err(e) => fail(e.to_string()),
        },
        "dsa" => Err(call_err(
            "genPrivateKey \"dsa\" is not available in certgate: DSA keys are deprecated and no vetted Rust implementation is used",
        )),
        other => Ok(format!("Unknown type {other}")),
    }
}

/// A PEM private key (PKCS#1 RSA, SEC1 EC or PKCS#8) as an rcgen signing key.
fn parse_private_key(text: &str) -> Result<KeyPair, String> {
    let (label, der) = pem_decode(text).ok_or_else(|| "no PEM data in input".to_string())?;
    let pkcs8 = match label.as_str() {
        "RSA PRIVATE KEY" => rsa::RsaPrivateKey::from_pkcs1_der(&der)
            .and_then(|k| k.to_pkcs8_der().map_err(rsa::pkcs1::Error::Pkcs8))
            .map_err(|e| e.to_string())?
            .as_bytes()
            .to_vec(),
        "EC PRIVATE KEY" => {
            pkcs8_from_sec1(&der).ok_or_else(|| "x509: unknown elliptic curve".to_string())?
        }
        "PRIVATE KEY" => der,
        other => return Err(format!("invalid private key type {other}")),
    };
    KeyPair::try_from(pkcs8.as_slice()).map_err(|e| e.to_string())
}

fn rsa_key_pair() -> Result<KeyPair, FuncError> {
    let key = gen_rsa(2048).map_err(|e| call_err(format!("error generating rsa key: {e}")))?;
    let der = key.to_pkcs8_der().map_err(|e| call_err(e.to_string()))?;
    KeyPair::try_from(der.as_bytes()).map_err(|e| call_err(e.to_string()))
}

/// The PEM text of the key the certificate was made with, in the form sprig returns.
fn key_pem(key: &KeyPair, original: Option<&str>) -> Result<String, FuncError> {
    if let Some(text) = original {
        return Ok(text.to_string());
    }
    let der = key.serialize_der();
    // Generated keys are RSA; sprig returns them as PKCS#1.
    match rsa::RsaPrivateKey::from_pkcs8_der_compat(&der) {
        Some(k) => {
            let pkcs1 = k.to_pkcs1_der().map_err(|e| call_err(e.to_string()))?;
            Ok(pem("RSA PRIVATE KEY", pkcs1.as_bytes()))
        }
        None => Ok(pem("PRIVATE KEY", &der)),
    }
}

trait Pkcs8Compat {
    fn from_pkcs8_der_compat(der: &[u8]) -> Option<rsa::RsaPrivateKey>;
}

impl Pkcs8Compat for rsa::RsaPrivateKey {
    fn from_pkcs8_der_compat(der: &[u8]) -> Option<rsa::RsaPrivateKey> {
        use rsa::pkcs8::DecodePrivateKey;
        rsa::RsaPrivateKey::from_pkcs8_der(der).ok()
    }
}

fn base_params(cn: &str, days: i64) -> Result<CertificateParams, FuncError> {
    let mut params = CertificateParams::default();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, cn);
    params.distinguished_name = dn;
    let now = time_now();
    params.not_before = now;
    params.not_after = days
        .checked_mul(86_400)
        .and_then(|secs| now.checked_add(time::Duration::seconds(secs)))
        .ok_or_else(|| call_err(format!("daysValid {days} is out of range")))?;
    let serial = crate::crypto::random_bytes(16)?;
    let mut serial = serial;
    serial[0] &= 0x7f;
    params.serial_number = Some(SerialNumber::from_slice(&serial));
    Ok(params)
}

fn time_now() -> time::OffsetDateTime {
    time::OffsetDateTime::now_utc()
}

fn cert_value(cert_pem: String, key_pem: String) -> Value {
    let mut m = Map::new();
    m.insert("Cert".into(), s(cert_pem));
    m.insert("Key".into(), s(key_pem));
    map_value(m)
}

fn gen_ca(cn: &str, days: i64, key_text: Option<&str>) -> Result<Value, FuncError> {
    let key = match key_text {
        Some(text) => {
            parse_private_key(text).map_err(|e| call_err(format!("parsing private key: {e}")))?
        }
        None => rsa_key_pair()?,
    };
    let mut params = base_params(cn, days)?;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyEncipherment,
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyCertSign,
    ];
    let cert = params
        .self_signed(&key)
        .map_err(|e| call_err(format!("error creating certificate: {e}")))?;
    Ok(cert_value(cert.pem(), key_pem(&key, key_text)?))
}

fn sans(ips: &Value, dns: &Value) -> Result<Vec<SanType>, FuncError> {
    let mut out = Vec::new();
    for ip in list_items(ips)? {
        let Value::String(text) = ip else {
            return Err(call_err(format!("error parsing ip: {} is not a string", strval(ip))));
        };
        let addr: IpAddr =
            text.parse().map_err(|_| call_err(format!("error parsing ip: {text}")))?;
        out.push(SanType::IpAddress(addr));
    }
    for name in list_items(dns)? {
        let Value::String(text) = name else {
            return Err(call_err(format!(
                "error processing alternate dns name: {} is not a string",
                strval(name)
            )));
        };
        let ia5 = text
            .to_string()
            .try_into()
            .map_err(|_| call_err(format!("error processing alternate dns name: {text}")))?;
        out.push(SanType::DnsName(ia5));
    }
    Ok(out)
}

/// A `[]interface{}` parameter (nil is an empty list).
fn list_items(v: &Value) -> Result<&[Value], FuncError> {
    match v {
        Value::List(items) => Ok(items),
        Value::Nil => Ok(&[]),
        other => Err(crate::args::wrong_type("[]interface {}", other)),
    }
}

fn leaf_params(
    cn: &str,
    ips: &Value,
    dns: &Value,
    days: i64,
) -> Result<CertificateParams, FuncError> {
    let mut params = base_params(cn, days)?;
    params.subject_alt_names = sans(ips, dns)?;
    params.key_usages = vec![KeyUsagePurpose::KeyEncipherment, KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages =
        vec![ExtendedKeyUsagePurpose::ServerAuth, ExtendedKeyUsagePurpose::ClientAuth];
    params.is_ca = IsCa::ExplicitNoCa;
    Ok(params)
}

fn leaf_key(key_text: Option<&str>) -> Result<KeyPair, FuncError> {
    match key_text {
        Some(text) => {
            parse_private_key(text).map_err(|e| call_err(format!("parsing private key: {e}")))
        }
        None => rsa_key_pair(),
    }
}

fn ca_parts(ca: &Value) -> Result<(String, String), FuncError> {
    let m = crate::args::value_map(ca)?;
    let get = |k: &str| match m.get(k) {
        Some(Value::String(v)) => Ok(v.to_string()),
        _ => Err(call_err(format!("the CA certificate has no {k}"))),
    };
    Ok((get("Cert")?, get("Key")?))
}

fn gen_signed(
    a: &crate::args::Args<'_>,
    key_text: Option<&str>,
    ca_index: usize,
) -> Result<Value, FuncError> {
    let cn = a.str(0)?;
    let days = a.int(3)?;
    let (ca_cert, ca_key) = ca_parts(a.any(ca_index))?;
    let ca_key = parse_private_key(&ca_key)
        .map_err(|e| call_err(format!("error parsing private key: {e}")))?;
    let issuer = Issuer::from_ca_cert_pem(&ca_cert, ca_key)
        .map_err(|e| call_err(format!("error parsing certificate: {e}")))?;
    let key = leaf_key(key_text)?;
    let params = leaf_params(cn, a.any(1), a.any(2), days)?;
    let cert = params
        .signed_by(&key, &issuer)
        .map_err(|e| call_err(format!("error creating certificate: {e}")))?;
    Ok(cert_value(cert.pem(), key_pem(&key, key_text)?))
}

pub fn register(m: &mut FuncMap) {
    reg(m, "genPrivateKey", Arity::Exact(1), |a| gen_private_key(a.str(0)?).map(s));
    reg(m, "genCA", Arity::Exact(2), |a| gen_ca(a.str(0)?, a.int(1)?, None));
    reg(m, "genCAWithKey", Arity::Exact(3), |a| {
        let (cn, days) = (a.str(0)?, a.int(1)?);
        gen_ca(cn, days, Some(a.str(2)?))
    });
    reg(m, "genSelfSignedCert", Arity::Exact(4), |a| self_signed(a, None));
    reg(m, "genSelfSignedCertWithKey", Arity::Exact(5), |a| {
        let key = a.str(4)?;
        self_signed(a, Some(key))
    });
    reg(m, "genSignedCert", Arity::Exact(5), |a| gen_signed(a, None, 4));
    reg(m, "genSignedCertWithKey", Arity::Exact(6), |a| {
        let key = a.str(5)?;
        gen_signed(a, Some(key), 4)
    });
    reg(m, "buildCustomCert", Arity::Exact(2), |a| {
        let b64 = base64::engine::general_purpose::STANDARD;
        let cert =
            b64.decode(a.str(0)?).map_err(|_| call_err("unable to decode base64 certificate"))?;
        let key =
            b64.decode(a.str(1)?).map_err(|_| call_err("unable to decode base64 private key"))?;
        let cert = String::from_utf8_lossy(&cert).into_owned();
        let key = String::from_utf8_lossy(&key).into_owned();
        let (label, der) =
            pem_decode(&cert).ok_or_else(|| call_err("unable to decode certificate"))?;
        if label != "CERTIFICATE" {
            return Err(call_err("unable to decode certificate"));
        }
        x509_parser::parse_x509_certificate(&der)
            .map_err(|e| call_err(format!("error parsing certificate: {e}")))?;
        pem_decode(&key).ok_or_else(|| call_err("unable to decode private key"))?;
        parse_private_key(&key).map_err(|e| call_err(format!("error parsing private key: {e}")))?;
        Ok(cert_value(cert, key))
    });
}

fn self_signed(a: &crate::args::Args<'_>, key_text: Option<&str>) -> Result<Value, FuncError> {
    let cn = a.str(0)?;
    let days = a.int(3)?;
    let key = leaf_key(key_text)?;
    let params = leaf_params(cn, a.any(1), a.any(2), days)?;
    let cert = params
        .self_signed(&key)
        .map_err(|e| call_err(format!("error creating certificate: {e}")))?;
    Ok(cert_value(cert.pem(), key_pem(&key, key_text)?))
}
