//! Kubernetes' `net.CIDR` CEL type: `cidr()`, `isCIDR()`, `containsIP()`,
//! `containsCIDR()`, `ip()`, `masked()`, `prefixLength()`, with kube-apiserver's
//! acceptance rules and error texts.

use std::fmt;
use std::net::IpAddr;

use super::ip::Ip;
use super::netip::{self, NetipError};
use certgate_gofmt::quote as go_quote;

/// Why a CIDR operation failed in Kubernetes CEL.
///
/// Kubernetes wraps its parse errors twice with the same prefix; the texts below keep
/// that so messages match kube-apiserver's byte for byte.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CidrError {
    /// Go's `netip.ParsePrefix` rejected the string (this includes IPv6 zones).
    #[error(
        "network address parse error during conversion from string: network address parse error during conversion from string: {reason}"
    )]
    Parse { reason: NetipError },
    /// The prefix address is IPv4-mapped IPv6; write the IPv4 prefix instead.
    #[error(
        "network address parse error during conversion from string: IPv4-mapped IPv6 address {} is not allowed",
        go_quote(.input)
    )]
    Ipv4Mapped { input: String },
    /// `containsIP(string)` with a string that is not an IP address: Kubernetes reports
    /// only "no such overload" here, not the parse error.
    #[error("no such overload")]
    NoSuchOverload { argument: String },
}

/// A Kubernetes CEL `net.CIDR`: an address (as written, not masked) and a prefix
/// length. Equality compares both, so `192.168.0.1/24 != 192.168.0.0/24`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cidr {
    addr: IpAddr,
    bits: u8,
}

impl Cidr {
    /// `cidr(string)`: Go's `netip.ParsePrefix`, then the IPv4-mapped rejection.
    pub fn parse(s: &str) -> Result<Self, CidrError> {
        let (addr, bits) = netip::parse_prefix(s).map_err(|reason| CidrError::Parse { reason })?;
        if netip::is_4in6(&addr) {
            return Err(CidrError::Ipv4Mapped { input: s.to_owned() });
        }
        Ok(Self { addr, bits })
    }

    /// `containsIP(ip)`: the address is of the same family and inside the prefix.
    pub fn contains_ip(&self, ip: &Ip) -> bool {
        let other = ip.addr();
        other.is_ipv4() == self.addr.is_ipv4()
            && netip::mask(&other, self.bits) == netip::mask(&self.addr, self.bits)
    }

    /// `containsIP(string)`: as [`Cidr::contains_ip`] after `ip(string)`; an invalid
    /// string is [`CidrError::NoSuchOverload`], as in Kubernetes.
    pub fn contains_ip_str(&self, s: &str) -> Result<bool, CidrError> {
        let ip = Ip::parse(s).map_err(|_| CidrError::NoSuchOverload { argument: s.to_owned() })?;
        Ok(self.contains_ip(&ip))
    }

    /// `containsCIDR(cidr)`: the other prefix is of the same family, at least as long,
    /// and its address lies inside this prefix. This is the behaviour since
    /// kubernetes/kubernetes#130450 (Kubernetes 1.33); earlier releases compared the
    /// other address unmasked and so wrongly rejected `10.0.0.0/8` ⊇ `10.1.0.0/16`.
    pub fn contains_cidr(&self, other: &Cidr) -> bool {
        other.addr.is_ipv4() == self.addr.is_ipv4()
            && self.bits <= other.bits
            && netip::mask(&other.addr, self.bits) == netip::mask(&self.addr, self.bits)
    }

    /// `containsCIDR(string)`: as [`Cidr::contains_cidr`] after `cidr(string)`, whose
    /// error is returned unchanged.
    pub fn contains_cidr_str(&self, s: &str) -> Result<bool, CidrError> {
        Ok(self.contains_cidr(&Cidr::parse(s)?))
    }

    /// `ip()`: the prefix's address as written (not masked).
    pub fn ip(&self) -> Ip {
        match self.addr {
            IpAddr::V4(v4) => Ip::from(v4),
            IpAddr::V6(v6) => Ip::from(v6),
        }
    }

    /// `masked()`: the same prefix with the host bits zeroed.
    pub fn masked(&self) -> Self {
        Self { addr: netip::mask(&self.addr, self.bits), bits: self.bits }
    }

    /// `prefixLength()`.
    pub fn prefix_length(&self) -> i64 {
        i64::from(self.bits)
    }
}

/// `string(cidr)`: Go's `netip.Prefix.String()`, e.g. `2001:db8::/32`.
impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", netip::addr_to_string(&self.addr), self.bits)
    }
}

/// `isCIDR(string)`: whether [`Cidr::parse`] accepts the string.
pub fn is_cidr(s: &str) -> bool {
    Cidr::parse(s).is_ok()
}
