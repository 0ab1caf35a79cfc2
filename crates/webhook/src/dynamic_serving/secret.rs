//! The CA Secret's contents: what was read ([`CaSecretData`]), what certgate writes
//! ([`CaSecretContents`]), and the usable CA they describe ([`Authority`]).

use std::time::SystemTime;

use super::bundle::Bundle;
use super::certs::{self, CaCertificate, MAX_PEM_BYTES};
use super::error::{GenerateError, InvalidCa};
use super::validity::Validity;
use super::{CA_CRT, TLS_CRT, TLS_KEY};

/// The three keys of a CA Secret as read from the API server (`None` where a key is absent).
#[derive(Clone, Copy, Default)]
pub struct CaSecretData<'a> {
    pub tls_crt: Option<&'a [u8]>,
    pub tls_key: Option<&'a [u8]>,
    pub ca_crt: Option<&'a [u8]>,
}

impl std::fmt::Debug for CaSecretData<'_> {
    // Sizes only: the key must never reach a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaSecretData")
            .field("tls_crt_bytes", &self.tls_crt.map(<[u8]>::len))
            .field("tls_key_bytes", &self.tls_key.map(<[u8]>::len))
            .field("ca_crt_bytes", &self.ca_crt.map(<[u8]>::len))
            .finish()
    }
}

/// What certgate writes into the Secret's `tls.crt`, `tls.key` and `ca.crt`.
#[derive(Clone, PartialEq, Eq)]
pub struct CaSecretContents {
    pub tls_crt: String,
    pub tls_key: String,
    pub ca_crt: String,
}

impl std::fmt::Debug for CaSecretContents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaSecretContents")
            .field("tls_crt", &self.tls_crt)
            .field("ca_crt", &self.ca_crt)
            .finish_non_exhaustive()
    }
}

impl CaSecretContents {
    /// The contents as if read back from the API server.
    pub fn as_data(&self) -> CaSecretData<'_> {
        CaSecretData {
            tls_crt: Some(self.tls_crt.as_bytes()),
            tls_key: Some(self.tls_key.as_bytes()),
            ca_crt: Some(self.ca_crt.as_bytes()),
        }
    }
}

/// A CA that can sign serving certificates now, with the bundle clients must trust.
#[derive(Clone)]
pub struct Authority {
    certificate: CaCertificate,
    key_pem: String,
    bundle: Bundle,
}

impl std::fmt::Debug for Authority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authority")
            .field("serial", &self.certificate.serial)
            .field("validity", &self.certificate.validity)
            .field("bundle", &self.bundle.certificates().len())
            .finish_non_exhaustive()
    }
}

impl Authority {
    pub(crate) fn new(certificate: CaCertificate, key_pem: String, bundle: Bundle) -> Self {
        Self { certificate, key_pem, bundle }
    }

    /// Reads the CA from `tls.crt` and `tls.key` and checks it is usable at `now`: a
    /// self-signed CA certificate within its validity and the private key belonging to it.
    pub(crate) fn read_ca(
        data: &CaSecretData<'_>,
        now: SystemTime,
    ) -> Result<(CaCertificate, String), InvalidCa> {
        let cert = data.tls_crt.ok_or(InvalidCa::Missing { key: TLS_CRT })?;
        let ca = certs::first_ca(TLS_CRT, cert)?;
        ca.check_time(TLS_CRT, now)?;
        let key = data.tls_key.ok_or(InvalidCa::Missing { key: TLS_KEY })?;
        if key.len() > MAX_PEM_BYTES {
            return Err(InvalidCa::TooLarge {
                key: TLS_KEY,
                size: key.len(),
                limit: MAX_PEM_BYTES,
            });
        }
        let key_pem = std::str::from_utf8(key)
            .map_err(|_| InvalidCa::Key { reason: "it is not UTF-8 text".to_owned() })?;
        // rcgen's messages name the problem without echoing the key.
        let pair = rcgen::KeyPair::from_pem(key_pem)
            .map_err(|err| InvalidCa::Key { reason: err.to_string() })?;
        if pair.public_key_raw() != ca.public_key.as_slice() {
            return Err(InvalidCa::KeyMismatch);
        }
        Ok((ca, key_pem.to_owned()))
    }

