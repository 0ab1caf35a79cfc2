//! The strings extension through the function table. Expected values and error texts
//! are those of the cel-spec `string_ext` conformance file unless a comment says
//! otherwise.

use crate::eval::Functions;
use crate::value::{MAX_CONCAT_LEN, Value, ValueError};

fn call(id: &str, args: &[Value]) -> Result<Value, ValueError> {
    let implementation =
        Functions::full_library().get(id).unwrap_or_else(|| panic!("no implementation of {id}"));
    implementation.call(args)
}

fn s(text: &str) -> Value {
    Value::string(text)
}

fn i(n: i64) -> Value {
    Value::Int(n)
}

fn strs(items: &[&str]) -> Value {
    Value::list(items.iter().map(|t| s(t)).collect())
}

fn ok(id: &str, args: &[Value]) -> Value {
    call(id, args).unwrap_or_else(|e| panic!("{id}{args:?}: {e}"))
}

fn err(id: &str, args: &[Value]) -> String {
    match call(id, args) {
        Ok(v) => panic!("{id}{args:?} = {v:?}, want an error"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_declared_overload_is_implemented_with_its_arity() {
    let checked = crate::eval::library::coverage::implemented_overloads(
        crate::check::add_strings_extension,
        &[],
    );
    assert_eq!(checked, 19);
}

#[test]
fn char_at_uses_code_points() {
    assert_eq!(ok("string_char_at_int", &[s("tacocat"), i(3)]), s("o"));
    assert_eq!(ok("string_char_at_int", &[s("tacocat"), i(7)]), s(""));
    for (index, want) in [(0, "©"), (1, "α"), (2, "T")] {
        assert_eq!(ok("string_char_at_int", &[s("©αT"), i(index)]), s(want));
    }
    assert_eq!(err("string_char_at_int", &[s("tacocat"), i(30)]), "index out of range: 30");
    assert_eq!(err("string_char_at_int", &[s("tacocat"), i(-1)]), "index out of range: -1");
}

#[test]
fn index_of_finds_code_point_positions() {
    let cases: &[(&str, &str, Option<i64>, i64)] = &[
        ("tacocat", "", None, 0),
        ("tacocat", "ac", None, 1),
        ("tacocat", "none", None, -1),
        ("tacocat", "", Some(3), 3),
        ("tacocat", "a", Some(3), 5),
        ("tacocat", "at", Some(3), 5),
        ("ta©o©αT", "©", None, 2),
        ("ta©o©αT", "©", Some(3), 4),
        ("ta©o©αT", "©αT", Some(3), 4),
        ("ta©o©αT", "©α", Some(5), -1),
        ("ijk", "k", None, 2),
        ("hello wello", "hello wello", None, 0),
        ("hello wello", "ello", Some(6), 7),
        ("hello wello", "elbo room!!", None, -1),
    ];
    for (text, sub, offset, want) in cases {
        let got = match offset {
            None => ok("string_index_of_string", &[s(text), s(sub)]),
            Some(o) => ok("string_index_of_string_int", &[s(text), s(sub), i(*o)]),
        };
        assert_eq!(got, i(*want), "{text:?}.indexOf({sub:?}, {offset:?})");
    }
    assert_eq!(
        err("string_index_of_string_int", &[s("tacocat"), s("a"), i(30)]),
        "index out of range: 30"
    );
    // The end of the string is not a valid start for a non-empty search.
    assert_eq!(
        err("string_index_of_string_int", &[s("tacocat"), s("a"), i(7)]),
        "index out of range: 7"
    );
}

#[test]
fn last_index_of_finds_code_point_positions() {
    let cases: &[(&str, &str, Option<i64>, i64)] = &[
        ("", "@@", None, -1),
        ("tacocat", "", None, 7),
        ("tacocat", "at", None, 5),
        ("tacocat", "none", None, -1),
        ("tacocat", "", Some(3), 3),
        ("tacocat", "a", Some(3), 1),
        ("ta©o©αT", "©", None, 4),
        ("ta©o©αT", "©", Some(3), 2),
        ("ta©o©αT", "©α", Some(4), 4),
        ("hello wello", "ello", Some(6), 1),
        ("hello wello", "low", None, -1),
        ("hello wello", "elbo room!!", None, -1),
        ("hello wello", "hello wello", None, 0),
        ("bananananana", "nana", Some(7), 6),
        // A match that starts before the offset and ends inside a multi-byte code point
        // past `offset + len(sub)` bytes is still found.
        ("b©é", "b©", Some(1), 0),
    ];
    for (text, sub, offset, want) in cases {
        let got = match offset {
            None => ok("string_last_index_of_string", &[s(text), s(sub)]),
            Some(o) => ok("string_last_index_of_string_int", &[s(text), s(sub), i(*o)]),
        };
        assert_eq!(got, i(*want), "{text:?}.lastIndexOf({sub:?}, {offset:?})");
    }
    for offset in [-1, 30] {
        assert_eq!(
            err("string_last_index_of_string_int", &[s("tacocat"), s("a"), i(offset)]),
            format!("index out of range: {offset}")
        );
    }
}

#[test]
fn ascii_casing_leaves_other_letters_alone() {
    assert_eq!(ok("string_lower_ascii", &[s("TacoCÆt Xii")]), s("tacocÆt xii"));
    assert_eq!(ok("string_upper_ascii", &[s("tacoCαt")]), s("TACOCαT"));
}

#[test]
fn replace_all_or_a_count() {
    let r3 = |text: &str, from: &str, to: &str| {
        ok("string_replace_string_string", &[s(text), s(from), s(to)])
    };
    assert_eq!(r3("12 days 12 hours", "{0}", "2"), s("12 days 12 hours"));
    assert_eq!(r3("{0} days {0} hours", "{0}", "2"), s("2 days 2 hours"));
    assert_eq!(r3("1 ©αT taco", "αT", "o©α"), s("1 ©o©α taco"));
    assert_eq!(
        ok("string_replace_string_string_int", &[s("{0} days {0} hours"), s("{0}"), s("2"), i(1)]),
        s("2 days {0} hours")
    );
    assert_eq!(ok("string_replace_string_string_int", &[s("aaa"), s("a"), s("b"), i(0)]), s("aaa"));
    // Go's strings.Replace: an empty pattern matches before each code point and at the end.
    assert_eq!(r3("©b", "", "-"), s("-©-b-"));
    assert_eq!(ok("string_replace_string_string_int", &[s("©b"), s(""), s("-"), i(2)]), s("-©-b"));
}

#[test]
fn replace_refuses_results_beyond_the_bound() {
    let text = "x".repeat(1024);
    let huge = "y".repeat(MAX_CONCAT_LEN / 512);
    assert_eq!(
        call("string_replace_string_string", &[s(&text), s("x"), s(&huge)]),
        Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN })
    );
}

#[test]
fn split_with_and_without_limit() {
    assert_eq!(ok("string_split_string", &[s("hello world"), s(" ")]), strs(&["hello", "world"]));
    let split_n =
        |text: &str, sep: &str, n: i64| ok("string_split_string_int", &[s(text), s(sep), i(n)]);
    assert_eq!(split_n("hello world events!", " ", 0), strs(&[]));
    assert_eq!(split_n("hello world events!", " ", 1), strs(&["hello world events!"]));
    assert_eq!(split_n("hello world events!", " ", 2), strs(&["hello", "world events!"]));
    assert_eq!(split_n("o©o©o©o", "©", -1), strs(&["o", "o", "o", "o"]));
    // An empty separator splits into code points, the last part taking the rest.
    assert_eq!(ok("string_split_string", &[s("a©b"), s("")]), strs(&["a", "©", "b"]));
    assert_eq!(split_n("a©b", "", 2), strs(&["a", "©b"]));
    assert_eq!(ok("string_split_string", &[s(""), s("")]), strs(&[]));
    assert_eq!(ok("string_split_string", &[s(""), s(",")]), strs(&[""]));
}

#[test]
fn substring_ranges_and_errors() {
    assert_eq!(ok("string_substring_int", &[s("tacocat"), i(4)]), s("cat"));
    assert_eq!(ok("string_substring_int", &[s("tacocat"), i(7)]), s(""));
    assert_eq!(ok("string_substring_int_int", &[s("tacocat"), i(0), i(4)]), s("taco"));
    assert_eq!(ok("string_substring_int_int", &[s("tacocat"), i(4), i(4)]), s(""));
    assert_eq!(ok("string_substring_int_int", &[s("ta©o©αT"), i(2), i(6)]), s("©o©α"));
    assert_eq!(ok("string_substring_int_int", &[s("ta©o©αT"), i(7), i(7)]), s(""));
    let cases: &[(&[Value], &str)] = &[
        (&[s("tacocat"), i(40)], "index out of range: 40"),
        (&[s("tacocat"), i(-1)], "index out of range: -1"),
        (&[s("tacocat"), i(1), i(50)], "index out of range: 50"),
        (&[s("tacocat"), i(49), i(50)], "index out of range: 49"),
        (&[s("tacocat"), i(4), i(3)], "invalid substring range. start: 4, end: 3"),
    ];
    for (args, want) in cases {
        let id = if args.len() == 2 { "string_substring_int" } else { "string_substring_int_int" };
        assert_eq!(err(id, args), *want);
    }
}

#[test]
fn trim_removes_unicode_white_space_only() {
    assert_eq!(ok("string_trim", &[s(" \u{c}\n\r\t\u{b}text  ")]), s("text"));
    assert_eq!(ok("string_trim", &[s("\u{85}\u{a0}\u{1680}text")]), s("text"));
    assert_eq!(
        ok(
            "string_trim",
            &[s("text\u{2000}\u{2001}\u{2002}\u{2003}\u{2004}\u{2006}\u{2007}\u{2008}\u{2009}")]
        ),
        s("text")
    );
    assert_eq!(
        ok("string_trim", &[s("\u{200a}text\u{2028}\u{2029}\u{202F}\u{205F}\u{3000}")]),
        s("text")
    );
    let untouched = "\u{180e}text\u{200b}\u{200c}\u{200d}\u{2060}\u{feff}";
    assert_eq!(ok("string_trim", &[s(untouched)]), s(untouched));
}

#[test]
fn join_with_and_without_separator() {
    assert_eq!(ok("list_join", &[strs(&["x", "y"])]), s("xy"));
    assert_eq!(ok("list_join_string", &[strs(&["x", "y"]), s("-")]), s("x-y"));
    assert_eq!(ok("list_join", &[strs(&[])]), s(""));
    assert_eq!(ok("list_join_string", &[strs(&[]), s("-")]), s(""));
    assert_eq!(
        err("list_join", &[Value::list(vec![s("x"), i(1)])]),
        "no such overload: join(list(dyn))"
    );
}

#[test]
fn reverse_reverses_code_points() {
    assert_eq!(ok("string_reverse", &[s("")]), s(""));
    assert_eq!(ok("string_reverse", &[s("☺")]), s("☺"));
    assert_eq!(ok("string_reverse", &[s("Ta©oCαt")]), s("tαCo©aT"));
}

#[test]
fn quote_escapes_like_cel_go() {
    let cases = [
        ("first\nsecond", "\"first\\nsecond\""),
        ("bell\u{7}", "\"bell\\a\""),
        ("\u{8}backspace", "\"\\bbackspace\""),
        ("\u{c}form feed", "\"\\fform feed\""),
        ("carriage \r return", "\"carriage \\r return\""),
        ("horizontal tab\t", "\"horizontal tab\\t\""),
        ("vertical \u{b} tab", "\"vertical \\v tab\""),
        ("double \\\\ slash", "\"double \\\\\\\\ slash\""),
        ("ends with \\", "\"ends with \\\\\""),
        ("mid string \" quote", "\"mid string \\\" quote\""),
        ("printable unicode😀", "\"printable unicode😀\""),
        ("\u{1F431}\u{1F600}\u{1F61B}", "\"\u{1F431}\u{1F600}\u{1F61B}\""),
        ("", "\"\""),
        // Other control characters are copied, not escaped (unlike Go's %q).
        ("\u{1}", "\"\u{1}\""),
    ];
    for (input, want) in cases {
        assert_eq!(ok("strings_quote", &[s(input)]), s(want), "quote({input:?})");
    }
}

#[test]
fn wrong_kinds_are_no_such_overload() {
    let cases: &[(&str, &[Value])] = &[
        ("string_char_at_int", &[i(42), i(2)]),
        ("string_char_at_int", &[s("hello"), Value::Bool(true)]),
        ("string_index_of_string", &[i(24), s("2")]),
        ("string_index_of_string", &[s("hello"), Value::Bool(true)]),
        ("string_index_of_string_int", &[s("42"), i(4), i(0)]),
        ("string_index_of_string_int", &[s("42"), s("4"), s("0")]),
        ("string_split_string", &[i(42), s("2")]),
        ("string_split_string_int", &[s("42"), s("2"), s("1")]),
        ("string_replace_string_string", &[s("42"), i(2), i(1)]),
        ("string_replace_string_string_int", &[s("42"), s("2"), s("1"), s("1")]),
        ("string_substring_int_int", &[s("tacocat"), i(0), Value::Bool(false)]),
        ("string_format", &[i(1), Value::list(vec![])]),
        ("strings_quote", &[i(1)]),
    ];
    for (id, args) in cases {
        assert!(err(id, args).starts_with("no such overload"), "{id}{args:?}");
    }
    // A four-argument overload called with the wrong count reports it too.
    assert!(err("string_replace_string_string_int", &[s("a")]).starts_with("no such overload"));
}
