//! When to publish a new CRL: a pure decision over the published CRL, the current revoked set,
//! the policy and the time.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

use super::builder::CrlParams;
use super::der::{integer_content, magnitude};
use super::entry::{MAX_SERIAL_OCTETS, RevokedCert};
use super::signer::CaSigner;
use crate::parse::{Crl, CrlNumber};
use crate::time::Timestamp;
use crate::verify::verify_with;

/// How long CRLs are valid and when they are renewed.
///
/// Defaults: 30 days of validity, renewed when less than a third (10 days) remains, thisUpdate
/// backdated by 5 minutes. With these, a CRL certgate keeps fresh never comes within the 7 days
/// of [`crate::CheckOptions`]' expiry warning, and if certgate stops, the warning fires 3 days
/// after the first missed renewal with 7 days left to react. Keep `validity - margin` (the
/// renewal period) comfortably above the controller's worst outage, and `margin` above the
/// expiry window of whatever watches the CRL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefreshPolicy {
    validity: Duration,
    margin: Duration,
    backdate: Duration,
}

/// A policy that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    #[error(
        "CRL validity of {secs} s is below the minimum of 1 hour: Envoy would run on CRLs that expire between renewals"
    )]
    ValidityTooShort { secs: u64 },
    #[error(
        "CRL validity of {secs} s is above the maximum of 10 years: a CRL that old is never looked at again"
    )]
    ValidityTooLong { secs: u64 },
    #[error(
        "refresh margin of {margin_secs} s must be above zero and below the validity of {validity_secs} s"
    )]
    Margin { margin_secs: u64, validity_secs: u64 },
    #[error("backdating thisUpdate by {secs} s is more than the maximum of one day")]
    Backdate { secs: u64 },
}

const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;

impl RefreshPolicy {
    /// Default validity: 30 days.
    pub const DEFAULT_VALIDITY: Duration = Duration::from_secs(30 * DAY);
    /// Default backdating of thisUpdate: 5 minutes. BoringSSL refuses a CRL whose thisUpdate
    /// is after its clock (`CRL_NOT_YET_VALID`, every handshake fails), so a proxy whose clock
    /// lags the controller's must not see a CRL from its future.
    pub const DEFAULT_BACKDATE: Duration = Duration::from_secs(300);

    /// `validity` (1 hour to 10 years), renewed when less than a third of it remains.
    pub fn new(validity: Duration) -> Result<RefreshPolicy, PolicyError> {
        let secs = validity.as_secs();
        if secs < HOUR {
            return Err(PolicyError::ValidityTooShort { secs });
        }
        if secs > 3653 * DAY {
            return Err(PolicyError::ValidityTooLong { secs });
        }
        let validity = Duration::from_secs(secs);
        Ok(RefreshPolicy {
            validity,
            margin: validity / 3,
            backdate: RefreshPolicy::DEFAULT_BACKDATE,
        })
    }

    /// Renews when less than `margin` of validity remains (0 < margin < validity).
    pub fn with_margin(self, margin: Duration) -> Result<RefreshPolicy, PolicyError> {
        let margin = Duration::from_secs(margin.as_secs());
        if margin.is_zero() || margin >= self.validity {
            return Err(PolicyError::Margin {
                margin_secs: margin.as_secs(),
                validity_secs: self.validity.as_secs(),
            });
        }
        Ok(RefreshPolicy { margin, ..self })
    }

    /// Backdates thisUpdate by `backdate` (at most a day; zero is allowed).
    pub fn with_backdate(self, backdate: Duration) -> Result<RefreshPolicy, PolicyError> {
        if backdate.as_secs() > DAY {
            return Err(PolicyError::Backdate { secs: backdate.as_secs() });
        }
        Ok(RefreshPolicy { backdate: Duration::from_secs(backdate.as_secs()), ..self })
    }

    pub fn validity(&self) -> Duration {
        self.validity
    }

    pub fn margin(&self) -> Duration {
        self.margin
    }

    pub fn backdate(&self) -> Duration {
        self.backdate
    }

