//! The compiled form of an expression: a tree whose names are already resolved to
//! variable slots, comprehension locals and function pointers, so evaluation does no
//! lookup by name.

use std::sync::Arc;

use super::Impl;
use super::call_cost::CallCost;
use crate::check::Type;
use crate::value::Value;

/// One compiled node.
#[derive(Debug)]
pub(crate) enum Node {
    Const(Value),
    /// A declared variable, by its slot in the environment's activation.
    Var {
        slot: usize,
        name: Arc<str>,
    },
    /// A comprehension variable, by its index in the evaluation's locals.
    Local(usize),
    Select(Box<Select>),
    Call(Box<Call>),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    /// `c ? a : b`, with what to refund after each branch: cel-go resolves a branch
    /// that is an attribute (`x`, `x.f`, `l[0]`) without charging its base variable
    /// (or relative attribute), only its qualifiers.
    Conditional(Box<[Node; 3]>, [u64; 2]),
    /// `@not_strictly_false(x)`: true unless `x` is `false` (errors count as true).
    NotStrictlyFalse(Box<Node>),
    List(Box<[Element]>),
    Map(Box<[Entry]>),
    /// `matches` with a constant pattern, compiled once.
    Matches {
        subject: Box<Node>,
        regex: Arc<regex::Regex>,
        /// The pattern's source, whose size the cost counts.
        pattern: Value,
        cost: CallCost,
        /// [`borrowed_cost`] of the subject, charged by this node.
        operand_cost: u64,
    },
    Fold(Box<Fold>),
    /// `s.endsWith(a + b)` / `s.startsWith(a + b)` on strings, tested without building
    /// `a + b`; charged as the two calls would be.
    Affix(Box<Affix>),
    /// A node that can only fail (e.g. a message literal the environment cannot build).
    Fail(Arc<str>),
}

#[derive(Debug)]
pub(crate) struct Element {
    pub value: Node,
    pub optional: bool,
}

#[derive(Debug)]
pub(crate) struct Entry {
    pub key: Node,
    pub value: Node,
    pub optional: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SelectKind {
    /// `a.b`
    Plain,
    /// `has(a.b)`
    Test,
    /// `a.?b`
    Optional,
}

#[derive(Debug)]
pub(crate) struct Select {
    pub operand: Node,
    pub field: Arc<str>,
    pub kind: SelectKind,
    /// The zero value of the field's declared type, for an object field left unset.
    pub zero: Option<Value>,
    /// [`borrowed_cost`] of the operand, charged by this node.
    pub operand_cost: u64,
    /// 1 when the operand is not itself an attribute (a variable, a selection or an
    /// index): cel-go then wraps it in a relative attribute, which costs 1 more.
    pub relative: u64,
}

/// A function call with its candidate implementations.
#[derive(Debug)]
pub(crate) struct Call {
    /// The function name, for error messages.
    pub function: Arc<str>,
    pub args: Box<[Node]>,
    pub dispatch: Dispatch,
    /// Sum of [`borrowed_cost`] over the arguments, charged by this node.
    pub operand_cost: u64,
}

#[derive(Debug)]
pub(crate) enum Dispatch {
    /// The checker proved which overload applies.
    Single(Target),
    /// Chosen at evaluation time by the arguments' kinds, first match wins.
    Dynamic(Box<[Candidate]>),
}

#[derive(Clone, Debug)]
pub(crate) struct Target {
    pub implementation: Impl,
    pub cost: CallCost,
}

#[derive(Debug)]
pub(crate) struct Candidate {
    pub params: Box<[Type]>,
    pub target: Target,
}

/// A comprehension. `Collect*` folds are the `map`/`filter`/`transform*` macros,
/// recognised at compile time so their result is built in place rather than by
/// copying the accumulated list or map on every step.
#[derive(Debug)]
pub(crate) struct Fold {
    pub range: Node,
    /// Locals of the iteration variables (the second for two-variable forms).
    pub iter_var: usize,
    pub iter_var2: Option<usize>,
    pub accu_var: usize,
    pub step: FoldStep,
}

#[derive(Debug)]
pub(crate) enum FoldStep {
    /// The general form: `accu = init; while condition { accu = step }; result`.
    General { init: Node, condition: Node, step: Node, result: Node },
    /// `accu = []; for each: if filter { accu.push(element) }; accu`.
    CollectList { filter: Option<Node>, element: Node },
    /// `accu = {}; for each: if filter { accu[key] = value }; accu`; `key` absent for
    /// `transformMapEntry`, whose `value` is a map of entries to add.
    CollectMap { filter: Option<Node>, key: Option<Node>, value: Node },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AffixKind {
    Prefix,
    Suffix,
}

#[derive(Debug)]
pub(crate) struct Affix {
    pub kind: AffixKind,
    pub subject: Node,
    pub left: Node,
    pub right: Node,
    /// Costs of `_+_` (`add_string`) and of the test, from their declarations.
    pub concat_cost: CallCost,
    pub test_cost: CallCost,
    /// Sum of [`borrowed_cost`] over subject, left and right, charged by this node.
    pub operand_cost: u64,
}

/// What evaluating `node` as a borrowed operand costs, for the chains the interpreter
/// borrows without evaluating: constants (0), variables (1) and plain field selections
/// of them (1 more per field). Such operands charge nothing themselves; the node using
/// them charges this sum once, so a call costs one addition to the counter instead of
/// one per operand (each a dependent read-modify-write). Other nodes charge themselves:
/// 0 here.
pub(crate) fn borrowed_cost(node: &Node) -> u64 {
    match node {
        Node::Var { .. } => 1,
        Node::Select(s) if s.kind == SelectKind::Plain => 1 + s.operand_cost + s.relative,
        _ => 0,
    }
}
