//! The cel-spec `network_ext` conformance cases
//! (`../shared/conformance/cel-spec/cases.json`, `"file": "network_ext"`) expressed as
//! direct calls. Omitted: `ip_type`, `cidr_type`, `parse_cidr_ipv4` (type values) and
//! `is_ip_cidr_compile_error` (a type-checker error), which belong to the engine.
//!
//! Where cel-spec's variant of the library differs from Kubernetes, the row asserts
//! Kubernetes' behaviour and says what cel-spec expects:
//! - error texts: cel-spec quotes with `'` and abbreviates; Kubernetes uses Go `%q`,
//!   appends Go's reason and doubles the CIDR prefix;
//! - `::ffff:c0a8:1` is an error in Kubernetes (IPv4-mapped), cel-spec accepts it.

use std::fmt::Display;

use crate::k8s::{Cidr, Ip, is_canonical, is_ip};

fn show<T: Display, E: Display>(result: Result<T, E>) -> String {
    match result {
        Ok(value) => value.to_string(),
        Err(err) => format!("error: {err}"),
    }
}

fn ip(s: &str) -> Result<Ip, String> {
    Ip::parse(s).map_err(|e| e.to_string())
}

fn cidr(s: &str) -> Result<Cidr, String> {
    Cidr::parse(s).map_err(|e| e.to_string())
}

fn ip_eq(a: &str, b: &str) -> String {
    show(ip(a).and_then(|a| ip(b).map(|b| a == b)))
}

fn cidr_eq(a: &str, b: &str) -> String {
    show(cidr(a).and_then(|a| cidr(b).map(|b| a == b)))
}

fn ip_method(s: &str, f: fn(&Ip) -> String) -> String {
    show(ip(s).map(|ip| f(&ip)))
}

fn cidr_method(s: &str, f: impl Fn(&Cidr) -> Result<String, String>) -> String {
    show(cidr(s).and_then(|c| f(&c)))
}

