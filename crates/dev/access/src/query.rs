//! Go's `url.ParseQuery` as `req.URL.Query()` uses it: the request-attribute rules read the
//! `watch` and `fieldSelector` parameters exactly as kube-apiserver sees them.

use certgate_gofmt::url::{Mode, unescape};

/// Key/value pairs in order. Pairs Go drops are dropped: keys holding `;` and pairs with a
/// malformed `%` escape. `+` decodes to a space.
pub(crate) fn parse(query: &str) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for part in query.split('&') {
        if part.is_empty() || part.contains(';') {
            continue;
        }
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let (Ok(key), Ok(value)) =
            (unescape(key, Mode::QueryComponent), unescape(value, Mode::QueryComponent))
        else {
            continue;
        };
        pairs.push((lossy(key), lossy(value)));
    }
    pairs
}

/// The first value of `key`, as `url.Values.Get` and the parameter codec (`in[0]`) take it.
pub(crate) fn first<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// Go strings are bytes; Rust callers get the invalid bytes replaced rather than a failure.
fn lossy(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|err| String::from_utf8_lossy(err.as_bytes()).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn parses_like_go() {
        assert_eq!(parse("a=1&b=two+words&c"), owned(&[("a", "1"), ("b", "two words"), ("c", "")]));
        assert_eq!(parse("x=%3D&y=%zz&z=1"), owned(&[("x", "="), ("z", "1")]));
        assert_eq!(parse("a;b=1&watch=true"), owned(&[("watch", "true")]));
        assert_eq!(parse(""), owned(&[]));
        let pairs = parse("watch=1&watch=false");
        assert_eq!(first(&pairs, "watch"), Some("1"));
        assert_eq!(first(&pairs, "limit"), None);
    }
}
