use crate::k8s::{Cidr, CidrError, Ip, is_cidr};

fn cidr(s: &str) -> Cidr {
    Cidr::parse(s).unwrap_or_else(|e| panic!("cidr({s}): {e}"))
}

fn ip(s: &str) -> Ip {
    Ip::parse(s).unwrap_or_else(|e| panic!("ip({s}): {e}"))
}

#[test]
fn parses_and_prints_like_netip_prefix() {
    let cases = [
        ("192.168.0.0/24", "192.168.0.0/24", 24),
        ("192.168.0.1/24", "192.168.0.1/24", 24),
        ("0.0.0.0/0", "0.0.0.0/0", 0),
        ("10.0.0.1/32", "10.0.0.1/32", 32),
        ("2001:db8::/32", "2001:db8::/32", 32),
        ("2001:DB8:0::/32", "2001:db8::/32", 32),
        ("::/0", "::/0", 0),
        ("::1/128", "::1/128", 128),
    ];
    for (input, want, bits) in cases {
        let c = cidr(input);
        assert_eq!(c.to_string(), want, "string(cidr({input}))");
        assert_eq!(c.prefix_length(), bits, "cidr({input}).prefixLength()");
        assert!(is_cidr(input), "isCIDR({input})");
    }
}

#[test]
fn rejects_with_kubernetes_messages() {
    let p = |input: &str, reason: &str| {
        format!(
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"{input}\"): {reason}"
        )
    };
    let cases = [
        ("192.168.0.0/", p("192.168.0.0/", "bad bits after slash: \"\"")),
        ("2001:db8::/", p("2001:db8::/", "bad bits after slash: \"\"")),
        ("192.168.0.0", p("192.168.0.0", "no '/'")),
        ("192.168.0.0/33", p("192.168.0.0/33", "prefix length out of range")),
        ("2001:db8::/129", p("2001:db8::/129", "prefix length out of range")),
        ("192.168.0.0/024", p("192.168.0.0/024", "bad bits after slash: \"024\"")),
        ("192.168.0.0/-1", p("192.168.0.0/-1", "bad bits after slash: \"-1\"")),
        ("192.168.0.0/+8", p("192.168.0.0/+8", "bad bits after slash: \"+8\"")),
        ("192.168.0.0/x", p("192.168.0.0/x", "bad bits after slash: \"x\"")),
        ("1.2.3.4/99999999999999999999", p("1.2.3.4/99999999999999999999", "bad bits after slash: \"99999999999999999999\"")),
        ("192.168.0.256/24", p("192.168.0.256/24", "ParseAddr(\"192.168.0.256\"): IPv4 field has value >255")),
        ("fe80::1%en0/24", p("fe80::1%en0/24", "IPv6 zones cannot be present in a prefix")),
        ("/24", p("/24", "ParseAddr(\"\"): unable to parse IP")),
        (
            "::ffff:192.168.0.1/24",
            "network address parse error during conversion from string: IPv4-mapped IPv6 address \"::ffff:192.168.0.1/24\" is not allowed".to_owned(),
        ),
    ];
    for (input, want) in cases {
        let err = Cidr::parse(input).expect_err(input);
        assert_eq!(err.to_string(), want, "input {input:?}");
        assert!(!is_cidr(input), "isCIDR({input:?})");
    }
}

#[test]
fn contains_ip_requires_same_family_and_prefix() {
    let cases = [
        ("192.168.0.0/24", "192.168.0.1", true),
        ("192.168.0.0/24", "192.168.1.1", false),
        ("192.168.0.1/24", "192.168.0.200", true),
        ("0.0.0.0/0", "1.2.3.4", true),
        ("::/0", "1.2.3.4", false),
        ("0.0.0.0/0", "::1", false),
        ("2001:db8::/32", "2001:db8::1", true),
        ("2001:db8::/32", "2001:dc8::1", false),
        ("2001:db8::/32", "192.168.1.1", false),
        ("192.168.1.1/32", "2001:db8::1", false),
        ("10.0.0.1/32", "10.0.0.1", true),
        ("10.0.0.1/32", "10.0.0.2", false),
    ];
    for (c, i, want) in cases {
        assert_eq!(cidr(c).contains_ip(&ip(i)), want, "cidr({c}).containsIP(ip({i}))");
        assert_eq!(cidr(c).contains_ip_str(i), Ok(want), "cidr({c}).containsIP({i:?})");
    }
}

