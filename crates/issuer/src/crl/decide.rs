//! What the `issuers-crl` controller writes, decided from a snapshot: the issuer's
//! annotations and configuration, its CA Secret, its CRL Secret and the time. Pure: the
//! signatures use the OS random source (ring, for ECDSA), nothing else is read or written.

use std::collections::BTreeMap;
use std::time::Duration;

use certgate_api::cert_manager::IssuerConfig;
use certgate_crl::Limits;
use certgate_crl::build::{
    BuildLimits, CaSigner, REVOCATIONS_KEY, RefreshInput, RefreshPolicy, RevocationLimits,
    active_revocations, build_crl, decide_refresh, parse_revocations,
};
use certgate_crl::{Crl, Timestamp};
use certgate_gofmt::GoDuration;

use crate::setup::{SecretData, SecretLookup, secret_not_found};

/// The annotation that turns CRL publishing on: the name of the Secret (in the issuer's
/// resource namespace) that receives `crl.pem` and holds `revocations.json`.
pub const CRL_SECRET_ANNOTATION: &str = "certgate.io/crl-secret-name";
/// Optional: how long each CRL is valid, as a Go duration (`720h`).
pub const CRL_VALIDITY_ANNOTATION: &str = "certgate.io/crl-validity";
/// The Secret key of the published CRL (what Contour's `crlSecret` reads).
pub const CRL_KEY: &str = "crl.pem";

/// Normal event: a CRL was written.
pub const CRL_PUBLISHED: &str = "CRLPublished";
/// Warning event: the annotations cannot be used.
pub const CRL_CONFIG_INVALID: &str = "CRLConfigInvalid";
/// Warning event: the CA Secret cannot sign CRLs.
pub const CRL_CA_ERROR: &str = "CRLSigningCAError";
/// Warning event: `revocations.json` cannot be read.
pub const CRL_REVOCATIONS_INVALID: &str = "CRLRevocationsInvalid";
/// Warning event: the CRL Secret cannot be read.
pub const CRL_SECRET_ERROR: &str = "CRLSecretError";
/// Warning event: building the CRL failed.
pub const CRL_BUILD_FAILED: &str = "CRLBuildFailed";

/// An issuer that publishes a CRL: where, and how long each CRL is valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publishing {
    pub crl_secret: String,
    pub ca_secret: String,
    pub policy: RefreshPolicy,
}

/// Why an issuer cannot publish, and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The Warning event's reason.
    pub reason: &'static str,
    pub message: String,
    /// Look again after a while (an API error); otherwise a change of the issuer or one of
    /// its Secrets wakes the controller.
    pub retry: bool,
}

/// Whether the issuer publishes a CRL: `None` without the annotation (the issuer is not
/// touched); an error when the annotations cannot be used or the issuer is not a CA issuer.
pub fn publishing(
    annotations: Option<&BTreeMap<String, String>>,
    config: &IssuerConfig,
) -> Option<Result<Publishing, Failure>> {
    let annotations = annotations?;
    let crl_secret = annotations.get(CRL_SECRET_ANNOTATION)?;
    let invalid =
        |message: String| Some(Err(Failure { reason: CRL_CONFIG_INVALID, message, retry: false }));
    if !is_dns_subdomain(crl_secret) {
        return invalid(format!(
            "annotation {CRL_SECRET_ANNOTATION}: {:?} is not a Secret name (lowercase letters, digits, '-' and '.', at most 253 characters); fix the annotation",
            crl_secret.chars().take(64).collect::<String>()
        ));
    }
    let Some(ca_secret) = crate::setup::ca_secret(config) else {
        return invalid(format!(
            "annotation {CRL_SECRET_ANNOTATION} is set, but only CA issuers (spec.ca) publish CRLs; remove the annotation"
        ));
    };
    if ca_secret == crl_secret {
        return invalid(format!(
            "annotation {CRL_SECRET_ANNOTATION} names the CA Secret {ca_secret:?}: publish the CRL into a Secret of its own (the CRL Secret is readable by whoever consumes the CRL, the CA key must not be)"
        ));
    }
    let policy = match annotations.get(CRL_VALIDITY_ANNOTATION) {
        None => RefreshPolicy::default(),
        Some(text) => {
            let validity = GoDuration::parse(text).ok().and_then(GoDuration::as_std);
            let Some(validity) = validity else {
                return invalid(format!(
                    "annotation {CRL_VALIDITY_ANNOTATION}: {:?} is not a positive Go duration; write e.g. 720h",
                    text.chars().take(64).collect::<String>()
                ));
            };
            match RefreshPolicy::new(validity) {
                Ok(policy) => policy,
                Err(error) => {
                    return invalid(format!(
                        "annotation {CRL_VALIDITY_ANNOTATION}: {error}; fix the annotation"
                    ));
                }
            }
        }
    };
    Some(Ok(Publishing { crl_secret: crl_secret.clone(), ca_secret: ca_secret.to_owned(), policy }))
}

