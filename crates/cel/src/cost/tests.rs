//! Unit tests of the estimator's parts: fold recognition, shapes and bounds.

use super::bounds::{ITEMS, SizeBounds, VALUES};
use super::shape::{CostEstimate, Shape, Sizes};
use super::walk::Estimator;
use crate::check::{Type, check, full_library};
use crate::syntax::folds::collect_form;
use crate::syntax::{ExprKind, parse};

fn is_collect(source: &str) -> bool {
    let ast = parse(source).expect("test expression parses");
    match &ast.root.kind {
        ExprKind::Comprehension(c) => collect_form(c).is_some(),
        other => panic!("{source} is not a comprehension: {other:?}"),
    }
}

#[test]
fn the_collecting_macros_are_recognised_as_in_place_folds() {
    for source in [
        "[1].map(x, x)",
        "[1].map(x, x > 0, x)",
        "[1].filter(x, x > 0)",
        "[1].transformList(i, x, x)",
        "[1].transformList(i, x, x > 0, x)",
        "{1: 2}.transformMap(k, v, v)",
        "{1: 2}.transformMap(k, v, v > 0, v)",
        "{1: 2}.transformMapEntry(k, v, {k: v})",
    ] {
        assert!(is_collect(source), "{source}");
    }
}

#[test]
fn the_other_folds_are_estimated_step_by_step() {
    for source in [
        "[1].all(x, x > 0)",
        "[1].exists(x, x > 0)",
        "[1].exists_one(x, x > 0)",
        "cel.bind(a, 1, a)",
    ] {
        assert!(!is_collect(source), "{source}");
    }
}

#[test]
fn paths_drop_a_leading_dot_and_fall_back_to_the_unknown_size() {
    let bounds = SizeBounds::new().with_path(".cr.groups", 7).with_max_unknown_size(99);
    assert_eq!(bounds.declared("cr.groups"), Some(7));
    assert_eq!(bounds.max_size("cr.groups"), 7);
    assert_eq!(bounds.declared("cr.name"), None);
    assert_eq!(bounds.max_size("cr.name"), 99);
}

#[test]
fn cost_arithmetic_saturates() {
    let huge = CostEstimate { min: u64::MAX - 1, max: u64::MAX };
    assert_eq!(huge.plus(CostEstimate::exact(5)), CostEstimate { min: u64::MAX, max: u64::MAX });
    let repeated = CostEstimate::exact(3).repeated(Sizes { min: 2, max: u64::MAX });
    assert_eq!(repeated, CostEstimate { min: 6, max: u64::MAX });
    assert_eq!(Sizes::exact(u64::MAX).plus(Sizes::exact(1)), Sizes::exact(u64::MAX));
}

#[test]
fn a_union_of_two_paths_keeps_the_larger_declared_element_bound() {
    let decls = full_library().expect("library declares");
    let ast = parse("1").expect("parses");
    let checked = check(&ast, &decls).expect("checks");
    let bounds = SizeBounds::new()
        .with_max_unknown_size(1000)
        .with_path(format!("a.{ITEMS}"), 5)
        .with_path(format!("b.{VALUES}"), 8);
    let estimator = Estimator::new(&checked, &decls, &bounds);
    let at = |path: &str| Shape {
        size: Sizes::at_most(3),
        path: Some(path.into()),
        items: None,
        keys: None,
    };
    let joined = estimator.union(&at("a"), &at("b"));
    assert_eq!(joined.path, None);
    assert_eq!(joined.size, Sizes::at_most(3));
    assert_eq!(joined.items, Some(Sizes::at_most(8)));
    assert_eq!(joined.keys, Some(Sizes::at_most(1000)), "neither declares its keys");
    let same = estimator.union(&at("a"), &Shape { size: Sizes::exact(9), ..at("a") });
    assert_eq!(same.path.as_deref(), Some("a"));
    assert_eq!(same.size, Sizes { min: 0, max: 9 });
    let literal = Shape { items: Some(Sizes::exact(2)), ..Shape::exact(4) };
    assert_eq!(estimator.element(&literal, false).size, Sizes::exact(2));
}

#[test]
fn a_select_on_a_map_reads_its_values_bound() {
    let mut decls = full_library().expect("library declares");
    decls.add_variable("labels", Type::map(Type::String, Type::String)).expect("declares labels");
    let ast = parse("labels.app.endsWith('x')").expect("parses");
    let checked = check(&ast, &decls).expect("checks");
    let bounds = SizeBounds::new().with_path(format!("labels.{VALUES}"), 63);
    // labels (1) + .app (1) + endsWith over at most 63 bytes (1 + 7).
    assert_eq!(super::estimate(&ast, &checked, &decls, &bounds), CostEstimate { min: 3, max: 10 });
}
