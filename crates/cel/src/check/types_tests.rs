use super::types::{MAX_TYPE_DEPTH, Substitution, Type, most_general};

fn a() -> Type {
    Type::param("A")
}

fn b() -> Type {
    Type::param("B")
}

#[test]
fn types_print_as_cel_go_does() {
    let cases = [
        (Type::Bool, "bool"),
        (Type::Int, "int"),
        (Type::Uint, "uint"),
        (Type::Double, "double"),
        (Type::String, "string"),
        (Type::Bytes, "bytes"),
        (Type::Null, "null_type"),
        (Type::Duration, "google.protobuf.Duration"),
        (Type::Timestamp, "google.protobuf.Timestamp"),
        (Type::Dyn, "dyn"),
        (Type::Error, "*error*"),
        (Type::list(Type::String), "list(string)"),
        (Type::map(Type::String, Type::Int), "map(string, int)"),
        (Type::map(Type::String, Type::list(Type::Int)), "map(string, list(int))"),
        (Type::type_of(Type::Int), "type(int)"),
        (Type::optional(Type::Int), "optional_type(int)"),
        (Type::opaque("net.IP", vec![]), "net.IP"),
        (Type::opaque("pair", vec![Type::Int, a()]), "pair(int, A)"),
        (Type::object("google.protobuf.Struct"), "google.protobuf.Struct"),
        (a(), "A"),
    ];
    for (ty, expected) in cases {
        assert_eq!(ty.to_string(), expected);
    }
}

#[test]
fn equal_types_agree_and_different_primitives_do_not() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&Type::Int, &Type::Int));
    assert!(s.is_assignable(&Type::list(Type::Int), &Type::list(Type::Int)));
    assert!(!s.is_assignable(&Type::Int, &Type::String));
    assert!(!s.is_assignable(&Type::Int, &Type::Uint));
    assert!(!s.is_assignable(&Type::Int, &Type::Double));
    assert!(!s.is_assignable(&Type::list(Type::Int), &Type::list(Type::String)));
    assert!(!s.is_assignable(&Type::list(Type::Int), &Type::map(Type::Int, Type::Int)));
    assert!(!s.is_assignable(&Type::object("a.B"), &Type::object("a.C")));
}

#[test]
fn dyn_and_error_agree_both_ways_at_any_depth() {
    let mut s = Substitution::new();
    for wildcard in [Type::Dyn, Type::Error] {
        assert!(s.is_assignable(&wildcard, &Type::String));
        assert!(s.is_assignable(&Type::String, &wildcard));
        assert!(s.is_assignable(&Type::list(wildcard.clone()), &Type::list(Type::Int)));
        assert!(s.is_assignable(
            &Type::map(Type::String, Type::Int),
            &Type::map(wildcard.clone(), wildcard.clone())
        ));
    }
}

#[test]
fn null_agrees_only_with_nullable_types() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&Type::Null, &Type::Null));
    assert!(s.is_assignable(&Type::Null, &Type::object("x.Msg")));
    assert!(s.is_assignable(&Type::Timestamp, &Type::Null));
    assert!(s.is_assignable(&Type::Duration, &Type::Null));
    assert!(!s.is_assignable(&Type::Int, &Type::Null));
    assert!(!s.is_assignable(&Type::Null, &Type::String));
    assert!(!s.is_assignable(&Type::Null, &Type::list(Type::Int)));
}

#[test]
fn opaque_types_agree_by_name_and_parameters() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&Type::optional(Type::Int), &Type::optional(Type::Int)));
    assert!(!s.is_assignable(&Type::optional(Type::Int), &Type::optional(Type::String)));
    assert!(!s.is_assignable(&Type::opaque("net.IP", vec![]), &Type::opaque("net.CIDR", vec![])));
    assert!(s.is_assignable(&Type::optional(a()), &Type::optional(Type::String)));
    assert_eq!(s.binding("A"), Some(&Type::String));
}

#[test]
fn type_values_agree_by_kind() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&Type::type_of(Type::Int), &Type::type_of(Type::String)));
    assert!(!s.is_assignable(&Type::type_of(Type::Int), &Type::Int));
}

#[test]
fn a_parameter_is_bound_on_first_use_and_must_agree_afterwards() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&a(), &Type::Int));
    assert_eq!(s.binding("A"), Some(&Type::Int));
    assert!(s.is_assignable(&a(), &Type::Int));
    assert!(!s.is_assignable(&a(), &Type::String));
    // Either side may be the parameter.
    assert!(!s.is_assignable(&Type::String, &a()));
    assert_eq!(s.binding("A"), Some(&Type::Int));
}

