//! The walk over a checked expression that applies the cost model of [`super`].

use std::rc::Rc;

use super::bounds::{ITEMS, KEYS, SizeBounds, VALUES};
use super::shape::{CostEstimate, Shape, Sizes};
use crate::check::checker::{CheckedAst, Reference};
use crate::check::{CallStyle, CostHint, Declarations, Type};
use crate::eval::call_cost::CallCost;
use crate::syntax::ast::{FieldInit, ListElement, MapEntry, operators};
use crate::syntax::macros::MAP_INSERT;
use crate::syntax::{Expr, ExprKind, Literal};

/// Deepest expression tree the estimator walks; deeper subtrees are estimated as
/// costing anything. The parser counts nesting as cel-go does (250), and a macro expands
/// one counted level into several tree levels (a comprehension's loop step holds its
/// body), so parsed trees reach about four times that; the walk grows its stack on the
/// heap (`crate::stack`), so the bound only caps the work on hand-built trees.
pub const MAX_ESTIMATE_DEPTH: u32 = 2048;

/// Cost of building a list literal, a map literal, an object literal (Kubernetes').
const LIST_COST: u64 = 10;
const MAP_COST: u64 = 30;
const OBJECT_COST: u64 = 40;

/// The estimate of one subexpression: what evaluating it costs and what it yields.
pub(super) struct Estimate {
    pub cost: CostEstimate,
    pub shape: Shape,
}

pub(super) struct Estimator<'a> {
    pub checked: &'a CheckedAst,
    decls: &'a Declarations,
    bounds: &'a SizeBounds,
    /// Comprehension variables in scope, innermost last; they shadow declarations.
    pub scopes: Vec<(String, Shape)>,
}

impl<'a> Estimator<'a> {
    pub fn new(checked: &'a CheckedAst, decls: &'a Declarations, bounds: &'a SizeBounds) -> Self {
        Self { checked, decls, bounds, scopes: Vec::new() }
    }

    pub fn expr(&mut self, e: &Expr, depth: u32) -> Estimate {
        crate::stack::guarded(|| self.expr_unguarded(e, depth))
    }

    fn expr_unguarded(&mut self, e: &Expr, depth: u32) -> Estimate {
        if depth > MAX_ESTIMATE_DEPTH {
            return Estimate { cost: CostEstimate::UNBOUNDED, shape: self.unknown() };
        }
        let depth = depth + 1;
        match &e.kind {
            ExprKind::Literal(lit) => {
                Estimate { cost: CostEstimate::ZERO, shape: Shape::exact(literal_size(lit)) }
            }
            ExprKind::Ident(name) => self.ident(name),
            ExprKind::Select { operand, field, test_only, optional } => {
                if !test_only
                    && !optional
                    && let Some(Reference::Variable(name)) = self.checked.reference(e.id)
                {
                    return self.ident(name);
                }
                let map = matches!(self.checked.type_of(operand.id), Some(Type::Map(..)));
                let operand = self.expr(operand, depth);
                let cost = operand.cost.plus(CostEstimate::exact(1));
                let shape = if *test_only {
                    Shape::exact(0)
                } else {
                    // `m.f` on a map is `m['f']`: one of its values.
                    let field = if map {
                        self.element(&operand.shape, true)
                    } else {
                        self.part(&operand.shape, field, operand.shape.items)
                    };
                    if *optional { or_less(field) } else { field }
                };
                Estimate { cost, shape }
            }
            ExprKind::Call { target, function, args } => {
                self.call(e, target.as_deref(), function, args, depth)
            }
            ExprKind::Index { operand, index, optional } => {
                let function = if *optional { "_[?_]" } else { "_[_]" };
                let args = [self.expr(operand, depth), self.expr(index, depth)];
                self.dispatch(e, function, CallStyle::Global, &args)
            }
            ExprKind::Conditional { condition, then, otherwise } => {
                let condition = self.expr(condition, depth);
                let then = self.expr(then, depth);
                let otherwise = self.expr(otherwise, depth);
                Estimate {
                    cost: condition.cost.plus(then.cost.either(otherwise.cost)),
                    shape: self.union(&then.shape, &otherwise.shape),
                }
            }
            ExprKind::List(elements) => self.list(elements, depth),
            ExprKind::Map(entries) => self.map(entries, depth),
            ExprKind::Struct { fields, .. } => self.object(fields, depth),
            ExprKind::Comprehension(c) => self.comprehension(c, depth),
        }
    }

