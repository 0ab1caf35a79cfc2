//! The certificates of the live edge tests: a serving CA and certificate for [`SERVER_NAME`],
//! a client CA with two clients, and that CA's CRLs. Fixed validity dates far from today
//! (2025 to 2125), as in `envoy_edge.rs`.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SerialNumber, date_time_ymd,
};
use rustls::pki_types::CertificateDer;

use crate::revocation_lists;

/// The virtual host: the serving certificate's name and the client's SNI and Host.
pub const SERVER_NAME: &str = "edge.example.com";
const START: (i32, u8, u8) = (2025, 1, 1);
const LONG: (i32, u8, u8) = (2125, 1, 1);
pub const GOOD_SERIAL: u64 = 0x1001;
pub const REVOKED_SERIAL: u64 = 0x1002;

struct Ca {
    params: CertificateParams,
    key: KeyPair,
    pem: String,
    der: CertificateDer<'static>,
}

/// The parameters of a CA certificate named `cn`.
fn ca_params(cn: &str, serial: u64) -> CertificateParams {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.distinguished_name.push(DnType::CommonName, cn);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    params.not_before = date_time_ymd(START.0, START.1, START.2);
    params.not_after = date_time_ymd(LONG.0, LONG.1, LONG.2);
    params.serial_number = Some(SerialNumber::from(serial));
    params
}

impl Ca {
    fn new(cn: &str) -> Ca {
        let params = ca_params(cn, 1);
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        Ca { pem: cert.pem(), der: cert.der().clone(), params, key }
    }

    fn issuer(&self) -> Issuer<'_, &KeyPair> {
        Issuer::from_params(&self.params, &self.key)
    }

    fn leaf(
        &self,
        cn: &str,
        sans: Vec<String>,
        serial: u64,
        usage: ExtendedKeyUsagePurpose,
    ) -> Leaf {
        let mut params = CertificateParams::new(sans).unwrap();
        params.distinguished_name.push(DnType::CommonName, cn);
        params.extended_key_usages = vec![usage];
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.not_before = date_time_ymd(START.0, START.1, START.2);
        params.not_after = date_time_ymd(LONG.0, LONG.1, LONG.2);
        params.serial_number = Some(SerialNumber::from(serial));
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer()).unwrap();
        Leaf {
            pem: cert.pem(),
            der: cert.der().clone(),
            key_pem: key.serialize_pem(),
            key_der: key.serialize_der(),
        }
    }

    fn crl(&self, serials: &[u64], number: u64) -> String {
        let kid = self.params.key_identifier(&self.key);
        revocation_lists::crl(&self.issuer(), kid, serials, START, LONG, number)
    }
}

/// A certificate and its key, as PEM (Secrets) and DER (rustls).
pub struct Leaf {
    pub pem: String,
    pub der: CertificateDer<'static>,
    pub key_pem: String,
    pub key_der: Vec<u8>,
}

pub struct Pki {
    pub server: Leaf,
    /// What the client trusts for the serving certificate.
    pub server_ca: CertificateDer<'static>,
    /// `ca.crt` of the client CA Secret.
    pub client_ca_pem: String,
    pub good: Leaf,
    pub revoked: Leaf,
    /// The client CA's CRL revoking `revoked`.
    pub crl_one: String,
    /// The next CRL, revoking `good` too.
    pub crl_both: String,
    /// A CRL of the same CA revoking nothing (CRL number 0).
    pub crl_none: String,
}

/// The xDS server's and Envoy's certificates for mutual TLS, written as PEM files.
pub struct XdsFiles {
    pub ca: std::path::PathBuf,
    pub server_cert: std::path::PathBuf,
    pub server_key: std::path::PathBuf,
    pub envoy_cert: std::path::PathBuf,
    pub envoy_key: std::path::PathBuf,
}

/// A CA signing the xDS server's certificate (for `contour`, the name `certgate edge
/// bootstrap` makes Envoy expect) and Envoy's client certificate, written into `dir`.
pub fn xds_files(dir: &std::path::Path) -> XdsFiles {
    let ca = Ca::new("edge live xDS CA");
    let server =
        ca.leaf("contour", vec!["contour".to_owned()], 0x7001, ExtendedKeyUsagePurpose::ServerAuth);
    let envoy =
        ca.leaf("envoy", vec!["envoy".to_owned()], 0x7002, ExtendedKeyUsagePurpose::ClientAuth);
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    XdsFiles {
        ca: write("xds-ca.crt", &ca.pem),
        server_cert: write("xds-server.crt", &server.pem),
        server_key: write("xds-server.key", &server.key_pem),
        envoy_cert: write("envoy.crt", &envoy.pem),
        envoy_key: write("envoy.key", &envoy.key_pem),
    }
}

pub fn pki() -> Pki {
    let client_ca = Ca::new("edge live client CA");
    issued_by(&client_ca, &client_ca.pem)
}

