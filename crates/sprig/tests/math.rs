//! Math and conversion functions, table style.
mod common;
use common::*;

#[test]
fn integer_math() {
    table(&[
        ("add", vec![i(1), s("2"), f(3.9), b(true)], i(7)),
        ("add", vec![], i(0)),
        ("add1", vec![s("41")], i(42)),
        ("add1", vec![nil()], i(1)),
        ("sub", vec![i(5), s("0x2")], i(3)),
        ("div", vec![i(7), i(2)], i(3)),
        ("div", vec![i(-7), i(2)], i(-3)),
        ("mod", vec![i(7), i(3)], i(1)),
        ("mul", vec![i(2), i(3), s("4")], i(24)),
        ("mul", vec![i(2)], i(2)),
        ("max", vec![i(1), s("9"), i(3)], i(9)),
        ("biggest", vec![i(1), i(5)], i(5)),
        ("min", vec![i(4), i(-2), s("x")], i(-2)),
        ("add", vec![s("12.00"), s("1.5"), s("010")], i(20)),
    ]);
    err_table(&[
        ("div", vec![i(1), i(0)], "runtime error: integer divide by zero"),
        ("mod", vec![i(1), s("zero")], "runtime error: integer divide by zero"),
    ]);
    assert_eq!(arg_err("mul", &[]), "wrong number of args for mul: want at least 1 got 0");
}

#[test]
fn float_math() {
    table(&[
        ("addf", vec![f(0.1), f(0.2)], f(0.3)),
        ("addf", vec![i(1), s("1.5")], f(2.5)),
        ("add1f", vec![f(1.5)], f(2.5)),
        ("subf", vec![f(0.3), f(0.1)], f(0.2)),
        ("mulf", vec![f(1.1), i(3)], f(3.3)),
        ("divf", vec![i(1), i(3)], f(0.3333333333333333)),
        ("divf", vec![i(10), i(4), i(5)], f(0.5)),
        ("maxf", vec![f(1.5), i(2), s("0.5")], f(2.0)),
        ("minf", vec![f(1.5), i(2), s("0.5")], f(0.5)),
        ("floor", vec![f(1.7)], f(1.0)),
        ("floor", vec![s("-1.5")], f(-2.0)),
        ("ceil", vec![f(1.2)], f(2.0)),
        ("round", vec![f(123.555_555), i(3)], f(123.556)),
        ("round", vec![f(123.55555), i(0)], f(124.0)),
        ("round", vec![f(123.4), i(0), f(0.3)], f(124.0)),
        ("round", vec![s("2.5"), i(0)], f(3.0)),
    ]);
    err_table(&[("divf", vec![i(1), i(0)], "decimal division by 0")]);
}

#[test]
fn conversions() {
    table(&[
        ("atoi", vec![s("42")], i(42)),
        ("atoi", vec![s("-7")], i(-7)),
        ("atoi", vec![s("4x")], i(0)),
        ("atoi", vec![s("0x10")], i(0)),
        ("int", vec![s("0x10")], i(16)),
        ("int", vec![f(3.99)], i(3)),
        ("int", vec![s("3.5")], i(0)),
        ("int", vec![nil()], i(0)),
        ("int64", vec![s("  1")], i(0)),
        ("int64", vec![b(true)], i(1)),
        ("float64", vec![s("1.5")], f(1.5)),
        ("float64", vec![i(2)], f(2.0)),
        ("float64", vec![s("x")], f(0.0)),
        ("toDecimal", vec![s("0777")], i(511)),
        ("toDecimal", vec![i(777)], i(511)),
        ("toDecimal", vec![s("8")], i(0)),
    ]);
    assert_eq!(arg_err("atoi", &[i(1)]), "wrong type for value; expected string; got int");
}

#[test]
fn random_int_stays_in_range() {
    for _ in 0..50 {
        let v = ok("randInt", &[i(5), i(8)]);
        let n = v.as_int().unwrap_or(-1);
        assert!((5..8).contains(&n), "{n}");
    }
    assert_eq!(call_err("randInt", &[i(5), i(5)]), "invalid argument to Intn");
}
