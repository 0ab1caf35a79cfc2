use proptest::prelude::*;

use super::*;

fn limits() -> RevocationLimits {
    RevocationLimits::default()
}

fn err(text: &str) -> String {
    parse_revocations(text.as_bytes(), &limits()).unwrap_err().to_string()
}

const ONE: &str =
    r#"[{"serial":"00AB:","revokedAt":"2026-11-29T13:00:00Z","notAfter":"2027-01-01T00:00:00Z"}]"#;

#[test]
fn a_written_list_reads_back_unchanged() {
    let list = vec![
        Revocation {
            serial: vec![0x0a, 0xbc],
            revoked_at: Timestamp::from_unix(1_800_000_000),
            reason: Some(Reason::KeyCompromise),
            not_after: Timestamp::from_unix(1_900_000_000),
            certificate: Some("team-a/web".into()),
        },
        Revocation {
            serial: vec![0xff; 20],
            revoked_at: Timestamp::from_unix(1_800_000_001),
            reason: None,
            not_after: Timestamp::from_unix(1_700_000_000),
            certificate: None,
        },
    ];
    let json = revocations_to_json(&list);
    assert_eq!(
        json,
        "[\n  {\"serial\":\"0abc\",\"revokedAt\":\"2027-01-15T08:00:00Z\",\"reason\":\"keyCompromise\",\
         \"notAfter\":\"2030-03-17T17:46:40Z\",\"certificate\":\"team-a/web\"},\n  \
         {\"serial\":\"ffffffffffffffffffffffffffffffffffffffff\",\"revokedAt\":\"2027-01-15T08:00:01Z\",\
         \"reason\":\"unspecified\",\"notAfter\":\"2023-11-14T22:13:20Z\"}\n]\n"
    );
    assert_eq!(parse_revocations(json.as_bytes(), &limits()).unwrap(), list);
    assert_eq!(revocations_to_json(&[]), "[]\n");
    assert_eq!(parse_revocations(b"[]\n", &limits()).unwrap(), vec![]);
    assert_eq!(parse_revocations(b"  \n", &limits()).unwrap(), vec![]);
}

#[test]
fn fields_are_read_leniently_where_it_is_safe() {
    let text = r#"[{"serial":"000ABC","revokedAt":"2026-11-29T14:00:00+01:00","reason":"KEYCOMPROMISE",
        "notAfter":"2027-01-01T00:00:00Z","certificate":null}]"#;
    let list = parse_revocations(text.as_bytes(), &limits()).unwrap();
    assert_eq!(list[0].serial, vec![0x0a, 0xbc], "leading zeros dropped, odd length padded");
    assert_eq!(list[0].revoked_at.to_string(), "2026-11-29T13:00:00Z");
    assert_eq!(list[0].reason, Some(Reason::KeyCompromise));
    assert_eq!(list[0].certificate, None);
}

#[test]
fn every_reason_name_round_trips() {
    for reason in Reason::ALL {
        let name = reason_name(Some(reason));
        assert_eq!(parse_reason(name), Ok(Some(reason)), "{name}");
    }
    assert_eq!(reason_name(None), "unspecified");
    assert_eq!(parse_reason("CACompromise"), Ok(Some(Reason::CaCompromise)));
    assert_eq!(parse_reason("unspecified"), Ok(None));
    assert!(parse_reason("removeFromCRL").unwrap_err().contains("remove the entry instead"));
    assert_eq!(
        parse_reason("stolen").unwrap_err(),
        "\"stolen\" is not a CRL reason; use one of unspecified, keyCompromise, cACompromise, \
         affiliationChanged, superseded, cessationOfOperation, certificateHold, \
         privilegeWithdrawn, aACompromise"
    );
}

