//! When a cluster's `policy-encryption-key` Secret is rotated (upstream's
//! `policy-encryption-keys` controller): every `--encryption-key-rotation` days after its
//! `policy.open-cluster-management.io/last-rotated` annotation, at once when that annotation
//! is missing or unreadable or the key is not a valid AES key. Pure: times are inputs.

use std::time::Duration;

/// The Secret's annotation saying when its key was last rotated (RFC 3339).
pub const LAST_ROTATED_ANNOTATION: &str = "policy.open-cluster-management.io/last-rotated";
/// `true` (any case) on the Secret turns rotation off; policies are still triggered.
pub const DISABLE_ROTATION_ANNOTATION: &str = "policy.open-cluster-management.io/disable-rotation";

/// What to do with a key Secret now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyRotation {
    /// Rotation is off: only re-process the policies that use the key.
    TriggerOnly,
    /// Move `key` to `previousKey`, generate a new key, stamp the time, re-process the
    /// policies that use the key, and look again after a full period.
    Rotate,
    /// Look again after `after`; `drop_previous` when `previousKey` is set but not a valid
    /// AES key (upstream empties it).
    Wait { after: Duration, drop_previous: bool },
}

/// Whether `key` is a valid AES key (Go's `aes.NewCipher`: 16, 24 or 32 bytes).
pub fn is_aes_key(key: &[u8]) -> bool {
    matches!(key.len(), 16 | 24 | 32)
}

/// The decision for a Secret with `key`, `previous`, the parsed `last-rotated` time
/// (`None` when missing or unreadable, as seconds since the epoch) and `disabled`, at `now`.
pub fn key_rotation(
    key: &[u8],
    previous: &[u8],
    last_rotated: Option<i64>,
    disabled: bool,
    now: i64,
    period: Duration,
) -> KeyRotation {
    if disabled {
        return KeyRotation::TriggerOnly;
    }
    let Some(last) = last_rotated else { return KeyRotation::Rotate };
    if !is_aes_key(key) {
        return KeyRotation::Rotate;
    }
    let next = last.saturating_add(i64::try_from(period.as_secs()).unwrap_or(i64::MAX));
    if next <= now {
        return KeyRotation::Rotate;
    }
    KeyRotation::Wait {
        after: Duration::from_secs(u64::try_from(next - now).unwrap_or(0)),
        drop_previous: !previous.is_empty() && !is_aes_key(previous),
    }
}

/// The `trigger-update` value that re-processes the policies after a rotation of `cluster`'s
/// key stamped `last_rotated`.
pub fn trigger_value(cluster: &str, last_rotated: &str) -> String {
    format!("rotate-key-{cluster}-{last_rotated}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;
    const PERIOD: Duration = Duration::from_secs(30 * 86_400);

    #[test]
    fn keys_rotate_after_their_period_or_when_unusable() {
        let key = [7u8; 32];
        /// key, previousKey, last rotation, rotation disabled, the decision.
        type Case<'a> = (&'a [u8], &'a [u8], Option<i64>, bool, KeyRotation);
        let cases: &[Case<'_>] = &[
            (&key, &[], None, false, KeyRotation::Rotate),
            (&key, &[], Some(0), false, KeyRotation::Rotate),
            (&key, &[], Some(10 * DAY), true, KeyRotation::TriggerOnly),
            (&[1, 2, 3], &[], Some(25 * DAY), false, KeyRotation::Rotate),
            (
                &key,
                &[],
                Some(25 * DAY),
                false,
                KeyRotation::Wait { after: Duration::from_secs(25 * 86_400), drop_previous: false },
            ),
            (
                &key,
                &[9u8; 5],
                Some(25 * DAY),
                false,
                KeyRotation::Wait { after: Duration::from_secs(25 * 86_400), drop_previous: true },
            ),
            (
                &[7u8; 16],
                &[9u8; 24],
                Some(25 * DAY),
                false,
                KeyRotation::Wait { after: Duration::from_secs(25 * 86_400), drop_previous: false },
            ),
        ];
        for (key, previous, last, disabled, want) in cases {
            assert_eq!(key_rotation(key, previous, *last, *disabled, 30 * DAY, PERIOD), *want);
        }
    }

    #[test]
    fn the_trigger_names_the_cluster_and_the_rotation() {
        assert_eq!(
            trigger_value("cluster1", "2026-11-29T05:00:00Z"),
            "rotate-key-cluster1-2026-11-29T05:00:00Z"
        );
    }
}
