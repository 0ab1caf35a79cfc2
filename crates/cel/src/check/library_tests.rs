use std::collections::BTreeSet;

use super::decls::{CallStyle, CostHint, Declarations, ResolveError};
use super::types::{Substitution, Type};
use super::{CIDR_TYPE_NAME, IP_TYPE_NAME, URL_TYPE_NAME, add_standard_library, full_library};

use CallStyle::{Global, Receiver};
use Type::{Bool, Bytes, Double, Duration, Dyn, Int, String, Timestamp, Uint};

fn library() -> Declarations {
    full_library().expect("the library tables are consistent")
}

/// The checked type of a call, unbound parameters defaulted as at the end of a check.
fn call(
    decls: &Declarations,
    name: &str,
    style: CallStyle,
    args: &[Type],
) -> Result<Type, ResolveError> {
    let mut s = Substitution::new();
    let resolution = decls.resolve(name, style, args, &mut s)?;
    Ok(s.substitute(&resolution.result, true))
}

fn list(t: Type) -> Type {
    Type::list(t)
}

fn map(k: Type, v: Type) -> Type {
    Type::map(k, v)
}

fn opt(t: Type) -> Type {
    Type::optional(t)
}

#[test]
fn counts_of_functions_and_overloads() {
    let decls = library();
    let functions = decls.functions().count();
    let overloads: usize = decls.functions().map(|f| f.overloads.len()).sum();
    let mut stdlib = Declarations::new();
    add_standard_library(&mut stdlib).unwrap();
    let std_overloads: usize = stdlib.functions().map(|f| f.overloads.len()).sum();
    // Standard library, counted from langdef's list: 5 logic, 2 equality, 4 orderings
    // of 8 same-type and 6 cross-numeric pairs, 25 arithmetic, 2 index, 2 `in`, 8
    // `size`, 5 string tests, 33 conversions, 24 time accessors.
    assert_eq!(
        (stdlib.functions().count(), std_overloads),
        (44, 5 + 2 + 4 * 14 + 25 + 12 + 5 + 33 + 24)
    );
    // Plus 13 functions / 19 overloads of strings, 10 / 15 of optionals (two more on
    // `_[_]`), 2 / 3 regex, 8 / 8 URL, 9 / 10 IP, 6 / 10 CIDR, 4 / 30 lists (two more
    // on `indexOf` and `lastIndexOf`), 3 / 3 sets.
    assert_eq!(
        (functions, overloads),
        (44 + 13 + 10 + 2 + 8 + 9 + 6 + 4 + 3, 162 + 19 + 15 + 3 + 8 + 10 + 10 + 30 + 3)
    );
}

#[test]
fn overload_ids_are_unique_and_each_finds_its_function() {
    let decls = library();
    let mut seen = BTreeSet::new();
    for function in decls.functions() {
        for overload in &function.overloads {
            assert!(seen.insert(overload.id.clone()), "duplicate id {}", overload.id);
            let (owner, found) = decls.overload(&overload.id).expect("id is indexed");
            assert_eq!(owner.name, function.name);
            assert_eq!(found, overload);
        }
    }
}

#[test]
fn every_overload_resolves_for_its_own_parameter_types() {
    let decls = library();
    for function in decls.functions() {
        for overload in &function.overloads {
            let mut s = Substitution::new();
            let r = decls
                .resolve(&function.name, overload.style, &overload.params, &mut s)
                .unwrap_or_else(|e| panic!("{}: {e}", overload.id));
            assert!(
                r.overload_ids.contains(&overload.id),
                "{} not selected: {:?}",
                overload.id,
                r.overload_ids
            );
        }
    }
}

