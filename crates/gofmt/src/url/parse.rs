//! Go's `url.Parse` and `url.ParseRequestURI`: scheme, authority, path, raw query and
//! fragment, and the checks that reject input.

use std::net::IpAddr;

use super::escape::{EscapeError, Mode, escape, is_sub_delim, unescape};
use crate::quote;

/// Go's `netip.ParseAddr`, which Go's URL parser applies to the inside of a bracketed
/// host (an address, possibly with a `%zone`). Callers supply it so that the error they
/// report can be Go's; any `Fn(&str) -> Result<IpAddr, E>` is one.
pub trait AddrParser {
    /// Why the address is not one; shown after `invalid host: `.
    type Error;
    /// The address `text` stands for, zone dropped.
    fn parse_addr(&self, text: &str) -> Result<IpAddr, Self::Error>;
}

impl<E, F: Fn(&str) -> Result<IpAddr, E>> AddrParser for F {
    type Error = E;
    fn parse_addr(&self, text: &str) -> Result<IpAddr, E> {
        self(text)
    }
}

/// The reason Go's URL parser gives for rejecting a URL, with Go's text; `E` is the
/// [`AddrParser`]'s error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlParseReason<E> {
    #[error("net/url: invalid control character in URL")]
    ControlCharacter,
    #[error("empty url")]
    Empty,
    #[error("missing protocol scheme")]
    MissingScheme,
    /// Neither a scheme nor a leading `/`: relative references are not request URIs.
    #[error("invalid URI for request")]
    NotAbsolute,
    #[error("first path segment in URL cannot contain colon")]
    ColonInFirstSegment,
    #[error("missing ']' in host")]
    MissingBracket,
    /// A `[` not at the start of the host, or an IPv4 address in brackets.
    #[error("invalid IP-literal")]
    InvalidIpLiteral,
    /// The bracketed host is not an IP address.
    #[error("invalid host: {0}")]
    InvalidHostAddress(E),
    #[error("invalid port {} after host", quote(.0))]
    InvalidPort(String),
    #[error("net/url: invalid userinfo")]
    InvalidUserinfo,
    /// A malformed or disallowed `%` escape (the bytes as written, up to three).
    #[error("invalid URL escape {}", crate::quote_bytes(.0))]
    Escape(Vec<u8>),
    #[error("invalid character {} in host name", quote(.0))]
    InvalidHost(String),
}

impl<E> From<EscapeError> for UrlParseReason<E> {
    fn from(error: EscapeError) -> Self {
        match error {
            EscapeError::Escape(bytes) => Self::Escape(bytes),
            EscapeError::InvalidHost(literal) => Self::InvalidHost(literal),
        }
    }
}

/// Unescaped user name and optional password of a URL's authority.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub name: Vec<u8>,
    pub password: Option<Vec<u8>>,
}

/// A URL as Go's `url.URL` holds it. Decoded components are bytes because escapes may
/// decode to invalid UTF-8, which Go strings allow.
#[derive(Clone, Debug, Default)]
pub struct GoUrl {
    /// Lower-cased scheme, empty for a reference without one.
    pub(super) scheme: String,
    /// What follows `scheme:` when it does not start with `/` (`mailto:x`).
    pub(super) opaque: String,
    pub(super) user: Option<User>,
    /// Unescaped `host[:port]`, IPv6 literals in brackets.
    pub(super) host: Vec<u8>,
    /// `scheme:/path` (no `//`): Go keeps the empty host out when re-serialising.
    pub(super) omit_host: bool,
    pub(super) path: Vec<u8>,
    /// The path as written, kept only when it differs from Go's escaping of `path`.
    pub(super) raw_path: String,
    /// The query after `?`, still encoded.
    pub(super) raw_query: String,
    /// A lone trailing `?`: an empty query that Go re-serialises.
    pub(super) force_query: bool,
    pub(super) fragment: Vec<u8>,
    /// The fragment as written, kept only when it differs from Go's escaping.
    pub(super) raw_fragment: String,
}

