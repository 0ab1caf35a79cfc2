//! The tree-walking interpreter over compiled [`Node`]s.
//!
//! Cost is counted through a [`Meter`]: the interpreter is generic over it, so the
//! unmetered instantiation compiles the counting away and the overhead of counting can
//! be measured honestly. Every charge compares against the limit at once; there are
//! no loops besides comprehensions, whose every iteration charges, so no evaluation
//! can run on unmetered.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::call_cost::{CallCost, size};
use super::fold;
use super::node::{
    Affix, AffixKind, Call, Dispatch, Element, Entry, Fold, FoldStep, Node, Select, SelectKind,
    Target,
};
use super::program::COST_LIMIT_EXCEEDED;
use crate::EvalError;
use crate::check::{CostHint, OPTIONAL_TYPE_NAME, Type};
use crate::value::{MAX_CONCAT_LEN, MapValue, Value, ValueError};

/// Why an evaluation (or a sub-expression) has no value.
#[derive(Clone, Debug)]
pub(crate) enum Fault {
    Value(ValueError),
    Message(Arc<str>),
    /// The budget is spent: never absorbed by `&&`, `||` or comprehensions.
    CostLimit,
}

impl From<ValueError> for Fault {
    fn from(e: ValueError) -> Self {
        Fault::Value(e)
    }
}

impl From<Fault> for EvalError {
    fn from(fault: Fault) -> Self {
        match fault {
            Fault::Value(e) => EvalError::new(e.to_string()),
            Fault::Message(m) => EvalError::new(m.to_string()),
            Fault::CostLimit => EvalError::new(COST_LIMIT_EXCEEDED),
        }
    }
}

type Outcome = Result<Value, Fault>;

/// The budget is spent. A unit type, so that a charge returns in a register and the
/// check costs a compare and a branch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct OverBudget;

impl From<OverBudget> for Fault {
    #[inline]
    fn from(_: OverBudget) -> Self {
        Fault::CostLimit
    }
}

/// Cost accounting. Constant charges only add; the budget is compared where work can
/// grow with the data: before every call whose cost depends on its arguments, at every
/// comprehension iteration, and once at the end. Between two comparisons only a
/// bounded number of constant-cost nodes of the (size-limited) expression run, so an
/// evaluation over budget stops within that many steps of crossing it.
pub(crate) trait Meter {
    fn add(&mut self, cost: u64);
    fn check(&self) -> Result<(), OverBudget>;
    fn used(&self) -> u64;

    #[inline(always)]
    fn charge(&mut self, cost: u64) -> Result<(), OverBudget> {
        self.add(cost);
        self.check()
    }

    /// Adds what a call costs before it runs; unmetered evaluation does not even
    /// compute it.
    #[inline(always)]
    fn add_call(&mut self, cost: CallCost, args: &[&Value]) {
        self.add(cost.before(args));
    }

    /// Adds the part of a call's cost that depends on its result.
    #[inline(always)]
    fn add_result(&mut self, cost: CallCost, result: &Value) {
        self.add(cost.after(result));
    }

    /// Adds what computing `f` says; unmetered evaluation does not call it.
    #[inline(always)]
    fn add_with(&mut self, f: impl FnOnce() -> u64) {
        self.add(f());
    }

    /// Takes back a charge cel-go does not make (see [`Node::Conditional`]).
    fn refund(&mut self, cost: u64);
}

pub(crate) struct Budget {
    used: u64,
    limit: u64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Self {
        Self { used: 0, limit }
    }
}

impl Meter for Budget {
    #[inline(always)]
    fn add(&mut self, cost: u64) {
        self.used = self.used.saturating_add(cost);
    }

    fn refund(&mut self, cost: u64) {
        self.used = self.used.saturating_sub(cost);
    }

    #[inline(always)]
    fn check(&self) -> Result<(), OverBudget> {
        if self.used > self.limit { Err(OverBudget) } else { Ok(()) }
    }

    fn used(&self) -> u64 {
        self.used
    }
}

pub(crate) struct Unmetered;

