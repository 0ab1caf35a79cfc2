use super::decls::{CallStyle, CostHint, DeclError, Declarations, Overload, ResolveError};
use super::types::{Substitution, Type};

fn a() -> Type {
    Type::param("A")
}

#[test]
fn overload_ids_must_be_unique_across_functions() {
    let mut decls = Declarations::new();
    decls.add_function("f", [Overload::global("f_int", vec![Type::Int], Type::Int)]).unwrap();
    let err = decls
        .add_function("g", [Overload::global("f_int", vec![Type::String], Type::Int)])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "overload id 'f_int' declared for function 'g' is already used by function 'f'; \
         give every overload a unique id"
    );
    let err = decls
        .add_function(
            "h",
            [
                Overload::global("h_1", vec![Type::Int], Type::Int),
                Overload::global("h_1", vec![Type::String], Type::Int),
            ],
        )
        .unwrap_err();
    assert!(matches!(err, DeclError::DuplicateOverloadId { ref existing_function, .. }
        if existing_function == "h"));
}

#[test]
fn overlapping_signatures_are_rejected_and_nothing_is_added() {
    let mut decls = Declarations::new();
    decls
        .add_function("f", [Overload::global("f_list", vec![Type::list(a())], Type::Int)])
        .unwrap();
    let err = decls
        .add_function(
            "f",
            [
                Overload::global("f_string", vec![Type::String], Type::Int),
                Overload::global("f_list_int", vec![Type::list(Type::Int)], Type::Int),
            ],
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "overload 'f_list_int' of function 'f' overlaps with overload 'f_list': both accept \
         the same arguments; make their parameter types distinct"
    );
    // The whole call was rejected: `f_string` was not added either.
    assert_eq!(decls.function("f").map(|f| f.overloads.len()), Some(1));
    assert!(decls.overload("f_string").is_none());
    // Another call style or arity does not overlap.
    decls
        .add_function(
            "f",
            [
                Overload::receiver("list_f", vec![Type::list(Type::Int)], Type::Int),
                Overload::global("f_list_list", vec![Type::list(a()), Type::list(a())], Type::Int),
            ],
        )
        .unwrap();
}

