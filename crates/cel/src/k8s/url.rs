//! Kubernetes' `kubernetes.URL` CEL type: `url()`, `isURL()` and the component
//! getters, with kube-apiserver's acceptance rules (Go's `url.ParseRequestURI`) and
//! error texts. Go's rules are those of Go 1.26 (strict colons in `http`/`https` hosts,
//! only IPv6 inside brackets), the toolchain of current Kubernetes releases.
//!
//! Go strings may hold any bytes; CEL strings here are UTF-8, so a host, path or query
//! whose percent-escapes decode to invalid UTF-8 is returned with U+FFFD in place of
//! the invalid bytes (`getEscapedPath` is unaffected: it re-escapes the raw bytes).

use std::collections::BTreeMap;
use std::fmt;

use super::netip::{self, NetipError};
use certgate_gofmt::quote as go_quote;
use certgate_gofmt::url::{GoUrl, Mode, unescape, valid_optional_port};

/// The reason Go's URL parser gives for rejecting a URL, with Go's text; a bad
/// bracketed host carries Go's `netip.ParseAddr` error.
pub type UrlParseReason = certgate_gofmt::url::UrlParseReason<NetipError>;

/// Go's `netip.ParseAddr`, which Go's URL parser applies to bracketed hosts.
fn parse_ip_literal(text: &str) -> Result<std::net::IpAddr, NetipError> {
    netip::parse_addr(text).map(|zoned| zoned.addr)
}

/// Go's default limit on the number of query parameters (`GODEBUG=urlmaxqueryparams`).
pub const MAX_QUERY_PARAMS: usize = 10_000;

/// Why a string is not a URL for Kubernetes CEL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Go's URL parser rejected `input` for `reason`. URLs must be absolute
    /// (`scheme:...`) or absolute paths (`/...`).
    #[error("URL parse error during conversion from string: parse {}: {reason}", go_quote(.input))]
    Parse { input: String, reason: UrlParseReason },
}

/// A Kubernetes CEL URL. Equality is Kubernetes': equal Go `URL.String()` forms (see
/// the [`Display`](fmt::Display) implementation), so user info and fragment count.
#[derive(Clone, Debug)]
pub struct Url {
    parsed: GoUrl,
    /// The host as UTF-8 (see the module notes on invalid UTF-8).
    host: String,
}

impl Url {
    /// `url(string)`: the string must pass Go's `url.ParseRequestURI`; the components
    /// then come from Go's `url.Parse`, which treats `#fragment` as a fragment (so
    /// `url('/p#x').getEscapedPath()` is `/p`) and `//host/path` as having a host.
    pub fn parse(s: &str) -> Result<Self, UrlError> {
        GoUrl::parse_request_uri(s, &parse_ip_literal)
            .map_err(|reason| UrlError::Parse { input: s.to_owned(), reason })?;
        let parsed = GoUrl::parse(s, &parse_ip_literal)
            .map_err(|(input, reason)| UrlError::Parse { input, reason })?;
        let host = String::from_utf8_lossy(parsed.host()).into_owned();
        Ok(Self { parsed, host })
    }

    /// `getScheme()`: lower-cased, empty for an absolute path.
    pub fn scheme(&self) -> &str {
        self.parsed.scheme()
    }

    /// `getHost()`: `host[:port]`, IPv6 literals with brackets; empty if absent.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// `getHostname()`: the host without port, IPv6 literals without brackets.
    pub fn hostname(&self) -> &str {
        let mut host = self.host.as_str();
        if let Some(colon) = host.rfind(':')
            && valid_optional_port(host.get(colon..).unwrap_or_default())
        {
            host = host.get(..colon).unwrap_or_default();
        }
        host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host)
    }

    /// `getPort()`: the digits after the host's last `:`, empty if absent.
    pub fn port(&self) -> &str {
        let host = self.host.as_str();
        match host.rfind(':') {
            Some(colon) if valid_optional_port(host.get(colon..).unwrap_or_default()) => {
                host.get(colon + 1..).unwrap_or_default()
            }
            _ => "",
        }
    }

    /// `getEscapedPath()`: the path as written when that is a valid encoding of it,
    /// otherwise Go's escaping of the decoded path (`a b` becomes `a%20b`).
    pub fn escaped_path(&self) -> String {
        self.parsed.escaped_path()
    }

    /// `getQuery()`: Go's `url.ParseQuery` of the query, keys and values unescaped
    /// (`+` is a space), repeated keys collecting values in order. As in Kubernetes,
    /// malformed pairs (bad `%` escapes, or containing `;`) are skipped, not errors.
    ///
    /// A query of more than [`MAX_QUERY_PARAMS`] `&`-separated parameters is an error to
    /// Go's `ParseQuery` (Go ≥ 1.25.6 default), which Kubernetes ignores: the result is
    /// an empty map.
    pub fn query(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        if self.parsed.raw_query().matches('&').count() >= MAX_QUERY_PARAMS {
            return out;
        }
        for pair in self.parsed.raw_query().split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(key), Ok(value)) =
                (unescape(key, Mode::QueryComponent), unescape(value, Mode::QueryComponent))
            else {
                continue;
            };
            out.entry(String::from_utf8_lossy(&key).into_owned())
                .or_default()
                .push(String::from_utf8_lossy(&value).into_owned());
        }
        out
    }
}

/// Go's `URL.String()`: the URL re-serialised with Go's escaping.
impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.parsed, f)
    }
}

impl PartialEq for Url {
    fn eq(&self, other: &Self) -> bool {
        self.parsed.to_string() == other.parsed.to_string()
    }
}

impl Eq for Url {}

/// `isURL(string)`: whether the string passes Go's `url.ParseRequestURI`.
///
/// This is Kubernetes' check, which is weaker than [`Url::parse`]: a string whose
/// fragment holds a bad escape (`/p?q#%zz`) is a URL for `isURL` but `url()` fails.
pub fn is_url(s: &str) -> bool {
    GoUrl::parse_request_uri(s, &parse_ip_literal).is_ok()
}