impl GoUrl {
    /// Go's `url.Parse`: cuts the `#fragment` off, parses the rest as a URI reference
    /// and checks the fragment's escapes. The error carries the input Go names in its
    /// message (the text before `#` unless the fragment was at fault).
    pub fn parse<A: AddrParser>(
        raw: &str,
        addr: &A,
    ) -> Result<Self, (String, UrlParseReason<A::Error>)> {
        let (without_fragment, fragment) = raw.split_once('#').unwrap_or((raw, ""));
        let mut url = parse(without_fragment, false, addr)
            .map_err(|reason| (without_fragment.to_owned(), reason))?;
        url.fragment =
            unescape(fragment, Mode::Fragment).map_err(|e| (raw.to_owned(), e.into()))?;
        if escape(&url.fragment, Mode::Fragment) != fragment {
            url.raw_fragment = fragment.to_owned();
        }
        Ok(url)
    }

    /// Go's `url.ParseRequestURI`: the whole string (a `#` is not special) must be an
    /// absolute URI or an absolute path.
    pub fn parse_request_uri<A: AddrParser>(
        raw: &str,
        addr: &A,
    ) -> Result<Self, UrlParseReason<A::Error>> {
        parse(raw, true, addr)
    }

    /// Lower-cased scheme, empty when there is none.
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// What follows `scheme:` when it does not start with `/` (`mailto:x`), else empty.
    pub fn opaque(&self) -> &str {
        &self.opaque
    }

    pub fn user(&self) -> Option<&User> {
        self.user.as_ref()
    }

    /// Unescaped `host[:port]`, IPv6 literals in brackets; empty when absent.
    pub fn host(&self) -> &[u8] {
        &self.host
    }

    /// Unescaped path.
    pub fn path(&self) -> &[u8] {
        &self.path
    }

    /// The query after `?` as written (still encoded).
    pub fn raw_query(&self) -> &str {
        &self.raw_query
    }

    /// Unescaped fragment.
    pub fn fragment(&self) -> &[u8] {
        &self.fragment
    }
}

fn parse<A: AddrParser>(
    raw: &str,
    via_request: bool,
    addr: &A,
) -> Result<GoUrl, UrlParseReason<A::Error>> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err(UrlParseReason::ControlCharacter);
    }
    if raw.is_empty() && via_request {
        return Err(UrlParseReason::Empty);
    }
    let mut url = GoUrl::default();
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, mut rest) = split_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = rest.strip_suffix('?').unwrap_or(rest);
        url.force_query = true;
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_owned();
        rest = before;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // `mailto:x`, `urn:a:b`: an opaque URI, with neither host nor path.
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        if via_request {
            return Err(UrlParseReason::NotAbsolute);
        }
        // Otherwise the text before the colon would read as a scheme.
        let first_segment = rest.split('/').next().unwrap_or_default();
        if first_segment.contains(':') {
            return Err(UrlParseReason::ColonInFirstSegment);
        }
    }
    let has_authority = (!url.scheme.is_empty() || (!via_request && !rest.starts_with("///")))
        && rest.starts_with("//");
    if has_authority {
        let authority_and_path = rest.get(2..).unwrap_or_default();
        let (authority, path) = match authority_and_path.find('/') {
            Some(i) => authority_and_path.split_at(i),
            None => (authority_and_path, ""),
        };
        (url.user, url.host) = parse_authority(&url.scheme, authority, addr)?;
        rest = path;
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    url.path = unescape(rest, Mode::Path)?;
    if escape(&url.path, Mode::Path) != rest {
        url.raw_path = rest.to_owned();
    }
    Ok(url)
}