impl Meter for Unmetered {
    #[inline(always)]
    fn add(&mut self, _cost: u64) {}

    #[inline(always)]
    fn add_call(&mut self, _cost: CallCost, _args: &[&Value]) {}

    #[inline(always)]
    fn add_result(&mut self, _cost: CallCost, _result: &Value) {}

    #[inline(always)]
    fn add_with(&mut self, _f: impl FnOnce() -> u64) {}

    fn refund(&mut self, _cost: u64) {}

    #[inline(always)]
    fn check(&self) -> Result<(), OverBudget> {
        Ok(())
    }

    fn used(&self) -> u64 {
        0
    }
}

/// Cost charged for building a list or a map literal, as Kubernetes charges.
const LIST_CREATE_COST: u64 = 10;
const MAP_CREATE_COST: u64 = 30;

/// `'a` is the lifetime of both the program's nodes and the bound variables: operands
/// that are constants, variables or their fields are borrowed, never cloned.
pub(crate) struct Interpreter<'a, M> {
    variables: &'a [Value],
    /// Comprehension variables and accumulators; an accumulator may hold an error
    /// that a later step absorbs (`[1, 'a'].exists(x, x == 'a')`).
    locals: Vec<Outcome>,
    meter: M,
}

impl<'a, M: Meter> Interpreter<'a, M> {
    pub(crate) fn new(variables: &'a [Value], locals: usize, meter: M) -> Self {
        let locals = if locals == 0 { Vec::new() } else { vec![Ok(Value::Null); locals] };
        Self { variables, locals, meter }
    }

    pub(crate) fn cost(&self) -> u64 {
        self.meter.used()
    }

    // Inlined so the result is not moved through one more frame (a measurable part of
    // a 100 ns evaluation).
    #[inline(always)]
    pub(crate) fn run(&mut self, root: &'a Node) -> Result<Value, EvalError> {
        let value = self.eval(root);
        // Constant charges are not compared as they are made: a last look.
        self.meter.check().map_err(|over| EvalError::from(Fault::from(over)))?;
        value.map_err(EvalError::from)
    }

