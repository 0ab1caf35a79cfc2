//! The Certificate retry backoff (spec §6.3): after a failed issuance the trigger controller
//! waits `min(initial · 2^(attempts−1), max)`, never less than `initial`, counted from
//! `status.lastFailureTime` (`shouldBackoffReissuingOnFailure` in cert-manager's
//! `pkg/controller/certificates/trigger/trigger_controller.go`). The flags and their defaults
//! are `internal/apis/config/controller/v1alpha1/defaults.go` and
//! `internal/apis/config/controller/validation/validation.go`.
//!
//! Upstream computes `initial * time.Duration(math.Pow(2, attempts-1))` in `int64`; when the
//! product overflows it wraps (differently on amd64 and arm64) and a wrapped value that lands
//! between `initial` and `max` is used as is. That only happens when `max` is set to years;
//! certgate saturates instead, so the delay never shrinks as attempts grow.

use certgate_gofmt::GoDuration;
use chrono::{DateTime, Utc};

use crate::gotime;

const HOUR: i64 = 3_600_000_000_000;

/// `certificateRequestMinimumBackoffDuration`'s default: 1 h.
pub const DEFAULT_MINIMUM: GoDuration = GoDuration(HOUR);
/// `certificateRequestMaximumBackoffDuration`'s default: 32 h.
pub const DEFAULT_MAXIMUM: GoDuration = GoDuration(32 * HOUR);

/// The two durations the backoff is configured with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackoffConfig {
    /// The first delay; `<= 0` disables the backoff.
    pub initial: GoDuration,
    /// The cap.
    pub max: GoDuration,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        BackoffConfig { initial: DEFAULT_MINIMUM, max: DEFAULT_MAXIMUM }
    }
}

/// One invalid backoff setting, rendered as Kubernetes renders a `field.Invalid` error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BackoffConfigError {
    #[error("certificateRequestMinimumBackoffDuration: Invalid value: {}: must not be negative", quoted(.0))]
    NegativeMinimum(GoDuration),
    #[error("certificateRequestMaximumBackoffDuration: Invalid value: {}: must not be negative", quoted(.0))]
    NegativeMaximum(GoDuration),
    #[error("certificateRequestMaximumBackoffDuration: Invalid value: {}: must be greater than or equal to certificateRequestMinimumBackoffDuration", quoted(.0))]
    MaximumBelowMinimum(GoDuration),
}

fn quoted(d: &GoDuration) -> String {
    certgate_gofmt::quote(&d.to_string())
}

/// Every invalid setting, rendered as Kubernetes renders an aggregate of errors: one error
/// alone, several as `[first, second]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", aggregate(.0))]
pub struct InvalidBackoffConfig(pub Vec<BackoffConfigError>);

fn aggregate(errors: &[BackoffConfigError]) -> String {
    let texts: Vec<String> = errors.iter().map(ToString::to_string).collect();
    match texts.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

impl BackoffConfig {
    /// The configuration from the two settings as the controller reads them: zero (or unset)
    /// takes the default, then negative values and a maximum below the minimum are refused.
    pub fn from_settings(
        minimum: GoDuration,
        maximum: GoDuration,
    ) -> Result<Self, InvalidBackoffConfig> {
        let pick = |d: GoDuration, default| if d.0 == 0 { default } else { d };
        let (initial, max) = (pick(minimum, DEFAULT_MINIMUM), pick(maximum, DEFAULT_MAXIMUM));
        let mut errors = Vec::new();
        if initial.0 < 0 {
            errors.push(BackoffConfigError::NegativeMinimum(initial));
        }
        if max.0 < 0 {
            errors.push(BackoffConfigError::NegativeMaximum(max));
        }
        if initial.0 > 0 && max.0 > 0 && max < initial {
            errors.push(BackoffConfigError::MaximumBelowMinimum(max));
        }
        if errors.is_empty() {
            Ok(BackoffConfig { initial, max })
        } else {
            Err(InvalidBackoffConfig(errors))
        }
    }

    /// The delay after `failed_issuance_attempts` failures: `initial` when the count is
    /// unset or not positive, else `initial · 2^(attempts−1)` capped at `max`, and never
    /// below `initial`. Meaningful when `initial > 0` (otherwise there is no backoff).
    pub fn delay(&self, failed_issuance_attempts: Option<i64>) -> GoDuration {
        let initial = self.initial.0;
        let computed = match failed_issuance_attempts {
            Some(attempts) if attempts > 0 => u32::try_from(attempts - 1)
                .ok()
                .and_then(|exponent| 2i64.checked_pow(exponent))
                .and_then(|factor| initial.checked_mul(factor))
                .map_or(self.max.0, |computed| computed.min(self.max.0)),
            _ => initial,
        };
        GoDuration(computed.max(initial))
    }
}

/// How the Certificate's "next" CertificateRequest (the one for the coming revision) compares
/// with the Certificate's spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NextRequest {
    /// There is none: the backoff applies.
    Missing,
    /// It matches the spec: the backoff applies (the same spec failed before).
    MatchesSpec,
    /// The spec changed since: no backoff, a fixed spec is reissued at once.
    DiffersFromSpec,
    /// Its CSR does not decode: no backoff.
    Undecodable,
}

/// Why there is no backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoBackoff {
    /// `status.lastFailureTime` is unset.
    NoFailure,
    /// The spec no longer matches the next request, or the request does not decode.
    SpecChanged,
    /// The initial delay is not positive.
    Disabled,
    /// The delay has passed.
    Elapsed,
}

/// The backoff decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backoff {
    /// Issuance may be triggered now.
    None(NoBackoff),
    /// Wait: no issuance before `until` (`lastFailureTime + delay`), `remaining` from now.
    Until { until: DateTime<Utc>, delay: GoDuration, remaining: GoDuration },
}

/// The Certificate's failure record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FailureRecord {
    /// `status.lastFailureTime`.
    pub last_failure_time: Option<DateTime<Utc>>,
    /// `status.failedIssuanceAttempts`.
    pub failed_issuance_attempts: Option<i64>,
}

/// Whether the trigger controller must hold back a new issuance, and until when. The order
/// is upstream's: no failure, spec changed, disabled, then the delay.
pub fn backoff(
    config: &BackoffConfig,
    record: &FailureRecord,
    next_request: NextRequest,
    now: DateTime<Utc>,
) -> Backoff {
    let Some(last_failure) = record.last_failure_time else {
        return Backoff::None(NoBackoff::NoFailure);
    };
    if matches!(next_request, NextRequest::DiffersFromSpec | NextRequest::Undecodable) {
        return Backoff::None(NoBackoff::SpecChanged);
    }
    if config.initial.0 <= 0 {
        return Backoff::None(NoBackoff::Disabled);
    }
    let delay = config.delay(record.failed_issuance_attempts);
    let since_failure = gotime::sub(now, last_failure);
    if since_failure >= delay {
        return Backoff::None(NoBackoff::Elapsed);
    }
    Backoff::Until {
        until: gotime::add(last_failure, delay),
        delay,
        // Go's subtraction wraps when the failure lies centuries ahead; this saturates.
        remaining: GoDuration(delay.0.saturating_sub(since_failure.0)),
    }
}

#[cfg(test)]
mod tests;