#[test]
fn contains_ip_with_invalid_string_is_no_such_overload() {
    let err = cidr("10.0.0.0/8").contains_ip_str("10.0.0.256").expect_err("invalid IP");
    assert_eq!(err.to_string(), "no such overload");
    assert_eq!(err, CidrError::NoSuchOverload { argument: "10.0.0.256".to_owned() });
}

#[test]
fn contains_cidr_matches_kubernetes() {
    let cases = [
        ("192.168.0.0/24", "192.168.0.0/25", true),
        ("192.168.0.0/24", "192.168.0.0/23", false),
        ("192.168.0.0/24", "192.168.0.0/24", true),
        ("10.0.0.0/8", "10.0.0.0/8", true),
        ("10.0.0.1/8", "10.0.0.0/16", true),
        ("2001:db8::/32", "2001:db8::/33", true),
        ("2001:db8::/32", "2001:db8::/31", false),
        ("2001:db8::/32", "10.0.0.0/32", false),
        ("0.0.0.0/0", "::/0", false),
        // Host bits on either side do not matter (kubernetes/kubernetes#130450).
        ("192.168.0.0/24", "192.168.0.1/32", true),
        ("10.0.0.0/8", "10.1.0.0/16", true),
        ("10.0.0.0/8", "11.0.0.0/16", false),
        ("10.1.2.3/8", "10.200.0.0/9", true),
        // Examples of the Kubernetes library documentation.
        ("192.168.0.0/16", "192.168.10.0/24", true),
        ("192.168.1.0/24", "192.168.2.0/24", false),
    ];
    for (a, b, want) in cases {
        assert_eq!(cidr(a).contains_cidr(&cidr(b)), want, "cidr({a}).containsCIDR(cidr({b}))");
        assert_eq!(cidr(a).contains_cidr_str(b), Ok(want), "cidr({a}).containsCIDR({b:?})");
    }
}

#[test]
fn contains_cidr_with_invalid_string_returns_parse_error() {
    let err = cidr("10.0.0.0/8").contains_cidr_str("10.0.0.0/").expect_err("invalid");
    assert_eq!(
        err.to_string(),
        "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"10.0.0.0/\"): bad bits after slash: \"\""
    );
}

#[test]
fn accessors() {
    let cases = [
        ("192.168.0.0/24", "192.168.0.0", "192.168.0.0/24"),
        ("192.168.0.1/24", "192.168.0.1", "192.168.0.0/24"),
        ("2001:db8::/32", "2001:db8::", "2001:db8::/32"),
        ("2001:db8:1::/32", "2001:db8:1::", "2001:db8::/32"),
        ("10.1.2.3/0", "10.1.2.3", "0.0.0.0/0"),
        ("10.1.2.3/32", "10.1.2.3", "10.1.2.3/32"),
        ("ffff::1/1", "ffff::1", "8000::/1"),
    ];
    for (input, want_ip, want_masked) in cases {
        let c = cidr(input);
        assert_eq!(c.ip(), ip(want_ip), "cidr({input}).ip()");
        assert_eq!(c.masked(), cidr(want_masked), "cidr({input}).masked()");
        assert_eq!(c.masked().to_string(), want_masked);
    }
}

#[test]
fn equality_compares_address_and_length() {
    let cases = [
        ("127.0.0.1/24", "127.0.0.1/24", true),
        ("192.168.0.1/24", "192.168.0.0/24", false),
        ("192.0.0.1/32", "10.0.0.1/8", false),
        ("2001:db8::/32", "10.0.0.1/32", false),
        ("10.0.0.0/8", "10.0.0.0/9", false),
    ];
    for (a, b, want) in cases {
        assert_eq!(cidr(a) == cidr(b), want, "cidr({a}) == cidr({b})");
    }
}
