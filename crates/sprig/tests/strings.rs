//! String functions, table style.
mod common;
use common::*;

#[test]
fn string_values() {
    table(&[
        ("trim", vec![s("  foo bar \n")], s("foo bar")),
        ("upper", vec![s("foo bar")], s("FOO BAR")),
        ("lower", vec![s("Foo Bar")], s("foo bar")),
        ("title", vec![s("hello world-wide_web")], s("Hello World-Wide_web")),
        ("untitle", vec![s("Hello World")], s("hello world")),
        ("substr", vec![i(0), i(3), s("foo bar")], s("foo")),
        ("substr", vec![i(-1), i(3), s("foo bar")], s("foo")),
        ("substr", vec![i(4), i(-1), s("foo bar")], s("bar")),
        ("substr", vec![i(4), i(100), s("foo bar")], s("bar")),
        ("repeat", vec![i(3), s("ab")], s("ababab")),
        ("repeat", vec![i(0), s("ab")], s("")),
        ("trimAll", vec![s("$"), s("$5.00$")], s("5.00")),
        ("trimall", vec![s("-"), s("-x-")], s("x")),
        ("trimSuffix", vec![s("-"), s("hello-")], s("hello")),
        ("trimPrefix", vec![s("-"), s("-hello")], s("hello")),
        ("nospace", vec![s("h e\tl\nlo")], s("hello")),
        ("initials", vec![s("First Try")], s("FT")),
        ("swapcase", vec![s("This Is A.Test")], s("tHIS iS a.tEST")),
        ("snakecase", vec![s("FirstName")], s("first_name")),
        ("kebabcase", vec![s("FirstName")], s("first-name")),
        ("camelcase", vec![s("http_server")], s("HttpServer")),
        ("wrap", vec![i(5), s("Hello World")], s("Hello\nWorld")),
        ("wrapWith", vec![i(5), s("\t"), s("Hello World")], s("Hello\tWorld")),
        ("wrapWith", vec![i(3), s("|"), s("abcdefg")], s("abc|def|g")),
        ("contains", vec![s("cat"), s("catch")], b(true)),
        ("hasPrefix", vec![s("cat"), s("catch")], b(true)),
        ("hasSuffix", vec![s("cat"), s("catch")], b(false)),
        ("quote", vec![s("a\"b"), i(1), nil()], s("\"a\\\"b\" \"1\"")),
        ("quote", vec![], s("")),
        ("squote", vec![s("a"), f(1.5)], s("'a' '1.5'")),
        ("cat", vec![s("hello"), nil(), i(2), b(true)], s("hello 2 true")),
        ("indent", vec![i(2), s("a\nb")], s("  a\n  b")),
        ("nindent", vec![i(2), s("a")], s("\n  a")),
        ("replace", vec![s(" "), s("-"), s("Me First")], s("Me-First")),
        ("plural", vec![s("one"), s("many"), i(1)], s("one")),
        ("plural", vec![s("one"), s("many"), i(2)], s("many")),
        ("trunc", vec![i(5), s("hello world")], s("hello")),
        ("trunc", vec![i(-5), s("hello world")], s("world")),
        ("trunc", vec![i(50), s("hello")], s("hello")),
        ("abbrev", vec![i(5), s("hello world")], s("he...")),
        ("abbrev", vec![i(3), s("hello world")], s("hello world")),
        ("abbrevboth", vec![i(5), i(10), s("1234 5678 9123")], s("...5678...")),
        ("toString", vec![f(1e6)], s("1e+06")),
        ("toString", vec![nil()], s("<nil>")),
        ("toString", vec![il(&[1, 2])], s("[1 2]")),
        ("splitList", vec![s("$"), s("foo$bar$baz")], sl(&["foo", "bar", "baz"])),
        ("splitList", vec![s(""), s("abc")], sl(&["a", "b", "c"])),
        ("split", vec![s("$"), s("foo$bar")], d(&[("_0", s("foo")), ("_1", s("bar"))])),
        (
            "splitn",
            vec![s("$"), i(2), s("foo$bar$baz")],
            d(&[("_0", s("foo")), ("_1", s("bar$baz"))]),
        ),
        ("splitn", vec![s("$"), i(0), s("foo$bar")], d(&[])),
        ("join", vec![s("-"), l(vec![s("a"), nil(), i(1)])], s("a-1")),
        ("join", vec![s("-"), s("abc")], s("abc")),
        ("sortAlpha", vec![l(vec![s("c"), i(1), s("a")])], sl(&["1", "a", "c"])),
        ("sortAlpha", vec![i(3)], sl(&["3"])),
        ("toStrings", vec![l(vec![i(1), nil(), s("x")])], sl(&["1", "x"])),
        ("toStrings", vec![nil()], sl(&[])),
        ("seq", vec![i(3)], s("1 2 3")),
        ("seq", vec![i(0)], s("1 0")),
        ("seq", vec![i(2), i(-2)], s("2 1 0 -1 -2")),
        // Three arguments are FIRST INCREMENT LAST.
        ("seq", vec![i(0), i(2), i(10)], s("0 2 4 6 8 10")),
        ("seq", vec![i(20), i(-3), i(1)], s("20 17 14 11 8 5 2")),
        ("seq", vec![i(5), i(1), i(2)], s("")),
        ("seq", vec![], s("")),
        ("hello", vec![], s("Hello!")),
    ]);
}