/// A [`Pki`] whose clients and CRLs come from `issuer`, trusted through `client_ca_pem`.
fn issued_by(issuer: &Ca, client_ca_pem: &str) -> Pki {
    let server_ca = Ca::new("edge live serving CA");
    let client =
        |cn: &str, serial| issuer.leaf(cn, Vec::new(), serial, ExtendedKeyUsagePurpose::ClientAuth);
    Pki {
        server: server_ca.leaf(
            SERVER_NAME,
            vec![SERVER_NAME.to_owned()],
            0x5001,
            ExtendedKeyUsagePurpose::ServerAuth,
        ),
        server_ca: server_ca.der.clone(),
        client_ca_pem: client_ca_pem.to_owned(),
        good: client("client good", GOOD_SERIAL),
        revoked: client("client revoked", REVOKED_SERIAL),
        crl_one: issuer.crl(&[REVOKED_SERIAL], 1),
        crl_both: issuer.crl(&[REVOKED_SERIAL, GOOD_SERIAL], 2),
        crl_none: issuer.crl(&[], 0),
    }
}

/// [`pki`] and, beside it, a CRL of the same client CA revoking `serials`, valid from `from`
/// to `to` (its thisUpdate and nextUpdate), CRL number 3.
pub fn pki_with_crl(serials: &[u64], from: (i32, u8, u8), to: (i32, u8, u8)) -> (Pki, String) {
    let client_ca = Ca::new("edge live client CA");
    let kid = client_ca.params.key_identifier(&client_ca.key);
    let extra = revocation_lists::crl(&client_ca.issuer(), kid, serials, from, to, 3);
    (issued_by(&client_ca, &client_ca.pem), extra)
}

impl Ca {
    /// An intermediate CA issued by `self`.
    fn intermediate(&self, cn: &str, serial: u64) -> Ca {
        let params = ca_params(cn, serial);
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer()).unwrap();
        Ca { pem: cert.pem(), der: cert.der().clone(), params, key }
    }
}

/// A client CA chain root → intermediate → clients: a [`Pki`] whose `client_ca_pem` is the
/// root alone, whose `good` and `revoked` clients are issued by the intermediate and whose
/// `crl_one` and `crl_both` are the intermediate's CRLs (the root has none); beside it the
/// intermediate's certificate, which the clients present after their own.
pub fn pki_with_intermediate() -> (Pki, CertificateDer<'static>) {
    let root = Ca::new("edge live client root CA");
    let intermediate = root.intermediate("edge live client intermediate CA", 2);
    let pki = issued_by(&intermediate, &root.pem);
    (pki, intermediate.der.clone())
}

pub const UNDER_REVOKED_SERIAL: u64 = 0x1003;
pub const REVOKED_INTERMEDIATE_SERIAL: u64 = 0x2002;

/// The PKI of Contour's own CRL tests: root → {unrevoked intermediate → {`pki.good`,
/// `pki.revoked`}; revoked intermediate → `under_revoked`}, one CRL per CA. `pki.client_ca_pem`
/// is the root alone (clients send their intermediate); `pki.crl_one` is the unrevoked
/// intermediate's CRL (revoking `pki.revoked`).
pub struct Tree {
    pub pki: Pki,
    /// The unrevoked intermediate, sent by `pki.good` and `pki.revoked`.
    pub intermediate: CertificateDer<'static>,
    /// The revoked intermediate, sent by `under_revoked`.
    pub revoked_intermediate: CertificateDer<'static>,
    /// A client of the revoked intermediate, itself not revoked.
    pub under_revoked: Leaf,
    /// The root's CRL, revoking the revoked intermediate.
    pub root_crl: String,
    /// The revoked intermediate's CRL, revoking nothing.
    pub revoked_intermediate_crl: String,
}

pub fn tree() -> Tree {
    let root = Ca::new("edge live client root CA");
    let intermediate = root.intermediate("edge live client intermediate CA", 0x2001);
    let revoked =
        root.intermediate("edge live client revoked intermediate CA", REVOKED_INTERMEDIATE_SERIAL);
    Tree {
        pki: issued_by(&intermediate, &root.pem),
        intermediate: intermediate.der.clone(),
        revoked_intermediate: revoked.der.clone(),
        under_revoked: revoked.leaf(
            "client under the revoked intermediate",
            Vec::new(),
            UNDER_REVOKED_SERIAL,
            ExtendedKeyUsagePurpose::ClientAuth,
        ),
        root_crl: root.crl(&[REVOKED_INTERMEDIATE_SERIAL], 1),
        revoked_intermediate_crl: revoked.crl(&[], 1),
    }
}

/// Another client CA (for CA rotation): its certificate, one client and its empty CRL.
pub struct OtherCa {
    pub ca_pem: String,
    pub client: Leaf,
    pub crl: String,
}

pub fn other_ca() -> OtherCa {
    let ca = Ca::new("edge live next client CA");
    OtherCa {
        ca_pem: ca.pem.clone(),
        client: ca.leaf(
            "client of the next CA",
            Vec::new(),
            0x3001,
            ExtendedKeyUsagePurpose::ClientAuth,
        ),
        crl: ca.crl(&[], 1),
    }
}
