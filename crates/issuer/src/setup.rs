//! The issuers' `Ready` condition, decided from the issuer and its Secret
//! (cert-manager's `pkg/issuer/ca/setup.go`, `pkg/issuer/selfsigned/setup.go`, and the
//! `issuers` / `clusterissuers` controllers' `Sync` in `pkg/controller/issuers/sync.go`).
//!
//! Pure: the Secret comes in as a [`SecretLookup`], the answer is a [`Setup`] (the
//! condition to set and the events to record); `apply` writes the condition into a status
//! as `SetIssuerCondition` does.

use std::collections::BTreeMap;

use certgate_api::cert_manager::{Condition, IssuerConfig, IssuerStatus, condition_type};
use certgate_issuance::Event;
use certgate_pki::issue::CaKeyPair;

/// `ErrGetKeyPair`: the CA Secret is missing or unreadable.
pub const ERR_GET_KEY_PAIR: &str = "ErrGetKeyPair";
/// `ErrInvalidKeyPair`: the CA certificate is not a CA.
pub const ERR_INVALID_KEY_PAIR: &str = "ErrInvalidKeyPair";
/// `KeyPairVerified`: the CA issuer is ready.
pub const KEY_PAIR_VERIFIED: &str = "KeyPairVerified";
/// The message prefix of [`ERR_GET_KEY_PAIR`] and [`ERR_INVALID_KEY_PAIR`].
pub const ERROR_GET_KEY_PAIR_MESSAGE: &str = "Error getting keypair for CA issuer: ";
/// The message of [`KEY_PAIR_VERIFIED`].
pub const KEY_PAIR_VERIFIED_MESSAGE: &str = "Signing CA verified";
/// The `Ready` reason of a SelfSigned issuer (its message is empty).
pub const IS_READY: &str = "IsReady";
/// The Warning event of every failed setup: reason.
pub const ERR_INIT_ISSUER: &str = "ErrInitIssuer";
/// The Warning event of every failed setup: message prefix.
pub const ERROR_INIT_ISSUER_MESSAGE: &str = "Error initializing issuer: ";

/// A Secret's `data`, decoded.
pub type SecretData = BTreeMap<String, Vec<u8>>;

/// What reading a Secret found.
#[derive(Clone, Copy, Debug)]
pub enum SecretLookup<'a> {
    Found(&'a SecretData),
    /// The API answered NotFound.
    NotFound,
    /// Another error, in its text.
    Error(&'a str),
}

/// The text of a Secret lister's NotFound error (cert-manager reads Secrets from its
/// informer cache, whose errors name the singular resource).
pub fn secret_not_found(name: &str) -> String {
    format!("secret {name:?} not found")
}

/// The `Ready` condition an issuer setup decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadyCondition {
    pub ready: bool,
    pub reason: &'static str,
    pub message: String,
}

/// What one setup decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub condition: ReadyCondition,
    /// Events to record about the issuer, in order.
    pub events: Vec<Event>,
    /// The setup failed: retry with back-off (upstream returns the error to its queue).
    pub retry: bool,
}

/// The Secret a CA issuer reads: `spec.ca.secretName`, or `None` for other issuer types.
pub fn ca_secret(config: &IssuerConfig) -> Option<&str> {
    match config.issuer_type() {
        Some("ca") => config.ca.as_ref().map(|ca| ca.secret_name.as_str()),
        _ => None,
    }
}

/// The setup of an issuer whose Secrets live in `namespace`; `secret` is what reading
/// [`ca_secret`] found (ignored for SelfSigned). `None` for issuer types these controllers
/// do not run (ACME, Vault, Venafi) and for issuers without a type.
pub fn setup(config: &IssuerConfig, namespace: &str, secret: SecretLookup<'_>) -> Option<Setup> {
    match config.issuer_type()? {
        "selfSigned" => Some(Setup {
            condition: ReadyCondition { ready: true, reason: IS_READY, message: String::new() },
            events: Vec::new(),
            retry: false,
        }),
        "ca" => {
            let name = ca_secret(config).unwrap_or_default();
            Some(ca_setup(namespace, name, secret))
        }
        _ => None,
    }
}

