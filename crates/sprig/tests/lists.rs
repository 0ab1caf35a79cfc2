//! List functions, table style.
mod common;
use common::*;

#[test]
fn list_values() {
    let abc = sl(&["a", "b", "c"]);
    table(&[
        ("list", vec![i(1), s("x")], l(vec![i(1), s("x")])),
        ("list", vec![], l(vec![])),
        ("tuple", vec![i(1)], il(&[1])),
        ("append", vec![il(&[1, 2]), i(3)], il(&[1, 2, 3])),
        ("push", vec![l(vec![]), i(3)], il(&[3])),
        ("mustAppend", vec![il(&[1]), nil()], l(vec![i(1), nil()])),
        ("prepend", vec![il(&[1, 2]), i(0)], il(&[0, 1, 2])),
        ("first", vec![abc.clone()], s("a")),
        ("first", vec![l(vec![])], nil()),
        ("last", vec![abc.clone()], s("c")),
        ("rest", vec![abc.clone()], sl(&["b", "c"])),
        // Go returns a nil `[]interface {}`: typed, printed `[]`.
        ("rest", vec![l(vec![])], l(vec![])),
        ("initial", vec![l(vec![])], l(vec![])),
        ("initial", vec![abc.clone()], sl(&["a", "b"])),
        ("reverse", vec![abc.clone()], sl(&["c", "b", "a"])),
        ("uniq", vec![il(&[1, 2, 1, 3, 2])], il(&[1, 2, 3])),
        ("uniq", vec![l(vec![i(1), f(1.0), s("1")])], l(vec![i(1), f(1.0), s("1")])),
        ("without", vec![il(&[1, 2, 3, 2]), i(2)], il(&[1, 3])),
        ("without", vec![il(&[1, 2, 3]), i(1), i(3)], il(&[2])),
        ("has", vec![i(2), il(&[1, 2])], b(true)),
        ("has", vec![s("2"), il(&[1, 2])], b(false)),
        ("has", vec![i(2), nil()], b(false)),
        (
            "compact",
            vec![l(vec![i(1), s(""), nil(), b(false), i(0), s("x")])],
            l(vec![i(1), s("x")]),
        ),
        ("slice", vec![il(&[1, 2, 3, 4]), i(1), i(3)], il(&[2, 3])),
        ("slice", vec![il(&[1, 2, 3, 4]), i(2)], il(&[3, 4])),
        ("slice", vec![il(&[1, 2, 3])], il(&[1, 2, 3])),
        ("slice", vec![l(vec![])], nil()),
        ("concat", vec![il(&[1]), il(&[2, 3]), l(vec![])], il(&[1, 2, 3])),
        ("chunk", vec![i(2), il(&[1, 2, 3])], l(vec![il(&[1, 2]), il(&[3])])),
        ("chunk", vec![i(2), l(vec![])], l(vec![])),
        ("until", vec![i(3)], il(&[0, 1, 2])),
        ("until", vec![i(-3)], il(&[0, -1, -2])),
        ("until", vec![i(0)], il(&[])),
        ("untilStep", vec![i(1), i(6), i(2)], il(&[1, 3, 5])),
        ("untilStep", vec![i(5), i(0), i(-2)], il(&[5, 3, 1])),
        ("untilStep", vec![i(0), i(5), i(0)], il(&[])),
        ("untilStep", vec![i(5), i(0), i(1)], il(&[])),
    ]);
}

#[test]
fn list_errors() {
    err_table(&[
        ("append", vec![s("x"), i(1)], "Cannot push on type string"),
        ("mustPush", vec![i(1), i(1)], "Cannot push on type int"),
        (
            "append",
            vec![nil(), i(1)],
            "runtime error: invalid memory address or nil pointer dereference",
        ),
        ("prepend", vec![d(&[]), i(1)], "Cannot prepend on type map"),
        ("mustFirst", vec![s("x")], "Cannot find first on type string"),
        ("last", vec![i(1)], "Cannot find last on type int"),
        ("mustRest", vec![b(true)], "Cannot find rest on type bool"),
        ("initial", vec![f(1.0)], "Cannot find initial on type float64"),
        ("reverse", vec![s("x")], "Cannot find reverse on type string"),
        ("mustCompact", vec![s("x")], "Cannot compact on type string"),
        ("uniq", vec![s("x")], "Cannot find uniq on type string"),
        ("without", vec![s("x"), i(1)], "Cannot find without on type string"),
        ("mustHas", vec![i(1), s("x")], "Cannot find has on type string"),
        ("slice", vec![s("x")], "list should be type of slice or array but string"),
        (
            "mustSlice",
            vec![il(&[1, 2]), i(1), i(5)],
            "reflect.Value.Slice: slice index out of bounds",
        ),
        ("concat", vec![il(&[1]), s("x")], "Cannot concat type string as list"),
        ("chunk", vec![i(2), s("x")], "Cannot chunk type string"),
        ("chunk", vec![i(0), il(&[1])], "runtime error: makeslice: len out of range"),
        (
            "until",
            vec![i(5_000_000)],
            "untilStep: result of 5000000 elements exceeds certgate's limit of 1000000",
        ),
        (
            "seq",
            vec![i(10_000_000)],
            "untilStep: result of 10000000 elements exceeds certgate's limit of 1000000",
        ),
    ]);
    assert_eq!(arg_err("append", &[il(&[1])]), "wrong number of args for append: want 2 got 1");
    assert_eq!(
        arg_err("chunk", &[s("2"), il(&[1])]),
        "wrong type for value; expected int; got string"
    );
}