    /// A size nothing bounds.
    pub fn unknown(&self) -> Shape {
        Shape::sized(Sizes::at_most(self.bounds.max_unknown_size()))
    }

    /// The shape of the value at bounds path `path`.
    fn at_path(&self, path: String) -> Shape {
        let size = Sizes::at_most(self.bounds.max_size(&path));
        Shape { size, path: Some(Rc::from(path)), items: None, keys: None }
    }

    /// Part `segment` of a value (a field, or [`ITEMS`], [`KEYS`], [`VALUES`]): looked
    /// up by path when the value has one, else `known` (from a literal), else unknown.
    pub fn part(&self, whole: &Shape, segment: &str, known: Option<Sizes>) -> Shape {
        match (&whole.path, known) {
            (Some(path), _) => self.at_path(format!("{path}.{segment}")),
            (None, Some(size)) => Shape::sized(size),
            (None, None) => self.unknown(),
        }
    }

    /// Each element of a list (or value of a map, when `map`).
    pub fn element(&self, whole: &Shape, map: bool) -> Shape {
        self.part(whole, if map { VALUES } else { ITEMS }, whole.items)
    }

    pub fn key(&self, whole: &Shape) -> Shape {
        self.part(whole, KEYS, whole.keys)
    }

    /// A value that is one of two: sizes joined, paths kept only when equal (else the
    /// parts' sizes are resolved now, while both paths are known).
    pub fn union(&self, a: &Shape, b: &Shape) -> Shape {
        if a.path.is_some() && a.path == b.path {
            return Shape { size: a.size.union(b.size), ..a.clone() };
        }
        Shape {
            size: a.size.union(b.size),
            path: None,
            items: Some(self.any_element(a).union(self.any_element(b))),
            keys: Some(self.key(a).size.union(self.key(b).size)),
        }
    }

    /// The size of each element of a list or value of a map, when it is not known
    /// which of the two `whole` is.
    fn any_element(&self, whole: &Shape) -> Sizes {
        let Some(path) = &whole.path else {
            return whole.items.unwrap_or_else(|| self.unknown().size);
        };
        let declared = [ITEMS, VALUES]
            .iter()
            .filter_map(|segment| self.bounds.declared(&format!("{path}.{segment}")))
            .max();
        Sizes::at_most(declared.unwrap_or_else(|| self.bounds.max_unknown_size()))
    }

    /// An identifier (or a dot-qualified name the checker resolved to a variable).
    fn ident(&self, name: &str) -> Estimate {
        let (name, scoped) = match name.strip_prefix('.') {
            Some(root) => (root, false),
            None => (name, true),
        };
        if scoped && let Some((_, shape)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return Estimate { cost: CostEstimate::exact(1), shape: shape.clone() };
        }
        match self.decls.variable(name) {
            // Type names (`int`, `net.IP`) may be compiled to constants, which cost
            // nothing to read.
            Some(var) if matches!(var.ty, Type::TypeOf(_)) => type_name(),
            Some(_) => {
                Estimate { cost: CostEstimate::exact(1), shape: self.at_path(name.to_owned()) }
            }
            None => type_name(),
        }
    }

