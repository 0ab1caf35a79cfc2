//! Dictionary functions, table style.
mod common;
use common::*;

#[test]
fn dict_values() {
    let ab = d(&[("a", i(1)), ("b", s("x"))]);
    table(&[
        ("dict", vec![s("a"), i(1), s("b"), s("x")], ab.clone()),
        ("dict", vec![s("a"), i(1), s("b")], d(&[("a", i(1)), ("b", s(""))])),
        ("dict", vec![i(1), b(true)], d(&[("1", b(true))])),
        ("dict", vec![], d(&[])),
        ("get", vec![ab.clone(), s("a")], i(1)),
        ("get", vec![ab.clone(), s("zz")], s("")),
        ("get", vec![nil(), s("a")], s("")),
        ("set", vec![ab.clone(), s("c"), i(3)], d(&[("a", i(1)), ("b", s("x")), ("c", i(3))])),
        ("unset", vec![ab.clone(), s("a")], d(&[("b", s("x"))])),
        ("hasKey", vec![ab.clone(), s("b")], b(true)),
        ("hasKey", vec![ab.clone(), s("z")], b(false)),
        ("pluck", vec![s("a"), ab.clone(), d(&[("a", i(2))]), d(&[])], il(&[1, 2])),
        ("keys", vec![ab.clone(), d(&[("c", i(1))])], sl(&["a", "b", "c"])),
        ("values", vec![ab.clone()], l(vec![i(1), s("x")])),
        ("pick", vec![ab.clone(), s("a"), s("zz")], d(&[("a", i(1))])),
        ("omit", vec![ab.clone(), s("a")], d(&[("b", s("x"))])),
        ("deepCopy", vec![ab.clone()], ab.clone()),
        ("mustDeepCopy", vec![nil()], nil()),
        (
            "dig",
            vec![s("user"), s("role"), s("none"), d(&[("user", d(&[("role", s("admin"))]))])],
            s("admin"),
        ),
        ("dig", vec![s("user"), s("x"), s("none"), d(&[("user", d(&[]))])], s("none")),
        ("dig", vec![s("a"), s("none"), d(&[])], s("none")),
    ]);
}

#[test]
fn merging() {
    let dst = d(&[
        ("default", s("default")),
        ("overwrite", s("me")),
        ("key", b(true)),
        ("empty", s("")),
        ("nested", d(&[("x", i(1))])),
        ("list", il(&[1])),
    ]);
    let src = d(&[
        ("overwrite", s("overwritten")),
        ("key", b(false)),
        ("empty", s("filled")),
        ("nested", d(&[("x", i(2)), ("y", i(3))])),
        ("list", il(&[2])),
        ("new", nil()),
    ]);
    assert_eq!(
        ok("merge", &[dst.clone(), src.clone()]),
        d(&[
            ("default", s("default")),
            ("overwrite", s("me")),
            ("key", b(true)),
            ("empty", s("filled")),
            ("nested", d(&[("x", i(1)), ("y", i(3))])),
            ("list", il(&[1])),
        ])
    );
    assert_eq!(
        ok("mergeOverwrite", &[dst.clone(), src.clone()]),
        d(&[
            ("default", s("default")),
            ("overwrite", s("overwritten")),
            ("key", b(false)),
            ("empty", s("filled")),
            ("nested", d(&[("x", i(2)), ("y", i(3))])),
            ("list", il(&[2])),
            ("new", nil()),
        ])
    );
    assert_eq!(ok("mustMerge", &[d(&[]), d(&[("a", i(1))]), d(&[("a", i(2))])]), d(&[("a", i(1))]));
    assert_eq!(
        ok("mustMergeOverwrite", &[d(&[]), d(&[("a", i(1))]), d(&[("a", i(2))])]),
        d(&[("a", i(2))])
    );
}

#[test]
fn dict_errors() {
    err_table(&[
        ("dig", vec![s("a"), d(&[])], "dig needs at least three arguments"),
        (
            "dig",
            vec![s("a"), s("b"), s("none"), d(&[("a", s("str"))])],
            "interface conversion: interface {} is string, not map[string]interface {}",
        ),
        (
            "dig",
            vec![s("a"), s("none"), nil()],
            "interface conversion: interface {} is nil, not map[string]interface {}",
        ),
        (
            "dig",
            vec![i(1), s("none"), d(&[])],
            "interface conversion: interface {} is int, not string",
        ),
    ]);
    assert_eq!(
        arg_err("get", &[s("x"), s("a")]),
        "wrong type for value; expected map[string]interface {}; got string"
    );
    assert_eq!(
        arg_err("hasKey", &[d(&[]), i(1)]),
        "wrong type for value; expected string; got int"
    );
    assert_eq!(arg_err("merge", &[]), "wrong number of args for merge: want at least 1 got 0");
    assert_eq!(
        arg_err("merge", &[d(&[]), il(&[1])]),
        "wrong type for value; expected map[string]interface {}; got []interface {}"
    );
}