#[test]
fn call_signatures_have_the_expected_result_types() {
    let decls = library();
    let ip = || Type::opaque(IP_TYPE_NAME, vec![]);
    let cidr = || Type::opaque(CIDR_TYPE_NAME, vec![]);
    let url = || Type::opaque(URL_TYPE_NAME, vec![]);
    let cases: Vec<(&str, CallStyle, Vec<Type>, Type)> = vec![
        ("_+_", Global, vec![list(Int), list(Int)], list(Int)),
        ("_+_", Global, vec![list(Int), list(Dyn)], list(Dyn)),
        ("_+_", Global, vec![String, String], String),
        ("_+_", Global, vec![Timestamp, Duration], Timestamp),
        ("_+_", Global, vec![Duration, Timestamp], Timestamp),
        ("_-_", Global, vec![Timestamp, Timestamp], Duration),
        ("_/_", Global, vec![Uint, Uint], Uint),
        ("_%_", Global, vec![Int, Int], Int),
        ("-_", Global, vec![Double], Double),
        ("_==_", Global, vec![Int, Int], Bool),
        ("_==_", Global, vec![list(String), list(Dyn)], Bool),
        ("_!=_", Global, vec![Dyn, String], Bool),
        ("_<_", Global, vec![Int, Double], Bool),
        ("_>=_", Global, vec![Uint, Int], Bool),
        ("_<=_", Global, vec![Duration, Duration], Bool),
        ("_&&_", Global, vec![Bool, Bool], Bool),
        ("!_", Global, vec![Bool], Bool),
        ("_?_:_", Global, vec![Bool, Int, Int], Int),
        ("_?_:_", Global, vec![Bool, Int, Dyn], Dyn),
        ("_[_]", Global, vec![list(String), Int], String),
        ("_[_]", Global, vec![map(String, list(Int)), String], list(Int)),
        ("_[_]", Global, vec![opt(list(Int)), Int], opt(Int)),
        ("@in", Global, vec![String, list(String)], Bool),
        ("@in", Global, vec![String, map(String, Int)], Bool),
        ("size", Global, vec![map(String, Int)], Int),
        ("size", Receiver, vec![Bytes], Int),
        ("endsWith", Receiver, vec![String, String], Bool),
        ("matches", Global, vec![String, String], Bool),
        ("int", Global, vec![Timestamp], Int),
        ("uint", Global, vec![Double], Uint),
        ("string", Global, vec![Bytes], String),
        ("string", Global, vec![ip()], String),
        ("timestamp", Global, vec![String], Timestamp),
        ("dyn", Global, vec![list(Int)], Dyn),
        ("type", Global, vec![Int], Type::type_of(Int)),
        ("getFullYear", Receiver, vec![Timestamp, String], Int),
        ("getSeconds", Receiver, vec![Duration], Int),
        ("split", Receiver, vec![String, String], list(String)),
        ("join", Receiver, vec![list(String), String], String),
        ("format", Receiver, vec![String, list(Dyn)], String),
        ("strings.quote", Global, vec![String], String),
        ("indexOf", Receiver, vec![String, String, Int], Int),
        ("indexOf", Receiver, vec![list(Double), Double], Int),
        ("optional.of", Global, vec![String], opt(String)),
        ("optional.none", Global, vec![], opt(Dyn)),
        ("orValue", Receiver, vec![opt(Int), Int], Int),
        ("or", Receiver, vec![opt(String), opt(String)], opt(String)),
        ("value", Receiver, vec![opt(list(Int))], list(Int)),
        ("_[?_]", Global, vec![map(String, Bool), String], opt(Bool)),
        ("findAll", Receiver, vec![String, String, Int], list(String)),
        ("getQuery", Receiver, vec![url()], map(String, list(String))),
        ("ip", Receiver, vec![cidr()], ip()),
        ("containsIP", Receiver, vec![cidr(), String], Bool),
        ("sum", Receiver, vec![list(Duration)], Duration),
        ("max", Receiver, vec![list(String)], String),
        ("sets.contains", Global, vec![list(Int), list(Int)], Bool),
    ];
    for (name, style, args, expected) in cases {
        let got = call(&decls, name, style, &args);
        assert_eq!(got, Ok(expected.clone()), "{name}{args:?}");
    }
}

