use std::net::{AddrParseError, IpAddr};

use super::*;

/// Stands in for Go's `netip.ParseAddr` (same accept/reject on these inputs).
fn std_addr(text: &str) -> Result<IpAddr, AddrParseError> {
    text.split_once('%').map_or(text, |(address, _zone)| address).parse()
}

fn parsed(raw: &str) -> GoUrl {
    match GoUrl::parse(raw, &std_addr) {
        Ok(url) => url,
        Err((input, reason)) => panic!("parse {input:?}: {reason}"),
    }
}

#[track_caller]
fn renders(raw: &str, expected: &str) {
    assert_eq!(parsed(raw).to_string(), expected, "rendering {raw:?}");
}

#[track_caller]
fn rejects(raw: &str, input: &str, reason: &str) {
    match GoUrl::parse(raw, &std_addr) {
        Ok(url) => panic!("{raw:?} parsed as {url}"),
        Err((named, why)) => {
            assert_eq!((named.as_str(), why.to_string().as_str()), (input, reason))
        }
    }
}

#[test]
fn common_uris_are_unchanged() {
    for raw in [
        "spiffe://cluster.local/ns/default/sa/app",
        "https://example.com:8443/a/b?x=1&y=2#frag",
        "urn:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
        "mailto:a@example.com",
        "https://u:p@h/",
        "https://[2001:db8::1]:443/x",
        "/relative/path",
        "*",
    ] {
        renders(raw, raw);
    }
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
    // Scheme-relative, opaque and relative forms.
    renders("//h/p", "//h/p");
    renders("///p", "///p");
    renders("s:", "s:");
    renders("a:b/c?d#e", "a:b/c?d#e");
    renders("a/b:c", "a/b:c");
    // Non-http schemes may list several host:port pairs.
    renders("foo://h1:1,h2:2/", "foo://h1:1,h2:2/");
}

#[test]
fn rejects_with_go_reasons() {
    rejects(":no-scheme", ":no-scheme", "missing protocol scheme");
    rejects("https://h/%zz", "https://h/%zz", r#"invalid URL escape "%zz""#);
    rejects("https://h:port/", "https://h:port/", r#"invalid port ":port" after host"#);
    rejects("https://[::1/", "https://[::1/", "missing ']' in host");
    rejects("https://a b/", "https://a b/", r#"invalid character " " in host name"#);
    rejects("https://h/#%", "https://h/#%", r#"invalid URL escape "%""#);
    rejects("https://h/\u{7f}", "https://h/\u{7f}", "net/url: invalid control character in URL");
    rejects("https://u^@h/", "https://u^@h/", "net/url: invalid userinfo");
    rejects("1a:b#f", "1a:b", "first path segment in URL cannot contain colon");
    rejects("a%20:b/c", "a%20:b/c", "first path segment in URL cannot contain colon");
    rejects("https://[1.2.3.4]/", "https://[1.2.3.4]/", "invalid IP-literal");
    rejects("https://a[::1]/", "https://a[::1]/", "invalid IP-literal");
    rejects("https://h:1:2/", "https://h:1:2/", r#"invalid port ":1:2" after host"#);
    rejects("https://%41/", "https://%41/", r#"invalid URL escape "%41""#);
    let reason = GoUrl::parse("https://[zz]/", &std_addr).err().map(|(_, why)| why);
    assert!(matches!(reason, Some(UrlParseReason::InvalidHostAddress(_))), "{reason:?}");
}

#[test]
fn request_uris_must_be_absolute() {
    let request = |raw: &str| GoUrl::parse_request_uri(raw, &std_addr).map_err(|e| e.to_string());
    assert_eq!(request("").err().as_deref(), Some("empty url"));
    assert_eq!(request("a/b").err().as_deref(), Some("invalid URI for request"));
    // `#` is not special to ParseRequestURI: it stays in the path.
    assert_eq!(request("/p#x").map(|u| u.path().to_vec()), Ok(b"/p#x".to_vec()));
    // Without a scheme `//` does not start an authority.
    assert_eq!(request("//h/p").map(|u| u.host().to_vec()), Ok(Vec::new()));
}

#[test]
fn components_are_unescaped() {
    let url = parsed("HTTP://us%20er:p%40ss@h%C3%A9:80/a%2Fb?q=%20#f%21");
    assert_eq!(url.scheme(), "http");
    assert_eq!(
        url.user(),
        Some(&User { name: b"us er".to_vec(), password: Some(b"p@ss".to_vec()) })
    );
    assert_eq!(url.host(), "hé:80".as_bytes());
    assert_eq!(url.path(), b"/a/b");
    assert_eq!(url.raw_query(), "q=%20");
    assert_eq!(url.fragment(), b"f!");
    assert_eq!(url.escaped_path(), "/a%2Fb");
    assert_eq!(url.escaped_fragment(), "f%21");
    assert_eq!(parsed("mailto:a@b").opaque(), "a@b");
}

#[test]
fn escape_rules_per_mode() {
    assert_eq!(escape(b"/a b?c", Mode::Path), "/a%20b%3Fc");
    assert_eq!(escape(b"u@s:p", Mode::UserPassword), "u%40s%3Ap");
    assert_eq!(escape("é.com".as_bytes(), Mode::Host), "%C3%A9.com");
    assert_eq!(escape(b"x!(y)/?", Mode::Fragment), "x!(y)/?");
    assert_eq!(escape(b"a!b", Mode::Path), "a%21b");
    assert_eq!(escape(b"a b&c=d/", Mode::QueryComponent), "a%20b%26c%3Dd%2F");
}

#[test]
fn unescape_rules_per_mode() {
    assert_eq!(unescape("a%2Fb", Mode::Path), Ok(b"a/b".to_vec()));
    assert_eq!(unescape("a%2", Mode::Path), Err(EscapeError::Escape(b"%2".to_vec())));
    assert_eq!(unescape("a%zz", Mode::Path), Err(EscapeError::Escape(b"%zz".to_vec())));
    // `+` is a space only in query components.
    assert_eq!(unescape("a+b", Mode::QueryComponent), Ok(b"a b".to_vec()));
    assert_eq!(unescape("a+b", Mode::Path), Ok(b"a+b".to_vec()));
    // Hosts may only escape non-ASCII bytes (and %25).
    assert_eq!(unescape("a%41", Mode::Host), Err(EscapeError::Escape(b"%41".to_vec())));
    assert_eq!(unescape("%C3%A9", Mode::Host), Ok("é".as_bytes().to_vec()));
    assert_eq!(unescape("a b", Mode::Host), Err(EscapeError::InvalidHost(" ".to_owned())));
    assert_eq!(unescape("%25eth0", Mode::Zone), Ok(b"%eth0".to_vec()));
    assert_eq!(EscapeError::Escape(b"%\xff".to_vec()).to_string(), r#"invalid URL escape "%\xff""#);
}

#[test]
fn valid_encoding_check() {
    assert!(valid_encoded("/a%2Fb!", Mode::Path));
    assert!(!valid_encoded("/a b", Mode::Path));
}

#[test]
fn optional_ports() {
    assert!(valid_optional_port(""));
    assert!(valid_optional_port(":"));
    assert!(valid_optional_port(":8080"));
    assert!(!valid_optional_port("8080"));
    assert!(!valid_optional_port(":8a"));
}
