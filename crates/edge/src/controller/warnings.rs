//! certgate's deeper CRL checks on what is served, as `certgate crl check` reports them:
//! for each served virtual host with a CRL Secret, certgate-crl's warnings (an expired or
//! soon-expiring CRL, one not yet valid, a wrong signature, a CA of the chain without a CRL,
//! …). They never change a status (Contour would not); the controller publishes them as
//! events on the HTTPProxy, so they are seen before Envoy starts refusing clients.
//!
//! Expiry warnings depend on the time, so a result is reused only while the Secrets, their
//! bytes, the mode and the hour are the same; proxies sharing a bundle share its result.

use std::collections::{BTreeMap, HashMap};

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

/// The warnings of the last update, by what they depend on (see [`key`]), with the hour they
/// were computed in. Proxies sharing a CRL Secret, its CA Secret and the two flags share one
/// entry: each distinct bundle is hashed once and checked once per update at most.
#[derive(Default)]
pub struct CrlWarnings {
    memo: HashMap<Vec<u8>, (i64, Vec<String>)>,
    /// How many bundles were checked (not found in the memo) since the start.
    checked: u64,
}

/// A bundle as the proxies refer to it: CRL Secret, CA Secret, leaf-only, skip validation.
type Bundle<'a> = (&'a NamespacedName, Option<&'a NamespacedName>, bool, bool);

impl CrlWarnings {
    /// The warnings of every served proxy that has some, at `now` (Unix seconds).
    pub fn update(
        &mut self,
        inputs: &Inputs,
        served: &[ServedValidation],
        now: i64,
    ) -> BTreeMap<NamespacedName, Vec<String>> {
        let hour = now.div_euclid(3600);
        let data = |name: &NamespacedName, key: &str| {
            inputs.secrets.get(name).and_then(|s| s.data.get(key)).map(Vec::as_slice)
        };
        let mut keys: HashMap<Bundle<'_>, Option<Vec<u8>>> = HashMap::new();
        let mut memo: HashMap<Vec<u8>, (i64, Vec<String>)> = HashMap::new();
        let mut out = BTreeMap::new();
        for validation in served {
            let bundle = (
                &validation.crl_secret,
                validation.ca_secret.as_ref(),
                validation.only_verify_leaf,
                validation.skip_client_cert_validation,
            );
            let Some(key) = keys
                .entry(bundle)
                .or_insert_with(|| {
                    let crl = data(&validation.crl_secret, CRL_KEY)?;
                    let ca =
                        validation.ca_secret.as_ref().and_then(|n| data(n, CA_CERTIFICATE_KEY));
                    Some(key(crl, ca, validation))
                })
                .clone()
            else {
                continue;
            };
            let warnings = match memo.get(&key).or_else(|| self.memo.get(&key)) {
                Some((at, warnings)) if *at == hour => warnings.clone(),
                _ => {
                    self.checked += 1;
                    let crl = data(&validation.crl_secret, CRL_KEY).unwrap_or_default();
                    let ca =
                        validation.ca_secret.as_ref().and_then(|n| data(n, CA_CERTIFICATE_KEY));
                    warnings(crl, ca, validation, now)
                }
            };
            if !warnings.is_empty() {
                out.insert(validation.proxy.clone(), warnings.clone());
            }
            memo.insert(key, (hour, warnings));
        }
        self.memo = memo;
        out
    }
}

/// What the warnings depend on besides the time: the two Secrets' names (the texts name the
/// CRL Secret), their bytes and the two flags, hashed.
fn key(crl: &[u8], ca: Option<&[u8]>, validation: &ServedValidation) -> Vec<u8> {
    let mut hash = ring::digest::Context::new(&ring::digest::SHA256);
    let names = [
        validation.crl_secret.namespace.as_bytes(),
        validation.crl_secret.name.as_bytes(),
        validation.ca_secret.as_ref().map(|n| n.namespace.as_bytes()).unwrap_or_default(),
        validation.ca_secret.as_ref().map(|n| n.name.as_bytes()).unwrap_or_default(),
    ];
    for part in names.into_iter().chain([crl, ca.unwrap_or_default()]) {
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
        assert_eq!(warnings.checked, 1, "the same bundle in the same hour is checked once");
        assert_eq!(warnings.update(&inputs, &served, 1_800_003_600), first);
        assert_eq!(warnings.checked, 2, "a new hour checks again (expiry depends on the time)");
        assert!(warnings.update(&inputs, &[], 1_800_003_601).is_empty());
    }

    #[test]
    fn proxies_sharing_a_bundle_share_one_check() {
        let mut inputs = Inputs::default();
        for crl in ["crl", "other"] {
            inputs.secrets.insert(
                name(crl),
                Secret::new("ns", crl, "Opaque").with_data(CRL_KEY, b"no PEM here".to_vec()),
            );
        }
        let validation = |proxy: &str, crl: &str| ServedValidation {
            proxy: name(proxy),
            crl_secret: name(crl),
            ca_secret: None,
            only_verify_leaf: false,
            skip_client_cert_validation: true,
        };
        let served: Vec<ServedValidation> = (0..100)
            .map(|i| validation(&format!("proxy-{i}"), "crl"))
            .chain([validation("apart", "other")])
            .collect();
        let mut warnings = CrlWarnings::default();
        let all = warnings.update(&inputs, &served, 1_800_000_000);
        assert_eq!(all.len(), 101, "every proxy gets its bundle's warnings");
        assert_eq!(all[&name("proxy-0")], all[&name("proxy-99")]);
        // Both Secrets hold the same bytes, but the texts may name the Secret: two bundles.
        assert_eq!(warnings.checked, 2, "one check per distinct bundle");
        assert_eq!(warnings.update(&inputs, &served, 1_800_000_001), all);
        assert_eq!(warnings.checked, 2, "nothing changed that the warnings depend on");
    }
}
