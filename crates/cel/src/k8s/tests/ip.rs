use crate::k8s::{Ip, is_canonical, is_ip};

#[test]
fn parses_and_prints_in_go_canonical_form() {
    let cases = [
        ("192.168.0.1", "192.168.0.1"),
        ("0.0.0.0", "0.0.0.0"),
        ("2001:db8::68", "2001:db8::68"),
        ("2001:DB8::68", "2001:db8::68"),
        ("::", "::"),
        ("::1", "::1"),
        ("0:0:0:0:0:0:0:0", "::"),
        ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
        ("1:0:0:0:1:0:0:1", "1::1:0:0:1"),
        ("1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
        ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
        ("::1.2.3.4", "::102:304"),
        ("64:ff9b::1.2.3.4", "64:ff9b::102:304"),
        ("fe80::0001", "fe80::1"),
    ];
    for (input, want) in cases {
        let ip = Ip::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(ip.to_string(), want, "input {input}");
        assert!(is_ip(input), "isIP({input})");
    }
}

#[test]
fn rejects_with_kubernetes_messages() {
    let p = |input: &str, reason: &str| {
        format!(
            "IP Address \"{input}\" parse error during conversion from string: ParseAddr(\"{input}\"): {reason}"
        )
    };
    let cases = [
        ("192.168.0.1.0", p("192.168.0.1.0", "IPv4 address too long")),
        ("", p("", "unable to parse IP")),
        ("example.com", p("example.com", "unexpected character (at \"example.com\")")),
        ("abc", p("abc", "unable to parse IP")),
        (
            "2001:db8:::68",
            p(
                "2001:db8:::68",
                "each colon-separated field must have at least one digit (at \":68\")",
            ),
        ),
        ("01.2.3.4", p("01.2.3.4", "IPv4 field has octet with leading zero")),
        ("1.2.3.256", p("1.2.3.256", "IPv4 field has value >255")),
        ("1.2.3", p("1.2.3", "IPv4 address too short")),
        ("1..2.3", p("1..2.3", "IPv4 field must have at least one digit (at \".2.3\")")),
        (".1.2.3", p(".1.2.3", "IPv4 field must have at least one digit (at \".1.2.3\")")),
        ("1.2.3.", p("1.2.3.", "IPv4 field must have at least one digit (at \".\")")),
        ("1.2.3.4a", p("1.2.3.4a", "unexpected character (at \"a\")")),
        ("1.2.3.4:80", p("1.2.3.4:80", "unexpected character (at \":80\")")),
        ("1.2.3.4%eth0", p("1.2.3.4%eth0", "unexpected character (at \"%eth0\")")),
        ("%eth0", p("%eth0", "missing IPv6 address")),
        ("fe80::1%", p("fe80::1%", "zone must be a non-empty string")),
        (
            "12345::",
            p(
                "12345::",
                "each colon-separated field must have at most 4 hex digits (at \"12345::\")",
            ),
        ),
        ("1:2:3:4:5:6:7:8:9", p("1:2:3:4:5:6:7:8:9", "trailing garbage after address (at \"9\")")),
        ("1:2:3:4:5:6:7", p("1:2:3:4:5:6:7", "address string too short")),
        (
            "1:2:3:4::5:6:7:8",
            p("1:2:3:4::5:6:7:8", "the :: must expand to at least one field of zeros"),
        ),
        (
            "1:2:3:4:5:6:7:",
            p("1:2:3:4:5:6:7:", "colon must be followed by more characters (at \":\")"),
        ),
        ("1::2::3", p("1::2::3", "multiple :: in address (at \":3\")")),
        ("1:2x::", p("1:2x::", "unexpected character, want colon (at \"x::\")")),
        (":1", p(":1", "each colon-separated field must have at least one digit (at \":1\")")),
        (
            "1:2:3:4:5:1.2.3.4",
            p(
                "1:2:3:4:5:1.2.3.4",
                "embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")",
            ),
        ),
        (
            "::1:2:3:4:5:6:7:1.2.3.4",
            p(
                "::1:2:3:4:5:6:7:1.2.3.4",
                "too many hex fields to fit an embedded IPv4 at the end of the address (at \"1.2.3.4\")",
            ),
        ),
        ("::1.2.3.04", p("::1.2.3.04", "IPv4 field has octet with leading zero")),
        ("fe80::1%en0", "IP address \"fe80::1%en0\" with zone value is not allowed".to_owned()),
        (
            "::ffff:192.168.0.1",
            "IPv4-mapped IPv6 address \"::ffff:192.168.0.1\" is not allowed".to_owned(),
        ),
        ("::ffff:c0a8:1", "IPv4-mapped IPv6 address \"::ffff:c0a8:1\" is not allowed".to_owned()),
    ];
    for (input, want) in cases {
        let err = Ip::parse(input).expect_err(input);
        assert_eq!(err.to_string(), want, "input {input:?}");
        assert!(!is_ip(input), "isIP({input:?})");
    }
}

