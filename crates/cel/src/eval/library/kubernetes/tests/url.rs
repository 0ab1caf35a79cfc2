//! `url()` and the `kubernetes.URL` accessors.

use super::{b, err, ip, ok, s, url};
use crate::check::{Type, URL_TYPE_NAME};
use crate::value::{MapValue, Value};

#[test]
fn url_accessors() {
    let u = url("https://user:pass@example.com:8080/a%20b/c?x=1&x=2&y=%41#frag");
    assert_eq!(ok("url_get_scheme", std::slice::from_ref(&u)), s("https"));
    assert_eq!(ok("url_get_host", std::slice::from_ref(&u)), s("example.com:8080"));
    assert_eq!(ok("url_get_hostname", std::slice::from_ref(&u)), s("example.com"));
    assert_eq!(ok("url_get_port", std::slice::from_ref(&u)), s("8080"));
    assert_eq!(ok("url_get_escaped_path", std::slice::from_ref(&u)), s("/a%20b/c"));
    let query = MapValue::from_entries(vec![
        (s("x"), Value::list(vec![s("1"), s("2")])),
        (s("y"), Value::list(vec![s("A")])),
    ])
    .expect("map");
    assert_eq!(ok("url_get_query", std::slice::from_ref(&u)), Value::Map(query));
    assert_eq!(ok("url_get_hostname", &[url("https://[::1]:80/")]), s("::1"));
    assert_eq!(ok("is_url_string", &[s("../relative-path")]), b(false));
    assert_eq!(ok("is_url_string", &[s("/absolute-path")]), b(true));
    assert_eq!(
        err("string_to_url", &[s("example.com")]),
        "URL parse error during conversion from string: parse \"example.com\": invalid URI for request"
    );
    assert_eq!(u.type_of(), Type::opaque(URL_TYPE_NAME, vec![]));
    assert_eq!(u, url("https://user:pass@example.com:8080/a%20b/c?x=1&x=2&y=%41#frag"));
    assert_ne!(u, url("https://example.com:8080/a%20b/c?x=1&x=2&y=%41#frag"));
    assert!(err("url_get_port", &[ip("10.0.0.1")]).starts_with("no such overload: getPort"));
}