    /// thisUpdate and nextUpdate of a CRL issued at `now`: `now - backdate` and
    /// `now + validity`.
    pub fn window(&self, now: Timestamp) -> (Timestamp, Timestamp) {
        (sub(now, self.backdate), now.saturating_add(self.validity))
    }
}

impl Default for RefreshPolicy {
    fn default() -> Self {
        RefreshPolicy {
            validity: RefreshPolicy::DEFAULT_VALIDITY,
            margin: RefreshPolicy::DEFAULT_VALIDITY / 3,
            backdate: RefreshPolicy::DEFAULT_BACKDATE,
        }
    }
}

fn secs(d: Duration) -> i64 {
    i64::try_from(d.as_secs()).unwrap_or(i64::MAX)
}

fn sub(t: Timestamp, d: Duration) -> Timestamp {
    Timestamp::from_unix(t.unix().saturating_sub(secs(d)))
}

/// What [`decide_refresh`] looks at.
#[derive(Debug, Clone, Copy)]
pub struct RefreshInput<'a> {
    pub now: Timestamp,
    pub policy: &'a RefreshPolicy,
    /// The CA that publishes.
    pub signer: &'a CaSigner,
    /// The CRL now published (the CA's `X509 CRL` block of the Secret's `crl.pem`), parsed;
    /// `None` when there is none or it does not parse.
    pub published: Option<&'a Crl>,
    /// The revoked certificates now.
    pub revoked: &'a [RevokedCert],
}

/// Why a new CRL is due. The first that applies, in this order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Trigger {
    /// Nothing is published (or it does not parse).
    NoPublishedCrl,
    /// The published CRL is not this CA's: another issuer name or key identifier, or its
    /// signature does not verify with the CA's key (the CA was re-keyed).
    OtherIssuer,
    /// Certificates were revoked, released from hold, pruned, or their date or reason changed.
    RevokedChanged { added: usize, removed: usize, changed: usize },
    /// thisUpdate is after now: BoringSSL refuses the CRL until then.
    NotYetValid { this_update: Timestamp },
    /// Without nextUpdate rustls-webpki refuses the CRL.
    NoNextUpdate,
    /// nextUpdate is not after now: every handshake that needs the CRL fails.
    Expired { next_update: Timestamp },
    /// Less than the margin remains before nextUpdate.
    RefreshDue { next_update: Timestamp },
    /// nextUpdate is later than a CRL issued now would have: the validity was shortened.
    ValidityShortened { next_update: Timestamp },
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Trigger::NoPublishedCrl => f.write_str("no CRL is published"),
            Trigger::OtherIssuer => f.write_str("the published CRL is not signed by this CA"),
            Trigger::RevokedChanged { added, removed, changed } => write!(
                f,
                "the revoked set changed: {added} added, {removed} removed, {changed} changed"
            ),
            Trigger::NotYetValid { this_update } => {
                write!(f, "the published CRL is not valid before {this_update}")
            }
            Trigger::NoNextUpdate => f.write_str("the published CRL has no nextUpdate"),
            Trigger::Expired { next_update } => {
                write!(f, "the published CRL expired at {next_update}")
            }
            Trigger::RefreshDue { next_update } => {
                write!(f, "the published CRL expires at {next_update}, within the refresh margin")
            }
            Trigger::ValidityShortened { next_update } => write!(
                f,
                "the published CRL is valid until {next_update}, beyond the configured validity"
            ),
        }
    }
}

/// The answer of [`decide_refresh`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshDecision {
    /// `Some`: build and publish a CRL now (with [`RefreshDecision::params`]).
    pub regenerate: Option<Trigger>,
    /// When to decide again if nothing changes meanwhile: when the published CRL (or, after
    /// regenerating, the new one) enters its refresh margin. A change of the revoked set or
    /// of the CA should wake the caller earlier.
    pub check_at: Timestamp,
    /// The cRLNumber for a CRL built now: the published one plus 1, or 1.
    #[serde(serialize_with = "hex_bytes")]
    pub next_crl_number: Vec<u8>,
}

fn hex_bytes<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&crate::name::hex(v))
}