    /// An operand: borrowed when it is a constant, a variable or a field of one,
    /// evaluated otherwise. Borrowed chains charge nothing here: the node using the
    /// operand charges their [`borrowed_cost`](super::node::borrowed_cost), computed when
    /// compiling.
    fn operand(&mut self, node: &'a Node) -> Result<Cow<'a, Value>, Fault> {
        match node {
            Node::Const(v) => Ok(Cow::Borrowed(v)),
            Node::Var { slot, name } => match self.variables.get(*slot) {
                Some(v) => Ok(Cow::Borrowed(v)),
                None => Err(Fault::Message(Arc::from(format!("no such attribute: {name}")))),
            },
            Node::Select(select) if select.kind == SelectKind::Plain => {
                match self.operand(&select.operand)? {
                    Cow::Borrowed(v) => match plain_field(v, select) {
                        Some(field) => Ok(Cow::Borrowed(field)),
                        None => select_value(v.clone(), select, select.kind).map(Cow::Owned),
                    },
                    Cow::Owned(v) => select_value(v, select, select.kind).map(Cow::Owned),
                }
            }
            _ => self.eval(node).map(Cow::Owned),
        }
    }

    fn eval(&mut self, node: &'a Node) -> Outcome {
        crate::stack::guarded(|| self.eval_unguarded(node))
    }

    fn eval_unguarded(&mut self, node: &'a Node) -> Outcome {
        match node {
            Node::Const(v) => Ok(v.clone()),
            Node::Var { slot, name } => {
                self.meter.add(1);
                match self.variables.get(*slot) {
                    Some(v) => Ok(v.clone()),
                    None => Err(Fault::Message(Arc::from(format!("no such attribute: {name}")))),
                }
            }
            Node::Local(index) => {
                self.meter.add(1);
                self.locals.get(*index).cloned().unwrap_or_else(|| Err(internal("local")))
            }
            Node::Select(select) => self.select(select),
            Node::Call(call) => self.call(call),
            Node::And(l, r) => self.logic(l, r, false),
            Node::Or(l, r) => self.logic(l, r, true),
            Node::Conditional(parts, [refund_then, refund_otherwise]) => {
                let [condition, then, otherwise] = &**parts;
                let (branch, refund) = match self.eval(condition)? {
                    Value::Bool(true) => (then, *refund_then),
                    Value::Bool(false) => (otherwise, *refund_otherwise),
                    other => return Err(ValueError::no_overload("_?_:_", &[&other]).into()),
                };
                let value = self.eval(branch);
                self.meter.refund(refund);
                value
            }
            Node::NotStrictlyFalse(x) => {
                self.meter.add(1);
                match self.eval(x) {
                    Ok(Value::Bool(false)) => Ok(Value::Bool(false)),
                    Err(Fault::CostLimit) => Err(Fault::CostLimit),
                    _ => Ok(Value::Bool(true)),
                }
            }
            Node::List(elements) => self.list(elements),
            Node::Map(entries) => self.map(entries),
            Node::Matches { subject, regex, pattern, cost, operand_cost } => {
                let subject = self.operand(subject)?;
                self.meter.add(*operand_cost);
                let Value::String(s) = &*subject else {
                    return Err(ValueError::no_overload("matches", &[&subject]).into());
                };
                self.meter.add_call(*cost, &[&subject, pattern]);
                self.meter.check()?;
                Ok(Value::Bool(regex.is_match(s)))
            }
            Node::Fold(f) => self.fold(f),
            Node::Affix(affix) => self.affix(affix),
            Node::Fail(message) => Err(Fault::Message(message.clone())),
        }
    }

    /// `&&` (`or == false`) and `||`, commutative over errors as CEL defines them: a
    /// deciding operand wins over an error on the other side.
    fn logic(&mut self, l: &'a Node, r: &'a Node, or: bool) -> Outcome {
        let decisive = Value::Bool(or);
        let left = self.eval(l);
        match &left {
            Ok(Value::Bool(b)) if *b == or => return Ok(decisive),
            Err(Fault::CostLimit) => return left,
            _ => {}
        }
        let right = self.eval(r);
        let function = if or { "_||_" } else { "_&&_" };
        match (left, right) {
            (_, Ok(Value::Bool(b))) if b == or => Ok(decisive),
            (_, Err(Fault::CostLimit)) => Err(Fault::CostLimit),
            (Ok(Value::Bool(_)), Ok(Value::Bool(b))) => Ok(Value::Bool(b)),
            (Err(e), _) => Err(e),
            (Ok(Value::Bool(_)), Err(e)) => Err(e),
            (Ok(a), Ok(b)) => Err(ValueError::no_overload(function, &[&a, &b]).into()),
            (Ok(a), Err(_)) => Err(ValueError::no_overload(function, &[&a]).into()),
        }
    }

    fn select(&mut self, select: &'a Select) -> Outcome {
        if select.kind == SelectKind::Plain {
            return self.operand(&select.operand).and_then(|operand| {
                self.meter.add(1 + select.operand_cost + select.relative);
                match plain_field(&operand, select) {
                    Some(field) => Ok(field.clone()),
                    None => select_value(operand.into_owned(), select, select.kind),
                }
            });
        }
        let operand = self.eval(&select.operand)?;
        self.meter.add(1 + select.relative);
        select_value(operand, select, select.kind)
    }

    fn call(&mut self, call: &'a Call) -> Outcome {
        match &*call.args {
            [] => self.apply(call, &[]),
            [a] => {
                let a = self.operand(a)?;
                self.apply(call, &[&a])
            }
            [a, b] => {
                let a = self.operand(a)?;
                let b = self.operand(b)?;
                self.apply(call, &[&a, &b])
            }
            [a, b, c] => {
                let a = self.operand(a)?;
                let b = self.operand(b)?;
                let c = self.operand(c)?;
                self.apply(call, &[&a, &b, &c])
            }
            many => {
                let mut args = Vec::with_capacity(many.len());
                for arg in many {
                    args.push(self.operand(arg)?);
                }
                let refs: Vec<&Value> = args.iter().map(|a| &**a).collect();
                self.apply(call, &refs)
            }
        }
    }

    fn apply(&mut self, call: &Call, args: &[&Value]) -> Outcome {
        self.meter.add(call.operand_cost);
        let target: &Target = match &call.dispatch {
            Dispatch::Single(target) => target,
            Dispatch::Dynamic(candidates) => {
                match candidates.iter().find(|c| params_match(&c.params, args)) {
                    Some(c) => &c.target,
                    None => return Err(ValueError::no_overload(&call.function, args).into()),
                }
            }
        };
        self.meter.add_call(target.cost, args);
        if !matches!(target.cost, CallCost::Hint(CostHint::Constant(_))) {
            self.meter.check()?;
        }
        let result = target.implementation.call_refs(args)?;
        if target.cost.sizes_result() {
            self.meter.add_result(target.cost, &result);
        }
        Ok(result)
    }

    /// `subject.endsWith(left + right)` (or `startsWith`): the same charges, checks and
    /// result as concatenating and testing, without the concatenation.
    fn affix(&mut self, affix: &'a Affix) -> Outcome {
        let subject = self.operand(&affix.subject)?;
        let left = self.operand(&affix.left)?;
        let right = self.operand(&affix.right)?;
        self.meter.add(affix.operand_cost);
        let (Value::String(l), Value::String(r)) = (&*left, &*right) else {
            return Err(ValueError::no_overload("_+_", &[&left, &right]).into());
        };
        let Value::String(s) = &*subject else {
            let function = match affix.kind {
                AffixKind::Suffix => "endsWith",
                AffixKind::Prefix => "startsWith",
            };
            return Err(ValueError::no_overload(function, &[&subject]).into());
        };
        // Both calls' charges at once: nothing runs between them. The test's argument
        // is the concatenation, whose size is the sum of its parts'.
        self.meter.add_call(affix.concat_cost, &[&left, &right]);
        self.meter.add_with(|| match affix.test_cost {
            CallCost::Scan(1) => size(&left).saturating_add(size(&right)).div_ceil(10),
            other => other.before(&[&subject]),
        });
        self.meter.check()?;
        if l.len().saturating_add(r.len()) > MAX_CONCAT_LEN {
            return Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN }.into());
        }
        let found = match affix.kind {
            AffixKind::Suffix => s.strip_suffix(&**r).is_some_and(|rest| rest.ends_with(&**l)),
            AffixKind::Prefix => s.strip_prefix(&**l).is_some_and(|rest| rest.starts_with(&**r)),
        };
        Ok(Value::Bool(found))
    }

    fn list(&mut self, elements: &'a [Element]) -> Outcome {
        self.meter.add(LIST_CREATE_COST);
        let mut items = Vec::with_capacity(elements.len());
        for element in elements {
            let value = self.eval(&element.value)?;
            if !element.optional {
                items.push(value);
                continue;
            }
            match value {
                Value::Optional(Some(v)) => items.push(*v),
                Value::Optional(None) => {}
                other => return Err(not_optional(&other)),
            }
        }
        Ok(Value::list(items))
    }

    fn map(&mut self, entries: &'a [Entry]) -> Outcome {
        self.meter.add(MAP_CREATE_COST);
        let mut pairs = Vec::with_capacity(entries.len());
        for entry in entries {
            let key = self.eval(&entry.key)?;
            let value = self.eval(&entry.value)?;
            if !entry.optional {
                pairs.push((key, value));
                continue;
            }
            match value {
                Value::Optional(Some(v)) => pairs.push((key, *v)),
                Value::Optional(None) => {}
                other => return Err(not_optional(&other)),
            }
        }
        Ok(Value::Map(MapValue::from_entries(pairs)?))
    }

    fn set_local(&mut self, index: usize, value: Outcome) -> Result<(), Fault> {
        match self.locals.get_mut(index) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(internal("local")),
        }
    }

    fn fold(&mut self, fold: &'a Fold) -> Outcome {
        let range = self.eval(&fold.range)?;
        let items = iteration(&range)?;
        match &fold.step {
            FoldStep::General { init, condition, step, result } => {
                let accu = self.eval(init);
                if let Err(Fault::CostLimit) = accu {
                    return Err(Fault::CostLimit);
                }
                self.set_local(fold.accu_var, accu)?;
                for i in 0..items.len() {
                    self.bind_iteration(fold, &items, i)?;
                    match self.eval(condition) {
                        Ok(Value::Bool(false)) => break,
                        Err(Fault::CostLimit) => return Err(Fault::CostLimit),
                        _ => {}
                    }
                    let next = self.eval(step);
                    if let Err(Fault::CostLimit) = next {
                        return Err(Fault::CostLimit);
                    }
                    self.set_local(fold.accu_var, next)?;
                }
                self.eval(result)
            }
            FoldStep::CollectList { filter, element } => {
                // cel-go builds the initial `[]` and reads the accumulator as the result.
                self.meter.add(LIST_CREATE_COST + 1);
                let mut out = Vec::new();
                for i in 0..items.len() {
                    self.bind_iteration(fold, &items, i)?;
                    if !self.keep(filter.as_ref())? {
                        continue;
                    }
                    // What `accu + [element]` would charge, without the copy.
                    self.meter.charge(LIST_CREATE_COST + 2)?;
                    out.push(self.eval(element)?);
                }
                Ok(Value::list(out))
            }
            FoldStep::CollectMap { filter, key, value } => {
                // cel-go builds the initial `{}` and reads the accumulator as the result.
                self.meter.add(MAP_CREATE_COST + 1);
                let mut out = BTreeMap::new();
                for i in 0..items.len() {
                    self.bind_iteration(fold, &items, i)?;
                    if !self.keep(filter.as_ref())? {
                        continue;
                    }
                    self.meter.charge(2)?;
                    let v = self.eval(value)?;
                    match key {
                        Some(key) => {
                            let k = self.eval(key)?;
                            fold::insert(&mut out, &k, v)?;
                        }
                        None => fold::insert_all(&mut out, &v)?,
                    }
                }
                Ok(Value::Map(MapValue::from_btree(out)))
            }
        }
    }

    fn keep(&mut self, filter: Option<&'a Node>) -> Result<bool, Fault> {
        match filter.map(|f| self.eval(f)).transpose()? {
            None | Some(Value::Bool(true)) => Ok(true),
            Some(Value::Bool(false)) => Ok(false),
            Some(other) => Err(ValueError::no_overload("_?_:_", &[&other]).into()),
        }
    }

    /// Starts iteration `i`; every iteration compares the budget first.
    fn bind_iteration(&mut self, fold: &Fold, items: &Iteration, i: usize) -> Result<(), Fault> {
        self.meter.check()?;
        let (first, second) = items.get(i, fold.iter_var2.is_some());
        self.set_local(fold.iter_var, Ok(first))?;
        if let (Some(index), Some(value)) = (fold.iter_var2, second) {
            self.set_local(index, Ok(value))?;
        }
        Ok(())
    }
}