#[test]
fn receiver_overloads_need_a_receiver_and_variables_are_declared_once() {
    let mut decls = Declarations::new();
    let err =
        decls.add_function("f", [Overload::receiver("f_none", vec![], Type::Int)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "receiver-style overload 'f_none' of function 'f' has no parameters; its first \
         parameter must be the receiver type"
    );
    decls.add_variable("self", Type::String).unwrap();
    assert_eq!(decls.variable("self").map(|v| &v.ty), Some(&Type::String));
    let err = decls.add_variable("self", Type::Int).unwrap_err();
    assert_eq!(err.to_string(), "variable 'self' is already declared; declare each variable once");
    assert_eq!(decls.variables().count(), 1);
}

#[test]
fn type_params_and_cost_are_recorded() {
    let overload =
        Overload::global("pair", vec![Type::param("B"), a()], Type::map(a(), Type::param("C")))
            .with_cost(CostHint::Linear { arg: 1, tenths_per_unit: 10 });
    assert_eq!(overload.type_params, vec!["B", "A", "C"]);
    assert_eq!(overload.cost, CostHint::Linear { arg: 1, tenths_per_unit: 10 });
    assert_eq!(Overload::global("x", vec![], Type::Int).cost, CostHint::Constant(1));
}

fn sample() -> Declarations {
    let mut decls = Declarations::new();
    decls
        .add_function(
            "f",
            [
                Overload::global("f_int", vec![Type::Int], Type::Int),
                Overload::global("f_string", vec![Type::String], Type::String),
                Overload::global("f_bool", vec![Type::Bool], Type::Int),
                Overload::receiver("string_f_int", vec![Type::String, Type::Int], Type::Bool),
            ],
        )
        .unwrap();
    decls
}

#[test]
fn candidates_filter_by_style_and_arity() {
    let decls = sample();
    let ids = |style, arity| {
        decls.candidates("f", style, arity).map(|o| o.id.as_str()).collect::<Vec<_>>()
    };
    assert_eq!(ids(CallStyle::Global, 1), ["f_int", "f_string", "f_bool"]);
    assert_eq!(ids(CallStyle::Receiver, 2), ["string_f_int"]);
    assert!(ids(CallStyle::Global, 2).is_empty());
    assert_eq!(decls.candidates("nope", CallStyle::Global, 1).count(), 0);
    let (function, overload) = decls.overload("string_f_int").unwrap();
    assert_eq!(function.name, "f");
    assert_eq!(overload.style, CallStyle::Receiver);
}

#[test]
fn resolution_picks_the_agreeing_overload() {
    let decls = sample();
    let mut s = Substitution::new();
    let r = decls.resolve("f", CallStyle::Global, &[Type::String], &mut s).unwrap();
    assert_eq!(r.overload_ids, ["f_string"]);
    assert_eq!(r.result, Type::String);
    let r = decls.resolve("f", CallStyle::Receiver, &[Type::String, Type::Int], &mut s).unwrap();
    assert_eq!(r.overload_ids, ["string_f_int"]);
    assert_eq!(r.result, Type::Bool);
}

#[test]
fn a_dyn_argument_keeps_every_candidate_and_a_common_result() {
    let decls = sample();
    let mut s = Substitution::new();
    let r = decls.resolve("f", CallStyle::Global, &[Type::Dyn], &mut s).unwrap();
    assert_eq!(r.overload_ids, ["f_int", "f_string", "f_bool"]);
    // int and string disagree: the result is left to evaluation.
    assert_eq!(r.result, Type::Dyn);
    let mut decls = Declarations::new();
    decls
        .add_function(
            "g",
            [
                Overload::global("g_int", vec![Type::Int], Type::Int),
                Overload::global("g_uint", vec![Type::Uint], Type::Int),
            ],
        )
        .unwrap();
    let r = decls.resolve("g", CallStyle::Global, &[Type::Dyn], &mut s).unwrap();
    assert_eq!(r.result, Type::Int);
}

#[test]
fn unresolvable_calls_report_cel_go_messages() {
    let decls = sample();
    let mut s = Substitution::new();
    let err = decls.resolve("nope", CallStyle::Global, &[], &mut s).unwrap_err();
    assert_eq!(err.to_string(), "undeclared reference to 'nope' (in container '')");
    let err = decls.resolve("f", CallStyle::Global, &[Type::Double], &mut s).unwrap_err();
    assert_eq!(err.to_string(), "found no matching overload for 'f' applied to '(double)'");
    let err = decls
        .resolve("f", CallStyle::Receiver, &[Type::String, Type::list(Type::Int)], &mut s)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "found no matching overload for 'f' applied to 'string.(list(int))'"
    );
    assert!(matches!(err, ResolveError::NoMatchingOverload { .. }));
}

#[test]
fn each_call_instantiates_type_params_afresh() {
    let mut decls = Declarations::new();
    decls.add_function("id", [Overload::global("id_a", vec![a()], a())]).unwrap();
    let mut s = Substitution::new();
    let first = decls.resolve("id", CallStyle::Global, &[Type::Int], &mut s).unwrap();
    let second = decls.resolve("id", CallStyle::Global, &[Type::String], &mut s).unwrap();
    assert_eq!(first.result, Type::Int);
    assert_eq!(second.result, Type::String);
    // The declaration's own `A` was never bound.
    assert_eq!(s.binding("A"), None);
}

#[test]
fn overload_errors_name_the_null_type_null_as_cel_go_does() {
    let decls = sample();
    let mut s = Substitution::new();
    let err = decls.resolve("f", CallStyle::Global, &[Type::list(Type::Null)], &mut s).unwrap_err();
    assert_eq!(err.to_string(), "found no matching overload for 'f' applied to '(list(null))'");
}
