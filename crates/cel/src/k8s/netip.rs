//! Go's `net/netip` address and prefix parsing and formatting.
//!
//! Kubernetes' `ip()` and `cidr()` accept exactly what `netip.ParseAddr` and
//! `netip.ParsePrefix` accept (then reject zones and IPv4-mapped IPv6 addresses), and
//! embed their error messages. `std::net` parsing accepts and rejects different inputs
//! and words errors differently, so the Go rules are reproduced here.

use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use certgate_gofmt::quote as go_quote;

/// An error of Go's `netip.ParseAddr` / `netip.ParsePrefix`, with Go's message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetipError {
    /// `ParseAddr` failed; `msg` is Go's reason.
    #[error("ParseAddr({}): {msg}", go_quote(.input))]
    Addr { input: String, msg: &'static str },
    /// `ParseAddr` failed at a position; `at` is the rest of the input from there.
    #[error("ParseAddr({}): {msg} (at {})", go_quote(.input), go_quote(.at))]
    AddrAt { input: String, msg: &'static str, at: String },
    /// `ParsePrefix` failed; `msg` is Go's reason (possibly a whole `ParseAddr` message).
    #[error("netip.ParsePrefix({}): {msg}", go_quote(.input))]
    Prefix { input: String, msg: String },
}

/// An address as Go's `netip.Addr` holds it: the address and its IPv6 zone, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZonedAddr {
    pub addr: IpAddr,
    /// The zone after `%`; Go only allows it on IPv6 addresses.
    pub zone: Option<String>,
}

fn addr_err(input: &str, msg: &'static str) -> NetipError {
    NetipError::Addr { input: input.to_owned(), msg }
}

/// Go omits the position when the rest of the input is empty.
fn addr_err_at(input: &str, msg: &'static str, at: &str) -> NetipError {
    if at.is_empty() {
        return addr_err(input, msg);
    }
    NetipError::AddrAt { input: input.to_owned(), msg, at: at.to_owned() }
}

/// Go's `netip.ParseAddr`: dotted-quad IPv4 without leading zeros, or IPv6 (with an
/// optional embedded IPv4 tail and optional `%zone`). The first `.`, `:` or `%`
/// decides which grammar applies, as in Go.
pub fn parse_addr(s: &str) -> Result<ZonedAddr, NetipError> {
    for b in s.bytes() {
        match b {
            b'.' => {
                let mut octets = [0u8; 4];
                parse_ipv4_fields(s, s, &mut octets)?;
                return Ok(ZonedAddr { addr: IpAddr::V4(Ipv4Addr::from(octets)), zone: None });
            }
            b':' => return parse_ipv6(s),
            b'%' => return Err(addr_err(s, "missing IPv6 address")),
            _ => {}
        }
    }
    Err(addr_err(s, "unable to parse IP"))
}

/// Parses the dotted quad `part` (all of `input`, or an IPv6 address's IPv4 tail) into
/// `octets`; errors name the whole `input` as Go's do.
fn parse_ipv4_fields(input: &str, part: &str, octets: &mut [u8; 4]) -> Result<(), NetipError> {
    let bytes = part.as_bytes();
    let mut val: u32 = 0;
    let mut pos = 0usize;
    let mut digits = 0usize;
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'0'..=b'9' => {
                if digits == 1 && val == 0 {
                    return Err(addr_err(input, "IPv4 field has octet with leading zero"));
                }
                val = val * 10 + u32::from(c - b'0');
                digits += 1;
                if val > 255 {
                    return Err(addr_err(input, "IPv4 field has value >255"));
                }
            }
            b'.' => {
                if i == 0 || i == bytes.len() - 1 || bytes.get(i - 1) == Some(&b'.') {
                    return Err(addr_err_at(
                        input,
                        "IPv4 field must have at least one digit",
                        part.get(i..).unwrap_or_default(),
                    ));
                }
                if pos == 3 {
                    return Err(addr_err(input, "IPv4 address too long"));
                }
                if let Some(slot) = octets.get_mut(pos) {
                    // val <= 255 was checked when the digit was read.
                    *slot = u8::try_from(val).unwrap_or(u8::MAX);
                }
                pos += 1;
                val = 0;
                digits = 0;
            }
            _ => {
                return Err(addr_err_at(
                    input,
                    "unexpected character",
                    part.get(i..).unwrap_or_default(),
                ));
            }
        }
    }
    if pos < 3 {
        return Err(addr_err(input, "IPv4 address too short"));
    }
    octets[3] = u8::try_from(val).unwrap_or(u8::MAX);
    Ok(())
}