#[test]
fn quotes_the_input_like_go() {
    let err = Ip::parse("a\"b\n").expect_err("not an IP");
    assert_eq!(
        err.to_string(),
        "IP Address \"a\\\"b\\n\" parse error during conversion from string: ParseAddr(\"a\\\"b\\n\"): unable to parse IP"
    );
}

#[test]
fn predicates_follow_go_netip() {
    // (address, family, unspecified, loopback, link-local multicast, link-local unicast, global unicast)
    let cases = [
        ("0.0.0.0", 4, true, false, false, false, false),
        ("127.0.0.1", 4, false, true, false, false, false),
        ("127.255.255.254", 4, false, true, false, false, false),
        ("1.2.3.4", 4, false, false, false, false, true),
        ("10.0.0.1", 4, false, false, false, false, true),
        ("192.168.0.1", 4, false, false, false, false, true),
        ("255.255.255.255", 4, false, false, false, false, false),
        ("224.0.0.1", 4, false, false, true, false, false),
        ("224.0.0.255", 4, false, false, true, false, false),
        ("224.0.1.1", 4, false, false, false, false, false),
        ("239.1.1.1", 4, false, false, false, false, false),
        ("169.254.169.254", 4, false, false, false, true, false),
        ("169.255.0.1", 4, false, false, false, false, true),
        ("::", 6, true, false, false, false, false),
        ("::1", 6, false, true, false, false, false),
        ("::2", 6, false, false, false, false, true),
        ("2001:db8::abcd", 6, false, false, false, false, true),
        ("fd00::1", 6, false, false, false, false, true),
        ("ff00::1", 6, false, false, false, false, false),
        ("ff02::1", 6, false, false, true, false, false),
        ("ff01::1", 6, false, false, false, false, false),
        ("fe80::1", 6, false, false, false, true, false),
        ("febf::1", 6, false, false, false, true, false),
        ("fec0::1", 6, false, false, false, false, true),
        ("fd80::1", 6, false, false, false, false, true),
    ];
    for (input, family, unspecified, loopback, ll_multicast, ll_unicast, global) in cases {
        let ip = Ip::parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(ip.family(), family, "{input}.family()");
        assert_eq!(ip.is_unspecified(), unspecified, "{input}.isUnspecified()");
        assert_eq!(ip.is_loopback(), loopback, "{input}.isLoopback()");
        assert_eq!(ip.is_link_local_multicast(), ll_multicast, "{input}.isLinkLocalMulticast()");
        assert_eq!(ip.is_link_local_unicast(), ll_unicast, "{input}.isLinkLocalUnicast()");
        assert_eq!(ip.is_global_unicast(), global, "{input}.isGlobalUnicast()");
    }
}

#[test]
fn equality_is_address_equality() {
    let cases = [
        ("127.0.0.1", "127.0.0.1", true),
        ("127.0.0.1", "10.0.0.1", false),
        ("2001:db8::1", "2001:DB8::1", true),
        ("2001:db8::1", "2001:db8:0::1", true),
        ("::", "0.0.0.0", false),
        ("::", "::ffff", false),
    ];
    for (a, b, want) in cases {
        let (a_ip, b_ip) = (Ip::parse(a), Ip::parse(b));
        assert_eq!(a_ip == b_ip, want, "ip({a}) == ip({b})");
    }
}

#[test]
fn is_canonical_compares_with_go_string_form() {
    let cases = [
        ("127.0.0.1", true),
        ("2001:db8::68", true),
        ("2001:DB8::68", false),
        ("2001:db8:0::68", false),
        ("::fffe:1:2", true),
        ("0:0::1", false),
    ];
    for (input, want) in cases {
        assert_eq!(is_canonical(input), Ok(want), "ip.isCanonical({input})");
    }
    assert_eq!(
        is_canonical("127.0.0.1.0").map_err(|e| e.to_string()),
        Err("IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): IPv4 address too long".to_owned())
    );
}