fn is_dns_subdomain(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// What one reconcile sees.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot<'a> {
    pub publishing: &'a Publishing,
    /// The issuer's resource namespace (where both Secrets live).
    pub namespace: &'a str,
    pub ca: SecretLookup<'a>,
    /// The CRL Secret's data; `None` when it does not exist.
    pub crl: Option<&'a SecretData>,
    pub now: Timestamp,
}

/// A CRL to write into the CRL Secret's `crl.pem`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Publish {
    pub crl_pem: String,
    /// The cRLNumber, in decimal.
    pub number: String,
    /// Revoked certificates it lists.
    pub entries: usize,
    /// Its nextUpdate.
    pub next_update: Timestamp,
    /// Why it was built.
    pub trigger: String,
    /// When to look again.
    pub check_at: Timestamp,
}

/// The answer of [`decide`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Write this CRL.
    Publish(Publish),
    /// The published CRL is current (its nextUpdate and revoked entries); look again at
    /// `check_at`.
    Current { check_at: Timestamp, next_update: Option<Timestamp>, entries: usize },
    /// Nothing can be published.
    Failed(Failure),
}

/// The CA key pair of the issuer's Secret as [`CaSigner`] takes it: the first certificate of
/// `tls.crt` and the PKCS#8 `tls.key`.
fn signer(snapshot: &Snapshot<'_>) -> Result<CaSigner, Failure> {
    let namespace = snapshot.namespace;
    let name = &snapshot.publishing.ca_secret;
    let fail = |message: String, retry: bool| Failure { reason: CRL_CA_ERROR, message, retry };
    let data = match snapshot.ca {
        SecretLookup::Found(data) => data,
        SecretLookup::NotFound => {
            return Err(fail(
                format!(
                    "cannot sign the CRL: {} in namespace {namespace}; create the CA Secret",
                    secret_not_found(name)
                ),
                false,
            ));
        }
        SecretLookup::Error(error) => {
            return Err(fail(
                format!("cannot read the CA secret {namespace}/{name}: {error}"),
                true,
            ));
        }
    };
    let missing = |key: &str| {
        fail(
            format!("cannot sign the CRL: no data for {key:?} in secret '{namespace}/{name}'"),
            false,
        )
    };
    let certificate = data.get("tls.crt").ok_or_else(|| missing("tls.crt"))?;
    let key = data.get("tls.key").ok_or_else(|| missing("tls.key"))?;
    let Some((certificate, _)) = certgate_pki::pem::decode(certificate) else {
        return Err(fail(
            format!(
                "cannot sign the CRL: tls.crt of secret '{namespace}/{name}' holds no PEM block"
            ),
            false,
        ));
    };
    let Some((key, _)) = certgate_pki::pem::decode(key) else {
        return Err(fail(
            format!(
                "cannot sign the CRL: tls.key of secret '{namespace}/{name}' holds no PEM block"
            ),
            false,
        ));
    };
    let key_der = match key.label {
        b"PRIVATE KEY" => key.der.clone(),
        b"RSA PRIVATE KEY" | b"EC PRIVATE KEY" => super::key::to_pkcs8(key.label, &key.der)
            .map_err(|detail| {
                fail(
                    format!(
                        "cannot sign the CRL with tls.key of secret '{namespace}/{name}': {detail}; store the key as PKCS#8 (openssl pkcs8 -topk8 -nocrypt)"
                    ),
                    false,
                )
            })?,
        other => {
            return Err(fail(
                format!(
                    "cannot sign the CRL: tls.key of secret '{namespace}/{name}' is a {:?} block, not a private key",
                    String::from_utf8_lossy(other)
                ),
                false,
            ));
        }
    };
    CaSigner::new(&certificate.der, &key_der).map_err(|error| {
        fail(
            format!("cannot sign the CRL with the CA of secret '{namespace}/{name}': {error}"),
            false,
        )
    })
}