/// Go's IPv6 grammar: up to eight 1–4 digit hex fields, one optional `::`, an optional
/// IPv4 tail in place of the last two fields, and an optional non-empty `%zone`.
fn parse_ipv6(input: &str) -> Result<ZonedAddr, NetipError> {
    let (mut s, zone) = match input.split_once('%') {
        Some((_, "")) => return Err(addr_err(input, "zone must be a non-empty string")),
        Some((addr, zone)) => (addr, Some(zone.to_owned())),
        None => (input, None),
    };
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if let Some(rest) = s.strip_prefix("::") {
        ellipsis = Some(0);
        s = rest;
        if s.is_empty() {
            return Ok(ZonedAddr { addr: IpAddr::V6(Ipv6Addr::UNSPECIFIED), zone });
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let bytes = s.as_bytes();
        let mut off = 0usize;
        let mut acc: u32 = 0;
        while let Some(&c) = bytes.get(off) {
            let Some(d) = (c as char).to_digit(16) else {
                break;
            };
            acc = (acc << 4) + d;
            // Four hex digits cannot exceed 0xffff, so this also bounds the value.
            if off > 3 {
                return Err(addr_err_at(
                    input,
                    "each colon-separated field must have at most 4 hex digits",
                    s,
                ));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_err_at(
                input,
                "each colon-separated field must have at least one digit",
                s,
            ));
        }
        if bytes.get(off) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return Err(addr_err_at(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    s,
                ));
            }
            if i + 4 > 16 {
                return Err(addr_err_at(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                ));
            }
            let mut octets = [0u8; 4];
            parse_ipv4_fields(input, s, &mut octets)?;
            ip[i..i + 4].copy_from_slice(&octets);
            s = "";
            i += 4;
            break;
        }
        let [hi, lo] = u16::try_from(acc).unwrap_or(u16::MAX).to_be_bytes();
        ip[i] = hi;
        ip[i + 1] = lo;
        i += 2;
        s = s.get(off..).unwrap_or_default();
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_err_at(input, "unexpected character, want colon", s));
        }
        if s.len() == 1 {
            return Err(addr_err_at(input, "colon must be followed by more characters", s));
        }
        s = s.get(1..).unwrap_or_default();
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_err_at(input, "multiple :: in address", s));
            }
            ellipsis = Some(i);
            s = s.get(1..).unwrap_or_default();
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_err_at(input, "trailing garbage after address", s));
    }
    if i < 16 {
        let Some(at) = ellipsis else {
            return Err(addr_err(input, "address string too short"));
        };
        // Shift the fields after `::` to the end and zero the gap.
        let n = 16 - i;
        ip.copy_within(at..i, at + n);
        ip[at..at + n].fill(0);
    } else if ellipsis.is_some() {
        return Err(addr_err_at(input, "the :: must expand to at least one field of zeros", s));
    }
    Ok(ZonedAddr { addr: IpAddr::V6(Ipv6Addr::from(ip)), zone })
}

/// Go's `netip.ParsePrefix`: `addr/bits` with a zone-free address and a decimal prefix
/// length without sign or leading zeros. The address is kept as written (not masked).
pub fn parse_prefix(s: &str) -> Result<(IpAddr, u8), NetipError> {
    let prefix_err = |msg: String| NetipError::Prefix { input: s.to_owned(), msg };
    let Some((addr_part, bits_part)) = s.rsplit_once('/') else {
        return Err(prefix_err("no '/'".to_owned()));
    };
    let zoned = parse_addr(addr_part).map_err(|e| prefix_err(e.to_string()))?;
    if zoned.addr.is_ipv6() && zoned.zone.is_some() {
        return Err(prefix_err("IPv6 zones cannot be present in a prefix".to_owned()));
    }
    let bad_bits = || prefix_err(format!("bad bits after slash: {}", go_quote(bits_part)));
    // Decimal digits only: no sign, no leading zero (a lone "0" is fine).
    let leading_zero = bits_part.len() > 1 && bits_part.starts_with('0');
    if bits_part.is_empty() || leading_zero || !bits_part.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_bits());
    }
    // Go's strconv.Atoi fails (bad bits) beyond i64; smaller values are range-checked.
    let bits: i64 = bits_part.parse().map_err(|_| bad_bits())?;
    let max_bits = if zoned.addr.is_ipv6() { 128 } else { 32 };
    if bits > max_bits {
        return Err(prefix_err("prefix length out of range".to_owned()));
    }
    Ok((zoned.addr, u8::try_from(bits).unwrap_or(u8::MAX)))
}

/// True for an IPv6 address in `::ffff:0:0/96` (Go's `Addr.Is4In6`).
pub fn is_4in6(addr: &IpAddr) -> bool {
    matches!(addr, IpAddr::V6(v6) if v6.to_ipv4_mapped().is_some())
}

/// Go's `netip.Addr.String()` (without zone): dotted quad for IPv4; for IPv6, lower-case
/// hex with the first longest run of two or more zero fields as `::`, and
/// `::ffff:a.b.c.d` for IPv4-mapped addresses.
pub fn addr_to_string(addr: &IpAddr) -> String {
    match addr {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return format!("::ffff:{v4}");
            }
            ipv6_to_string(v6)
        }
    }
}

fn ipv6_to_string(v6: &Ipv6Addr) -> String {
    let fields = v6.segments();
    let (mut zero_start, mut zero_end) = (usize::MAX, usize::MAX);
    let mut best = 0usize;
    let mut i = 0usize;
    while i < fields.len() {
        let run = fields.iter().skip(i).take_while(|&&f| f == 0).count();
        if run >= 2 && run > best {
            best = run;
            zero_start = i;
            zero_end = i + run;
        }
        i += run.max(1);
    }
    let mut out = String::with_capacity(39);
    for (idx, field) in fields.iter().enumerate() {
        if idx == zero_start {
            out.push_str("::");
            continue;
        }
        if idx > zero_start && idx < zero_end {
            continue;
        }
        if idx != 0 && idx != zero_end {
            out.push(':');
        }
        let _ = write!(out, "{field:x}");
    }
    out
}

/// Zeroes all but the first `bits` bits of `addr` (Go's `Addr.Prefix(bits).Addr()`).
pub fn mask(addr: &IpAddr, bits: u8) -> IpAddr {
    match addr {
        IpAddr::V4(v4) => {
            let m = u32::MAX.checked_shl(32 - u32::from(bits.min(32))).unwrap_or(0);
            IpAddr::V4(Ipv4Addr::from(u32::from(*v4) & m))
        }
        IpAddr::V6(v6) => {
            let m = u128::MAX.checked_shl(128 - u32::from(bits.min(128))).unwrap_or(0);
            IpAddr::V6(Ipv6Addr::from(u128::from(*v6) & m))
        }
    }
}