/// What a comprehension iterates over.
enum Iteration {
    List(Arc<[Value]>),
    Map(Vec<(Value, Value)>),
}

impl Iteration {
    fn len(&self) -> usize {
        match self {
            Iteration::List(l) => l.len(),
            Iteration::Map(m) => m.len(),
        }
    }

    /// The variables of iteration `i`: element (or index and element) of a list, key
    /// (or key and value) of a map.
    fn get(&self, i: usize, two: bool) -> (Value, Option<Value>) {
        match self {
            Iteration::List(l) => {
                let element = l.get(i).cloned().unwrap_or(Value::Null);
                if two {
                    (Value::Int(i64::try_from(i).unwrap_or(i64::MAX)), Some(element))
                } else {
                    (element, None)
                }
            }
            Iteration::Map(m) => match m.get(i) {
                Some((k, v)) => (k.clone(), two.then(|| v.clone())),
                None => (Value::Null, None),
            },
        }
    }
}

fn iteration(range: &Value) -> Result<Iteration, Fault> {
    match range {
        Value::List(l) => Ok(Iteration::List(l.clone())),
        Value::Map(m) => {
            Ok(Iteration::Map(m.iter().map(|(k, v)| (k.to_value(), v.clone())).collect()))
        }
        other => Err(Fault::Message(Arc::from(format!(
            "expression of type '{}' cannot be the range of a comprehension (must be list, map, or dynamic)",
            other.type_of()
        )))),
    }
}

