//! Recognising the folds that `map`, `filter` and the `transform*` macros expand into
//! (see [`super::macros`]): an empty initial list or map, a `true` condition, a step
//! that appends to (or inserts into) the accumulator, optionally under a filter, and
//! the accumulator as the result.
//!
//! The compiler builds such folds in place instead of copying the accumulator on every
//! step, and the cost estimator charges them as the interpreter runs them; both use
//! this one recogniser so they cannot drift apart.

use super::ast::{Comprehension, ListElement, operators};
use super::macros::{ACCUMULATOR, MAP_INSERT};
use super::{Expr, ExprKind, Literal};

/// A fold that collects into a list or a map.
pub(crate) struct Collect<'e> {
    /// The filter of `filter`, `map(x, p, f)` and the filtered `transform*` forms.
    pub filter: Option<&'e Expr>,
    /// The step for a kept element: `accu + [element]` or `cel.@mapInsert(accu, ...)`.
    pub grown: &'e Expr,
    pub into: Into<'e>,
}

pub(crate) enum Into<'e> {
    /// `accu + [element]`.
    List { element: &'e Expr },
    /// `cel.@mapInsert(accu, key, value)`, or `cel.@mapInsert(accu, entries)` (no key)
    /// for `transformMapEntry`.
    Map { key: Option<&'e Expr>, value: &'e Expr },
}

pub(crate) fn collect_form(c: &Comprehension) -> Option<Collect<'_>> {
    if c.accu_var != ACCUMULATOR || !is_true(&c.loop_condition) || !is_accu(&c.result) {
        return None;
    }
    let (filter, grown) = match &c.loop_step.kind {
        ExprKind::Conditional { condition, then, otherwise } if is_accu(otherwise) => {
            (Some(&**condition), &**then)
        }
        _ => (None, &c.loop_step),
    };
    let ExprKind::Call { target: None, function, args } = &grown.kind else { return None };
    let into = match (&c.accu_init.kind, function.as_str(), args.as_slice()) {
        (ExprKind::List(init), operators::ADD, [accu, appended])
            if init.is_empty() && is_accu(accu) =>
        {
            match &appended.kind {
                ExprKind::List(items) => match items.as_slice() {
                    [ListElement { value, optional: false }] => Into::List { element: value },
                    _ => return None,
                },
                _ => return None,
            }
        }
        (ExprKind::Map(init), MAP_INSERT, [accu, key, value])
            if init.is_empty() && is_accu(accu) =>
        {
            Into::Map { key: Some(key), value }
        }
        (ExprKind::Map(init), MAP_INSERT, [accu, entries]) if init.is_empty() && is_accu(accu) => {
            Into::Map { key: None, value: entries }
        }
        _ => return None,
    };
    Some(Collect { filter, grown, into })
}

fn is_accu(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Ident(name) if name == ACCUMULATOR)
}

pub(crate) fn is_true(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::Literal(Literal::Bool(true)))
}