    fn call(
        &mut self,
        e: &Expr,
        target: Option<&Expr>,
        function: &str,
        args: &[Expr],
        depth: u32,
    ) -> Estimate {
        if target.is_none() {
            match (function, args) {
                (operators::LOGICAL_AND | operators::LOGICAL_OR, [left, right]) => {
                    // The right operand is skipped when the left one decides.
                    let left = self.expr(left, depth).cost;
                    let right = self.expr(right, depth).cost;
                    let cost = CostEstimate { min: left.min, max: left.plus(right).max };
                    return Estimate { cost, shape: Shape::exact(0) };
                }
                (operators::NOT_STRICTLY_FALSE, [operand]) => {
                    let cost = self.expr(operand, depth).cost.plus(CostEstimate::exact(1));
                    return Estimate { cost, shape: Shape::exact(0) };
                }
                (MAP_INSERT, _) => return self.map_insert(args, depth),
                _ => {}
            }
        }
        // `strings.quote(x)` parses as a call on `strings` but the checker resolved it
        // to a global function: the prefix is not evaluated.
        let namespaced = target.is_some()
            && matches!(
                self.checked.reference(e.id),
                Some(Reference::Call { function: f, .. }) if f != function
            );
        let mut estimates = Vec::with_capacity(args.len() + 1);
        let style = match target {
            Some(target) if !namespaced => {
                estimates.push(self.expr(target, depth));
                CallStyle::Receiver
            }
            _ => CallStyle::Global,
        };
        for arg in args {
            estimates.push(self.expr(arg, depth));
        }
        self.dispatch(e, function.trim_start_matches('.'), style, &estimates)
    }

    /// A call of one of the overloads the checker left as candidates (or, without a
    /// checked reference, of every overload of the right style and arity).
    fn dispatch(&self, e: &Expr, function: &str, style: CallStyle, args: &[Estimate]) -> Estimate {
        let overloads: Vec<(&str, CostHint)> = match self.checked.reference(e.id) {
            Some(Reference::Call { overload_ids, .. }) => overload_ids
                .iter()
                .map(|id| {
                    let hint =
                        self.decls.overload(id).map_or(CostHint::Constant(1), |(_, o)| o.cost);
                    (id.as_str(), hint)
                })
                .collect(),
            _ => self
                .decls
                .candidates(function, style, args.len())
                .map(|o| (o.id.as_str(), o.cost))
                .collect(),
        };
        let arguments = args.iter().fold(CostEstimate::ZERO, |sum, a| sum.plus(a.cost));
        let mut call: Option<Estimate> = None;
        for (id, hint) in overloads {
            let shape = self.result_shape(id, args);
            let mut cost = within_run_time_cost(hint_cost(hint, args), id, hint, args, &shape);
            // Equality and ordering scan the shorter operand: nothing for an empty one.
            if CallCost::for_overload(id, hint) == CallCost::MinScan && self.may_be_empty(e) {
                cost.min = 0;
            }
            call = Some(match call {
                None => Estimate { cost, shape },
                Some(previous) => Estimate {
                    cost: previous.cost.either(cost),
                    shape: self.union(&previous.shape, &shape),
                },
            });
        }
        // No overload: the compiled call can only fail, charging nothing for itself.
        let call =
            call.unwrap_or_else(|| Estimate { cost: CostEstimate::ZERO, shape: self.unknown() });
        Estimate { cost: arguments.plus(call.cost), shape: call.shape }
    }

    /// Whether an operand of call `e` has a type cel-go sizes (string, bytes, list, map,
    /// or one only known at run time), which may be empty.
    fn may_be_empty(&self, e: &Expr) -> bool {
        let operands: Vec<&Expr> = match &e.kind {
            ExprKind::Call { target, args, .. } => {
                target.iter().map(|t| &**t).chain(args).collect()
            }
            _ => Vec::new(),
        };
        operands.iter().any(|o| {
            !matches!(
                self.checked.type_of(o.id),
                Some(
                    Type::Bool
                        | Type::Int
                        | Type::Uint
                        | Type::Double
                        | Type::Null
                        | Type::Duration
                        | Type::Timestamp
                        | Type::Object(_)
                )
            )
        })
    }