#[test]
fn a_failed_unification_leaves_no_bindings() {
    let mut s = Substitution::new();
    // A binds to int in the first pair, then the second pair fails.
    assert!(!s.is_assignable_all(&[a(), Type::String], &[Type::Int, Type::Int]));
    assert_eq!(s.binding("A"), None);
    assert!(!s.is_assignable(&Type::map(a(), Type::Int), &Type::map(Type::String, Type::Bool)));
    assert_eq!(s.binding("A"), None);
    assert!(!s.is_assignable_all(&[a()], &[Type::Int, Type::Int]));
}

#[test]
fn a_failed_unification_restores_earlier_bindings_exactly() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&a(), &Type::list(Type::Int)));
    assert!(s.is_assignable(&b(), &Type::String));
    // The first pair widens A to list(dyn) and binds C, the last one fails: A is back to
    // list(int), C unbound, B untouched.
    let c = Type::param("C");
    assert!(!s.is_assignable_all(
        &[a(), c.clone(), b()],
        &[Type::list(Type::Dyn), Type::Bool, Type::Int]
    ));
    assert_eq!(s.binding("A"), Some(&Type::list(Type::Int)));
    assert_eq!(s.binding("B"), Some(&Type::String));
    assert_eq!(s.binding("C"), None);
    // Bindings made by successful calls stay after a later failure.
    assert!(s.is_assignable(&c, &Type::Bool));
    assert!(!s.is_assignable(&b(), &Type::Int));
    assert_eq!(s.binding("C"), Some(&Type::Bool));
}

#[test]
fn a_binding_widens_to_the_more_general_type() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&a(), &Type::list(Type::Int)));
    assert!(s.is_assignable(&a(), &Type::list(Type::Dyn)));
    assert_eq!(s.binding("A"), Some(&Type::list(Type::Dyn)));
    // A more specific type still agrees, and does not narrow the binding back.
    assert!(s.is_assignable(&a(), &Type::list(Type::Int)));
    assert_eq!(s.binding("A"), Some(&Type::list(Type::Dyn)));
}

#[test]
fn parameters_bind_to_each_other_and_resolve_through_chains() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&a(), &b()));
    assert!(s.is_assignable(&b(), &Type::Double));
    assert_eq!(s.substitute(&Type::list(a()), true), Type::list(Type::Double));
    assert!(!s.is_assignable(&a(), &Type::Int));
}

#[test]
fn a_parameter_never_binds_to_a_type_containing_itself() {
    let mut s = Substitution::new();
    assert!(!s.is_assignable(&a(), &Type::list(a())));
    assert!(!s.is_assignable(&Type::map(Type::String, a()), &a()));
    assert!(s.is_assignable(&a(), &b()));
    // B is now A in disguise: binding B to list(A) would be circular.
    assert!(!s.is_assignable(&b(), &Type::list(a())));
}

#[test]
fn substitute_keeps_or_defaults_unbound_parameters() {
    let mut s = Substitution::new();
    assert!(s.is_assignable(&a(), &Type::String));
    let ty = Type::map(a(), Type::list(b()));
    assert_eq!(s.substitute(&ty, false), Type::map(Type::String, Type::list(b())));
    assert_eq!(s.substitute(&ty, true), Type::map(Type::String, Type::list(Type::Dyn)));
}

#[test]
fn literal_elements_join_to_the_most_general_type_or_dyn() {
    let mut s = Substitution::new();
    assert_eq!(s.join(&Type::Int, &Type::Int), Type::Int);
    assert_eq!(s.join(&Type::Int, &Type::String), Type::Dyn);
    assert_eq!(s.join(&Type::Dyn, &Type::String), Type::Dyn);
    assert_eq!(s.join(&Type::list(Type::Int), &Type::list(Type::Dyn)), Type::list(Type::Dyn));
    assert_eq!(
        s.join(&Type::map(Type::String, Type::Int), &Type::map(Type::String, Type::Int)),
        Type::map(Type::String, Type::Int)
    );
    assert_eq!(s.join(&Type::list(Type::Int), &Type::list(Type::Uint)), Type::Dyn);
}

