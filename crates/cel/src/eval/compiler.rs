//! Compiling a parsed (and normally type-checked) expression into [`Node`]s: names
//! become slots and locals, calls become function pointers with their cost, constant
//! regular expressions are compiled once, and the `map`/`filter`/`transform*` folds
//! are recognised so they build their result in place.

use std::sync::Arc;

use super::call_cost::CallCost;
use super::library::regex;
use super::node::{
    Affix, AffixKind, Call, Candidate, Dispatch, Element, Entry, Fold, FoldStep, Node, Select,
    SelectKind, Target, borrowed_cost,
};
use super::{Environment, Impl, Program};
use crate::CompileError;
use crate::check::checker::{CheckedAst, Reference, qualified_name};
use crate::check::{CallStyle, Type};
use crate::syntax::ast::{Comprehension, FieldInit, ListElement, MapEntry, operators};
use crate::syntax::folds::{Collect, Into, collect_form};
use crate::syntax::macros::MAP_INSERT;
use crate::syntax::{Ast, Expr, ExprKind, Literal};
use crate::value::{Duration, MapValue, Timestamp, Value};

/// Overload ids of `matches`, whose pattern is argument 1 in both forms.
const MATCHES_OVERLOADS: [&str; 2] = ["matches", "matches_string"];

pub(super) struct Compiler<'a> {
    env: &'a Environment,
    checked: Option<&'a CheckedAst>,
    /// Comprehension variables in scope, innermost last, with their local index.
    scopes: Vec<(String, usize)>,
    max_locals: usize,
}

impl<'a> Compiler<'a> {
    pub(super) fn new(env: &'a Environment, checked: Option<&'a CheckedAst>) -> Self {
        Self { env, checked, scopes: Vec::new(), max_locals: 0 }
    }

    pub(super) fn program(
        mut self,
        ast: &Ast,
        source: &str,
        result_type: Type,
    ) -> Result<Program, CompileError> {
        let root = self.expr(&ast.root)?;
        Ok(Program::new(root, self.max_locals, Arc::from(source), result_type))
    }

    fn expr(&mut self, e: &Expr) -> Result<Node, CompileError> {
        crate::stack::guarded(|| self.expr_unguarded(e))
    }

    fn expr_unguarded(&mut self, e: &Expr) -> Result<Node, CompileError> {
        Ok(match &e.kind {
            ExprKind::Literal(lit) => Node::Const(literal(lit)),
            ExprKind::Ident(name) => self.name(name),
            ExprKind::Select { operand, field, test_only, optional } => {
                if !test_only
                    && !optional
                    && let Some(name) = self.variable_path(e)
                {
                    return Ok(self.name(&name));
                }
                let kind = match (test_only, optional) {
                    (true, _) => SelectKind::Test,
                    (_, true) => SelectKind::Optional,
                    _ => SelectKind::Plain,
                };
                let zero = self.field_zero(e, operand);
                let relative = u64::from(!is_attribute(operand));
                let operand = self.expr(operand)?;
                let operand_cost = borrowed_cost(&operand);
                Node::Select(Box::new(Select {
                    operand,
                    field: Arc::from(field.as_str()),
                    kind,
                    zero,
                    operand_cost,
                    relative,
                }))
            }
            ExprKind::Call { target, function, args } => {
                self.call(e, target.as_deref(), function, args)?
            }
            ExprKind::Index { operand, index, optional } => {
                let function = if *optional { "_[?_]" } else { "_[_]" };
                let relative = u64::from(!is_attribute(operand));
                let args = vec![self.expr(operand)?, self.expr(index)?];
                let mut node = self.dispatch(e, function, CallStyle::Global, args)?;
                if let Node::Call(call) = &mut node {
                    call.operand_cost += relative;
                }
                node
            }
            ExprKind::Conditional { condition, then, otherwise } => Node::Conditional(
                Box::new([self.expr(condition)?, self.expr(then)?, self.expr(otherwise)?]),
                [branch_refund(then), branch_refund(otherwise)],
            ),
            ExprKind::List(elements) => Node::List(self.elements(elements)?),
            ExprKind::Map(entries) => Node::Map(self.entries(entries)?),
            ExprKind::Struct { type_name, fields } => self.message(type_name, fields),
            ExprKind::Comprehension(c) => self.comprehension(c)?,
        })
    }