#[test]
fn network_ext_cases() {
    let cases: Vec<(&str, String, &str)> = vec![
        // section ip_type
        ("parse_ipv4", show(ip("192.168.0.1")), "192.168.0.1"),
        // cel-spec: "IP Address '192.168.0.1.0' parse error during conversion from string"
        (
            "parse_invalid_ipv4",
            show(ip("192.168.0.1.0")),
            "error: IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long",
        ),
        ("is_ip_valid_ipv4", is_ip("192.168.0.1").to_string(), "true"),
        ("is_ip_invalid_ipv4", is_ip("192.168.0.1.0").to_string(), "false"),
        ("ip_is_canonical_valid_ipv4", show(is_canonical("127.0.0.1")), "true"),
        // cel-spec: "IP Address '127.0.0.1.0' parse error during conversion from string"
        (
            "ip_is_canonical_invalid_ipv4",
            show(is_canonical("127.0.0.1.0")),
            "error: IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): IPv4 address too long",
        ),
        ("ip_is_canonical_non_canonical_ipv6", show(is_canonical("2001:DB8::68")), "false"),
        ("parse_ipv6", show(ip("2001:db8::68")), "2001:db8::68"),
        // cel-spec: "IP Address '2001:db8:::68' parse error"
        (
            "parse_invalid_ipv6",
            show(ip("2001:db8:::68")),
            "error: IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")",
        ),
        // cel-spec: "IP Address with zone value is not allowed"
        (
            "parse_invalid_ipv6_with_zone",
            show(ip("fe80::1%en0")),
            "error: IP address \"fe80::1%en0\" with zone value is not allowed",
        ),
        // cel-spec: "IPv4-mapped IPv6 address is not allowed"
        (
            "parse_invalid_ipv4_in_ipv6",
            show(ip("::ffff:192.168.0.1")),
            "error: IPv4-mapped IPv6 address \"::ffff:192.168.0.1\" is not allowed",
        ),
        ("ip_to_string", show(ip("192.168.0.1")), "192.168.0.1"),
        // section ipv4
        ("ipv4_family", ip_method("192.168.0.1", |i| i.family().to_string()), "4"),
        (
            "ipv4_is_unspecified_true",
            ip_method("0.0.0.0", |i| i.is_unspecified().to_string()),
            "true",
        ),
        (
            "ipv4_is_unspecified_false",
            ip_method("127.0.0.1", |i| i.is_unspecified().to_string()),
            "false",
        ),
        ("ipv4_is_loopback_true", ip_method("127.0.0.1", |i| i.is_loopback().to_string()), "true"),
        ("ipv4_is_loopback_false", ip_method("1.2.3.4", |i| i.is_loopback().to_string()), "false"),
        (
            "ipv4_is_global_unicast_true",
            ip_method("192.168.0.1", |i| i.is_global_unicast().to_string()),
            "true",
        ),
        (
            "ipv4_is_global_unicast_false",
            ip_method("255.255.255.255", |i| i.is_global_unicast().to_string()),
            "false",
        ),
        (
            "is_link_local_multicast_true",
            ip_method("224.0.0.1", |i| i.is_link_local_multicast().to_string()),
            "true",
        ),
        (
            "is_link_local_multicast_false",
            ip_method("224.0.1.1", |i| i.is_link_local_multicast().to_string()),
            "false",
        ),
        (
            "is_link_local_unicast_true",
            ip_method("169.254.169.254", |i| i.is_link_local_unicast().to_string()),
            "true",
        ),
        (
            "is_link_local_unicast_false",
            ip_method("192.168.0.1", |i| i.is_link_local_unicast().to_string()),
            "false",
        ),
        ("ipv4_equals", ip_eq("127.0.0.1", "127.0.0.1"), "true"),
        ("ipv4_not_equals", ip_eq("127.0.0.1", "10.0.0.1"), "false"),
        // cel-spec: true (accepts the IPv4-mapped address); Kubernetes rejects it.
        (
            "ipv4_equals_ipv6",
            ip_eq("::ffff:c0a8:1", "192.168.0.1"),
            "error: IPv4-mapped IPv6 address \"::ffff:c0a8:1\" is not allowed",
        ),
        // cel-spec: false; Kubernetes rejects the IPv4-mapped address.
        (
            "ipv4_not_equals_ipv6",
            ip_eq("::ffff:c0a8:1", "192.168.10.1"),
            "error: IPv4-mapped IPv6 address \"::ffff:c0a8:1\" is not allowed",
        ),
        // section ipv6
        ("family", ip_method("2001:db8::68", |i| i.family().to_string()), "6"),
        ("is_unspecified_true", ip_method("::", |i| i.is_unspecified().to_string()), "true"),
        ("is_loopback_true", ip_method("::1", |i| i.is_loopback().to_string()), "true"),
        (
            "is_global_unicast_true",
            ip_method("2001:db8::abcd", |i| i.is_global_unicast().to_string()),
            "true",
        ),
        (
            "is_global_unicast_false",
            ip_method("ff00::1", |i| i.is_global_unicast().to_string()),
            "false",
        ),
        (
            "is_link_local_multicast_true",
            ip_method("ff02::1", |i| i.is_link_local_multicast().to_string()),
            "true",
        ),
        (
            "is_link_local_multicast_false",
            ip_method("fd00::1", |i| i.is_link_local_multicast().to_string()),
            "false",
        ),
        (
            "is_link_local_unicast_true",
            ip_method("fe80::1", |i| i.is_link_local_unicast().to_string()),
            "true",
        ),
        (
            "is_link_local_unicast_false",
            ip_method("fd80::1", |i| i.is_link_local_unicast().to_string()),
            "false",
        ),
        ("ipv6_equals", ip_eq("2001:db8::1", "2001:DB8::1"), "true"),
        ("ipv6_not_equals", ip_eq("::", "::ffff"), "false"),
        // section cidr
        // cel-spec: "network address parse error during conversion from string"
        (
            "parse_invalid_cidr_ipv4",
            show(cidr("192.168.0.0/")),
            "error: network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"",
        ),
        // cel-spec: "CIDR with zone value is not allowed"; Kubernetes relays Go's rejection.
        (
            "parse_invalid_cidr_with_zone",
            show(cidr("fe80::1%en0/24")),
            "error: network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"fe80::1%en0/24\"): IPv6 zones cannot be present in a prefix",
        ),
        // cel-spec: "IPv4-mapped IPv6 address is not allowed"
        (
            "parse_invalid_cidr_ipv4_in_ipv6",
            show(cidr("::ffff:192.168.0.1/24")),
            "error: network address parse error during conversion from string: IPv4-mapped IPv6 address \"::ffff:192.168.0.1/24\" is not allowed",
        ),
        ("cidr_equals", cidr_eq("127.0.0.1/24", "127.0.0.1/24"), "true"),
        ("cidr_not_equals", cidr_eq("192.0.0.1/32", "10.0.0.1/8"), "false"),
        ("cidr_not_equals_ipv4_ipv6", cidr_eq("2001:db8::/32", "10.0.0.1/32"), "false"),
        (
            "cidr_contains_ip_ipv4_object",
            cidr_method("192.168.0.0/24", |c| {
                ip("192.168.0.1").map(|i| c.contains_ip(&i).to_string())
            }),
            "true",
        ),
        (
            "cidr_does_not_contain_ip_ipv4_object",
            cidr_method("192.168.0.0/24", |c| {
                ip("192.168.1.1").map(|i| c.contains_ip(&i).to_string())
            }),
            "false",
        ),
        (
            "cidr_contains_ip_ipv4_string",
            cidr_method("192.168.0.0/24", |c| {
                c.contains_ip_str("192.168.0.1").map(|b| b.to_string()).map_err(|e| e.to_string())
            }),
            "true",
        ),
        (
            "cidr_does_not_contain_ip_ipv4_string",
            cidr_method("192.168.0.0/24", |c| {
                c.contains_ip_str("192.168.1.1").map(|b| b.to_string()).map_err(|e| e.to_string())
            }),
            "false",
        ),
        (
            "cidr_contains_cidr_ipv4_object",
            cidr_method("192.168.0.0/24", |c| {
                cidr("192.168.0.0/25").map(|o| c.contains_cidr(&o).to_string())
            }),
            "true",
        ),
        (
            "cidr_contains_cidr_ipv4_object_32",
            cidr_method("192.168.0.0/24", |c| {
                cidr("192.168.0.1/32").map(|o| c.contains_cidr(&o).to_string())
            }),
            "true",
        ),
        (
            "cidr_not_contains_cidr_ipv4_object",
            cidr_method("192.168.0.0/24", |c| {
                cidr("192.168.0.0/23").map(|o| c.contains_cidr(&o).to_string())
            }),
            "false",
        ),
        (
            "cidr_contains_cidr_ipv4_string",
            cidr_method("192.168.0.0/24", |c| {
                c.contains_cidr_str("192.168.0.0/25")
                    .map(|b| b.to_string())
                    .map_err(|e| e.to_string())
            }),
            "true",
        ),
        (
            "cidr_contains_cidr",
            cidr_method("10.0.0.0/8", |c| {
                cidr("10.0.0.0/8").map(|o| c.contains_cidr(&o).to_string())
            }),
            "true",
        ),
        (
            "cidr_contains_cidr_ipv4_exact",
            cidr_method("10.0.0.0/8", |c| {
                c.contains_cidr_str("10.0.0.0/8").map(|b| b.to_string()).map_err(|e| e.to_string())
            }),
            "true",
        ),
        (
            "cidr_ipv6_not_contains_ip_ipv4_object",
            cidr_method("2001:db8::/32", |c| {
                ip("192.168.1.1").map(|i| c.contains_ip(&i).to_string())
            }),
            "false",
        ),
        (
            "cidr_ipv4_not_contains_ip_ipv6_object",
            cidr_method("192.168.1.1/32", |c| {
                ip("2001:db8::1").map(|i| c.contains_ip(&i).to_string())
            }),
            "false",
        ),
        (
            "cidr_get_ip_ipv4",
            cidr_method("192.168.0.0/24", |c| ip("192.168.0.0").map(|i| (c.ip() == i).to_string())),
            "true",
        ),
        (
            "cidr_masked_ipv4",
            cidr_method("192.168.0.1/24", |c| {
                cidr("192.168.0.0/24").map(|o| (c.masked() == o).to_string())
            }),
            "true",
        ),
        (
            "cidr_prefix_length_ipv4",
            cidr_method("192.168.0.0/24", |c| Ok(c.prefix_length().to_string())),
            "24",
        ),
        ("parse_cidr_ipv6", show(cidr("2001:db8::/32")), "2001:db8::/32"),
        (
            "cidr_contains_ip_ipv6_object",
            cidr_method("2001:db8::/32", |c| {
                ip("2001:db8::1").map(|i| c.contains_ip(&i).to_string())
            }),
            "true",
        ),
        (
            "cidr_contains_cidr_ipv6_object",
            cidr_method("2001:db8::/32", |c| {
                cidr("2001:db8::/33").map(|o| c.contains_cidr(&o).to_string())
            }),
            "true",
        ),
        (
            "cidr_get_ip_ipv6",
            cidr_method("2001:db8::/32", |c| ip("2001:db8::").map(|i| (c.ip() == i).to_string())),
            "true",
        ),
        (
            "cidr_prefix_length_ipv6",
            cidr_method("2001:db8::/32", |c| Ok(c.prefix_length().to_string())),
            "32",
        ),
        ("cidr_to_string", show(cidr("192.168.0.0/24")), "192.168.0.0/24"),
    ];
    let failures: Vec<String> = cases
        .iter()
        .filter(|(_, got, want)| got != want)
        .map(|(name, got, want)| format!("{name}: got {got:?}, want {want:?}"))
        .collect();
    assert!(failures.is_empty(), "network_ext mismatches:\n{}", failures.join("\n"));
    assert_eq!(cases.len(), 65);
}
