//! The benchmark's certificates and CRLs: CAs, serving and client certificates issued with
//! rcgen (ECDSA P-256, valid 2025 to 2125 as the live tests' fixtures), and CRLs of any size.
//! rcgen builds a CRL entry by entry and is far too slow for a million entries, so the
//! CertificateList is written here with `certgate_pki::der::tlv` and signed with the CA's
//! rcgen key: version 2, the CA's subject as issuer, thisUpdate 2025-01-01, nextUpdate
//! 2125-01-01, the authority key identifier and a CRL number, and per entry only a serial and
//! a revocation date (35 bytes for a random 16-byte serial, as `crl_index.rs` builds them).

use certgate_pki::der::{Reader, SEQUENCE, tlv};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose, SerialNumber, SigningKey as _, date_time_ymd,
};
use rustls::pki_types::CertificateDer;

const NOT_BEFORE: (i32, u8, u8) = (2025, 1, 1);
const NOT_AFTER: (i32, u8, u8) = (2125, 1, 1);
/// 1.2.840.10045.4.3.2
const ECDSA_WITH_SHA256: [u8; 8] = [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];

/// A self-signed CA that issues leaves and signs CRLs.
pub struct Ca {
    params: CertificateParams,
    key: KeyPair,
    pub pem: String,
    pub der: CertificateDer<'static>,
}

/// A certificate and its key, as PEM (for Secrets) and DER (for rustls).
#[derive(Clone)]
pub struct Leaf {
    pub serial: u64,
    pub pem: String,
    pub key_pem: String,
    pub der: CertificateDer<'static>,
    pub key_der: Vec<u8>,
}

fn dates(params: &mut CertificateParams) {
    params.not_before = date_time_ymd(NOT_BEFORE.0, NOT_BEFORE.1, NOT_BEFORE.2);
    params.not_after = date_time_ymd(NOT_AFTER.0, NOT_AFTER.1, NOT_AFTER.2);
}

impl Ca {
    pub fn new(common_name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, common_name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        params.serial_number = Some(SerialNumber::from(1u64));
        dates(&mut params);
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        Ca { pem: cert.pem(), der: cert.der().clone(), params, key }
    }

    fn leaf(
        &self,
        common_name: &str,
        sans: Vec<String>,
        serial: u64,
        usage: ExtendedKeyUsagePurpose,
    ) -> Leaf {
        let mut params = CertificateParams::new(sans).unwrap();
        params.distinguished_name.push(DnType::CommonName, common_name);
        params.extended_key_usages = vec![usage];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.serial_number = Some(SerialNumber::from(serial));
        dates(&mut params);
        let key = KeyPair::generate().unwrap();
        let issuer = rcgen::Issuer::from_params(&self.params, &self.key);
        let cert = params.signed_by(&key, &issuer).unwrap();
        Leaf {
            serial,
            pem: cert.pem(),
            key_pem: key.serialize_pem(),
            der: cert.der().clone(),
            key_der: key.serialize_der(),
        }
    }

    /// A serving certificate for `host`.
    pub fn server(&self, host: &str, serial: u64) -> Leaf {
        self.leaf(host, vec![host.to_owned()], serial, ExtendedKeyUsagePurpose::ServerAuth)
    }

    /// A client certificate.
    pub fn client(&self, common_name: &str, serial: u64) -> Leaf {
        self.leaf(common_name, Vec::new(), serial, ExtendedKeyUsagePurpose::ClientAuth)
    }

    /// The DER of the CA's subject (the certificate's issuer field: it is self-signed).
    fn subject(&self) -> Vec<u8> {
        let certificate = Reader::new(&self.der).read(SEQUENCE).unwrap();
        let tbs = Reader::nested(&certificate).read(SEQUENCE).unwrap();
        let mut fields = Reader::nested(&tbs);
        fields.read_optional(0xa0).unwrap(); // version
        fields.read_any().unwrap(); // serialNumber
        fields.read(SEQUENCE).unwrap(); // signature
        fields.read(SEQUENCE).unwrap().raw.to_vec() // issuer
    }

    /// A PEM CRL with CRL number `number` revoking the certificates of `serials` and `filler`
    /// more random 16-byte serials (which no certificate of this benchmark has: they are
    /// longer than its u64 serials).
    pub fn crl(&self, serials: &[u64], filler: usize, number: u64) -> String {
        let algorithm = tlv(SEQUENCE, &tlv(0x06, &ECDSA_WITH_SHA256));
        let revoked_at = tlv(0x17, b"250101000000Z");
        let entry = |serial: &[u8]| {
            let mut fields = tlv(0x02, serial);
            fields.extend_from_slice(&revoked_at);
            tlv(SEQUENCE, &fields)
        };
        let mut entries = Vec::with_capacity((serials.len() + filler) * 36);
        for serial in serials {
            entries.extend(entry(&integer(*serial)));
        }
        let mut state = 0x2545_f491_4f6c_dd1du64 ^ number;
        for _ in 0..filler {
            entries.extend(entry(&random_serial(&mut state)));
        }
        let key_id = self.params.key_identifier(&self.key);
        let authority_key_id = tlv(
            SEQUENCE,
            &[tlv(0x06, &[0x55, 0x1d, 0x23]), tlv(0x04, &tlv(SEQUENCE, &tlv(0x80, &key_id)))]
                .concat(),
        );
        let crl_number = tlv(
            SEQUENCE,
            &[tlv(0x06, &[0x55, 0x1d, 0x14]), tlv(0x04, &tlv(0x02, &integer(number)))].concat(),
        );
        let tbs = tlv(
            SEQUENCE,
            &[
                tlv(0x02, &[0x01]),
                algorithm.clone(),
                self.subject(),
                tlv(0x17, b"250101000000Z"),
                tlv(0x18, b"21250101000000Z"),
                tlv(SEQUENCE, &entries),
                tlv(0xa0, &tlv(SEQUENCE, &[authority_key_id, crl_number].concat())),
            ]
            .concat(),
        );
        let mut signature = vec![0u8];
        signature.extend(self.key.sign(&tbs).unwrap());
        let der = tlv(SEQUENCE, &[tbs, algorithm, tlv(0x03, &signature)].concat());
        certgate_pki::pem::encode("X509 CRL", &der)
    }
}

/// `value` as the content of a positive DER INTEGER.
fn integer(value: u64) -> Vec<u8> {
    let bytes = value.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count().min(7);
    let mut out = bytes[skip..].to_vec();
    if out[0] & 0x80 != 0 {
        out.insert(0, 0);
    }
    out
}

/// A random-looking positive 16-byte serial (xorshift, deterministic).
fn random_serial(state: &mut u64) -> [u8; 16] {
    let mut out = [0u8; 16];
    for half in out.chunks_mut(8) {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        half.copy_from_slice(&state.to_be_bytes());
    }
    out[0] = (out[0] & 0x7f) | 0x01;
    out
}