    /// A name: innermost comprehension variable, then constant, then declared variable.
    /// A leading dot (`.x`) names the root scope: comprehension variables are skipped.
    fn name(&self, name: &str) -> Node {
        let (root_scope, name) = match name.strip_prefix('.') {
            Some(rest) => (true, rest),
            None => (false, name),
        };
        if !root_scope && let Some((_, local)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return Node::Local(*local);
        }
        if let Some(value) = self.env.constant(name) {
            return Node::Const(value.clone());
        }
        match self.env.slot(name) {
            Some(slot) => Node::Var { slot, name: Arc::from(name) },
            None => Node::Fail(Arc::from(format!("undeclared reference to '{name}'"))),
        }
    }

    /// `a.b.c` naming a declared variable (not a field of `a`).
    fn variable_path(&self, e: &Expr) -> Option<String> {
        match self.checked {
            Some(checked) => match checked.reference(e.id) {
                Some(Reference::Variable(name)) => Some(name.clone()),
                _ => None,
            },
            None => qualified_name(e).filter(|name| {
                let root = name.split('.').next().unwrap_or_default();
                !self.scopes.iter().any(|(n, _)| n == root)
                    && (self.env.slot(name).is_some() || self.env.constant(name).is_some())
            }),
        }
    }

    /// The zero value an unset field of an object-typed `operand` reads as: that of
    /// the select node's own type, the field's.
    fn field_zero(&self, select: &Expr, operand: &Expr) -> Option<Value> {
        let checked = self.checked?;
        match checked.type_of(operand.id) {
            Some(Type::Object(_)) => checked.type_of(select.id).and_then(zero_value),
            _ => None,
        }
    }

    fn call(
        &mut self,
        e: &Expr,
        target: Option<&Expr>,
        function: &str,
        args: &[Expr],
    ) -> Result<Node, CompileError> {
        if target.is_none() {
            match (function, args) {
                (operators::LOGICAL_AND, [l, r]) => {
                    return Ok(Node::And(Box::new(self.expr(l)?), Box::new(self.expr(r)?)));
                }
                (operators::LOGICAL_OR, [l, r]) => {
                    return Ok(Node::Or(Box::new(self.expr(l)?), Box::new(self.expr(r)?)));
                }
                (operators::NOT_STRICTLY_FALSE, [x]) => {
                    return Ok(Node::NotStrictlyFalse(Box::new(self.expr(x)?)));
                }
                (MAP_INSERT, _) => {
                    let args = args.iter().map(|a| self.expr(a)).collect::<Result<Vec<_>, _>>()?;
                    return Ok(map_insert_call(args));
                }
                _ => {}
            }
        }
        if let (Some(subject), [arg]) = (target, args)
            && let Some(affix) = self.affix(e, subject, arg)?
        {
            return Ok(affix);
        }
        let (name, style, mut nodes) = match target {
            Some(t) if self.is_namespace(e, t, function) => {
                let prefix = qualified_name(t).unwrap_or_default();
                (format!("{prefix}.{function}"), CallStyle::Global, Vec::new())
            }
            Some(t) => (function.to_owned(), CallStyle::Receiver, vec![self.expr(t)?]),
            None => (function.trim_start_matches('.').to_owned(), CallStyle::Global, Vec::new()),
        };
        for arg in args {
            nodes.push(self.expr(arg)?);
        }
        self.dispatch(e, &name, style, nodes)
    }