#[test]
fn wrong_argument_types_find_no_overload() {
    let decls = library();
    let cases: Vec<(&str, CallStyle, Vec<Type>, &str)> = vec![
        ("_+_", Global, vec![Int, String], "(int, string)"),
        ("_+_", Global, vec![list(Int), list(String)], "(list(int), list(string))"),
        ("_==_", Global, vec![Int, String], "(int, string)"),
        ("_<_", Global, vec![Bool, Int], "(bool, int)"),
        ("_&&_", Global, vec![Bool, Int], "(bool, int)"),
        ("_?_:_", Global, vec![Int, Int, Int], "(int, int, int)"),
        ("_[_]", Global, vec![list(Int), String], "(list(int), string)"),
        ("_[_]", Global, vec![map(String, Int), Int], "(map(string, int), int)"),
        ("size", Global, vec![Int], "(int)"),
        ("endsWith", Receiver, vec![String, Int], "string.(int)"),
        ("startsWith", Receiver, vec![Bytes, Bytes], "bytes.(bytes)"),
        ("int", Global, vec![Bytes], "(bytes)"),
        ("getHours", Receiver, vec![Duration, String], "google.protobuf.Duration.(string)"),
        ("orValue", Receiver, vec![opt(Int), String], "optional_type(int).(string)"),
        ("sum", Receiver, vec![list(String)], "list(string).()"),
        ("sets.equivalent", Global, vec![list(Int), list(String)], "(list(int), list(string))"),
    ];
    for (name, style, args, signature) in cases {
        let err = call(&decls, name, style, &args).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("found no matching overload for '{name}' applied to '{signature}'")
        );
    }
}

#[test]
fn type_names_are_values_of_type_type() {
    let decls = library();
    let ty = |name: &str| decls.variable(name).map(|v| v.ty.to_string());
    assert_eq!(ty("int").as_deref(), Some("type(int)"));
    assert_eq!(ty("list").as_deref(), Some("type(list(dyn))"));
    assert_eq!(ty("google.protobuf.Timestamp").as_deref(), Some("type(google.protobuf.Timestamp)"));
    assert_eq!(ty("type").as_deref(), Some("type(type(dyn))"));
    assert_eq!(ty("net.IP").as_deref(), Some("type(net.IP)"));
    assert_eq!(ty("optional_type").as_deref(), Some("type(optional_type(dyn))"));
    // The standard library's twelve, `optional_type`, `net.IP` and `net.CIDR`.
    assert_eq!(decls.variables().count(), 15);
    // `type(1) == int` checks.
    let int_type = decls.variable("int").map(|v| v.ty.clone()).unwrap();
    let of_one = call(&decls, "type", Global, &[Int]).unwrap();
    assert_eq!(call(&decls, "_==_", Global, &[of_one, int_type]), Ok(Bool));
}

#[test]
fn call_style_matters() {
    let decls = library();
    assert!(call(&decls, "endsWith", Global, &[String, String]).is_err());
    assert!(call(&decls, "strings.quote", Receiver, &[String]).is_err());
    assert_eq!(call(&decls, "matches", Receiver, &[String, String]), Ok(Bool));
}

#[test]
fn string_scans_carry_linear_cost_hints() {
    let decls = library();
    let cost = |id: &str| decls.overload(id).map(|(_, o)| o.cost);
    let per_byte = Some(CostHint::Linear { arg: 0, tenths_per_unit: 1 });
    assert_eq!(cost("ends_with_string"), per_byte);
    assert_eq!(cost("matches_string"), per_byte);
    assert_eq!(cost("string_replace_string_string"), per_byte);
    assert_eq!(cost("in_list"), Some(CostHint::Linear { arg: 1, tenths_per_unit: 10 }));
    assert_eq!(cost("add_int64"), Some(CostHint::Constant(1)));
}
