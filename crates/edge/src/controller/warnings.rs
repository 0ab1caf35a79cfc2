//! certgate's deeper CRL checks on what is served, as `certgate crl check` reports them:
//! for each served virtual host with a CRL Secret, certgate-crl's warnings (an expired or
//! soon-expiring CRL, one not yet valid, a wrong signature, a CA of the chain without a CRL,
//! …). They never change a status (Contour would not); the controller publishes them as
//! events on the HTTPProxy, so they are seen before Envoy starts refusing clients.
//!
//! Expiry warnings depend on the time, so the result is kept per proxy and reused only while
//! the CRL and CA bytes, the mode and the hour are the same.

use std::collections::BTreeMap;

use certgate_crl::Timestamp;
use certgate_ingress::secrets::{CA_CERTIFICATE_KEY, CRL_KEY};
use certgate_ingress::{NamespacedName, ServedCrl, crl_warnings};

use super::decide::Inputs;

/// The client validation of one served root proxy, by Secret name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedValidation {
    pub proxy: NamespacedName,
    pub crl_secret: NamespacedName,
    pub ca_secret: Option<NamespacedName>,
    pub only_verify_leaf: bool,
    pub skip_client_cert_validation: bool,
}

/// The last warnings per proxy.
#[derive(Default)]
pub struct CrlWarnings {
    memo: BTreeMap<NamespacedName, (Vec<u8>, i64, Vec<String>)>,
}

impl CrlWarnings {
    /// The warnings of every served proxy that has some, at `now` (Unix seconds).
    pub fn update(
        &mut self,
        inputs: &Inputs,
        served: &[ServedValidation],
        now: i64,
    ) -> BTreeMap<NamespacedName, Vec<String>> {
        let hour = now.div_euclid(3600);
        let mut memo = BTreeMap::new();
        for validation in served {
            let data = |name: &NamespacedName, key: &str| {
                inputs.secrets.get(name).and_then(|s| s.data.get(key)).map(Vec::as_slice)
            };
            let Some(crl) = data(&validation.crl_secret, CRL_KEY) else { continue };
            let ca = validation.ca_secret.as_ref().and_then(|name| data(name, CA_CERTIFICATE_KEY));
            let key = key(crl, ca, validation);
            let warnings = match self.memo.get(&validation.proxy) {
                Some((seen, at, warnings)) if *seen == key && *at == hour => warnings.clone(),
                _ => warnings(crl, ca, validation, now),
            };
            memo.insert(validation.proxy.clone(), (key, hour, warnings));
        }
        self.memo = memo;
        self.memo
            .iter()
            .filter(|(_, (_, _, warnings))| !warnings.is_empty())
            .map(|(proxy, (_, _, warnings))| (proxy.clone(), warnings.clone()))
            .collect()
    }
}

/// What the warnings depend on besides the time: the bytes and the two flags, hashed.
fn key(crl: &[u8], ca: Option<&[u8]>, validation: &ServedValidation) -> Vec<u8> {
    let mut hash = ring::digest::Context::new(&ring::digest::SHA256);
    for part in [crl, ca.unwrap_or_default()] {
        hash.update(&(part.len() as u64).to_be_bytes());
        hash.update(part);
    }
    hash.update(&[
        u8::from(validation.only_verify_leaf),
        u8::from(validation.skip_client_cert_validation),
    ]);
    hash.finish().as_ref().to_vec()
}

/// `certgate crl check`'s deeper checks of one CRL Secret against its CA Secret's `ca.crt`.
pub fn warnings(
    crl: &[u8],
    ca: Option<&[u8]>,
    validation: &ServedValidation,
    now: i64,
) -> Vec<String> {
    let served = ServedCrl {
        crl_secret: &validation.crl_secret,
        crl_pem: crl,
        ca_bundle: ca,
        only_verify_leaf: validation.only_verify_leaf,
        skip_client_cert_validation: validation.skip_client_cert_validation,
    };
    crl_warnings(&served, Timestamp::from_unix(now))
}

#[cfg(test)]
mod tests {
    use certgate_ingress::Secret;

    use super::*;

    fn name(name: &str) -> NamespacedName {
        NamespacedName { namespace: "ns".into(), name: name.into() }
    }

    #[test]
    fn a_broken_crl_is_warned_about_once_per_content_and_hour() {
        let mut inputs = Inputs::default();
        inputs.secrets.insert(
            name("crl"),
            Secret::new("ns", "crl", "Opaque").with_data(CRL_KEY, b"no PEM here".to_vec()),
        );
        let served = [ServedValidation {
            proxy: name("proxy"),
            crl_secret: name("crl"),
            ca_secret: None,
            only_verify_leaf: false,
            skip_client_cert_validation: true,
        }];
        let mut warnings = CrlWarnings::default();
        let first = warnings.update(&inputs, &served, 1_800_000_000);
        let listed = &first[&name("proxy")];
        assert!(listed[0].starts_with("skipClientCertValidation is true"), "{listed:?}");
        assert!(listed.len() >= 2, "the CRL's own problem too: {listed:?}");
        assert_eq!(warnings.update(&inputs, &served, 1_800_000_001), first);
        assert!(warnings.update(&inputs, &[], 1_800_000_001).is_empty());
    }
}
