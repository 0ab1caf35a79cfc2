use proptest::prelude::*;

use super::{DurationError, GoDuration};

const NS: i64 = 1;
const US: i64 = 1_000;
const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;
const M: i64 = 60 * S;
const H: i64 = 60 * M;

#[test]
fn parses_like_go() {
    let cases = [
        ("0", 0),
        ("+0", 0),
        ("-0", 0),
        ("5s", 5 * S),
        ("30s", 30 * S),
        ("1478s", 1478 * S),
        ("-5s", -5 * S),
        ("+5s", 5 * S),
        ("-0s", 0),
        ("5.0s", 5 * S),
        ("5.6s", 5 * S + 600 * MS),
        ("5.s", 5 * S),
        (".5s", 500 * MS),
        ("1.0s", S),
        ("1.00s", S),
        ("1.004s", S + 4 * MS),
        ("100.00100s", 100 * S + MS),
        ("10ns", 10 * NS),
        ("11us", 11 * US),
        ("12µs", 12 * US),
        ("12μs", 12 * US),
        ("13ms", 13 * MS),
        ("14s", 14 * S),
        ("15m", 15 * M),
        ("16h", 16 * H),
        ("2160h", 2160 * H),
        ("3h30m", 3 * H + 30 * M),
        ("10.5s4m", 4 * M + 10 * S + 500 * MS),
        ("-2m3.4s", -(2 * M + 3 * S + 400 * MS)),
        ("1h2m3s4ms5us6ns", H + 2 * M + 3 * S + 4 * MS + 5 * US + 6 * NS),
        ("39h9m14.425s", 39 * H + 9 * M + 14 * S + 425 * MS),
        ("52763797000ns", 52_763_797_000),
        ("0.3333333333333333333h", 20 * M),
        ("9007199254740993ns", 9_007_199_254_740_993),
        ("9223372036854775807ns", i64::MAX),
        ("9223372036854775.807us", i64::MAX),
        ("9223372036s854ms775us807ns", i64::MAX),
        ("-9223372036854775808ns", i64::MIN),
        ("-9223372036854775.808us", i64::MIN),
        ("-2562047h47m16.854775808s", i64::MIN),
        ("0.100000000000000000000h", 6 * M),
        ("0.830103483285477580700h", 49 * M + 48 * S + 372_539_827 * NS),
    ];
    for (input, nanos) in cases {
        assert_eq!(GoDuration::parse(input), Ok(GoDuration(nanos)), "parse({input:?})");
    }
}

#[test]
fn rejects_like_go_with_go_error_text() {
    let cases = [
        ("", r#"time: invalid duration """#),
        ("3", r#"time: missing unit in duration "3""#),
        ("-", r#"time: invalid duration "-""#),
        ("s", r#"time: invalid duration "s""#),
        (".", r#"time: invalid duration ".""#),
        ("-.", r#"time: invalid duration "-.""#),
        (".s", r#"time: invalid duration ".s""#),
        ("+.s", r#"time: invalid duration "+.s""#),
        ("1d", r#"time: unknown unit "d" in duration "1d""#),
        ("1.1.1s", r#"time: missing unit in duration "1.1.1s""#),
        ("1h 30m", r#"time: unknown unit "h " in duration "1h 30m""#),
        (" 1h", r#"time: invalid duration " 1h""#),
        ("1µ", r#"time: unknown unit "\xc2\xb5" in duration "1\xc2\xb5""#),
        ("1\"s", r#"time: unknown unit "\"s" in duration "1\"s""#),
        ("\t1s", r#"time: invalid duration "\x091s""#),
        ("9223372036854775810ns", r#"time: invalid duration "9223372036854775810ns""#),
        ("9223372036854775808ns", r#"time: invalid duration "9223372036854775808ns""#),
        ("9223372036854775.808us", r#"time: invalid duration "9223372036854775.808us""#),
        ("9223372036854ms775us808ns", r#"time: invalid duration "9223372036854ms775us808ns""#),
        ("-9223372036854775809ns", r#"time: invalid duration "-9223372036854775809ns""#),
        ("2562048h", r#"time: invalid duration "2562048h""#),
        ("99999999999999999999999h", r#"time: invalid duration "99999999999999999999999h""#),
    ];
    for (input, message) in cases {
        let err = GoDuration::parse(input).expect_err(input);
        assert_eq!(err.to_string(), message, "parse({input:?})");
    }
}

#[test]
fn error_variants_carry_the_input() {
    assert_eq!(
        GoDuration::parse("1d"),
        Err(DurationError::UnknownUnit { unit: "d".into(), input: "1d".into() })
    );
    assert_eq!(GoDuration::parse("1"), Err(DurationError::MissingUnit { input: "1".into() }));
    assert_eq!(GoDuration::parse("x"), Err(DurationError::Invalid { input: "x".into() }));
}

#[test]
fn displays_like_go() {
    let cases = [
        (0, "0s"),
        (NS, "1ns"),
        (5 * NS, "5ns"),
        (1100 * NS, "1.1µs"),
        (1200 * NS, "1.2µs"),
        (2200 * US, "2.2ms"),
        (MS, "1ms"),
        (999_999_999, "999.999999ms"),
        (1500 * MS, "1.5s"),
        (3300 * MS, "3.3s"),
        (S + NS, "1.000000001s"),
        (M, "1m0s"),
        (4 * M + 5 * S, "4m5s"),
        (4 * M + 5001 * MS, "4m5.001s"),
        (H, "1h0m0s"),
        (24 * H, "24h0m0s"),
        (48 * H, "48h0m0s"),
        (5 * H + 6 * M + 7001 * MS, "5h6m7.001s"),
        (8 * M + NS, "8m0.000000001s"),
        (-H, "-1h0m0s"),
        (-NS, "-1ns"),
        (-1500 * MS, "-1.5s"),
        (i64::MAX, "2562047h47m16.854775807s"),
        (i64::MIN, "-2562047h47m16.854775808s"),
    ];
    for (nanos, want) in cases {
        assert_eq!(GoDuration(nanos).to_string(), want, "{nanos}ns");
    }
}

#[test]
fn converts_to_std_only_when_non_negative() {
    assert_eq!(GoDuration(1500).as_std(), Some(std::time::Duration::from_nanos(1500)));
    assert_eq!(GoDuration(0).as_std(), Some(std::time::Duration::ZERO));
    assert_eq!(GoDuration(-1).as_std(), None);
}

proptest! {
    #[test]
    fn display_round_trips_through_parse(nanos in any::<i64>()) {
        let d = GoDuration(nanos);
        prop_assert_eq!(GoDuration::parse(&d.to_string()), Ok(d));
    }

    #[test]
    fn parse_never_panics(s in "[-+]?[0-9.]{0,25}(ns|us|µs|μs|ms|s|m|h|d|)[0-9.hms]{0,10}") {
        let _ = GoDuration::parse(&s);
    }
}
