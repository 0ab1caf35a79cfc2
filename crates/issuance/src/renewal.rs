//! When a certificate is renewed: cert-manager's `RenewalTime` and the `desiredRenewalTime`
//! it is built on (`pkg/util/pki/renewaltime.go`), with Go's `time.Duration` arithmetic.
//!
//! - The lifetime is `notAfter − notBefore`, saturating at Go's ±292 years.
//! - `renewBefore` counts when it is positive and shorter than the lifetime; otherwise
//!   `renewBeforePercentage` counts when it lies strictly between 0 and 100, computed as Go
//!   does in `float64` (`lifetime · pct / 100`, truncated toward zero); otherwise a third of
//!   the lifetime (integer division), i.e. renewal two thirds through it. A `renewBefore`
//!   at least as long as the certificate is thus ignored, not an error.
//! - The renewal time is `notAfter − renewBefore`, truncated to the whole second (what
//!   `status.renewalTime` can hold).
//! - `spec.renewal.policy: Disabled` means no renewal time at all.
//!
//! Not mirrored: ACME Renewal Information windows and `spec.renewal.windows` (cron windows).

use certgate_gofmt::GoDuration;
use chrono::{DateTime, Utc};

use crate::gotime;

/// The Certificate fields renewal reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenewalSpec {
    /// `spec.renewBefore`.
    pub renew_before: Option<GoDuration>,
    /// `spec.renewBeforePercentage`.
    pub renew_before_percentage: Option<i32>,
    /// `spec.renewal.policy` is `Disabled`.
    pub disabled: bool,
}

/// How long before `notAfter` a certificate with this `lifetime` is renewed
/// (`desiredRenewalTime`).
pub fn renew_before(lifetime: GoDuration, spec: &RenewalSpec) -> GoDuration {
    if let Some(before) = spec.renew_before.filter(|b| b.0 > 0 && *b < lifetime) {
        return before;
    }
    if let Some(pct) = spec.renew_before_percentage.filter(|p| *p > 0 && *p < 100) {
        // Go: time.Duration(float64(lifetime) * float64(pct) / 100); |result| < |lifetime|,
        // so the conversion stays in range and truncates toward zero as Rust's `as` does.
        return GoDuration((lifetime.0 as f64 * f64::from(pct) / 100.0) as i64);
    }
    GoDuration(lifetime.0 / 3)
}

/// The renewal time of a certificate valid from `not_before` to `not_after` (`RenewalTime`
/// without ACME Renewal Information and renewal windows); `None` when renewal is disabled.
pub fn renewal_time(
    not_before: DateTime<Utc>,
    not_after: DateTime<Utc>,
    spec: &RenewalSpec,
) -> Option<DateTime<Utc>> {
    if spec.disabled {
        return None;
    }
    let before = renew_before(gotime::sub(not_after, not_before), spec);
    // Go: notAfter.Add(-1 * before); `before` is never i64::MIN, so the negation is exact.
    Some(gotime::truncate_to_second(gotime::add(not_after, GoDuration(before.0.wrapping_neg()))))
}

#[cfg(test)]
mod tests;