#[test]
fn errors_name_the_entry_and_the_field() {
    assert_eq!(
        err(r#"{"serial":"01"}"#),
        "revocations.json is not a JSON array of revocations (the top level is an object, not an array); fix or remove the key"
    );
    assert!(err("[").starts_with("revocations.json is not a JSON array of revocations (EOF"));
    assert_eq!(err("[1]"), "revocations.json entry 0: entry is a number, not an object");
    let base =
        r#"{"serial":"01","revokedAt":"2026-11-29T13:00:00Z","notAfter":"2027-01-01T00:00:00Z"}"#;
    assert_eq!(
        err(&format!("[{base},{}]", base.replace("\"01\"", "\"0g\""))),
        "revocations.json entry 1: serial \"0g\" holds 'g': write the serial in hexadecimal without colons"
    );
    assert_eq!(
        err(&format!("[{}]", base.replace("\"01\"", "\"ab:cd\""))),
        "revocations.json entry 0: serial \"ab:cd\" holds ':': write the serial in hexadecimal without colons"
    );
    assert_eq!(
        err(&format!("[{}]", base.replace("\"01\"", "\"000\""))),
        "revocations.json entry 0: serial is zero: serials are positive"
    );
    assert_eq!(
        err(&format!("[{}]", base.replace("\"01\"", &format!("\"{}\"", "1".repeat(42))))),
        "revocations.json entry 0: serial has 21 octets, more than the 20 RFC 5280 allows"
    );
    assert_eq!(
        err(&format!("[{}]", base.replace("\"01\"", "1"))),
        "revocations.json entry 0: serial is a number, not a string"
    );
    assert_eq!(
        err(r#"[{"serial":"01","notAfter":"2027-01-01T00:00:00Z"}]"#),
        "revocations.json entry 0: revokedAt is missing"
    );
    assert!(
        err(&format!("[{}]", base.replace("2027-01-01T00:00:00Z", "tomorrow"))).starts_with(
            "revocations.json entry 0: notAfter \"tomorrow\" is not an RFC 3339 time ("
        )
    );
    assert_eq!(
        err(&format!("[{}]", base.replace("}", ",\"reason\":\"stolen\"}"))),
        format!(
            "revocations.json entry 0: reason \"stolen\" is not a CRL reason; use one of {}",
            reason_names()
        )
    );
    assert_eq!(
        err(&format!("[{}]", base.replace("}", ",\"serail\":\"02\"}"))),
        "revocations.json entry 0: entry has the unknown field \"serail\"; the fields are serial, revokedAt, reason, notAfter, certificate"
    );
    assert_eq!(
        err(&format!("[{base},{}]", base.replace("\"01\"", "\"0001\""))),
        "revocations.json lists serial 01 twice (entries 0 and 1): keep one of them"
    );
}

#[test]
fn the_bounds_hold() {
    let small = RevocationLimits { max_bytes: 200, max_entries: 1 };
    assert_eq!(
        parse_revocations(&[b' '; 201], &small).unwrap_err(),
        RevocationsError::TooLarge { bytes: 201, limit: 200 }
    );
    let one =
        r#"{"serial":"01","revokedAt":"2026-11-29T13:00:00Z","notAfter":"2027-01-01T00:00:00Z"}"#;
    assert_eq!(
        parse_revocations(format!("[{one},{one}]").as_bytes(), &small).unwrap_err(),
        RevocationsError::TooManyEntries { entries: 2, limit: 1 }
    );
    let mut list = parse_revocations(format!("[{one}]").as_bytes(), &small).unwrap();
    let new = Revocation { serial: vec![2], ..list[0].clone() };
    assert_eq!(
        add_revocation(&mut list, new.clone(), &small),
        Err(RevocationsError::TooManyEntries { entries: 2, limit: 1 })
    );
    let tight = RevocationLimits { max_bytes: 150, max_entries: 10 };
    assert!(matches!(
        add_revocation(&mut list, new, &tight),
        Err(RevocationsError::TooLarge { limit: 150, .. })
    ));
    assert_eq!(list.len(), 1, "a refused entry is not kept");
    // Deep nesting fails as JSON instead of overflowing the stack.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        parse_revocations(
            deep.as_bytes(),
            &RevocationLimits { max_bytes: 1 << 20, max_entries: 10 }
        ),
        Err(RevocationsError::NotJson { .. })
    ));
    let long_ref = one.replace("}", &format!(",\"certificate\":\"{}\"}}", "a".repeat(513)));
    assert_eq!(
        err(&format!("[{long_ref}]")),
        "revocations.json entry 0: certificate is longer than 512 characters"
    );
}

#[test]
fn adding_is_idempotent_and_expired_entries_leave_the_crl() {
    let mut list = parse_revocations(ONE.replace("00AB:", "00ab").as_bytes(), &limits()).unwrap();
    let again = Revocation {
        serial: vec![0, 0xab],
        revoked_at: Timestamp::from_unix(0),
        reason: Some(Reason::Superseded),
        not_after: Timestamp::from_unix(0),
        certificate: None,
    };
    assert_eq!(
        add_revocation(&mut list, again.clone(), &limits()),
        Ok(Added::AlreadyRevoked(list[0].clone()))
    );
    assert_eq!(list.len(), 1);
    let other = Revocation { serial: vec![0, 0xcd], ..again };
    assert_eq!(add_revocation(&mut list, other, &limits()), Ok(Added::Added));
    assert_eq!(list[1].serial, vec![0xcd], "stored as its magnitude");
    let now = parse_rfc3339("2026-12-01T00:00:00Z").unwrap();
    let active = active_revocations(&list, now);
    assert_eq!(active.len(), 1, "the second entry's notAfter (1970) has passed");
    assert_eq!(active[0].serial, vec![0xab]);
    let expired = parse_rfc3339("2027-01-01T00:00:00Z").unwrap();
    assert!(active_revocations(&list, expired).is_empty(), "notAfter == now has passed");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = parse_revocations(&bytes, &limits());
    }

    #[test]
    fn json_shaped_garbage_never_panics(
        serial in "[0-9a-fA-Fg:]{0,50}",
        time in "[0-9TZ:+.-]{0,30}",
        reason in "[a-zA-Z]{0,20}",
        extra in prop_oneof![Just(""), Just(",\"x\":1"), Just(",\"certificate\":7")],
    ) {
        let text = format!(
            r#"[{{"serial":"{serial}","revokedAt":"{time}","notAfter":"{time}","reason":"{reason}"{extra}}}]"#
        );
        if let Ok(list) = parse_revocations(text.as_bytes(), &limits()) {
            let again = revocations_to_json(&list);
            prop_assert_eq!(parse_revocations(again.as_bytes(), &limits()).unwrap(), list);
        }
    }

    #[test]
    fn valid_lists_round_trip(
        entries in proptest::collection::vec(
            (proptest::collection::vec(any::<u8>(), 1..=20), 0i64..4_000_000_000, 0usize..9, 0i64..4_000_000_000, proptest::option::of("[a-z0-9/-]{1,40}")),
            0..20,
        )
    ) {
        let mut list = Vec::new();
        for (serial, revoked, reason, not_after, certificate) in entries {
            let new = Revocation {
                serial,
                revoked_at: Timestamp::from_unix(revoked),
                reason: if reason == 0 { None } else { Reason::ALL.get(reason - 1).copied() },
                not_after: Timestamp::from_unix(not_after),
                certificate,
            };
            if magnitude(&new.serial).is_empty() {
                continue;
            }
            add_revocation(&mut list, new, &limits()).unwrap();
        }
        let json = revocations_to_json(&list);
        prop_assert_eq!(parse_revocations(json.as_bytes(), &limits()).unwrap(), list);
    }
}
