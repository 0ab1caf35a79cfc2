//! Whether a Certificate must be (re-)issued: cert-manager's trigger policy chain and the
//! readiness chain that shares it (`internal/controller/certificates/policies/{policies,
//! checks,constants}.go`), and the trigger controller's decision around it
//! (`pkg/controller/certificates/trigger/trigger_controller.go`), with upstream's reasons and
//! messages.
//!
//! The checks that need cryptography (decoding keys, certificates and CSRs, comparing public
//! keys, matching a request or a key against the spec) are the caller's, done with
//! `certgate-pki`; their results come in as [`SecretFacts`] and [`CurrentRequestFacts`], the
//! error texts as Go prints them. What is decided here is the order, the reasons and the
//! messages. Not mirrored: ACME Renewal Information and renewal windows (`WindowError`),
//! and the post-issuance chain over the Secret's metadata.

use certgate_gofmt::GoDuration;
use chrono::{DateTime, Utc};

use crate::backoff::{self, Backoff, BackoffConfig, FailureRecord, NextRequest};
use crate::condition::{ConditionUpdate, Event, FALSE, TRUE, types};
use crate::gotime;
use crate::renewal::{self, RenewalSpec};

/// The reasons a policy reports (`policies/constants.go`), and `cmctl renew`'s.
pub mod reasons {
    /// The Secret does not exist.
    pub const DOES_NOT_EXIST: &str = "DoesNotExist";
    /// The Secret lacks data, a private key or a certificate.
    pub const MISSING_DATA: &str = "MissingData";
    /// The private key does not decode or does not match the certificate.
    pub const INVALID_KEY_PAIR: &str = "InvalidKeyPair";
    /// The certificate does not decode.
    pub const INVALID_CERTIFICATE: &str = "InvalidCertificate";
    /// The current CertificateRequest's CSR does not decode or has a bad key.
    pub const INVALID_CERTIFICATE_REQUEST: &str = "InvalidCertificateRequest";
    /// The Secret's key or certificate does not match the spec or the current request.
    pub const SECRET_MISMATCH: &str = "SecretMismatch";
    /// The Secret was issued by another issuer.
    pub const INCORRECT_ISSUER: &str = "IncorrectIssuer";
    /// The Secret was issued for another Certificate.
    pub const INCORRECT_CERTIFICATE: &str = "IncorrectCertificate";
    /// The current CertificateRequest no longer matches the spec.
    pub const REQUEST_CHANGED: &str = "RequestChanged";
    /// The renewal time has come.
    pub const RENEWING: &str = "Renewing";
    /// The certificate has expired (readiness only).
    pub const EXPIRED: &str = "Expired";
    /// `cmctl renew` (cert-manager/cmctl `pkg/renew/renew.go`).
    pub const MANUALLY_TRIGGERED: &str = "ManuallyTriggered";
}

/// The `Issuing=True` message `cmctl renew` writes, with [`reasons::MANUALLY_TRIGGERED`]. The
/// trigger controller's backoff does not apply: it only runs while `Issuing` is not `True`.
pub const MANUALLY_TRIGGERED_MESSAGE: &str = "Certificate re-issuance manually triggered";
/// The reason of the readiness controller's `Ready=True` condition.
pub const READY_REASON: &str = "Ready";
/// The message of the readiness controller's `Ready=True` condition.
pub const READY_MESSAGE: &str = "Certificate is up to date and has not expired";
/// The reason of the Normal event recorded when issuance is triggered.
pub const ISSUING_EVENT_REASON: &str = "Issuing";
/// How long the trigger controller waits before looking again at a Certificate whose Secret
/// other Certificates name too.
pub const NOT_SECRET_OWNER_RECHECK: GoDuration = GoDuration(3 * 60 * 1_000_000_000);

/// `spec.issuerRef`, fields empty when unset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IssuerRef<'a> {
    pub name: &'a str,
    pub kind: &'a str,
    pub group: &'a str,
}

/// The Secret's `cert-manager.io/issuer-name`, `-kind` and `-group` annotations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IssuerAnnotations<'a> {
    pub name: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub group: Option<&'a str>,
}

/// A certificate's validity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Validity {
    pub not_before: DateTime<Utc>,
    pub not_after: DateTime<Utc>,
}

