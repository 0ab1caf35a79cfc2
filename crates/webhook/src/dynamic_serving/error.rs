//! Errors of dynamic serving: each says what was wrong, where, and what to do.

use std::time::SystemTime;

use certgate_clock::rfc3339;

/// Why the CA Secret's contents cannot be used. certgate replaces such a CA with a new one
/// (and logs this reason), so the remedy is part of the message only where one helps.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidCa {
    #[error("the Secret has no {key} key")]
    Missing { key: &'static str },
    #[error("{key} holds {size} bytes, more than the {limit} a CA Secret needs")]
    TooLarge { key: &'static str, size: usize, limit: usize },
    #[error("{key} holds no PEM CERTIFICATE block")]
    NoCertificate { key: &'static str },
    #[error("{key} is not a valid X.509 certificate: {reason}")]
    Certificate { key: &'static str, reason: String },
    #[error("{key} is not a CA certificate (no basicConstraints with CA:TRUE)")]
    NotCa { key: &'static str },
    #[error("{key} may not sign certificates (its keyUsage lacks keyCertSign)")]
    CannotSign { key: &'static str },
    #[error("{key} is not self-signed ({reason}); certgate keeps a root CA in this Secret")]
    NotSelfSigned { key: &'static str, reason: String },
    #[error("{key} is not valid before {}", rfc3339(*not_before))]
    NotYetValid { key: &'static str, not_before: SystemTime },
    #[error("{key} expired at {}", rfc3339(*not_after))]
    Expired { key: &'static str, not_after: SystemTime },
    #[error("tls.key is not a usable PKCS#8 private key: {reason}")]
    Key { reason: String },
    #[error("tls.key does not belong to the certificate in tls.crt")]
    KeyMismatch,
}

/// Why a CA or serving certificate could not be generated.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error("cannot generate the {what}: {source}")]
    Rcgen { what: &'static str, source: rcgen::Error },
    #[error(
        "the newly generated CA certificate cannot be read back ({source}); this is a bug in certgate"
    )]
    Unreadable { source: InvalidCa },
    #[error(
        "cannot sign the serving certificate with the CA from the Secret: {source}; delete the Secret so certgate creates a new CA"
    )]
    Issuer { source: rcgen::Error },
}

/// Why `--dynamic-serving-dns-names` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NamesError {
    #[error(
        "--dynamic-serving-dns-names is empty; give the names clients use to reach the webhook, e.g. certgate-webhook.certgate.svc"
    )]
    Empty,
    #[error("--dynamic-serving-dns-names holds an empty name; separate names with single commas")]
    EmptyName,
    #[error(
        "--dynamic-serving-dns-names: {name:?} is neither a DNS name nor an IP address; give names such as certgate-webhook.certgate.svc or 10.0.0.7"
    )]
    Invalid { name: String },
}

/// Why a webhook configuration's `caBundle` fields could not be set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InjectError {
    #[error("`webhooks` is not a list")]
    WebhooksNotAList,
    #[error("webhooks[{index}] is not an object")]
    WebhookNotAnObject { index: usize },
    #[error("webhooks[{index}].clientConfig is not an object")]
    ClientConfigNotAnObject { index: usize },
}