/// The set field `select` names on a map or object, borrowed.
fn plain_field<'v>(operand: &'v Value, select: &Select) -> Option<&'v Value> {
    match operand {
        Value::Map(m) => m.get_str(&select.field),
        Value::Object(o) => o.field(&select.field),
        _ => None,
    }
}

fn select_value(operand: Value, select: &Select, kind: SelectKind) -> Outcome {
    let field = &*select.field;
    let found = match &operand {
        // Selecting through an optional selects on its value, if any: `has()` is
        // false for an empty one, any other selection stays empty.
        Value::Optional(inner) => {
            return match (inner, kind) {
                (None, SelectKind::Test) => Ok(Value::Bool(false)),
                (None, _) => Ok(Value::Optional(None)),
                (Some(v), SelectKind::Test) => select_value((**v).clone(), select, kind),
                (Some(v), _) => select_value((**v).clone(), select, SelectKind::Optional),
            };
        }
        Value::Map(m) => m.get(&Value::string(field)).cloned(),
        Value::Object(o) => o.field(field).cloned(),
        other => {
            return Err(Fault::Message(Arc::from(format!(
                "type '{}' does not support field selection",
                other.type_of()
            ))));
        }
    };
    match kind {
        SelectKind::Test => Ok(Value::Bool(found.is_some())),
        SelectKind::Optional => Ok(Value::Optional(found.map(Box::new))),
        SelectKind::Plain => match (found, &operand) {
            (Some(v), _) => Ok(v),
            (None, Value::Object(_)) => select
                .zero
                .clone()
                .ok_or_else(|| Fault::Message(Arc::from(format!("no such field '{field}'")))),
            (None, _) => Err(Fault::Message(Arc::from(format!("no such key: {field}")))),
        },
    }
}