/// What the caller found in the Certificate's Secret (`spec.secretName`).
#[derive(Clone, Copy, Debug)]
pub struct SecretFacts<'a> {
    /// `data` is set (an empty map counts as set, as a non-nil Go map).
    pub has_data: bool,
    /// `tls.key`: `None` when absent or empty, else whether it decodes (Go's error text).
    pub private_key: Option<Result<(), &'a str>>,
    /// `tls.crt`: `None` when absent or empty, else its validity or why it does not decode.
    pub certificate: Option<Result<Validity, &'a str>>,
    /// Whether the certificate's public key is the private key's (an error when they cannot
    /// be compared); read only when both decode.
    pub keys_match: Result<bool, &'a str>,
    pub issuer_annotations: IssuerAnnotations<'a>,
    /// The `cert-manager.io/certificate-name` annotation.
    pub certificate_name_annotation: Option<&'a str>,
    /// How the private key violates the spec (`PrivateKeyMatchesSpec`), e.g.
    /// `spec.privateKey.size`.
    pub private_key_violations: &'a [&'a str],
    /// How the certificate's names violate the spec (`FuzzyX509AltNamesMatchSpec`); read only
    /// when there is no current CertificateRequest.
    pub certificate_violations: &'a [&'a str],
}

/// The current revision's CSR against the Secret's private key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsrKey<'a> {
    /// The CSR does not decode.
    Undecodable(&'a str),
    /// Its public key cannot be compared.
    Incomparable(&'a str),
    /// It is another key.
    Differs,
    /// It is the Secret's key.
    Matches,
}

/// What the caller found about the CertificateRequest of the current revision.
#[derive(Clone, Copy, Debug)]
pub struct CurrentRequestFacts<'a> {
    pub csr_key: CsrKey<'a>,
    /// How the request violates the spec (`RequestMatchesSpec`); `None` when it could not be
    /// parsed (no re-issuance for that: the certificate may still be fine).
    pub spec_violations: Option<&'a [&'a str]>,
}

/// The chains' input.
#[derive(Clone, Copy, Debug)]
pub struct PolicyInput<'a> {
    /// `metadata.name`.
    pub certificate_name: &'a str,
    pub issuer_ref: IssuerRef<'a>,
    pub renewal: RenewalSpec,
    /// `status.renewalTime` (quoted in the `Renewing` message).
    pub renewal_time: Option<DateTime<Utc>>,
    /// `None` when the Secret does not exist.
    pub secret: Option<SecretFacts<'a>>,
    /// `None` when there is no current CertificateRequest.
    pub current_request: Option<CurrentRequestFacts<'a>>,
    pub now: DateTime<Utc>,
}

/// A policy violation: the reason and message the `Issuing` or `Ready` condition gets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub reason: &'static str,
    pub message: String,
}

fn violation(reason: &'static str, message: impl Into<String>) -> Option<Violation> {
    Some(Violation { reason, message: message.into() })
}

/// Go's `%v` of a `[]string`: `[a b]`.
fn go_list(items: &[&str]) -> String {
    format!("[{}]", items.join(" "))
}