#[test]
fn string_errors() {
    err_table(&[
        (
            "substr",
            vec![i(5), i(3), s("foo bar")],
            "runtime error: slice bounds out of range [5:3]",
        ),
        ("substr", vec![i(9), i(-1), s("foo")], "runtime error: slice bounds out of range [9:3]"),
        ("repeat", vec![i(-1), s("x")], "strings: negative Repeat count"),
        (
            "repeat",
            vec![i(2_000_000), s("x")],
            "repeat: result of 2000000 elements exceeds certgate's limit of 1000000",
        ),
    ]);
    assert_eq!(arg_err("upper", &[i(1)]), "wrong type for value; expected string; got int");
    assert_eq!(arg_err("upper", &[nil()]), "invalid value; expected string");
    assert_eq!(arg_err("upper", &[]), "wrong number of args for upper: want 1 got 0");
    assert_eq!(
        arg_err("repeat", &[s("3"), s("x")]),
        "wrong type for value; expected int; got string"
    );
}

#[test]
fn random_strings_have_the_right_shape() {
    for (name, ok_char) in [
        ("randAlpha", (|c: char| c.is_ascii_alphabetic()) as fn(char) -> bool),
        ("randAlphaNum", |c: char| c.is_ascii_alphanumeric()),
        ("randNumeric", |c: char| c.is_ascii_digit()),
        ("randAscii", |c: char| (' '..='~').contains(&c)),
    ] {
        let v = ok(name, &[i(40)]);
        let text = v.as_str().unwrap_or_default().to_string();
        assert_eq!(text.chars().count(), 40, "{name}");
        assert!(text.chars().all(ok_char), "{name}: {text}");
        assert_eq!(ok(name, &[i(0)]), s(""));
        assert_eq!(ok(name, &[i(-3)]), s(""));
        assert!(call_err(name, &[i(10_000_000)]).contains("limit"));
    }
    let shuffled = ok("shuffle", &[s("abcdef")]);
    let mut chars: Vec<char> = shuffled.as_str().unwrap_or_default().chars().collect();
    chars.sort_unstable();
    assert_eq!(chars.into_iter().collect::<String>(), "abcdef");
}

#[test]
fn size_limits_hold_for_growing_results() {
    let big = "a".repeat(1000);
    assert!(call_err("replace", &[s("a"), s(&big), s(&big)]).contains("exceeds certgate's limit"));
    assert!(call_err("wrapWith", &[i(1), s(&big), s(&big)]).contains("exceeds certgate's limit"));
    assert!(
        call_err("regexReplaceAll", &[s("a"), s(&big), s(&big)])
            .contains("exceeds certgate's limit")
    );
    assert!(call_err("indent", &[i(999_999), s("a\nb")]).contains("exceeds certgate's limit"));
    assert_eq!(call_err("indent", &[i(-1), s("a")]), "strings: negative Repeat count");
    // Multi-byte input where a month name is expected must not split a character.
    assert!(call_err("mustToDate", &[s("Jan"), s("éé")]).starts_with("parsing time"));
}