    /// `subject.endsWith(left + right)` or `.startsWith(...)` on checked strings: the
    /// affix test of the policy rules' favourite shape (`self.endsWith(cr.namespace +
    /// '.svc')`), compiled so that the concatenation is never built.
    fn affix(
        &mut self,
        e: &Expr,
        subject: &Expr,
        arg: &Expr,
    ) -> Result<Option<Node>, CompileError> {
        let Some(checked) = self.checked else { return Ok(None) };
        let single = |id: u32| match checked.reference(crate::syntax::NodeId(id)) {
            Some(Reference::Call { overload_ids, .. }) if overload_ids.len() == 1 => {
                overload_ids.first().cloned()
            }
            _ => None,
        };
        let kind = match single(e.id.0).as_deref() {
            Some("ends_with_string") => AffixKind::Suffix,
            Some("starts_with_string") => AffixKind::Prefix,
            _ => return Ok(None),
        };
        let ExprKind::Call { target: None, function, args } = &arg.kind else { return Ok(None) };
        let [left, right] = args.as_slice() else { return Ok(None) };
        if function != operators::ADD || single(arg.id.0).as_deref() != Some("add_string") {
            return Ok(None);
        }
        let decls = self.env.declarations();
        let cost = |id: &str| decls.overload(id).map(|(_, o)| CallCost::for_overload(id, o.cost));
        let test_id =
            if kind == AffixKind::Suffix { "ends_with_string" } else { "starts_with_string" };
        let (Some(concat_cost), Some(test_cost)) = (cost("add_string"), cost(test_id)) else {
            return Ok(None);
        };
        let (subject, left, right) = (self.expr(subject)?, self.expr(left)?, self.expr(right)?);
        let operand_cost = borrowed_cost(&subject) + borrowed_cost(&left) + borrowed_cost(&right);
        Ok(Some(Node::Affix(Box::new(Affix {
            kind,
            subject,
            left,
            right,
            concat_cost,
            test_cost,
            operand_cost,
        }))))
    }

    /// Whether `target.function(...)` is the namespaced global `target.function`
    /// (`strings.quote(x)`), as the checker decided.
    fn is_namespace(&self, e: &Expr, target: &Expr, function: &str) -> bool {
        match self.checked {
            Some(checked) => matches!(
                checked.reference(e.id),
                Some(Reference::Call { function: f, .. }) if f != function
            ),
            None => qualified_name(target).is_some_and(|prefix| {
                let root = prefix.split('.').next().unwrap_or_default();
                !self.scopes.iter().any(|(n, _)| n == root)
                    && self.env.slot(&prefix).is_none()
                    && self.env.declarations().function(&format!("{prefix}.{function}")).is_some()
            }),
        }
    }