/// One policy: `None` when it passes.
pub type Policy = fn(&PolicyInput<'_>) -> Option<Violation>;

/// `SecretDoesNotExist`.
pub fn secret_does_not_exist(input: &PolicyInput<'_>) -> Option<Violation> {
    if input.secret.is_none() {
        return violation(reasons::DOES_NOT_EXIST, "Issuing certificate as Secret does not exist");
    }
    None
}

/// `SecretIsMissingData`.
pub fn secret_is_missing_data(input: &PolicyInput<'_>) -> Option<Violation> {
    // Upstream reads the Secret unchecked after the first policy; without one, later
    // policies pass here.
    let secret = input.secret?;
    if !secret.has_data {
        return violation(
            reasons::MISSING_DATA,
            "Issuing certificate as Secret does not contain any data",
        );
    }
    if secret.private_key.is_none() {
        return violation(
            reasons::MISSING_DATA,
            "Issuing certificate as Secret does not contain a private key",
        );
    }
    if secret.certificate.is_none() {
        return violation(
            reasons::MISSING_DATA,
            "Issuing certificate as Secret does not contain a certificate",
        );
    }
    None
}

fn invalid_private_key(error: &str) -> Option<Violation> {
    violation(
        reasons::INVALID_KEY_PAIR,
        format!("Issuing certificate as Secret contains invalid private key data: {error}"),
    )
}

fn invalid_certificate(error: &str) -> Violation {
    Violation {
        reason: reasons::INVALID_CERTIFICATE,
        message: format!("Issuing certificate as Secret contains an invalid certificate: {error}"),
    }
}

/// `SecretPublicKeysDiffer`.
pub fn secret_public_keys_differ(input: &PolicyInput<'_>) -> Option<Violation> {
    let secret = input.secret?;
    if let Some(Err(error)) = secret.private_key {
        return invalid_private_key(error);
    }
    if let Some(Err(error)) = secret.certificate {
        return Some(invalid_certificate(error));
    }
    match secret.keys_match {
        Err(error) => violation(
            reasons::INVALID_KEY_PAIR,
            format!("Secret contains an invalid key-pair: {error}"),
        ),
        Ok(false) => violation(
            reasons::INVALID_KEY_PAIR,
            "Issuing certificate as Secret contains a private key that does not match the certificate",
        ),
        Ok(true) => None,
    }
}

/// `IssuerKind`/`IssuerGroup` defaulting: empty reads as `Issuer` / `cert-manager.io`.
fn or_default<'a>(value: &'a str, default: &'a str) -> &'a str {
    if value.is_empty() { default } else { value }
}

/// `SecretIssuerAnnotationsMatch`: a Secret without issuer annotations matches a reference to
/// the default kind and group; present annotations must name the referenced issuer.
pub fn issuer_annotations_match(
    annotations: &IssuerAnnotations<'_>,
    issuer: &IssuerRef<'_>,
) -> bool {
    let any =
        annotations.name.is_some() || annotations.kind.is_some() || annotations.group.is_some();
    if any && annotations.name.unwrap_or("") != issuer.name {
        return false;
    }
    or_default(annotations.kind.unwrap_or(""), "Issuer") == or_default(issuer.kind, "Issuer")
        && or_default(annotations.group.unwrap_or(""), crate::signing::GROUP)
            == or_default(issuer.group, crate::signing::GROUP)
}

/// `SecretIssuerAnnotationsMismatch`: the message names the issuer the annotations record as
/// `%q` of `<kind>.<group>/<name>`, kind and group defaulted.
pub fn secret_issuer_annotations_mismatch(input: &PolicyInput<'_>) -> Option<Violation> {
    let secret = input.secret?;
    let annotations = secret.issuer_annotations;
    if issuer_annotations_match(&annotations, &input.issuer_ref) {
        return None;
    }
    let issuer = format!(
        "{}.{}/{}",
        or_default(annotations.kind.unwrap_or(""), "Issuer"),
        or_default(annotations.group.unwrap_or(""), crate::signing::GROUP),
        annotations.name.unwrap_or("")
    );
    violation(
        reasons::INCORRECT_ISSUER,
        format!(
            "Issuing certificate as Secret was previously issued by {}",
            certgate_gofmt::quote(&issuer)
        ),
    )
}

/// `SecretCertificateNameAnnotationsMismatch`: only when the annotation is present.
pub fn secret_certificate_name_mismatch(input: &PolicyInput<'_>) -> Option<Violation> {
    let name = input.secret?.certificate_name_annotation?;
    if name == input.certificate_name {
        return None;
    }
    violation(
        reasons::INCORRECT_CERTIFICATE,
        format!(
            "Secret was issued for {}. If this message is not transient, you might have two conflicting Certificates pointing to the same secret.",
            certgate_gofmt::quote(name)
        ),
    )
}

/// `SecretPrivateKeyMismatchesSpec`.
pub fn secret_private_key_mismatches_spec(input: &PolicyInput<'_>) -> Option<Violation> {
    let secret = input.secret?;
    if let Some(Err(error)) = secret.private_key {
        return invalid_private_key(error);
    }
    if secret.private_key_violations.is_empty() {
        return None;
    }
    violation(
        reasons::SECRET_MISMATCH,
        format!(
            "Existing private key is not up to date for spec: {}",
            go_list(secret.private_key_violations)
        ),
    )
}

/// `SecretPublicKeyDiffersFromCurrentCertificateRequest`: passes without a current request.
pub fn secret_key_differs_from_current_request(input: &PolicyInput<'_>) -> Option<Violation> {
    let request = input.current_request?;
    if let Some(Err(error)) = input.secret?.private_key {
        return invalid_private_key(error);
    }
    match request.csr_key {
        CsrKey::Undecodable(error) => violation(
            reasons::INVALID_CERTIFICATE_REQUEST,
            format!("Failed to decode current CertificateRequest: {error}"),
        ),
        CsrKey::Incomparable(error) => violation(
            reasons::INVALID_CERTIFICATE_REQUEST,
            format!("CertificateRequest's public key is invalid: {error}"),
        ),
        CsrKey::Differs => violation(
            reasons::SECRET_MISMATCH,
            "Secret contains a private key that does not match the current CertificateRequest",
        ),
        CsrKey::Matches => None,
    }
}

/// `CurrentCertificateRequestMismatchesSpec`; without a current request, the Secret's
/// certificate is compared with the spec instead (`currentSecretValidForSpec`).
pub fn current_request_mismatches_spec(input: &PolicyInput<'_>) -> Option<Violation> {
    let Some(request) = input.current_request else {
        let secret = input.secret?;
        if let Some(Err(error)) = secret.certificate {
            return Some(invalid_certificate(error));
        }
        if secret.certificate_violations.is_empty() {
            return None;
        }
        return violation(
            reasons::SECRET_MISMATCH,
            format!(
                "Issuing certificate as Existing issued Secret is not up to date for spec: {}",
                go_list(secret.certificate_violations)
            ),
        );
    };
    let violations = request.spec_violations?;
    if violations.is_empty() {
        return None;
    }
    violation(
        reasons::REQUEST_CHANGED,
        format!(
            "Fields on existing CertificateRequest resource not up to date: {}",
            go_list(violations)
        ),
    )
}

/// The Secret's certificate, or the violation when it does not decode.
fn validity(input: &PolicyInput<'_>) -> Result<Option<Validity>, Violation> {
    match input.secret.and_then(|s| s.certificate) {
        Some(Ok(validity)) => Ok(Some(validity)),
        Some(Err(error)) => Err(invalid_certificate(error)),
        None => Ok(None),
    }
}

/// `CurrentCertificateNearingExpiry`: the renewal time ([`renewal::renewal_time`]) is now or
/// past, unless renewal is disabled. The message quotes `status.renewalTime` as Go prints a
/// `*metav1.Time` (`<nil>` when unset).
pub fn current_certificate_nearing_expiry(input: &PolicyInput<'_>) -> Option<Violation> {
    let validity = match validity(input) {
        Ok(validity) => validity?,
        Err(violation) => return Some(violation),
    };
    let renew_at = renewal::renewal_time(validity.not_before, validity.not_after, &input.renewal)?;
    if gotime::sub(renew_at, input.now).0 > 0 {
        return None;
    }
    let scheduled = input.renewal_time.map_or_else(|| "<nil>".to_owned(), gotime::go_string);
    violation(
        reasons::RENEWING,
        format!("Renewing certificate as renewal was scheduled at {scheduled}"),
    )
}

/// `CurrentCertificateHasExpired` (readiness only): `now` after `notAfter`.
pub fn current_certificate_has_expired(input: &PolicyInput<'_>) -> Option<Violation> {
    let validity = match validity(input) {
        Ok(validity) => validity?,
        Err(violation) => return Some(violation),
    };
    if input.now <= validity.not_after {
        return None;
    }
    violation(
        reasons::EXPIRED,
        format!("Certificate expired on {}", gotime::rfc1123(validity.not_after)),
    )
}

/// `NewTriggerPolicyChain`, in upstream's order.
pub const TRIGGER_CHAIN: [Policy; 9] = [
    secret_does_not_exist,
    secret_is_missing_data,
    secret_public_keys_differ,
    secret_issuer_annotations_mismatch,
    secret_certificate_name_mismatch,
    secret_private_key_mismatches_spec,
    secret_key_differs_from_current_request,
    current_request_mismatches_spec,
    current_certificate_nearing_expiry,
];

/// `NewReadinessPolicyChain`: the trigger chain with expired in place of nearing expiry.
pub const READINESS_CHAIN: [Policy; 9] = [
    secret_does_not_exist,
    secret_is_missing_data,
    secret_public_keys_differ,
    secret_issuer_annotations_mismatch,
    secret_certificate_name_mismatch,
    secret_private_key_mismatches_spec,
    secret_key_differs_from_current_request,
    current_request_mismatches_spec,
    current_certificate_has_expired,
];

/// The first violation of the chain, in order (`Chain.Evaluate`).
pub fn evaluate(chain: &[Policy], input: &PolicyInput<'_>) -> Option<Violation> {
    chain.iter().find_map(|policy| policy(input))
}

/// The readiness controller's `Ready` condition from the readiness chain
/// (`BuildReadyConditionFromChain`): `True`/`Ready`/[`READY_MESSAGE`], or `False` with the
/// violation.
pub fn ready_condition(input: &PolicyInput<'_>) -> ConditionUpdate {
    match evaluate(&READINESS_CHAIN, input) {
        None => ConditionUpdate {
            type_: types::READY,
            status: TRUE,
            reason: READY_REASON.to_owned(),
            message: READY_MESSAGE.to_owned(),
        },
        Some(v) => ConditionUpdate {
            type_: types::READY,
            status: FALSE,
            reason: v.reason.to_owned(),
            message: v.message,
        },
    }
}

/// What the trigger controller knows about a Certificate beyond the chain's input.
#[derive(Clone, Copy, Debug)]
pub struct TriggerState<'a> {
    /// The Certificate has `Issuing=True`.
    pub issuing: bool,
    /// No other Certificate of the namespace owns the same Secret.
    pub owns_secret: bool,
    pub failures: FailureRecord,
    pub next_request: NextRequest,
    pub policy: PolicyInput<'a>,
}

