//! IP SAN bytes rendered exactly as Go's `net.IP.String()`, because policy patterns and CEL
//! rules are written against that text.

use std::fmt::Write as _;

/// Renders `bytes` as Go's `net.IP(bytes).String()` does.
pub(crate) fn go_ip_string(bytes: &[u8]) -> String {
    match bytes {
        [] => "<nil>".to_string(),
        [a, b, c, d] => format!("{a}.{b}.{c}.{d}"),
        // IPv4-mapped IPv6 (::ffff:a.b.c.d) is shown as plain IPv4.
        [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d] => format!("{a}.{b}.{c}.{d}"),
        _ => match <[u8; 16]>::try_from(bytes) {
            Ok(v6) => ipv6(&v6),
            Err(_) => {
                let mut out = String::from("?");
                for byte in bytes {
                    let _ = write!(out, "{byte:02x}");
                }
                out
            }
        },
    }
}

/// RFC 5952 text: lowercase, no leading zeros, the first longest run of two or more zero
/// groups replaced by `::`.
fn ipv6(bytes: &[u8; 16]) -> String {
    let groups: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| pair.iter().fold(0u16, |acc, &b| (acc << 8) | u16::from(b)))
        .collect();

    let mut best: Option<(usize, usize)> = None;
    let mut start = 0;
    while start < groups.len() {
        let run = groups.iter().skip(start).take_while(|&&g| g == 0).count();
        let longer = best.is_none_or(|(s, e)| run > e - s);
        if run >= 2 && longer {
            best = Some((start, start + run));
        }
        start += run.max(1);
    }

    let mut out = String::new();
    let mut index = 0;
    let mut need_colon = false;
    while let Some(group) = groups.get(index) {
        if let Some((_, zero_end)) = best.filter(|&(zero_start, _)| zero_start == index) {
            out.push_str("::");
            index = zero_end;
            need_colon = false;
            continue;
        }
        if need_colon {
            out.push(':');
        }
        let _ = write!(out, "{group:x}");
        need_colon = true;
        index += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6(text: &str) -> Vec<u8> {
        text.parse::<std::net::Ipv6Addr>().unwrap().octets().to_vec()
    }

    #[test]
    fn ipv4_forms() {
        assert_eq!(go_ip_string(&[10, 0, 0, 1]), "10.0.0.1");
        assert_eq!(go_ip_string(&v6("::ffff:192.0.2.7")), "192.0.2.7");
    }

    #[test]
    fn ipv6_compression_follows_rfc_5952() {
        assert_eq!(go_ip_string(&v6("2001:db8::1")), "2001:db8::1");
        assert_eq!(go_ip_string(&v6("::")), "::");
        assert_eq!(go_ip_string(&v6("::1")), "::1");
        assert_eq!(go_ip_string(&v6("1::")), "1::");
        // A single zero group is not compressed.
        assert_eq!(go_ip_string(&v6("2001:db8:0:1:1:1:1:1")), "2001:db8:0:1:1:1:1:1");
        // The longest run wins; on a tie, the first.
        assert_eq!(go_ip_string(&v6("1:0:0:2:0:0:0:3")), "1:0:0:2::3");
        assert_eq!(go_ip_string(&v6("1:0:0:2:3:0:0:4")), "1::2:3:0:0:4");
        assert_eq!(go_ip_string(&v6("FE80:0:0:0:ABCD:0:0:1")), "fe80::abcd:0:0:1");
        // IPv4-compatible (not mapped) addresses stay hexadecimal.
        assert_eq!(go_ip_string(&v6("::1.2.3.4")), "::102:304");
        assert_eq!(go_ip_string(&v6("::fffe:1.2.3.4")), "::fffe:102:304");
    }

    #[test]
    fn other_lengths_are_hex_with_question_mark() {
        assert_eq!(go_ip_string(&[]), "<nil>");
        assert_eq!(go_ip_string(&[0xAB, 0x01, 0x02]), "?ab0102");
        assert_eq!(go_ip_string(&[1, 2, 3, 4, 5, 6, 7, 8]), "?0102030405060708");
    }
}