    /// What overload `id` returns, where the library's semantics tell more than
    /// "unknown".
    fn result_shape(&self, id: &str, args: &[Estimate]) -> Shape {
        let arg = |i: usize| args.get(i).map(|a| &a.shape);
        match (id, arg(0), arg(1)) {
            ("add_string" | "add_bytes" | "add_list", Some(a), Some(b)) => {
                let joined = self.union(a, b);
                Shape { size: a.size.plus(b.size), path: None, ..joined }
            }
            ("index_list" | "optional_list_index_int", Some(list), _) => self.element(list, false),
            ("index_map" | "optional_map_index_value", Some(map), _) => self.element(map, true),
            (
                "list_optindex_optional_int" | "optional_list_optindex_optional_int",
                Some(list),
                _,
            ) => or_less(self.element(list, false)),
            (
                "map_optindex_optional_value" | "optional_map_optindex_optional_value",
                Some(map),
                _,
            ) => or_less(self.element(map, true)),
            // Results no larger than their first argument (an optional's size counts
            // as its value's: an overestimate, the interpreter sizes optionals as 0).
            (
                "string_lower_ascii"
                | "string_upper_ascii"
                | "string_trim"
                | "string_reverse"
                | "string_substring_int"
                | "string_substring_int_int"
                | "optional_of"
                | "optional_ofNonZeroValue"
                | "optional_value",
                Some(first),
                _,
            ) => or_less(first.clone()),
            _ => self.unknown(),
        }
    }

    /// `cel.@mapInsert(map, key, value)` or `cel.@mapInsert(map, entries)`, charged 1
    /// like any call without a declared hint.
    fn map_insert(&mut self, args: &[Expr], depth: u32) -> Estimate {
        let args: Vec<Estimate> = args.iter().map(|a| self.expr(a, depth)).collect();
        let cost = args.iter().fold(CostEstimate::exact(1), |sum, a| sum.plus(a.cost));
        let shape = match args.as_slice() {
            [map, key, value] => Shape {
                size: map.shape.size.plus(Sizes::exact(1)),
                path: None,
                items: Some(self.element(&map.shape, true).size.union(value.shape.size)),
                keys: Some(self.key(&map.shape).size.union(key.shape.size)),
            },
            [map, entries] => {
                let joined = self.union(&map.shape, &entries.shape);
                Shape { size: map.shape.size.plus(entries.shape.size), path: None, ..joined }
            }
            _ => self.unknown(),
        };
        Estimate { cost, shape }
    }

    fn list(&mut self, elements: &[ListElement], depth: u32) -> Estimate {
        let mut cost = CostEstimate::exact(LIST_COST);
        let mut items: Option<Sizes> = None;
        let mut required = 0u64;
        for element in elements {
            let value = self.expr(&element.value, depth);
            cost = cost.plus(value.cost);
            items = Some(items.map_or(value.shape.size, |s| s.union(value.shape.size)));
            required = required.saturating_add(u64::from(!element.optional));
        }
        let count = u64::try_from(elements.len()).unwrap_or(u64::MAX);
        let shape = Shape {
            size: Sizes { min: required, max: count },
            path: None,
            items: Some(items.unwrap_or(Sizes::ZERO)),
            keys: None,
        };
        Estimate { cost, shape }
    }

    fn map(&mut self, entries: &[MapEntry], depth: u32) -> Estimate {
        let mut cost = CostEstimate::exact(MAP_COST);
        let (mut keys, mut values): (Option<Sizes>, Option<Sizes>) = (None, None);
        let mut required = 0u64;
        for entry in entries {
            let key = self.expr(&entry.key, depth);
            let value = self.expr(&entry.value, depth);
            cost = cost.plus(key.cost).plus(value.cost);
            keys = Some(keys.map_or(key.shape.size, |s| s.union(key.shape.size)));
            values = Some(values.map_or(value.shape.size, |s| s.union(value.shape.size)));
            required = required.saturating_add(u64::from(!entry.optional));
        }
        // A literal with a repeated key fails, so one that yields a value has as many
        // entries as it has non-optional ones.
        let count = u64::try_from(entries.len()).unwrap_or(u64::MAX);
        let shape = Shape {
            size: Sizes { min: required, max: count },
            path: None,
            items: Some(values.unwrap_or(Sizes::ZERO)),
            keys: Some(keys.unwrap_or(Sizes::ZERO)),
        };
        Estimate { cost, shape }
    }