/// The trigger controller's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TriggerDecision {
    /// An issuance is in progress: nothing to do.
    AlreadyIssuing,
    /// Another Certificate names the same Secret: look again after
    /// [`NOT_SECRET_OWNER_RECHECK`].
    NotSecretOwner,
    /// A previous issuance failed: look again at `until` (`remaining` from now).
    BackingOff { until: DateTime<Utc>, remaining: GoDuration },
    /// Set `Issuing=True` with the violation's reason and message and record a Normal
    /// `Issuing` event with the message.
    Reissue { issuing: ConditionUpdate, event: Event, recheck_after: Option<GoDuration> },
    /// Nothing to do now.
    UpToDate { recheck_after: Option<GoDuration> },
}

/// The trigger controller's decision, in upstream's order: issuance in progress, Secret
/// ownership, backoff, then the trigger chain. `recheck_after` is the time until
/// `status.renewalTime` when that is not past.
pub fn trigger(state: &TriggerState<'_>, config: &BackoffConfig) -> TriggerDecision {
    if state.issuing {
        return TriggerDecision::AlreadyIssuing;
    }
    if !state.owns_secret {
        return TriggerDecision::NotSecretOwner;
    }
    let now = state.policy.now;
    if let Backoff::Until { until, remaining, .. } =
        backoff::backoff(config, &state.failures, state.next_request, now)
    {
        return TriggerDecision::BackingOff { until, remaining };
    }
    let recheck_after =
        state.policy.renewal_time.map(|at| gotime::sub(at, now)).filter(|d| d.0 >= 0);
    match evaluate(&TRIGGER_CHAIN, &state.policy) {
        None => TriggerDecision::UpToDate { recheck_after },
        Some(v) => TriggerDecision::Reissue {
            event: Event::normal(ISSUING_EVENT_REASON, v.message.clone()),
            issuing: ConditionUpdate {
                type_: types::ISSUING,
                status: TRUE,
                reason: v.reason.to_owned(),
                message: v.message,
            },
            recheck_after,
        },
    }
}

/// The `Issuing=True` condition `cmctl renew` writes.
pub fn manual_trigger() -> ConditionUpdate {
    ConditionUpdate {
        type_: types::ISSUING,
        status: TRUE,
        reason: reasons::MANUALLY_TRIGGERED.to_owned(),
        message: MANUALLY_TRIGGERED_MESSAGE.to_owned(),
    }
}

#[cfg(test)]
mod tests;