/// Go's `getScheme`: a letter, then letters, digits, `+`, `-`, `.` up to the first `:`.
fn split_scheme<E>(raw: &str) -> Result<(&str, &str), UrlParseReason<E>> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err(UrlParseReason::MissingScheme),
            b':' => {
                let (scheme, rest) = raw.split_at(i);
                return Ok((scheme, rest.get(1..).unwrap_or_default()));
            }
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// The user info (if any) and unescaped host of an authority.
type Authority = (Option<User>, Vec<u8>);

/// Go's `parseAuthority`: optional `userinfo@` and the host.
fn parse_authority<A: AddrParser>(
    scheme: &str,
    authority: &str,
    addr: &A,
) -> Result<Authority, UrlParseReason<A::Error>> {
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return Ok((None, parse_host(scheme, authority, addr)?));
    };
    let host = parse_host(scheme, host, addr)?;
    if !userinfo.bytes().all(valid_userinfo_byte) {
        return Err(UrlParseReason::InvalidUserinfo);
    }
    let user = match userinfo.split_once(':') {
        Some((name, password)) => User {
            name: unescape(name, Mode::UserPassword)?,
            password: Some(unescape(password, Mode::UserPassword)?),
        },
        None => User { name: unescape(userinfo, Mode::UserPassword)?, password: None },
    };
    Ok((Some(user), host))
}

fn valid_userinfo_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || is_sub_delim(c)
        || matches!(c, b'-' | b'.' | b'_' | b'~' | b':' | b'%' | b'@')
}

/// Go's `parseHost`: a bracketed IP literal must hold an IPv6 address (optionally with
/// a `%25zone`), and `http`/`https` hosts may hold only one `:` (other schemes may list
/// `h1:1,h2:2`).
fn parse_host<A: AddrParser>(
    scheme: &str,
    host: &str,
    addr: &A,
) -> Result<Vec<u8>, UrlParseReason<A::Error>> {
    match host.rfind('[') {
        Some(0) => return parse_ip_literal(host, addr),
        Some(_) => return Err(UrlParseReason::InvalidIpLiteral),
        None => {}
    }
    if let (Some(first), Some(last)) = (host.find(':'), host.rfind(':')) {
        let at = if first != last && scheme != "http" && scheme != "https" { last } else { first };
        let colon_port = host.get(at..).unwrap_or_default();
        if !valid_optional_port(colon_port) {
            return Err(UrlParseReason::InvalidPort(colon_port.to_owned()));
        }
    }
    Ok(unescape(host, Mode::Host)?)
}

/// `[address]` or `[address%25zone]`, then an optional `:port`.
fn parse_ip_literal<A: AddrParser>(
    host: &str,
    addr: &A,
) -> Result<Vec<u8>, UrlParseReason<A::Error>> {
    let Some(close) = host.rfind(']') else {
        return Err(UrlParseReason::MissingBracket);
    };
    let colon_port = host.get(close + 1..).unwrap_or_default();
    if !valid_optional_port(colon_port) {
        return Err(UrlParseReason::InvalidPort(colon_port.to_owned()));
    }
    let port = unescape(colon_port, Mode::Host)?;
    let literal = host.get(1..close).unwrap_or_default();
    let mut address = match literal.find("%25") {
        Some(zone_at) => {
            let (address, zone) = literal.split_at(zone_at);
            let mut out = unescape(address, Mode::Host)?;
            out.extend(unescape(zone, Mode::Zone)?);
            out
        }
        None => unescape(literal, Mode::Host)?,
    };
    let text = String::from_utf8_lossy(&address);
    if addr.parse_addr(&text).map_err(UrlParseReason::InvalidHostAddress)?.is_ipv4() {
        return Err(UrlParseReason::InvalidIpLiteral);
    }
    let mut out = Vec::with_capacity(address.len() + port.len() + 2);
    out.push(b'[');
    out.append(&mut address);
    out.push(b']');
    out.extend(port);
    Ok(out)
}

/// Go's `validOptionalPort`: empty, or `:` followed by digits only.
pub fn valid_optional_port(port: &str) -> bool {
    match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(digits) => digits.bytes().all(|b| b.is_ascii_digit()),
    }
}
