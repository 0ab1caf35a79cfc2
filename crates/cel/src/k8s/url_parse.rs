//! Go's `url.Parse` / `url.ParseRequestURI` (the parts Kubernetes' URL library
//! observes): scheme, authority, path, raw query, and the checks that reject input.

use super::netip::{self, NetipError};
use super::url_escape::{Mode, escape, unescape};
use certgate_gofmt::{quote as go_quote, quote_bytes as go_quote_bytes};

/// The reason Go's URL parser gives for rejecting a URL, with Go's text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlParseReason {
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
    InvalidHostAddress(NetipError),
    #[error("invalid port {} after host", go_quote(.0))]
    InvalidPort(String),
    #[error("net/url: invalid userinfo")]
    InvalidUserinfo,
    /// A malformed or disallowed `%` escape (the bytes as written, up to three).
    #[error("invalid URL escape {}", go_quote_bytes(.0))]
    Escape(Vec<u8>),
    #[error("invalid character {} in host name", go_quote(.0))]
    InvalidHost(String),
}

/// The components of a parsed URL that Kubernetes exposes.
#[derive(Clone, Debug, Default)]
pub(crate) struct GoUrl {
    /// Lower-cased scheme, empty for an absolute path.
    pub scheme: String,
    /// What follows `scheme:` when it does not start with `/` (`mailto:x`).
    pub opaque: String,
    /// Unescaped user name and optional password.
    pub user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    /// Unescaped `host[:port]`, IPv6 literals in brackets.
    pub host: Vec<u8>,
    /// `scheme:/path` (no `//`): Go keeps the host out when re-serialising.
    pub omit_host: bool,
    /// Unescaped path bytes (escapes may decode to non-UTF-8 bytes).
    pub path: Vec<u8>,
    /// The path as written, kept only when it differs from Go's escaping of `path`.
    pub raw_path: String,
    /// The query after `?`, still encoded.
    pub raw_query: String,
    /// A lone trailing `?` (an empty query that Go re-serialises).
    pub force_query: bool,
    /// Unescaped fragment bytes.
    pub fragment: Vec<u8>,
    /// The fragment as written, kept only when it differs from Go's escaping.
    pub raw_fragment: String,
}

/// Go's `url.ParseRequestURI`: the whole string (a `#` is not special) must be an
/// absolute URI or an absolute path.
pub(crate) fn parse_request_uri(raw: &str) -> Result<GoUrl, UrlParseReason> {
    parse(raw, true)
}

/// Go's `url.Parse`: cuts the `#fragment` off, parses the rest as a URI reference and
/// checks the fragment's escapes. Returns the input Go names in its error alongside.
pub(crate) fn parse_reference(raw: &str) -> Result<GoUrl, (String, UrlParseReason)> {
    let (without_fragment, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse(without_fragment, false).map_err(|e| (without_fragment.to_owned(), e))?;
    url.fragment = unescape(fragment, Mode::Fragment).map_err(|e| (raw.to_owned(), e))?;
    if escape(&url.fragment, Mode::Fragment) != fragment {
        url.raw_fragment = fragment.to_owned();
    }
    Ok(url)
}

fn parse(raw: &str, via_request: bool) -> Result<GoUrl, UrlParseReason> {
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
    let (scheme, rest) = split_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest;
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        // A lone trailing `?` is an empty query (Go's ForceQuery), not part of the path.
        rest = rest.get(..rest.len() - 1).unwrap_or_default();
        url.force_query = true;
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_owned();
        rest = before;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // `mailto:x`: an opaque URI, with neither host nor path.
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        if via_request {
            return Err(UrlParseReason::NotAbsolute);
        }
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
        (url.user, url.host) = parse_authority(&url.scheme, authority)?;
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

/// Go's `getScheme`: letters, then letters, digits, `+`, `-`, `.` up to the first `:`.
fn split_scheme(raw: &str) -> Result<(&str, &str), UrlParseReason> {
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

/// Go's `parseAuthority`: optional `userinfo@` (validated, not kept) and the host.
/// An unescaped user name and optional password.
type User = (Vec<u8>, Option<Vec<u8>>);

fn parse_authority(
    scheme: &str,
    authority: &str,
) -> Result<(Option<User>, Vec<u8>), UrlParseReason> {
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return Ok((None, parse_host(scheme, authority)?));
    };
    let host = parse_host(scheme, host)?;
    if !userinfo.bytes().all(valid_userinfo_byte) {
        return Err(UrlParseReason::InvalidUserinfo);
    }
    let user = match userinfo.split_once(':') {
        Some((name, password)) => {
            (unescape(name, Mode::UserPassword)?, Some(unescape(password, Mode::UserPassword)?))
        }
        None => (unescape(userinfo, Mode::UserPassword)?, None),
    };
    Ok((Some(user), host))
}

fn valid_userinfo_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'-' | b'.'
                | b'_'
                | b':'
                | b'~'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b'%'
                | b'@'
        )
}

/// Go's `parseHost` (Go 1.26 rules, which the current Kubernetes release is built
/// with): a bracketed IP literal must hold an IPv6 address (optionally with a `%25zone`),
/// and `http`/`https` hosts may hold only one `:` (other schemes may list `h1:1,h2:2`).
fn parse_host(scheme: &str, host: &str) -> Result<Vec<u8>, UrlParseReason> {
    match host.rfind('[') {
        Some(0) => return parse_ip_literal(host),
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
    unescape(host, Mode::Host)
}

/// `[address]` or `[address%25zone]`, then an optional `:port`.
fn parse_ip_literal(host: &str) -> Result<Vec<u8>, UrlParseReason> {
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
    let text = String::from_utf8_lossy(&address).into_owned();
    let parsed = netip::parse_addr(&text).map_err(UrlParseReason::InvalidHostAddress)?;
    if parsed.addr.is_ipv4() {
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
pub(crate) fn valid_optional_port(port: &str) -> bool {
    match port.strip_prefix(':') {
        None => port.is_empty(),
        Some(digits) => digits.bytes().all(|b| b.is_ascii_digit()),
    }
}