    /// The CA certificates found in `ca.crt` (nothing when absent or unusable).
    pub(crate) fn bundled(data: &CaSecretData<'_>) -> Vec<CaCertificate> {
        data.ca_crt.map(|bytes| certs::lenient_cas(CA_CRT, bytes)).unwrap_or_default()
    }

    pub fn certificate(&self) -> &CaCertificate {
        &self.certificate
    }

    pub fn validity(&self) -> Validity {
        self.certificate.validity
    }

    /// Hexadecimal serial number of the CA certificate, for logs.
    pub fn serial(&self) -> &str {
        &self.certificate.serial
    }

    pub fn bundle(&self) -> &Bundle {
        &self.bundle
    }

    /// What the Secret holds for this authority.
    pub fn contents(&self) -> CaSecretContents {
        CaSecretContents {
            tls_crt: self.certificate.pem(),
            tls_key: self.key_pem.clone(),
            ca_crt: self.bundle.pem(),
        }
    }

    pub(crate) fn key_pair(&self) -> Result<rcgen::KeyPair, GenerateError> {
        rcgen::KeyPair::from_pem(&self.key_pem).map_err(|source| GenerateError::Issuer { source })
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::dynamic_serving::generate::generate_ca;

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(1_800_000_000)
    }

    #[test]
    fn reads_a_matching_pair() {
        let ca = generate_ca(now(), Duration::from_secs(3_600)).unwrap();
        let data = CaSecretData {
            tls_crt: Some(ca.cert_pem.as_bytes()),
            tls_key: Some(ca.key_pem.as_bytes()),
            ca_crt: None,
        };
        let (cert, key) = Authority::read_ca(&data, now()).unwrap();
        assert_eq!(cert.pem(), ca.cert_pem);
        assert_eq!(key, ca.key_pem);
    }

    #[test]
    fn refuses_missing_mismatched_and_garbage_keys() {
        let (a, b) = (
            generate_ca(now(), Duration::from_secs(3_600)).unwrap(),
            generate_ca(now(), Duration::from_secs(3_600)).unwrap(),
        );
        let with_key = |key: Option<&[u8]>| {
            Authority::read_ca(
                &CaSecretData { tls_crt: Some(a.cert_pem.as_bytes()), tls_key: key, ca_crt: None },
                now(),
            )
            .unwrap_err()
        };
        assert_eq!(with_key(None), InvalidCa::Missing { key: "tls.key" });
        assert_eq!(with_key(Some(b.key_pem.as_bytes())), InvalidCa::KeyMismatch);
        assert!(matches!(with_key(Some(b"\xff\xfe")), InvalidCa::Key { .. }));
        let err = with_key(Some(b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"));
        assert!(
            err.to_string().starts_with("tls.key is not a usable PKCS#8 private key: "),
            "{err}"
        );
        let no_cert = CaSecretData { tls_crt: None, ..CaSecretData::default() };
        assert_eq!(
            Authority::read_ca(&no_cert, now()).unwrap_err(),
            InvalidCa::Missing { key: "tls.crt" }
        );
    }

    #[test]
    fn debug_output_hides_the_key() {
        let ca = generate_ca(now(), Duration::from_secs(3_600)).unwrap();
        let contents = CaSecretContents {
            tls_crt: ca.cert_pem.clone(),
            tls_key: ca.key_pem.clone(),
            ca_crt: ca.cert_pem.clone(),
        };
        for shown in
            [format!("{contents:?}"), format!("{:?}", contents.as_data()), format!("{ca:?}")]
        {
            assert!(!shown.contains("PRIVATE KEY"), "{shown}");
        }
    }
}
