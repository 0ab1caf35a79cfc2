//! Date functions, table style. Times travel as Go's `Time.String()` text.
mod common;
use common::*;

const T: &str = "2023-12-31 13:04:05.5 +0000 UTC";

#[test]
fn formatting() {
    table(&[
        ("date", vec![s("2006-01-02"), s(T)], s("2023-12-31")),
        ("date", vec![s("Mon Jan _2 15:04:05 MST 2006"), s(T)], s("Sun Dec 31 13:04:05 UTC 2023")),
        (
            "date",
            vec![s("3:04PM .000 Z07:00 -0700 January Monday 06 002"), s(T)],
            s("1:04PM .500 Z +0000 December Sunday 23 365"),
        ),
        ("date", vec![s("2006-01-02 15:04:05"), i(0)], s("1970-01-01 00:00:00")),
        (
            "dateInZone",
            vec![s("2006-01-02 15:04 MST"), s(T), s("Europe/Berlin")],
            s("2023-12-31 14:04 CET"),
        ),
        ("date_in_zone", vec![s("15:04 -07:00"), i(0), s("America/New_York")], s("19:00 -05:00")),
        ("dateInZone", vec![s("15:04 MST"), i(0), s("Not/AZone")], s("00:00 UTC")),
        ("htmlDate", vec![s(T)], s("2023-12-31")),
        ("htmlDateInZone", vec![i(0), s("Asia/Tokyo")], s("1970-01-01")),
        ("unixEpoch", vec![s(T)], s("1704027845")),
    ]);
}

#[test]
fn parsing_and_modifying() {
    table(&[
        ("toDate", vec![s("2006-01-02"), s("2023-12-31")], s("2023-12-31 00:00:00 +0000 UTC")),
        (
            "toDate",
            vec![s("2006-01-02T15:04:05Z07:00"), s("2023-12-31T10:00:00+02:00")],
            s("2023-12-31 10:00:00 +0200 +0200"),
        ),
        ("toDate", vec![s("2006-01-02"), s("junk")], s("0001-01-01 00:00:00 +0000 UTC")),
        (
            "mustToDate",
            vec![s("02/01/06 3:04pm"), s("31/12/23 1:04pm")],
            s("2023-12-31 13:04:00 +0000 UTC"),
        ),
        ("dateModify", vec![s("1h30m"), s(T)], s("2023-12-31 14:34:05.5 +0000 UTC")),
        ("date_modify", vec![s("-24h"), s(T)], s("2023-12-30 13:04:05.5 +0000 UTC")),
        ("dateModify", vec![s("bogus"), s(T)], s(T)),
        ("mustDateModify", vec![s("1.5s"), s(T)], s("2023-12-31 13:04:07 +0000 UTC")),
        ("duration", vec![s("95")], s("1m35s")),
        ("duration", vec![i(3600)], s("1h0m0s")),
        ("duration", vec![s("x")], s("0s")),
        ("durationRound", vec![s("2h10m5s")], s("2h")),
        ("durationRound", vec![s("-50h")], s("2d")),
        ("durationRound", vec![i(1_000_000_000 * 60 * 60 * 24 * 400)], s("1y")),
        ("durationRound", vec![s("bad")], s("0s")),
    ]);
    err_table(&[
        (
            "mustToDate",
            vec![s("2006-01-02"), s("2023-13-01")],
            "parsing time \"2023-13-01\": month out of range",
        ),
        (
            "mustToDate",
            vec![s("2006-01-02"), s("junk")],
            "parsing time \"junk\" as \"2006-01-02\": cannot parse \"junk\" as \"2006\"",
        ),
        (
            "mustToDate",
            vec![s("2006-01-02"), s("2023-12-31x")],
            "parsing time \"2023-12-31x\": extra text: \"x\"",
        ),
        (
            "mustToDate",
            vec![s("2006-01-02"), s("2023-02-30")],
            "parsing time \"2023-02-30\": day out of range",
        ),
        ("mustDateModify", vec![s("1d"), s(T)], "time: unknown unit \"d\" in duration \"1d\""),
        ("must_date_modify", vec![s("x"), s(T)], "time: invalid duration \"x\""),
    ]);
    assert_eq!(
        arg_err("dateModify", &[s("1h"), s("yesterday")]),
        "wrong type for value; expected time.Time; got string"
    );
    assert_eq!(arg_err("unixEpoch", &[i(5)]), "wrong type for value; expected time.Time; got int");
}

#[test]
fn clock_functions_have_the_right_shape() {
    let now = ok("now", &[]);
    let text = now.as_str().unwrap_or_default().to_string();
    assert!(text.ends_with(" +0000 UTC"), "{text}");
    // now's text is itself a time for the other functions.
    let year = ok("date", &[s("2006"), now.clone()]);
    assert_eq!(year.as_str().map(str::len), Some(4));
    assert!(
        ok("unixEpoch", std::slice::from_ref(&now))
            .as_str()
            .is_some_and(|e| e.parse::<i64>().is_ok())
    );
    // A time far in the past is long ago; formatted as a Go duration.
    let ago = ok("ago", &[s("2000-01-01 00:00:00 +0000 UTC")]);
    assert!(ago.as_str().is_some_and(|a| a.ends_with('s') && a.contains('h')), "{ago:?}");
    assert_eq!(
        ok("durationRound", &[s("2000-01-01 00:00:00 +0000 UTC")])
            .as_str()
            .map(|d| d.ends_with('y')),
        Some(true)
    );
}