#[test]
fn most_general_prefers_dyn_and_parameters_part_by_part() {
    assert_eq!(most_general(&Type::Int, &Type::Dyn), Type::Dyn);
    assert_eq!(most_general(&Type::Dyn, &Type::Int), Type::Dyn);
    assert_eq!(most_general(&a(), &Type::Int), a());
    assert_eq!(
        most_general(&Type::map(Type::String, Type::Int), &Type::map(Type::String, Type::Dyn)),
        Type::map(Type::String, Type::Dyn)
    );
    assert_eq!(
        most_general(&Type::optional(Type::Dyn), &Type::optional(Type::Int)),
        Type::optional(Type::Dyn)
    );
}

#[test]
fn fresh_parameters_are_distinct_and_named_like_cel_go() {
    let mut s = Substitution::new();
    assert_eq!(s.fresh_param(), Type::param("_var0"));
    assert_eq!(s.fresh_param(), Type::param("_var1"));
}

#[test]
fn type_params_are_listed_once_in_order() {
    let ty = Type::map(b(), Type::list(Type::map(a(), b())));
    assert_eq!(ty.type_params(), vec!["B".to_owned(), "A".to_owned()]);
    assert!(Type::list(Type::Int).type_params().is_empty());
}

fn nested_list(depth: usize, inner: Type) -> Type {
    (0..depth).fold(inner, |ty, _| Type::list(ty))
}

#[test]
fn types_deeper_than_the_limit_never_unify_and_do_not_overflow() {
    let deep = nested_list(MAX_TYPE_DEPTH * 4, Type::Int);
    let mut s = Substitution::new();
    assert!(!s.is_assignable(&deep, &nested_list(MAX_TYPE_DEPTH * 4, a())));
    assert_eq!(s.binding("A"), None);
    // Within the limit the same shape unifies.
    let shallow = nested_list(MAX_TYPE_DEPTH / 2, Type::Int);
    assert!(s.is_assignable(&shallow, &nested_list(MAX_TYPE_DEPTH / 2, a())));
    assert_eq!(s.binding("A"), Some(&Type::Int));
}

#[test]
fn substituting_past_the_depth_limit_defers_to_dyn() {
    let deep = nested_list(MAX_TYPE_DEPTH * 2, a());
    let out = Substitution::new().substitute(&deep, false);
    assert_ne!(out, deep);
    assert!(out.to_string().contains("dyn"));
}

mod properties {
    use proptest::prelude::*;

    use super::super::types::{Substitution, Type};

    fn any_type() -> impl Strategy<Value = Type> {
        let leaf = prop_oneof![
            Just(Type::Bool),
            Just(Type::Int),
            Just(Type::Uint),
            Just(Type::Double),
            Just(Type::String),
            Just(Type::Bytes),
            Just(Type::Null),
            Just(Type::Duration),
            Just(Type::Timestamp),
            Just(Type::Dyn),
            Just(Type::Error),
            Just(Type::object("x.Msg")),
            prop::sample::select(vec!["A", "B", "C"]).prop_map(Type::param),
        ];
        leaf.prop_recursive(6, 48, 3, |inner| {
            prop_oneof![
                inner.clone().prop_map(Type::list),
                (inner.clone(), inner.clone()).prop_map(|(k, v)| Type::map(k, v)),
                inner.clone().prop_map(Type::type_of),
                inner.clone().prop_map(Type::optional),
                prop::collection::vec(inner, 0..3).prop_map(|ps| Type::opaque("pair", ps)),
            ]
        })
    }

    proptest! {
        #[test]
        fn every_type_agrees_with_itself_and_with_dyn(t in any_type()) {
            let mut s = Substitution::new();
            prop_assert!(s.is_assignable(&t, &t));
            prop_assert!(s.is_assignable(&Type::Dyn, &t));
            prop_assert!(s.is_assignable(&t, &Type::Error));
        }

        #[test]
        fn a_failed_unification_changes_no_binding(
            bound in any_type(),
            t1 in any_type(),
            t2 in any_type(),
        ) {
            let mut s = Substitution::new();
            let _ = s.is_assignable(&Type::param("A"), &bound);
            let before = ["A", "B", "C"].map(|p| s.binding(p).cloned());
            if !s.is_assignable(&t1, &t2) {
                prop_assert_eq!(before, ["A", "B", "C"].map(|p| s.binding(p).cloned()));
            }
        }

        #[test]
        fn final_substitution_leaves_no_parameter(t1 in any_type(), t2 in any_type()) {
            let mut s = Substitution::new();
            let _ = s.is_assignable(&t1, &t2);
            for t in [&t1, &t2] {
                prop_assert!(s.substitute(t, true).type_params().is_empty());
            }
            let joined = s.join(&t1, &t2);
            prop_assert!(s.substitute(&joined, true).type_params().is_empty());
        }
    }
}
