use std::collections::BTreeMap;

use crate::k8s::{Url, is_url};

fn url(s: &str) -> Url {
    Url::parse(s).unwrap_or_else(|e| panic!("url({s}): {e}"))
}

#[test]
fn accepts_absolute_uris_and_absolute_paths() {
    let cases = [
        "https://user:pass@example.com:80/path?query=val#fragment",
        "/absolute-path",
        "https://example.com",
        "mailto:someone@example.com",
        "*",
        "//example.com/x",
        "https://[::1]:80/",
        "https://[fe80::1%25en0]:8080/",
        "https://[::ffff:1.2.3.4]/",
        "mongodb://h1:1,h2:2/db",
        "/p?q#%zz",
    ];
    for input in cases {
        assert!(is_url(input), "isURL({input})");
    }
    for input in cases.iter().take(cases.len() - 1) {
        assert!(Url::parse(input).is_ok(), "url({input})");
    }
}

#[test]
fn rejects_with_kubernetes_messages() {
    let p = |input: &str, reason: &str| {
        format!("URL parse error during conversion from string: parse \"{input}\": {reason}")
    };
    let cases = [
        ("https://a:b:c/", p("https://a:b:c/", "invalid port \":b:c\" after host")),
        ("ftp://a:b:c/", p("ftp://a:b:c/", "invalid port \":c\" after host")),
        ("http://::1/", p("http://::1/", "invalid port \"::1\" after host")),
        (
            "http://localhost:80:80/",
            p("http://localhost:80:80/", "invalid port \":80:80\" after host"),
        ),
        ("http://[1.2.3.4]/", p("http://[1.2.3.4]/", "invalid IP-literal")),
        ("http://a[::1]/", p("http://a[::1]/", "invalid IP-literal")),
        (
            "http://[v1.x]/",
            p(
                "http://[v1.x]/",
                "invalid host: ParseAddr(\"v1.x\"): unexpected character (at \"v1.x\")",
            ),
        ),
        ("../relative-path", p("../relative-path", "invalid URI for request")),
        ("example.com", p("example.com", "invalid URI for request")),
        ("", p("", "empty url")),
        (":foo", p(":foo", "missing protocol scheme")),
        ("http://a\nb/", p("http://a\\nb/", "net/url: invalid control character in URL")),
        ("http://exa mple.com/", p("http://exa mple.com/", "invalid character \" \" in host name")),
        ("http://[::1/", p("http://[::1/", "missing ']' in host")),
        ("http://[::1]x/", p("http://[::1]x/", "invalid port \"x\" after host")),
        ("http://h/%zz", p("http://h/%zz", "invalid URL escape \"%zz\"")),
        ("http://h/%4", p("http://h/%4", "invalid URL escape \"%4\"")),
        ("http://h/%zé", p("http://h/%zé", "invalid URL escape \"%z\\xc3\"")),
        ("http://%41.com/", p("http://%41.com/", "invalid URL escape \"%41\"")),
        ("http://us er@h/", p("http://us er@h/", "net/url: invalid userinfo")),
        ("http://u%zz@h/", p("http://u%zz@h/", "invalid URL escape \"%zz\"")),
        ("http://[fe80::1%25%2F]/", p("http://[fe80::1%25%2F]/", "invalid URL escape \"%2F\"")),
        ("/p?q#%zz", p("/p?q#%zz", "invalid URL escape \"%zz\"")),
    ];
    for (input, want) in &cases {
        let err = Url::parse(input).expect_err(input);
        assert_eq!(&err.to_string(), want, "input {input:?}");
    }
    for (input, _) in cases.iter().take(cases.len() - 1) {
        assert!(!is_url(input), "isURL({input:?})");
    }
}

