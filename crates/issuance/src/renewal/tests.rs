use chrono::TimeDelta;
use proptest::prelude::*;

use super::*;

const S: i64 = 1_000_000_000;
const H: i64 = 3_600 * S;
const DAY: i64 = 24 * H;

fn t(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn plus(at: DateTime<Utc>, nanos: i64) -> DateTime<Utc> {
    at + TimeDelta::nanoseconds(nanos)
}

fn spec(renew_before: Option<i64>, pct: Option<i32>) -> RenewalSpec {
    RenewalSpec {
        renew_before: renew_before.map(GoDuration),
        renew_before_percentage: pct,
        disabled: false,
    }
}

/// notBefore, notAfter, renewBefore (ns), renewBeforePercentage, expected renewal time.
type Case = (DateTime<Utc>, DateTime<Utc>, Option<i64>, Option<i32>, &'static str);

/// Expected values printed by a Go program doing the same `time` arithmetic
/// (`notAfter.Add(-1 * renewBefore).Truncate(time.Second)`).
#[test]
fn renewal_times_match_go() {
    let nb = t("2024-01-01T00:00:00Z");
    let cases: &[Case] = &[
        // Default: two thirds through.
        (nb, plus(nb, 90 * DAY), None, None, "2024-03-01T00:00:00Z"),
        (nb, plus(nb, 90 * DAY + 1), None, None, "2024-03-01T00:00:00Z"),
        // renewBefore shorter than the lifetime counts.
        (nb, plus(nb, 90 * DAY), Some(30 * DAY), None, "2024-03-01T00:00:00Z"),
        // renewBefore as long as the lifetime (or longer) is ignored: 2/3 again...
        (nb, plus(nb, 90 * DAY), Some(90 * DAY), None, "2024-03-01T00:00:00Z"),
        // ...or the percentage when one is set.
        (nb, plus(nb, 90 * DAY), Some(100 * DAY), Some(25), "2024-03-08T12:00:00Z"),
        (nb, plus(nb, 90 * DAY), None, Some(33), "2024-03-01T07:12:00Z"),
        (nb, plus(nb, H + 7), None, Some(99), "2024-01-01T00:00:36Z"),
        (nb, plus(nb, 10 * S), None, Some(1), "2024-01-01T00:00:09Z"),
        (nb, plus(nb, 1000 * H + 333_000_000), None, Some(7), "2024-02-08T18:00:00Z"),
        // notAfter before notBefore: a negative third, renewal after notAfter.
        (nb, plus(nb, -H), None, None, "2023-12-31T23:20:00Z"),
        (nb, plus(nb, -H), None, Some(50), "2023-12-31T23:30:00Z"),
        (nb, plus(nb, -H - 500_000_000), None, None, "2023-12-31T23:19:59Z"),
        // Lifetimes beyond 292 years saturate as Go's Duration does.
        (t("1600-01-01T00:00:00Z"), t("2200-01-01T00:00:00Z"), None, None, "2102-07-30T00:04:14Z"),
        (
            t("1600-01-01T00:00:00Z"),
            t("2200-01-01T00:00:00Z"),
            None,
            Some(99),
            "1910-08-25T12:41:23Z",
        ),
        (nb, plus(nb, 2), None, None, "2024-01-01T00:00:00Z"),
        // Non-positive renewBefore and out-of-range percentages are ignored.
        (nb, plus(nb, 3 * S + 999_999_999), Some(-S), Some(0), "2024-01-01T00:00:02Z"),
        (nb, plus(nb, 90 * DAY), Some(0), Some(100), "2024-03-01T00:00:00Z"),
        (nb, plus(nb, 90 * DAY), None, Some(-5), "2024-03-01T00:00:00Z"),
    ];
    for (not_before, not_after, before, pct, expected) in cases {
        let got = renewal_time(*not_before, *not_after, &spec(*before, *pct)).unwrap();
        assert_eq!(got, t(expected), "{not_before} {not_after} {before:?} {pct:?}");
    }
}

#[test]
fn renew_before_choices() {
    let life = GoDuration(90 * DAY);
    assert_eq!(renew_before(life, &spec(None, None)), GoDuration(30 * DAY));
    assert_eq!(renew_before(life, &spec(Some(DAY), Some(50))), GoDuration(DAY));
    assert_eq!(renew_before(life, &spec(Some(90 * DAY - 1), None)), GoDuration(90 * DAY - 1));
    assert_eq!(renew_before(life, &spec(Some(90 * DAY), Some(50))), GoDuration(45 * DAY));
    assert_eq!(
        renew_before(life, &spec(None, Some(99))),
        GoDuration(89 * DAY + 2 * H + 24 * 60 * S)
    );
    assert_eq!(renew_before(GoDuration(7), &spec(None, None)), GoDuration(2));
    assert_eq!(renew_before(GoDuration(-7), &spec(None, None)), GoDuration(-2));
}

#[test]
fn disabled_renewal_has_no_time() {
    let nb = t("2024-01-01T00:00:00Z");
    let disabled = RenewalSpec { disabled: true, ..spec(Some(H), None) };
    assert_eq!(renewal_time(nb, plus(nb, DAY), &disabled), None);
}

proptest! {
    #[test]
    fn renewal_lies_within_the_validity(start in 0i64..4_000_000_000, start_nanos in 0u32..1_000_000_000, life in 0i64..(100 * 365 * DAY), before in any::<Option<i64>>(), pct in any::<Option<i32>>()) {
        let not_before = DateTime::from_timestamp(start, start_nanos).unwrap();
        let not_after = plus(not_before, life);
        let at = renewal_time(not_before, not_after, &spec(before, pct)).unwrap();
        prop_assert_eq!(at.timestamp_subsec_nanos(), 0);
        prop_assert!(at <= not_after);
        prop_assert!(at.timestamp() >= not_before.timestamp());
        // Exactly the chosen renew-before ahead of notAfter, then floored.
        let chosen = renew_before(GoDuration(life), &spec(before, pct));
        prop_assert_eq!(at, crate::gotime::truncate_to_second(plus(not_after, -chosen.0)));
    }

    #[test]
    fn default_is_a_third_of_the_lifetime(life in any::<i64>()) {
        prop_assert_eq!(renew_before(GoDuration(life), &RenewalSpec::default()), GoDuration(life / 3));
    }

    #[test]
    fn percentage_is_between_zero_and_the_lifetime(life in 0i64..=i64::MAX, pct in 1i32..100) {
        let got = renew_before(GoDuration(life), &spec(None, Some(pct))).0;
        prop_assert!((0..=life).contains(&got));
        // Within float rounding of the exact value.
        let exact = i128::from(life) * i128::from(pct) / 100;
        prop_assert!((i128::from(got) - exact).abs() <= (exact >> 50) + 1);
    }
}
