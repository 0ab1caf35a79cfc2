//! Kubernetes' `net.IP` CEL type: `ip()`, `isIP()`, `ip.isCanonical()` and the
//! address predicates, with kube-apiserver's acceptance rules and error texts.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::netip::{self, NetipError};
use certgate_gofmt::quote as go_quote;

/// Why a string is not an IP address for Kubernetes CEL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IpError {
    /// Go's `netip.ParseAddr` rejected the string.
    #[error("IP Address {} parse error during conversion from string: {reason}", go_quote(.input))]
    Parse { input: String, reason: NetipError },
    /// An IPv6 zone (`fe80::1%eth0`) was given; Kubernetes never accepts zones.
    #[error("IP address {} with zone value is not allowed", go_quote(.input))]
    Zone { input: String },
    /// An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`); write the IPv4 address instead.
    #[error("IPv4-mapped IPv6 address {} is not allowed", go_quote(.input))]
    Ipv4Mapped { input: String },
}

/// A Kubernetes CEL `net.IP`: an IPv4 or IPv6 address, never zoned, never IPv4-mapped
/// when parsed from a string. Equality is address equality (IPv4 never equals IPv6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ip(IpAddr);

impl Ip {
    /// `ip(string)`: parses as Go's `netip.ParseAddr`, then rejects zones and
    /// IPv4-mapped IPv6 addresses as kube-apiserver does.
    pub fn parse(s: &str) -> Result<Self, IpError> {
        let zoned = netip::parse_addr(s)
            .map_err(|reason| IpError::Parse { input: s.to_owned(), reason })?;
        if zoned.zone.is_some() {
            return Err(IpError::Zone { input: s.to_owned() });
        }
        if netip::is_4in6(&zoned.addr) {
            return Err(IpError::Ipv4Mapped { input: s.to_owned() });
        }
        Ok(Self(zoned.addr))
    }

    /// The address as a `std::net` value.
    pub fn addr(&self) -> IpAddr {
        self.0
    }

    /// `family()`: 4 or 6.
    pub fn family(&self) -> i64 {
        match self.0 {
            IpAddr::V4(_) => 4,
            IpAddr::V6(_) => 6,
        }
    }

    /// `isUnspecified()`: `0.0.0.0` or `::`.
    pub fn is_unspecified(&self) -> bool {
        self.0.is_unspecified()
    }

    /// `isLoopback()`: `127.0.0.0/8` or `::1`.
    pub fn is_loopback(&self) -> bool {
        self.0.is_loopback()
    }

    /// `isLinkLocalMulticast()`: `224.0.0.0/24` or `ff02::/16`.
    pub fn is_link_local_multicast(&self) -> bool {
        match self.0 {
            IpAddr::V4(v4) => matches!(v4.octets(), [224, 0, 0, _]),
            IpAddr::V6(v6) => v6.segments()[0] == 0xff02,
        }
    }

    /// `isLinkLocalUnicast()`: `169.254.0.0/16` or `fe80::/10`.
    pub fn is_link_local_unicast(&self) -> bool {
        match self.0 {
            IpAddr::V4(v4) => v4.is_link_local(),
            IpAddr::V6(v6) => v6.segments()[0] & 0xffc0 == 0xfe80,
        }
    }

    /// `isGlobalUnicast()` with Go's meaning: not unspecified, loopback, multicast,
    /// link-local unicast or the IPv4 broadcast address. Private ranges (10/8,
    /// fc00::/7, ...) count as global unicast, as in Go.
    pub fn is_global_unicast(&self) -> bool {
        let multicast = match self.0 {
            IpAddr::V4(v4) => v4.is_multicast() || v4 == Ipv4Addr::BROADCAST,
            IpAddr::V6(v6) => v6.is_multicast(),
        };
        !(multicast || self.is_unspecified() || self.is_loopback() || self.is_link_local_unicast())
    }
}

impl From<Ipv4Addr> for Ip {
    fn from(addr: Ipv4Addr) -> Self {
        Self(IpAddr::V4(addr))
    }
}

impl From<Ipv6Addr> for Ip {
    /// Keeps the address as IPv6 even when IPv4-mapped (as Go's `netip.AddrFrom16`).
    fn from(addr: Ipv6Addr) -> Self {
        Self(IpAddr::V6(addr))
    }
}

/// `string(ip)`: Go's `netip.Addr.String()` (canonical RFC 5952 form for IPv6).
impl fmt::Display for Ip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&netip::addr_to_string(&self.0))
    }
}

/// `isIP(string)`: whether [`Ip::parse`] accepts the string.
pub fn is_ip(s: &str) -> bool {
    Ip::parse(s).is_ok()
}

/// `ip.isCanonical(string)`: whether the string is already in canonical form; an
/// unparsable string is an error, not `false`.
pub fn is_canonical(s: &str) -> Result<bool, IpError> {
    Ok(Ip::parse(s)?.to_string() == s)
}
