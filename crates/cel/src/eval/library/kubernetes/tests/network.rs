//! The cel-spec `network_ext` cases through the function table.

use super::{b, cidr, err, ip, ok, s};
use crate::check::{CIDR_TYPE_NAME, IP_TYPE_NAME, Type};
use crate::value::Value;

#[test]
fn network_ext_values() {
    let cases: Vec<(&str, Value, Value)> = vec![
        ("parse_ipv4", ok("ip_to_string", &[ip("192.168.0.1")]), s("192.168.0.1")),
        ("is_ip_valid_ipv4", ok("is_ip", &[s("192.168.0.1")]), b(true)),
        ("is_ip_invalid_ipv4", ok("is_ip", &[s("192.168.0.1.0")]), b(false)),
        ("ip_is_canonical_valid_ipv4", ok("ip_is_canonical", &[s("127.0.0.1")]), b(true)),
        (
            "ip_is_canonical_non_canonical_ipv6",
            ok("ip_is_canonical", &[s("2001:DB8::68")]),
            b(false),
        ),
        ("parse_ipv6", ok("ip_to_string", &[ip("2001:db8::68")]), s("2001:db8::68")),
        ("ipv4_family", ok("ip_family", &[ip("192.168.0.1")]), Value::Int(4)),
        ("ipv4_is_unspecified_true", ok("ip_is_unspecified", &[ip("0.0.0.0")]), b(true)),
        ("ipv4_is_unspecified_false", ok("ip_is_unspecified", &[ip("127.0.0.1")]), b(false)),
        ("ipv4_is_loopback_true", ok("ip_is_loopback", &[ip("127.0.0.1")]), b(true)),
        ("ipv4_is_loopback_false", ok("ip_is_loopback", &[ip("1.2.3.4")]), b(false)),
        ("ipv4_is_global_unicast_true", ok("ip_is_global_unicast", &[ip("192.168.0.1")]), b(true)),
        (
            "ipv4_is_global_unicast_false",
            ok("ip_is_global_unicast", &[ip("255.255.255.255")]),
            b(false),
        ),
        (
            "is_link_local_multicast_true",
            ok("ip_is_link_local_multicast", &[ip("224.0.0.1")]),
            b(true),
        ),
        (
            "is_link_local_multicast_false",
            ok("ip_is_link_local_multicast", &[ip("224.0.1.1")]),
            b(false),
        ),
        (
            "is_link_local_unicast_true",
            ok("ip_is_link_local_unicast", &[ip("169.254.169.254")]),
            b(true),
        ),
        (
            "is_link_local_unicast_false",
            ok("ip_is_link_local_unicast", &[ip("192.168.0.1")]),
            b(false),
        ),
        ("ipv4_equals", b(ip("127.0.0.1") == ip("127.0.0.1")), b(true)),
        ("ipv4_not_equals", b(ip("127.0.0.1") == ip("10.0.0.1")), b(false)),
        ("family", ok("ip_family", &[ip("2001:db8::68")]), Value::Int(6)),
        ("is_unspecified_true", ok("ip_is_unspecified", &[ip("::")]), b(true)),
        ("is_loopback_true", ok("ip_is_loopback", &[ip("::1")]), b(true)),
        ("is_global_unicast_true", ok("ip_is_global_unicast", &[ip("2001:db8::abcd")]), b(true)),
        ("is_global_unicast_false", ok("ip_is_global_unicast", &[ip("ff00::1")]), b(false)),
        (
            "is_link_local_multicast_true",
            ok("ip_is_link_local_multicast", &[ip("ff02::1")]),
            b(true),
        ),
        (
            "is_link_local_multicast_false",
            ok("ip_is_link_local_multicast", &[ip("fd00::1")]),
            b(false),
        ),
        ("is_link_local_unicast_true", ok("ip_is_link_local_unicast", &[ip("fe80::1")]), b(true)),
        ("is_link_local_unicast_false", ok("ip_is_link_local_unicast", &[ip("fd80::1")]), b(false)),
        ("ipv6_equals", b(ip("2001:db8::1") == ip("2001:DB8::1")), b(true)),
        ("ipv6_not_equals", b(ip("::") == ip("::ffff")), b(false)),
        ("cidr_equals", b(cidr("127.0.0.1/24") == cidr("127.0.0.1/24")), b(true)),
        ("cidr_not_equals", b(cidr("192.0.0.1/32") == cidr("10.0.0.1/8")), b(false)),
        ("cidr_not_equals_ipv4_ipv6", b(cidr("2001:db8::/32") == cidr("10.0.0.1/32")), b(false)),
        (
            "cidr_contains_ip_ipv4_object",
            ok("cidr_contains_ip_ip", &[cidr("192.168.0.0/24"), ip("192.168.0.1")]),
            b(true),
        ),
        (
            "cidr_does_not_contain_ip_ipv4_object",
            ok("cidr_contains_ip_ip", &[cidr("192.168.0.0/24"), ip("192.168.1.1")]),
            b(false),
        ),
        (
            "cidr_contains_ip_ipv4_string",
            ok("cidr_contains_ip_string", &[cidr("192.168.0.0/24"), s("192.168.0.1")]),
            b(true),
        ),
        (
            "cidr_does_not_contain_ip_ipv4_string",
            ok("cidr_contains_ip_string", &[cidr("192.168.0.0/24"), s("192.168.1.1")]),
            b(false),
        ),
        (
            "cidr_contains_cidr_ipv4_object",
            ok("cidr_contains_cidr", &[cidr("192.168.0.0/24"), cidr("192.168.0.0/25")]),
            b(true),
        ),
        (
            "cidr_contains_cidr_ipv4_object_32",
            ok("cidr_contains_cidr", &[cidr("192.168.0.0/24"), cidr("192.168.0.1/32")]),
            b(true),
        ),
        (
            "cidr_not_contains_cidr_ipv4_object",
            ok("cidr_contains_cidr", &[cidr("192.168.0.0/24"), cidr("192.168.0.0/23")]),
            b(false),
        ),
        (
            "cidr_contains_cidr_ipv4_string",
            ok("cidr_contains_cidr_string", &[cidr("192.168.0.0/24"), s("192.168.0.0/25")]),
            b(true),
        ),
        (
            "cidr_contains_cidr",
            ok("cidr_contains_cidr", &[cidr("10.0.0.0/8"), cidr("10.0.0.0/8")]),
            b(true),
        ),
        (
            "cidr_contains_cidr_ipv4_exact",
            ok("cidr_contains_cidr_string", &[cidr("10.0.0.0/8"), s("10.0.0.0/8")]),
            b(true),
        ),
        (
            "cidr_ipv6_not_contains_ip_ipv4_object",
            ok("cidr_contains_ip_ip", &[cidr("2001:db8::/32"), ip("192.168.1.1")]),
            b(false),
        ),
        (
            "cidr_ipv4_not_contains_ip_ipv6_object",
            ok("cidr_contains_ip_ip", &[cidr("192.168.1.1/32"), ip("2001:db8::1")]),
            b(false),
        ),
        (
            "cidr_get_ip_ipv4",
            b(ok("cidr_ip", &[cidr("192.168.0.0/24")]) == ip("192.168.0.0")),
            b(true),
        ),
        (
            "cidr_masked_ipv4",
            b(ok("cidr_masked", &[cidr("192.168.0.1/24")]) == cidr("192.168.0.0/24")),
            b(true),
        ),
        (
            "cidr_prefix_length_ipv4",
            ok("cidr_prefix_length", &[cidr("192.168.0.0/24")]),
            Value::Int(24),
        ),
        ("parse_cidr_ipv6", ok("cidr_to_string", &[cidr("2001:db8::/32")]), s("2001:db8::/32")),
        (
            "cidr_contains_ip_ipv6_object",
            ok("cidr_contains_ip_ip", &[cidr("2001:db8::/32"), ip("2001:db8::1")]),
            b(true),
        ),
        (
            "cidr_contains_cidr_ipv6_object",
            ok("cidr_contains_cidr", &[cidr("2001:db8::/32"), cidr("2001:db8::/33")]),
            b(true),
        ),
        (
            "cidr_get_ip_ipv6",
            b(ok("cidr_ip", &[cidr("2001:db8::/32")]) == ip("2001:db8::")),
            b(true),
        ),
        (
            "cidr_prefix_length_ipv6",
            ok("cidr_prefix_length", &[cidr("2001:db8::/32")]),
            Value::Int(32),
        ),
        ("cidr_to_string", ok("cidr_to_string", &[cidr("192.168.0.0/24")]), s("192.168.0.0/24")),
        (
            "ip_type",
            Value::Type(ip("192.168.0.1").type_of()),
            Value::Type(Type::opaque(IP_TYPE_NAME, vec![])),
        ),
        (
            "cidr_type",
            Value::Type(cidr("192.168.0.0/24").type_of()),
            Value::Type(Type::opaque(CIDR_TYPE_NAME, vec![])),
        ),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter(|(_, got, want)| got != want)
        .map(|(name, got, want)| format!("{name}: got {got:?}, want {want:?}"))
        .collect();
    assert!(failures.is_empty(), "network_ext mismatches:\n{}", failures.join("\n"));
}

#[test]
fn network_ext_errors_have_kubernetes_texts() {
    let cases = [
        (
            "string_to_ip",
            "192.168.0.1.0",
            "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long",
        ),
        (
            "ip_is_canonical",
            "127.0.0.1.0",
            "IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): IPv4 address too long",
        ),
        (
            "string_to_ip",
            "fe80::1%en0",
            "IP address \"fe80::1%en0\" with zone value is not allowed",
        ),
        (
            "string_to_ip",
            "::ffff:192.168.0.1",
            "IPv4-mapped IPv6 address \"::ffff:192.168.0.1\" is not allowed",
        ),
        (
            "string_to_cidr",
            "192.168.0.0/",
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"",
        ),
        (
            "string_to_cidr",
            "::ffff:192.168.0.1/24",
            "network address parse error during conversion from string: IPv4-mapped IPv6 address \"::ffff:192.168.0.1/24\" is not allowed",
        ),
    ];
    for (id, input, want) in cases {
        assert_eq!(err(id, &[s(input)]), want, "{id}({input})");
    }
    // containsIP with a bad address string is "no such overload", as in Kubernetes.
    assert_eq!(
        err("cidr_contains_ip_string", &[cidr("10.0.0.0/8"), s("nope")]),
        format!("no such overload: containsIP({CIDR_TYPE_NAME}, string)")
    );
    assert!(
        err("cidr_contains_cidr_string", &[cidr("10.0.0.0/8"), s("10.0.0.0/")])
            .starts_with("network address parse error during conversion from string")
    );
}

#[test]
fn opaque_values_of_different_types_are_unequal() {
    assert_ne!(ip("10.0.0.0"), cidr("10.0.0.0/32"));
    assert_ne!(ip("10.0.0.1"), s("10.0.0.1"));
    assert_eq!(
        err("ip_family", &[cidr("10.0.0.0/8")]),
        format!("no such overload: family({CIDR_TYPE_NAME})")
    );
    assert_eq!(
        err("cidr_prefix_length", &[ip("10.0.0.1")]),
        format!("no such overload: prefixLength({IP_TYPE_NAME})")
    );
    assert!(err("ip_to_string", &[s("10.0.0.1")]).starts_with("no such overload"));
}
