//! URI SANs rendered as Go's `url.Parse(s).String()` renders them (scheme lowercased, unsafe
//! bytes percent-encoded, empty fragment dropped, ...), because policy patterns and CEL
//! rules are written against that text. Text Go cannot parse is kept as it is.

mod escape;

use escape::{Mode, escape, unescape, valid_encoded};

/// Go's rendering of `raw`, or `raw` itself when Go's `url.Parse` would reject it.
pub(crate) fn go_uri_string(raw: &str) -> String {
    Url::parse(raw).map_or_else(|| raw.to_string(), |url| url.to_go_string())
}

/// A parsed URL; `path` and `fragment` keep their original text, which Go re-uses when it is
/// a valid encoding.
#[derive(Debug, Default)]
struct Url<'a> {
    scheme: String,
    opaque: &'a str,
    user: Option<User>,
    host: Vec<u8>,
    omit_host: bool,
    path: Vec<u8>,
    raw_path: &'a str,
    force_query: bool,
    raw_query: &'a str,
    fragment: Vec<u8>,
    raw_fragment: &'a str,
}

#[derive(Debug)]
struct User {
    name: Vec<u8>,
    password: Option<Vec<u8>>,
}

impl<'a> Url<'a> {
    fn parse(raw: &'a str) -> Option<Self> {
        let (before_fragment, fragment) = raw.split_once('#').unwrap_or((raw, ""));
        let mut url = Self::parse_without_fragment(before_fragment)?;
        if !fragment.is_empty() {
            url.fragment = unescape(fragment, Mode::Fragment)?;
            url.raw_fragment = fragment;
        }
        Some(url)
    }

    fn parse_without_fragment(raw: &'a str) -> Option<Self> {
        if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
            return None;
        }
        let mut url = Url::default();
        let (scheme, mut rest) = split_scheme(raw)?;
        url.scheme = scheme.to_ascii_lowercase();

        if rest.ends_with('?') && rest.matches('?').count() == 1 {
            url.force_query = true;
            rest = rest.strip_suffix('?').unwrap_or(rest);
        } else if let Some((before, query)) = rest.split_once('?') {
            rest = before;
            url.raw_query = query;
        }

        if !rest.starts_with('/') {
            if !url.scheme.is_empty() {
                // Rootless paths after a scheme are opaque (e.g. `urn:x:y`, `mailto:a@b`).
                url.opaque = rest;
                return Some(url);
            }
            // A relative path's first segment may not contain a colon.
            let first_segment = rest.split('/').next().unwrap_or_default();
            if first_segment.contains(':') {
                return None;
            }
        }

        if let Some(after_slashes) = rest.strip_prefix("//")
            && (!url.scheme.is_empty() || !rest.starts_with("///"))
        {
            let (authority, path) = match after_slashes.find('/') {
                Some(at) => after_slashes.split_at(at),
                None => (after_slashes, ""),
            };
            let (user, host) = parse_authority(authority)?;
            url.user = user;
            url.host = host;
            rest = path;
        } else if !url.scheme.is_empty() && rest.starts_with('/') {
            url.omit_host = true;
        }

        url.path = unescape(rest, Mode::Path)?;
        url.raw_path = rest;
        Some(url)
    }

    fn to_go_string(&self) -> String {
        let mut out = String::new();
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if !self.opaque.is_empty() {
            out.push_str(self.opaque);
        } else {
            let has_host = !self.host.is_empty();
            if (!self.scheme.is_empty() || has_host || self.user.is_some())
                && !(self.omit_host && !has_host && self.user.is_none())
            {
                if has_host || !self.path.is_empty() || self.user.is_some() {
                    out.push_str("//");
                }
                if let Some(user) = &self.user {
                    out.push_str(&escape(&user.name, Mode::UserPassword));
                    if let Some(password) = &user.password {
                        out.push(':');
                        out.push_str(&escape(password, Mode::UserPassword));
                    }
                    out.push('@');
                }
                out.push_str(&escape(&self.host, Mode::Host));
            }
            let path = reencode(self.raw_path, &self.path, Mode::Path);
            if !path.is_empty() && !path.starts_with('/') && has_host {
                out.push('/');
            }
            // A colon in the first segment of a scheme-less path would read as a scheme.
            if out.is_empty() && path.split('/').next().is_some_and(|s| s.contains(':')) {
                out.push_str("./");
            }
            out.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            out.push('?');
            out.push_str(self.raw_query);
        }
        if !self.fragment.is_empty() {
            out.push('#');
            out.push_str(&reencode(self.raw_fragment, &self.fragment, Mode::Fragment));
        }
        out
    }
}

/// The original text when it is already a valid encoding, else the decoded bytes re-escaped.
fn reencode(original: &str, decoded: &[u8], mode: Mode) -> String {
    if valid_encoded(original, mode) { original.to_string() } else { escape(decoded, mode) }
}

/// Splits `scheme:rest`; no scheme when the text before the first `:` is not one.
fn split_scheme(raw: &str) -> Option<(&str, &str)> {
    for (index, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if index > 0 => {}
            b':' if index == 0 => return None,
            b':' => {
                return raw
                    .split_at_checked(index)
                    .map(|(s, r)| (s, r.get(1..).unwrap_or_default()));
            }
            _ => return Some(("", raw)),
        }
    }
    Some(("", raw))
}