/// Whether runtime `args` fit an overload's declared parameter kinds.
fn params_match(params: &[Type], args: &[&Value]) -> bool {
    params.len() == args.len() && params.iter().zip(args).all(|(p, a)| kind_matches(a, p))
}

fn kind_matches(v: &Value, ty: &Type) -> bool {
    match (ty, v) {
        (Type::Dyn | Type::Param(_) | Type::Error, _) => true,
        (Type::Bool, Value::Bool(_))
        | (Type::Int, Value::Int(_))
        | (Type::Uint, Value::Uint(_))
        | (Type::Double, Value::Double(_))
        | (Type::String, Value::String(_))
        | (Type::Bytes, Value::Bytes(_))
        | (Type::Null, Value::Null)
        | (Type::Duration, Value::Duration(_))
        | (Type::Timestamp, Value::Timestamp(_))
        | (Type::List(_), Value::List(_))
        | (Type::Map(..), Value::Map(_))
        | (Type::TypeOf(_), Value::Type(_)) => true,
        (Type::Opaque { name, .. }, Value::Optional(_)) => name == OPTIONAL_TYPE_NAME,
        (Type::Opaque { name, .. }, Value::Opaque(o)) => {
            matches!(o.type_of(), Type::Opaque { name: n, .. } if &n == name)
        }
        (Type::Object(name), Value::Object(o)) => name == o.type_name(),
        _ => false,
    }
}

fn not_optional(v: &Value) -> Fault {
    Fault::Message(Arc::from(format!(
        "cannot initialize optional entry from non-optional value {}",
        v.type_of()
    )))
}

fn internal(what: &str) -> Fault {
    Fault::Message(Arc::from(format!("internal error: {what} out of range; please report it")))
}