    /// A call of `name` with compiled `args`, bound to the overloads the checker chose
    /// (or, unchecked, every overload of the right style and arity).
    fn dispatch(
        &mut self,
        e: &Expr,
        name: &str,
        style: CallStyle,
        args: Vec<Node>,
    ) -> Result<Node, CompileError> {
        let decls = self.env.declarations();
        let ids: Vec<String> = match self.checked.and_then(|c| c.reference(e.id)) {
            Some(Reference::Call { overload_ids, .. }) => overload_ids.clone(),
            _ => decls.candidates(name, style, args.len()).map(|o| o.id.clone()).collect(),
        };
        if ids.is_empty() {
            let message = match decls.function(name) {
                Some(_) => format!("no matching overload for '{name}'"),
                None => format!("undeclared reference to '{name}'"),
            };
            return Ok(Node::Fail(Arc::from(message)));
        }
        if let ([id], [_, Node::Const(Value::String(pattern))]) = (ids.as_slice(), args.as_slice())
            && MATCHES_OVERLOADS.contains(&id.as_str())
        {
            let regex = regex::compile(pattern)
                .map_err(|err| CompileError::new(format!("invalid matches() pattern: {err}")))?;
            let cost = decls.overload(id).map(|(_, o)| CallCost::for_overload(id, o.cost));
            let pattern = Value::string(pattern);
            let mut args = args;
            let subject = args.swap_remove(0);
            return Ok(Node::Matches {
                operand_cost: borrowed_cost(&subject),
                subject: Box::new(subject),
                regex: Arc::new(regex),
                pattern,
                cost: cost.unwrap_or(CallCost::Matches),
            });
        }
        let mut candidates = Vec::with_capacity(ids.len());
        for id in &ids {
            let Some((_, overload)) = decls.overload(id) else {
                return Err(missing(name, id));
            };
            let Some(implementation) = self.env.functions().get(id) else {
                return Err(missing(name, id));
            };
            if implementation.arity().is_some_and(|n| n != args.len()) {
                return Err(missing(name, id));
            }
            candidates.push(Candidate {
                params: overload.params.clone().into_boxed_slice(),
                target: Target { implementation, cost: CallCost::for_overload(id, overload.cost) },
            });
        }
        let dispatch = match candidates.len() {
            1 if self.checked.is_some() => Dispatch::Single(
                candidates.pop().map(|c| c.target).ok_or_else(|| missing(name, ""))?,
            ),
            _ => Dispatch::Dynamic(candidates.into_boxed_slice()),
        };
        Ok(Node::Call(Box::new(Call {
            function: Arc::from(name),
            operand_cost: args.iter().map(borrowed_cost).sum(),
            args: args.into_boxed_slice(),
            dispatch,
        })))
    }

    fn elements(&mut self, elements: &[ListElement]) -> Result<Box<[Element]>, CompileError> {
        elements
            .iter()
            .map(|el| Ok(Element { value: self.expr(&el.value)?, optional: el.optional }))
            .collect()
    }

    fn entries(&mut self, entries: &[MapEntry]) -> Result<Box<[Entry]>, CompileError> {
        entries
            .iter()
            .map(|en| {
                Ok(Entry {
                    key: self.expr(&en.key)?,
                    value: self.expr(&en.value)?,
                    optional: en.optional,
                })
            })
            .collect()
    }

    /// Message literals name protobuf types, which no certgate environment declares.
    fn message(&self, type_name: &str, _fields: &[FieldInit]) -> Node {
        Node::Fail(Arc::from(format!(
            "unknown type '{type_name}': message literals are not supported"
        )))
    }

