//! Encoding, regex, paths, URLs, reflection and OS functions, table style.
mod common;
use common::*;

#[test]
fn encodings() {
    table(&[
        ("b64enc", vec![s("hello")], s("aGVsbG8=")),
        ("b64dec", vec![s("aGVsbG8=")], s("hello")),
        ("b64dec", vec![s("aGVs\nbG8=")], s("hello")),
        ("b64dec", vec![s("aGVsbG8")], s("illegal base64 data at input byte 4")),
        ("b64dec", vec![s("a!==")], s("illegal base64 data at input byte 1")),
        ("b64dec", vec![s("aGVsbG8=x")], s("illegal base64 data at input byte 8")),
        ("b64dec", vec![s("")], s("")),
        ("b32enc", vec![s("hello")], s("NBSWY3DP")),
        ("b32enc", vec![s("hi")], s("NBUQ====")),
        ("b32dec", vec![s("NBSWY3DP")], s("hello")),
        ("b32dec", vec![s("NBUQ====")], s("hi")),
        ("b32dec", vec![s("NBU")], s("illegal base32 data at input byte 0")),
        ("b32dec", vec![s("NB1WY3DP")], s("illegal base32 data at input byte 2")),
    ]);
}

#[test]
fn regexes() {
    table(&[
        ("regexMatch", vec![s("^[a-z]+@[a-z.]+$"), s("test@acme.com")], b(true)),
        ("regexMatch", vec![s("["), s("x")], b(false)),
        ("mustRegexMatch", vec![s("a.c"), s("abc")], b(true)),
        ("regexFindAll", vec![s("[2,4,6,8]"), s("123456789"), i(-1)], sl(&["2", "4", "6", "8"])),
        ("regexFindAll", vec![s("[2,4,6,8]"), s("123456789"), i(2)], sl(&["2", "4"])),
        ("regexFindAll", vec![s("[2,4,6,8]"), s("123456789"), i(0)], sl(&[])),
        ("regexFind", vec![s("[a-zA-Z][1-9]"), s("abcd1234")], s("d1")),
        ("regexFind", vec![s("z"), s("abc")], s("")),
        ("regexReplaceAll", vec![s("a(x*)b"), s("-ab-axxb-"), s("${1}W")], s("-W-xxW-")),
        ("regexReplaceAll", vec![s("a(x*)b"), s("-ab-axxb-"), s("$1W")], s("---")),
        ("regexReplaceAllLiteral", vec![s("a(x*)b"), s("-ab-axxb-"), s("${1}")], s("-${1}-${1}-")),
        ("regexSplit", vec![s("z+"), s("pizza"), i(-1)], sl(&["pi", "a"])),
        ("regexSplit", vec![s("z+"), s("pizza"), i(1)], sl(&["pizza"])),
        ("regexSplit", vec![s("z+"), s("pizza"), i(0)], sl(&[])),
        ("regexSplit", vec![s("x"), s(""), i(-1)], sl(&[""])),
        (
            "regexSplit",
            vec![s("a*"), s("abaabaccadaaae"), i(5)],
            sl(&["", "b", "b", "c", "cadaaae"]),
        ),
        ("regexQuoteMeta", vec![s("1.2.3-a*b")], s("1\\.2\\.3-a\\*b")),
    ]);
    let e = call_err("mustRegexMatch", &[s("["), s("x")]);
    assert!(e.starts_with("error parsing regexp: "), "{e}");
    let e = call_err("regexFindAll", &[s("("), s("x"), i(-1)]);
    assert!(e.starts_with("regexp: Compile(`(`): error parsing regexp: "), "{e}");
    assert!(call_err("mustRegexFind", &[s("("), s("x")]).starts_with("error parsing regexp: "));
    assert!(
        call_err("mustRegexSplit", &[s("("), s("x"), i(1)]).starts_with("error parsing regexp: ")
    );
    assert!(
        call_err("mustRegexReplaceAll", &[s("("), s("x"), s("")])
            .starts_with("error parsing regexp: ")
    );
}