#[test]
fn component_getters() {
    // (url, scheme, host, hostname, port, escaped path)
    let cases = [
        ("/path", "", "", "", "", "/path"),
        ("https://example.com/", "https", "example.com", "example.com", "", "/"),
        ("https://example.com:80/", "https", "example.com:80", "example.com", "80", "/"),
        ("https://127.0.0.1:80/", "https", "127.0.0.1:80", "127.0.0.1", "80", "/"),
        ("https://[::1]:80/", "https", "[::1]:80", "::1", "80", "/"),
        ("https://[::1]/", "https", "[::1]", "::1", "", "/"),
        ("https://example.com:/", "https", "example.com:", "example.com", "", "/"),
        ("HTTPS://Example.com/", "https", "Example.com", "Example.com", "", "/"),
        ("https://example.com/path", "https", "example.com", "example.com", "", "/path"),
        (
            "https://example.com/path with spaces/",
            "https",
            "example.com",
            "example.com",
            "",
            "/path%20with%20spaces/",
        ),
        ("https://example.com", "https", "example.com", "example.com", "", ""),
        ("https://example.com/a%2Fb", "https", "example.com", "example.com", "", "/a%2Fb"),
        ("https://example.com/a%20b", "https", "example.com", "example.com", "", "/a%20b"),
        ("https://example.com/caf%C3%A9", "https", "example.com", "example.com", "", "/caf%C3%A9"),
        ("https://example.com/café", "https", "example.com", "example.com", "", "/caf%C3%A9"),
        ("https://example.com/p#frag", "https", "example.com", "example.com", "", "/p"),
        (
            "https://user:pass@example.com:8443/x",
            "https",
            "example.com:8443",
            "example.com",
            "8443",
            "/x",
        ),
        (
            "https://[fe80::1%25en0]:8080/",
            "https",
            "[fe80::1%en0]:8080",
            "fe80::1%en0",
            "8080",
            "/",
        ),
        ("https://%C3%A9.example/", "https", "é.example", "é.example", "", "/"),
        ("mailto:someone@example.com", "mailto", "", "", "", ""),
        ("//example.com/x", "", "example.com", "example.com", "", "/x"),
        ("mongodb://h1:1,h2:2/db", "mongodb", "h1:1,h2:2", "h1:1,h2", "2", "/db"),
        ("file:///etc/hosts", "file", "", "", "", "/etc/hosts"),
        ("*", "", "", "", "", "*"),
    ];
    for (input, scheme, host, hostname, port, path) in cases {
        let u = url(input);
        assert_eq!(u.scheme(), scheme, "url({input}).getScheme()");
        assert_eq!(u.host(), host, "url({input}).getHost()");
        assert_eq!(u.hostname(), hostname, "url({input}).getHostname()");
        assert_eq!(u.port(), port, "url({input}).getPort()");
        assert_eq!(u.escaped_path(), path, "url({input}).getEscapedPath()");
    }
}

#[test]
fn query_follows_go_parse_query() {
    /// A query as (key, values) pairs.
    type Query = &'static [(&'static str, &'static [&'static str])];
    let cases: [(&str, Query); 10] = [
        ("https://example.com/path?k1=a&k2=b&k2=c", &[("k1", &["a"]), ("k2", &["b", "c"])]),
        (
            "https://example.com/path?key with spaces=value with spaces",
            &[("key with spaces", &["value with spaces"])],
        ),
        ("https://example.com/path?", &[]),
        ("https://example.com/path", &[]),
        ("/p?a+b=c+d&e=%26%3D", &[("a b", &["c d"]), ("e", &["&="])]),
        ("/p?a", &[("a", &[""])]),
        ("/p?&&a=1&", &[("a", &["1"])]),
        ("/p?a=1;b=2&c=3", &[("c", &["3"])]),
        ("/p?a=%zz&b=1", &[("b", &["1"])]),
        ("/p?a=1=2#x=y", &[("a", &["1=2"])]),
    ];
    for (input, want) in cases {
        let want: BTreeMap<String, Vec<String>> = want
            .iter()
            .map(|(k, vs)| ((*k).to_owned(), vs.iter().map(|v| (*v).to_owned()).collect()))
            .collect();
        assert_eq!(url(input).query(), want, "url({input}).getQuery()");
    }
}

#[test]
fn query_with_too_many_parameters_is_empty_as_in_go() {
    let at_limit = format!("/p?{}a=1", "&".repeat(9_999));
    assert_eq!(url(&at_limit).query().get("a"), Some(&vec!["1".to_owned()]));
    let over_limit = format!("/p?{}a=1", "&".repeat(10_000));
    assert!(url(&over_limit).query().is_empty());
}

#[test]
fn string_form_is_go_url_string() {
    let cases = [
        (
            "https://user:pass@example.com:80/path?query=val#fragment",
            "https://user:pass@example.com:80/path?query=val#fragment",
        ),
        ("HTTPS://Example.com/a b", "https://Example.com/a%20b"),
        ("/absolute-path", "/absolute-path"),
        ("mailto:someone@example.com", "mailto:someone@example.com"),
        ("file:///etc/hosts", "file:///etc/hosts"),
        ("file:/etc/hosts", "file:/etc/hosts"),
        ("https://example.com/path?", "https://example.com/path?"),
        ("https://u%40x@h/", "https://u%40x@h/"),
        ("https://[fe80::1%25en0]:8080/", "https://[fe80::1%25en0]:8080/"),
        ("https://example.com/p#a b", "https://example.com/p#a%20b"),
        ("https://example.com/p#", "https://example.com/p"),
        ("https://example.com", "https://example.com"),
        ("//example.com/x", "//example.com/x"),
        ("https://example.com/a%2Fb", "https://example.com/a%2Fb"),
        ("*", "*"),
    ];
    for (input, want) in cases {
        assert_eq!(url(input).to_string(), want, "url({input})");
    }
}

#[test]
fn equality_compares_go_string_forms() {
    let cases = [
        ("https://example.com/a", "HTTPS://example.com/a", true),
        ("https://example.com/a b", "https://example.com/a%20b", true),
        ("https://example.com/a", "https://example.com/b", false),
        ("https://example.com/a#x", "https://example.com/a#y", false),
        ("https://u@example.com/", "https://example.com/", false),
        ("https://example.com/a?", "https://example.com/a", false),
    ];
    for (a, b, want) in cases {
        assert_eq!(url(a) == url(b), want, "url({a}) == url({b})");
    }
}
