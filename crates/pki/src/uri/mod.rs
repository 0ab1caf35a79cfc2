//! URI SANs rendered as Go's `url.Parse(s).String()` renders them (scheme lowercased,
//! unsafe bytes percent-encoded, empty fragment dropped, ...), because policy patterns
//! and CEL rules are written against that text. Text Go cannot parse is kept as it is.

use std::net::{AddrParseError, IpAddr};

use certgate_gofmt::url::GoUrl;

/// Go's rendering of `raw`, or `raw` itself when Go's `url.Parse` would reject it.
pub(crate) fn go_uri_string(raw: &str) -> String {
    GoUrl::parse(raw, &ip_literal).map_or_else(|_| raw.to_string(), |url| url.to_string())
}

/// The address inside a bracketed URI host, zone dropped. Only whether Go accepts it
/// matters here (the error is not reported), and `std` agrees with Go's
/// `netip.ParseAddr` on that for the IPv6 text URL hosts may hold.
fn ip_literal(text: &str) -> Result<IpAddr, AddrParseError> {
    text.split_once('%').map_or(text, |(address, _zone)| address).parse()
}

#[cfg(test)]
mod tests {
    use super::go_uri_string;

    #[test]
    fn uris_render_as_go_strings() {
        assert_eq!(go_uri_string("HTTPS://Example.COM/a b#"), "https://Example.COM/a%20b");
        assert_eq!(go_uri_string("spiffe://td/ns/x"), "spiffe://td/ns/x");
        assert_eq!(go_uri_string("http://[fe80::1%25en0]/"), "http://[fe80::1%25en0]/");
    }

    #[test]
    fn unparseable_uris_are_kept_raw() {
        for raw in [
            ":no-scheme",
            "https://h/%zz",
            "https://h:port/",
            "https://[::1/",
            "https://[1.2.3.4]/",
            "https://[not-an-ip]/",
            "https://a b/",
            "https://h/#%",
            "https://h/\u{7f}",
            "https://u^@h/",
        ] {
            assert_eq!(go_uri_string(raw), raw);
        }
    }
}