impl RefreshDecision {
    /// The parameters of the CRL to build now: [`RefreshPolicy::window`] and the next number.
    pub fn params<'r>(
        &self,
        policy: &RefreshPolicy,
        now: Timestamp,
        revoked: &'r [RevokedCert],
    ) -> CrlParams<'r> {
        let (this_update, next_update) = policy.window(now);
        CrlParams { this_update, next_update, crl_number: self.next_crl_number.clone(), revoked }
    }
}

/// Whether to publish a new CRL now, and when to look again.
///
/// A new CRL is due when none is published, when the published one is not this CA's, when the
/// revoked set differs from the published entries (serial, revocation date or reason; an
/// unspecified reason equals none), when it is not yet valid, has no nextUpdate, has expired,
/// or has no more than `margin` left (`now >= nextUpdate - margin`: waking up exactly at
/// `check_at` renews), or when it outlives a CRL issued now (validity shortened).
pub fn decide_refresh(input: &RefreshInput<'_>) -> RefreshDecision {
    let policy = input.policy;
    let now = input.now;
    let next_crl_number =
        next_crl_number(input.published.and_then(|c| c.info().crl_number.as_ref()));
    let renew_after_build = now.saturating_add(policy.validity.saturating_sub(policy.margin));
    let due = |trigger| RefreshDecision {
        regenerate: Some(trigger),
        check_at: renew_after_build,
        next_crl_number: next_crl_number.clone(),
    };
    let Some(crl) = input.published else { return due(Trigger::NoPublishedCrl) };
    let info = crl.info();
    let signer = input.signer;
    if crl.issuer_der() != signer.subject_der()
        || crl.authority_key_id() != Some(signer.authority_key_id())
        || verify_with(crl, signer.cert()).is_err()
    {
        return due(Trigger::OtherIssuer);
    }
    let (added, removed, changed) = compare(crl, input.revoked);
    if added + removed + changed > 0 {
        return due(Trigger::RevokedChanged { added, removed, changed });
    }
    if info.this_update > now {
        return due(Trigger::NotYetValid { this_update: info.this_update });
    }
    let Some(next_update) = info.next_update else { return due(Trigger::NoNextUpdate) };
    if next_update <= now {
        return due(Trigger::Expired { next_update });
    }
    let renew_at = sub(next_update, policy.margin);
    if now >= renew_at {
        return due(Trigger::RefreshDue { next_update });
    }
    if next_update > now.saturating_add(policy.validity) {
        return due(Trigger::ValidityShortened { next_update });
    }
    RefreshDecision { regenerate: None, check_at: renew_at, next_crl_number }
}

/// (added, removed, changed) between the published entries and `revoked`.
fn compare(crl: &Crl, revoked: &[RevokedCert]) -> (usize, usize, usize) {
    let (mut added, mut found, mut changed) = (0, 0, 0);
    for r in revoked {
        let serial = magnitude(&r.serial);
        let entry = if serial.is_empty() { None } else { crl.lookup(&integer_content(serial)) };
        match entry {
            None => added += 1,
            Some(e) => {
                found += 1;
                let reason = e.reason_code.filter(|c| *c != 0);
                if e.revocation_date != Some(r.revoked_at) || reason != r.reason.map(|r| r.code()) {
                    changed += 1;
                }
            }
        }
    }
    (added, crl.info().entries.saturating_sub(found), changed)
}

/// The cRLNumber after `published`: one more, or 1 when there is none. A number that would
/// exceed 20 octets (only a foreign CRL can get there) starts again at 1.
pub fn next_crl_number(published: Option<&CrlNumber>) -> Vec<u8> {
    let Some(n) = published else { return vec![1] };
    let mut out = magnitude(n.as_bytes()).to_vec();
    let mut carry = true;
    for b in out.iter_mut().rev() {
        let (v, overflow) = b.overflowing_add(1);
        *b = v;
        if !overflow {
            carry = false;
            break;
        }
    }
    if carry {
        out.insert(0, 1);
    }
    if out.len() > MAX_SERIAL_OCTETS { vec![1] } else { out }
}