fn parse_authority(authority: &str) -> Option<(Option<User>, Vec<u8>)> {
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return Some((None, parse_host(authority)?));
    };
    let host = parse_host(host)?;
    let valid = userinfo.bytes().all(|b| {
        b.is_ascii_alphanumeric()
            || matches!(
                b,
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
    });
    if !valid {
        return None;
    }
    let user = match userinfo.split_once(':') {
        Some((name, password)) => User {
            name: unescape(name, Mode::UserPassword)?,
            password: Some(unescape(password, Mode::UserPassword)?),
        },
        None => User { name: unescape(userinfo, Mode::UserPassword)?, password: None },
    };
    Some((Some(user), host))
}

fn parse_host(host: &str) -> Option<Vec<u8>> {
    if host.starts_with('[') {
        let close = host.rfind(']')?;
        let (literal, port) = host.split_at(close);
        if !valid_optional_port(port.get(1..).unwrap_or_default()) {
            return None;
        }
        // RFC 6874 zone: `[fe80::1%25eth0]`; the zone has its own escaping rules.
        if let Some(zone_at) = literal.find("%25") {
            let (address, zone) = literal.split_at(zone_at);
            let mut out = unescape(address, Mode::Host)?;
            out.extend(unescape(zone, Mode::Zone)?);
            out.extend(unescape(port, Mode::Host)?);
            return Some(out);
        }
    } else if let Some(colon) = host.rfind(':')
        && !valid_optional_port(host.get(colon..).unwrap_or_default())
    {
        return None;
    }
    unescape(host, Mode::Host)
}

/// Empty, or `:` followed by digits only.
fn valid_optional_port(port: &str) -> bool {
    port.is_empty()
        || port.strip_prefix(':').is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::go_uri_string;

    #[track_caller]
    fn renders(raw: &str, expected: &str) {
        assert_eq!(go_uri_string(raw), expected, "rendering {raw:?}");
    }

    #[test]
    fn common_uris_are_unchanged() {
        renders(
            "spiffe://cluster.local/ns/default/sa/app",
            "spiffe://cluster.local/ns/default/sa/app",
        );
        renders(
            "https://example.com:8443/a/b?x=1&y=2#frag",
            "https://example.com:8443/a/b?x=1&y=2#frag",
        );
        renders(
            "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        );
        renders("mailto:a@example.com", "mailto:a@example.com");
        renders("https://u:p@h/", "https://u:p@h/");
        renders("https://[2001:db8::1]:443/x", "https://[2001:db8::1]:443/x");
        renders("/relative/path", "/relative/path");
        renders("*", "*");
    }

    // Every expectation in these tests was checked against Go's `url.Parse(raw).String()`.
    #[test]
    fn normalizations_go_applies() {
        // The scheme is lowercased, the host is not.
        renders("HTTPS://Example.COM/Path", "https://Example.COM/Path");
        // Characters that must be escaped in a path are escaped.
        renders("https://h/a b", "https://h/a%20b");
        renders("https://h/a\"b", "https://h/a%22b");
        // Valid escapes are kept as written, even for bytes that need none.
        renders("https://h/%61%2Fb", "https://h/%61%2Fb");
        // An empty fragment disappears, an empty query does not.
        renders("https://h/x#", "https://h/x");
        renders("https://h/x?", "https://h/x?");
        // Empty authority: `scheme:///path` loses its empty host.
        renders("file:///etc/hosts", "file:///etc/hosts");
        renders("spiffe://", "spiffe:");
        // Host-only URL.
        renders("https://example.com", "https://example.com");
        // A fragment needing escapes is re-escaped.
        renders("https://h/#a b", "https://h/#a%20b");
        // Userinfo is re-escaped by its own rules.
        renders("https://a%40b@h", "https://a%40b@h");
        // IPv6 zone identifiers.
        renders("http://[fe80::1%25en0]:8080/", "http://[fe80::1%25en0]:8080/");
        // Sub-delimiters stay as written in paths; queries are never re-escaped.
        renders("https://h/a;b,c!$&'()*+=@", "https://h/a;b,c!$&'()*+=@");
        renders("https://h?a b", "https://h?a b");
        // Escaped hosts and unreserved escapes are kept as written.
        renders("https://%C3%A9.com/", "https://%C3%A9.com/");
        renders("https://h/%7e", "https://h/%7e");
        // Only the first '#' starts the fragment; a later one is escaped.
        renders("https://h/a#b#c", "https://h/a#b%23c");
        renders("https://h/#%41", "https://h/#%41");
        // A second ':' in userinfo belongs to the password and is escaped there.
        renders("https://u:p:q@h", "https://u:p%3Aq@h");
        // Scheme-relative and opaque forms.
        renders("//h/p", "//h/p");
        renders("///p", "///p");
        renders("s:", "s:");
        renders("a:b/c?d#e", "a:b/c?d#e");
    }

    #[test]
    fn unparseable_uris_are_kept_raw() {
        for raw in [
            ":no-scheme",
            "https://h/%zz",
            "https://h:port/",
            "https://[::1/",
            "https://a b/",
            "https://h/#%",
            "https://h/\u{7f}",
            "https://u^@h/",
        ] {
            renders(raw, raw);
        }
        // The relative-path colon rule only applies without a scheme.
        renders("a/b:c", "a/b:c");
    }
}