#[test]
fn paths() {
    table(&[
        ("base", vec![s("/a/b/c.txt")], s("c.txt")),
        ("base", vec![s("/a/b/")], s("b")),
        ("base", vec![s("")], s(".")),
        ("base", vec![s("///")], s("/")),
        ("dir", vec![s("/a/b/c")], s("/a/b")),
        ("dir", vec![s("c")], s(".")),
        ("dir", vec![s("/")], s("/")),
        ("clean", vec![s("a//b/../c/.")], s("a/c")),
        ("clean", vec![s("/../a")], s("/a")),
        ("clean", vec![s("../../a")], s("../../a")),
        ("clean", vec![s("")], s(".")),
        ("ext", vec![s("a/b.tar.gz")], s(".gz")),
        ("ext", vec![s("a.b/c")], s("")),
        ("isAbs", vec![s("/a")], b(true)),
        ("isAbs", vec![s("a")], b(false)),
        ("osBase", vec![s("/a/b")], s("b")),
        ("osDir", vec![s("/a/b")], s("/a")),
        ("osClean", vec![s("/a/./b")], s("/a/b")),
        ("osExt", vec![s("x.yaml")], s(".yaml")),
        ("osIsAbs", vec![s("x")], b(false)),
    ]);
}

#[test]
fn urls() {
    table(&[
        (
            "urlParse",
            vec![s("https://user:pw@example.com:8443/a%20b?x=1#frag")],
            d(&[
                ("fragment", s("frag")),
                ("host", s("example.com:8443")),
                ("hostname", s("example.com")),
                ("opaque", s("")),
                ("path", s("/a b")),
                ("query", s("x=1")),
                ("scheme", s("https")),
                ("userinfo", s("user:pw")),
            ]),
        ),
        (
            "urlParse",
            vec![s("mailto:joe@example.com")],
            d(&[
                ("fragment", s("")),
                ("host", s("")),
                ("hostname", s("")),
                ("opaque", s("joe@example.com")),
                ("path", s("")),
                ("query", s("")),
                ("scheme", s("mailto")),
                ("userinfo", s("")),
            ]),
        ),
        (
            "urlJoin",
            vec![d(&[
                ("scheme", s("https")),
                ("host", s("example.com")),
                ("path", s("/a b")),
                ("query", s("x=1")),
                ("fragment", s("f")),
            ])],
            s("https://example.com/a%20b?x=1#f"),
        ),
        (
            "urlJoin",
            vec![d(&[("scheme", s("http")), ("host", s("h")), ("userinfo", s("u:p"))])],
            s("http://u:p@h"),
        ),
        ("urlJoin", vec![d(&[("path", s("rel/x"))])], s("rel/x")),
    ]);
    err_table(&[
        ("urlParse", vec![s(":x")], "unable to parse url: parse \":x\": missing protocol scheme"),
        (
            "urlParse",
            vec![s("http://h/%zz")],
            "unable to parse url: parse \"http://h/%zz\": invalid URL escape \"%zz\"",
        ),
        (
            "urlJoin",
            vec![d(&[("host", i(1))])],
            "unable to parse host key, must be of type string, but int found",
        ),
    ]);
}

#[test]
fn reflection() {
    table(&[
        ("typeOf", vec![s("x")], s("string")),
        ("typeOf", vec![i(1)], s("int")),
        ("typeOf", vec![f(1.0)], s("float64")),
        ("typeOf", vec![nil()], s("<nil>")),
        ("typeOf", vec![il(&[1])], s("[]interface {}")),
        ("typeOf", vec![d(&[])], s("map[string]interface {}")),
        ("typeIs", vec![s("int"), i(1)], b(true)),
        ("typeIsLike", vec![s("string"), s("x")], b(true)),
        ("kindOf", vec![il(&[])], s("slice")),
        ("kindOf", vec![d(&[])], s("map")),
        ("kindOf", vec![nil()], s("invalid")),
        ("kindIs", vec![s("bool"), b(true)], b(true)),
        ("deepEqual", vec![il(&[1, 2]), il(&[1, 2])], b(true)),
        ("deepEqual", vec![i(1), f(1.0)], b(false)),
        ("deepEqual", vec![d(&[("a", nil())]), d(&[("a", nil())])], b(true)),
    ]);
}

#[test]
fn environment() {
    let path = std::env::var("PATH").unwrap_or_default();
    table(&[
        ("env", vec![s("PATH")], s(&path)),
        ("env", vec![s("CERTGATE_SURELY_UNSET_VARIABLE")], s("")),
        (
            "expandenv",
            vec![s("p=$PATH;u=${CERTGATE_SURELY_UNSET_VARIABLE}.")],
            s(&format!("p={path};u=.")),
        ),
        ("expandenv", vec![s("cost: $ 5 $")], s("cost: $ 5 $")),
    ]);
    assert_eq!(
        ok("getHostByName", &[s("localhost")])
            .as_str()
            .map(|a| a.parse::<std::net::IpAddr>().is_ok()),
        Some(true)
    );
    assert_eq!(call_err("getHostByName", &[s("no-such-host.invalid")]), "invalid argument to Intn");
}