fn ca_setup(namespace: &str, name: &str, secret: SecretLookup<'_>) -> Setup {
    match signer_is_ca(namespace, name, secret) {
        Err(error) => {
            let message = format!("{ERROR_GET_KEY_PAIR_MESSAGE}{error}");
            Setup {
                condition: ReadyCondition {
                    ready: false,
                    reason: ERR_GET_KEY_PAIR,
                    message: message.clone(),
                },
                events: vec![
                    Event { warning: true, reason: ERR_GET_KEY_PAIR.to_owned(), message },
                    Event {
                        warning: true,
                        reason: ERR_INIT_ISSUER.to_owned(),
                        message: format!("{ERROR_INIT_ISSUER_MESSAGE}{error}"),
                    },
                ],
                retry: true,
            }
        }
        Ok(false) => {
            let message = format!("{ERROR_GET_KEY_PAIR_MESSAGE}certificate is not a CA");
            Setup {
                condition: ReadyCondition {
                    ready: false,
                    reason: ERR_INVALID_KEY_PAIR,
                    message: message.clone(),
                },
                events: vec![Event {
                    warning: true,
                    reason: ERR_INVALID_KEY_PAIR.to_owned(),
                    message,
                }],
                retry: false,
            }
        }
        Ok(true) => Setup {
            condition: ReadyCondition {
                ready: true,
                reason: KEY_PAIR_VERIFIED,
                message: KEY_PAIR_VERIFIED_MESSAGE.to_owned(),
            },
            events: vec![Event {
                warning: false,
                reason: KEY_PAIR_VERIFIED.to_owned(),
                message: KEY_PAIR_VERIFIED_MESSAGE.to_owned(),
            }],
            retry: false,
        },
    }
}

/// `SecretTLSCert` then `SecretTLSKey` (pkg/util/kube/pki.go): `tls.crt` and `tls.key`
/// present and readable, then whether the first certificate is a CA. `ca.crt` is not read
/// here (upstream's setup does not read it either).
fn signer_is_ca(namespace: &str, name: &str, secret: SecretLookup<'_>) -> Result<bool, String> {
    let data = match secret {
        SecretLookup::Found(data) => data,
        SecretLookup::NotFound => return Err(secret_not_found(name)),
        SecretLookup::Error(error) => return Err(error.to_owned()),
    };
    let missing = |key: &str| format!("no data for {key:?} in secret '{namespace}/{name}'");
    let certificate = data.get("tls.crt").ok_or_else(|| missing("tls.crt"))?;
    let key = data.get("tls.key").ok_or_else(|| missing("tls.key"))?;
    let pair = CaKeyPair::from_secret(certificate, key, None).map_err(|e| e.to_string())?;
    Ok(x509_parser::parse_x509_certificate(pair.signer_certificate())
        .map(|(_, certificate)| certificate.is_ca())
        .unwrap_or(false))
}

/// Sets the `Ready` condition in `status` as `SetIssuerCondition` does: the transition
/// time is kept when a `Ready` condition with the same status exists, else `now`;
/// `observedGeneration` is the issuer's generation.
pub fn apply(
    status: &mut Option<IssuerStatus>,
    condition: &ReadyCondition,
    generation: Option<i64>,
    now: &str,
) {
    let status = status.get_or_insert_with(IssuerStatus::default);
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    let status_text = if condition.ready { "True" } else { "False" };
    let mut new = Condition {
        type_: condition_type::READY.to_owned(),
        status: status_text.to_owned(),
        last_transition_time: Some(now.to_owned()),
        reason: Some(condition.reason.to_owned()),
        // Go's `omitempty`: a SelfSigned issuer's empty message is not written.
        message: (!condition.message.is_empty()).then(|| condition.message.clone()),
        observed_generation: generation,
    };
    match conditions.iter_mut().find(|c| c.type_ == condition_type::READY) {
        Some(existing) => {
            if existing.status == status_text {
                new.last_transition_time = existing.last_transition_time.clone();
            }
            *existing = new;
        }
        None => conditions.push(new),
    }
}

#[cfg(test)]
mod tests;