    fn comprehension(&mut self, c: &Comprehension) -> Result<Node, CompileError> {
        let range = self.expr(&c.iter_range)?;
        let base = self.scopes.len();
        let local = |compiler: &Self, offset: usize| {
            compiler.scopes.last().map_or(0, |(_, l)| l + 1) + offset
        };
        // Locals are numbered by nesting depth: siblings reuse indices.
        let first_free = if base == 0 { 0 } else { local(self, 0) };
        let accu_var = first_free;
        let iter_var = first_free + 1;
        let iter_var2 = c.iter_var2.as_ref().map(|_| first_free + 2);
        self.max_locals = self.max_locals.max(first_free + 3);

        // The initial value sees only the enclosing scope.
        let init_node =
            if collect_form(c).is_some() { None } else { Some(self.expr(&c.accu_init)?) };
        self.scopes.push((c.accu_var.clone(), accu_var));
        self.scopes.push((c.iter_var.clone(), iter_var));
        if let (Some(name), Some(index)) = (&c.iter_var2, iter_var2) {
            self.scopes.push((name.clone(), index));
        }
        let step = match (collect_form(c), init_node) {
            (Some(pattern), _) => self.collect(pattern),
            (None, Some(init)) => {
                let condition = self.expr(&c.loop_condition);
                let step = self.expr(&c.loop_step);
                // The result sees the accumulator but not the iteration variables.
                self.scopes.truncate(base + 1);
                let result = self.expr(&c.result);
                match (condition, step, result) {
                    (Ok(condition), Ok(step), Ok(result)) => {
                        Ok(FoldStep::General { init, condition, step, result })
                    }
                    (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Err(e),
                }
            }
            (None, None) => Err(CompileError::new("internal error: comprehension without init")),
        };
        self.scopes.truncate(base);
        Ok(Node::Fold(Box::new(Fold { range, iter_var, iter_var2, accu_var, step: step? })))
    }

    fn collect(&mut self, form: Collect<'_>) -> Result<FoldStep, CompileError> {
        let filter = form.filter.map(|f| self.expr(f)).transpose()?;
        Ok(match form.into {
            Into::List { element } => {
                FoldStep::CollectList { filter, element: self.expr(element)? }
            }
            Into::Map { key, value } => FoldStep::CollectMap {
                filter,
                key: key.map(|k| self.expr(k)).transpose()?,
                value: self.expr(value)?,
            },
        })
    }
}

fn missing(function: &str, id: &str) -> CompileError {
    CompileError::new(format!(
        "function '{function}' (overload '{id}') is declared but has no implementation; \
         this is a certgate bug, please report it"
    ))
}

/// `cel.@mapInsert` outside a recognised fold: a plain call.
fn map_insert_call(args: Vec<Node>) -> Node {
    let implementation = match args.len() {
        3 => Impl::Ternary(super::fold::map_insert_key_value),
        _ => Impl::Binary(super::fold::map_insert_map),
    };
    Node::Call(Box::new(Call {
        function: Arc::from(MAP_INSERT),
        operand_cost: args.iter().map(borrowed_cost).sum(),
        args: args.into_boxed_slice(),
        dispatch: Dispatch::Single(Target {
            implementation,
            cost: CallCost::Hint(crate::check::CostHint::Constant(1)),
        }),
    }))
}

/// Whether cel-go plans `e` as an attribute, which a selection or an index then
/// qualifies at no extra cost; any other operand is wrapped in a relative attribute,
/// charged 1 (`[1, 2][0]` costs one more than `x[0]`).
fn is_attribute(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Ident(_) | ExprKind::Index { .. } | ExprKind::Conditional { .. } => true,
        ExprKind::Select { test_only, .. } => !test_only,
        _ => false,
    }
}

/// What cel-go does not charge for a conditional's branch `e`: the base of an
/// attribute chain (1 for a variable or a relative attribute), which the conditional
/// resolves without observing; nothing for any other branch.
fn branch_refund(e: &Expr) -> u64 {
    match &e.kind {
        ExprKind::Ident(_) => 1,
        ExprKind::Select { operand, test_only: false, .. } | ExprKind::Index { operand, .. } => {
            if is_attribute(operand) {
                branch_refund(operand)
            } else {
                1
            }
        }
        _ => 0,
    }
}

fn literal(lit: &Literal) -> Value {
    match lit {
        Literal::Null => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Int(*i),
        Literal::Uint(u) => Value::Uint(*u),
        Literal::Double(d) => Value::Double(*d),
        Literal::String(s) => Value::string(s),
        Literal::Bytes(b) => Value::bytes(b),
    }
}

/// The value an unset field of type `ty` reads as.
pub(super) fn zero_value(ty: &Type) -> Option<Value> {
    Some(match ty {
        Type::Bool => Value::Bool(false),
        Type::Int => Value::Int(0),
        Type::Uint => Value::Uint(0),
        Type::Double => Value::Double(0.0),
        Type::String => Value::string(""),
        Type::Bytes => Value::bytes(&[]),
        Type::List(_) => Value::list(Vec::new()),
        Type::Map(..) => Value::Map(MapValue::default()),
        Type::Duration => Value::Duration(Duration::default()),
        Type::Timestamp => Value::Timestamp(Timestamp::from_unix_seconds(0).ok()?),
        Type::Null | Type::Dyn => Value::Null,
        _ => return None,
    })
}