/// The CRL of `crl.pem`, when there is one and it parses (the first `X509 CRL` block).
fn published(crl: Option<&SecretData>) -> Option<Crl> {
    let mut rest = crl?.get(CRL_KEY)?.as_slice();
    let limits = Limits { max_bundle_bytes: 4 << 20, ..Limits::default() };
    while let Some((block, after)) = certgate_pki::pem::decode(rest) {
        if block.label == b"X509 CRL" {
            return Crl::from_der(block.der, &limits).ok();
        }
        rest = after;
    }
    None
}

/// The CRL to publish now, if any, and when to look again.
pub fn decide(snapshot: &Snapshot<'_>) -> Decision {
    let signer = match signer(snapshot) {
        Ok(signer) => signer,
        Err(failure) => return Decision::Failed(failure),
    };
    let crl_secret = format!("{}/{}", snapshot.namespace, snapshot.publishing.crl_secret);
    let revocations = snapshot
        .crl
        .and_then(|data| data.get(REVOCATIONS_KEY))
        .map(|text| parse_revocations(text, &RevocationLimits::default()))
        .transpose();
    let revocations = match revocations {
        Ok(list) => list.unwrap_or_default(),
        Err(error) => {
            return Decision::Failed(Failure {
                reason: CRL_REVOCATIONS_INVALID,
                message: format!("secret {crl_secret}: {error}"),
                retry: false,
            });
        }
    };
    let revoked = active_revocations(&revocations, snapshot.now);
    let published = published(snapshot.crl);
    let policy = &snapshot.publishing.policy;
    let decision = decide_refresh(&RefreshInput {
        now: snapshot.now,
        policy,
        signer: &signer,
        published: published.as_ref(),
        revoked: &revoked,
    });
    let Some(trigger) = decision.regenerate.clone() else {
        let info = published.as_ref().map(Crl::info);
        return Decision::Current {
            check_at: decision.check_at,
            next_update: info.and_then(|info| info.next_update),
            entries: info.map_or(0, |info| info.entries),
        };
    };
    let params = decision.params(policy, snapshot.now, &revoked);
    let built = match build_crl(&signer, &params, &BuildLimits::default()) {
        Ok(built) => built,
        Err(error) => {
            return Decision::Failed(Failure {
                reason: CRL_BUILD_FAILED,
                message: format!("cannot build the CRL for secret {crl_secret}: {error}"),
                retry: false,
            });
        }
    };
    let number = Crl::from_der(built.der().to_vec(), &Limits::default())
        .ok()
        .and_then(|crl| crl.info().crl_number.as_ref().map(ToString::to_string))
        .unwrap_or_default();
    Decision::Publish(Publish {
        crl_pem: built.to_pem(),
        number,
        entries: built.entries(),
        next_update: params.next_update,
        trigger: trigger.to_string(),
        check_at: decision.check_at,
    })
}

/// How long to wait until `check_at`: at least a second, at most a day (a clock that jumps
/// is looked at again within a day).
pub fn wait_until(check_at: Timestamp, now: Timestamp) -> Duration {
    let secs = check_at.unix().saturating_sub(now.unix()).clamp(1, 24 * 3600);
    Duration::from_secs(u64::try_from(secs).unwrap_or(1))
}
