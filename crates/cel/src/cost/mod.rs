//! Static cost estimation of checked expressions (issue #3, item 3).
//!
//! [`estimate`] bounds what the interpreter charges for evaluating an expression, for
//! every input within declared [`SizeBounds`], so an environment can reject a rule
//! whose worst case exceeds the per-evaluation budget ([`DEFAULT_COST_LIMIT`],
//! Kubernetes' figure) when the rule is written rather than when a request arrives.
//!
//! # The cost model
//!
//! The estimator charges what the interpreter charges, with one difference: at run
//! time a call is charged as cel-go's actual cost tracker charges it
//! (`eval::call_cost`: e.g. equality `ceil(min(size) / 10)`, `startsWith` by the
//! prefix, sizes of strings in code points, and a selection or index of a value that
//! is not a variable 1 more), while the estimate applies the declaration's hint:
//!
//! - a literal: 0; an identifier (declared or comprehension variable): 1; a type name
//!   used as a value: 0 when compiled to a constant, else 1; a field selection `a.b`,
//!   `has(a.b)` or `a.?b`: 1 plus its operand;
//! - a list literal: 10, a map literal: 30, an object literal: 40, plus their parts;
//! - `_&&_`, `_||_` and `_?_:_`: nothing for the operator, only the operands evaluated
//!   (the right operand of `&&`/`||` and one branch of `?:` may be skipped);
//! - any other call (operators, indexing and `@in` included; `@not_strictly_false`
//!   and `cel.@mapInsert` cost 1): its arguments plus the overload's
//!   [`CostHint`](crate::check::CostHint): `Constant(c)` is `c`, `Linear { arg,
//!   tenths_per_unit }` is `1 + ceil(size(arg) * tenths_per_unit / 10)`, where the size
//!   is the byte length of a string or bytes value and the element count of a list or
//!   map (the receiver is argument 0). Where dispatch is left to evaluation, the
//!   cheapest and dearest candidate overloads bound the call;
//! - a comprehension: its range, then the initial value once, the condition and step
//!   once per element of the range (list elements, map entries) while the condition
//!   holds, and the result once. The `map`, `filter` and `transform*` folds are built in
//!   place: their initial `[]` (10) or `{}` (30) and result read (1) once, and per
//!   element the filter, and for a kept element the step as if appended to an empty
//!   accumulator (appending costs the same whatever was collected). `cel.bind` is a comprehension over an empty
//!   list: its initial value and result.
//!
//! # Sizes
//!
//! Linear hints and iteration counts need sizes. The estimator tracks a size range for
//! every subexpression: literals are exact, a list or map literal has as many elements
//! as it lists, concatenation adds sizes, indexing yields an element, `map`/`filter`
//! results have at most one element per iteration, and a variable (or a field or
//! element of one, by path: `cr.groups.@items`) has its declared bound. Anything else,
//! and anything undeclared, is at most [`SizeBounds::max_unknown_size`]
//! ([`DEFAULT_MAX_UNKNOWN_SIZE`] by default: no value the engine builds is larger).
//!
//! Arithmetic saturates at `u64::MAX`, and trees deeper than [`MAX_ESTIMATE_DEPTH`]
//! (only hand-built ones: parsed trees are shallower) are estimated as costing anything.

mod bounds;
mod comprehension;
mod shape;
mod walk;

#[cfg(test)]
mod tests;

pub use crate::eval::DEFAULT_COST_LIMIT;
pub use bounds::{DEFAULT_MAX_UNKNOWN_SIZE, ITEMS, KEYS, SizeBounds, VALUES};
pub use shape::CostEstimate;
pub use walk::MAX_ESTIMATE_DEPTH;

use crate::check::{CheckedAst, Declarations};
use crate::syntax::Ast;

/// The cost range of evaluating `ast`, checked as `checked` against `decls`, for any
/// input whose sizes are within `bounds`.
pub fn estimate(
    ast: &Ast,
    checked: &CheckedAst,
    decls: &Declarations,
    bounds: &SizeBounds,
) -> CostEstimate {
    walk::Estimator::new(checked, decls, bounds).expr(&ast.root, 0).cost
}