    fn object(&mut self, fields: &[FieldInit], depth: u32) -> Estimate {
        let cost = fields.iter().fold(CostEstimate::exact(OBJECT_COST), |sum, f| {
            sum.plus(self.expr(&f.value, depth).cost)
        });
        Estimate { cost, shape: self.unknown() }
    }
}

/// A type name used as a value: read from a constant (0) or, in an environment that
/// binds it as a variable, from a slot (1).
fn type_name() -> Estimate {
    Estimate { cost: CostEstimate { min: 0, max: 1 }, shape: Shape::exact(0) }
}

/// The same value, perhaps absent (an optional's size is 0 to the interpreter).
fn or_less(shape: Shape) -> Shape {
    Shape { size: shape.size.or_less(), ..shape }
}

/// `estimate` widened to what the interpreter charges where cel-go's actual cost
/// ([`CallCost`]) leaves the declaration's hint (generous bounds: the estimate must
/// stay an upper bound, it is a warning only).
fn within_run_time_cost(
    estimate: CostEstimate,
    id: &str,
    hint: CostHint,
    args: &[Estimate],
    result: &Shape,
) -> CostEstimate {
    let size = |i: usize| args.get(i).map_or(Sizes::ZERO, |a| a.shape.size);
    match CallCost::for_overload(id, hint) {
        // The concatenation scans both operands, the hint only the first.
        CallCost::SumScan => {
            let both = size(0).max.saturating_add(size(1).max).div_ceil(10);
            CostEstimate { max: estimate.max.max(both), ..estimate }
        }
        // The strings extension's searches scan both strings; its transformations also
        // charge the size of their result.
        rule @ (CallCost::Search
        | CallCost::Contains
        | CallCost::Matches
        | CallCost::CharAt
        | CallCost::Transform
        | CallCost::Replace
        | CallCost::Split
        | CallCost::Join) => {
            let (a, b) = (size(0).max, size(1).max);
            let scan = |n: u64| n.div_ceil(10);
            let most = match rule {
                CallCost::Search => a.saturating_mul(b).div_ceil(10).saturating_add(1),
                CallCost::Contains => scan(a).saturating_mul(scan(b)),
                CallCost::Matches => scan(a.saturating_add(1)).saturating_mul(b.div_ceil(4)),
                CallCost::CharAt => scan(a).saturating_add(2),
                CallCost::Transform => scan(a).saturating_add(1),
                CallCost::Replace => {
                    a.max(1).saturating_mul(b.max(1)).div_ceil(10).saturating_add(1)
                }
                CallCost::Split => scan(a.saturating_add(1)).saturating_add(11),
                _ => scan(a.saturating_add(1)).saturating_add(1),
            };
            let most =
                if rule.sizes_result() { most.saturating_add(result.size.max) } else { most };
            CostEstimate { max: estimate.max.max(most), ..estimate }
        }
        // `in` a list costs its size: nothing for an empty list.
        CallCost::Elements(arg) => {
            CostEstimate { min: estimate.min.min(size(arg).min), ..estimate }
        }
        _ => estimate,
    }
}

/// What one call with cost hint `hint` costs, given its arguments' sizes: as the
/// interpreter charges, `1 + ceil(size * tenths_per_unit / 10)` for a linear hint.
fn hint_cost(hint: CostHint, args: &[Estimate]) -> CostEstimate {
    match hint {
        CostHint::Constant(cost) => CostEstimate::exact(cost),
        CostHint::Linear { arg, tenths_per_unit } => {
            let size = args.get(arg).map_or(Sizes::ZERO, |a| a.shape.size);
            let linear = |units: u64| {
                units.saturating_mul(u64::from(tenths_per_unit)).div_ceil(10).saturating_add(1)
            };
            CostEstimate { min: linear(size.min), max: linear(size.max) }
        }
    }
}

fn literal_size(lit: &Literal) -> u64 {
    let len = match lit {
        Literal::String(s) => s.len(),
        Literal::Bytes(b) => b.len(),
        _ => 0,
    };
    u64::try_from(len).unwrap_or(u64::MAX)
}
