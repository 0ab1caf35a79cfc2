//! `contains`, `startsWith`, `endsWith` and `matches`.

use super::{call, error, s};
use crate::value::Value;

#[test]
fn substring_tests() {
    let cases = [
        ("contains_string", "abababc", "ababc", true),
        ("contains_string", "hello", "ol", false),
        ("contains_string", "", "", true),
        ("contains_string", "🐱😀😁", "😀", true),
        ("starts_with_string", "завтра", "за", true),
        ("starts_with_string", "", "foo", false),
        ("starts_with_string", "foobar", "", true),
        ("ends_with_string", "forté", "té", true),
        ("ends_with_string", "foobar", "foo", false),
    ];
    for (id, text, arg, expected) in cases {
        assert_eq!(
            call(id, &[s(text), s(arg)]),
            Ok(Value::Bool(expected)),
            "{id}({text:?}, {arg:?})"
        );
    }
    assert_eq!(
        error("contains_string", &[s("a"), Value::Int(1)]),
        "no such overload: contains(string, int)"
    );
    assert_eq!(
        error("ends_with_string", &[Value::Int(1), s("a")]),
        "no such overload: endsWith(int, string)"
    );
}

#[test]
fn matches_searches_anywhere_with_re2_syntax() {
    let cases = [
        ("hubba", "ubb", true),
        ("", "foo|bar", false),
        ("cows", "", true),
        ("grey", "gr(a|e)y", true),
        ("banana", "ba(na)*", true),
        ("mañana", "a+ñ+a+", true),
        ("🐱😀😀", "(a|😀){2}", true),
        ("abc", "^b", false),
    ];
    for (text, pattern, expected) in cases {
        for id in ["matches", "matches_string"] {
            assert_eq!(
                call(id, &[s(text), s(pattern)]),
                Ok(Value::Bool(expected)),
                "{id}({text:?}, {pattern:?})"
            );
        }
    }
}

#[test]
fn matches_reports_bad_and_oversized_patterns() {
    assert_eq!(
        error("matches_string", &[s("x"), s("(")]),
        "error parsing regexp: missing closing ): `(`"
    );
    assert_eq!(
        error("matches", &[s("x"), s(r"\w{1000}{1000}")]),
        r"error parsing regexp: expression too large: `\w{1000}{1000}`"
    );
    assert_eq!(
        error("matches", &[s("x"), Value::Int(1)]),
        "no such overload: matches(string, int)"
    );
}
