//! Macro expansion: `has`, the comprehension macros, `cel.bind` and the optional
//! macros become [`Comprehension`]s, test-only selects and plain calls, following
//! cel-go's documented expansions so that evaluation semantics (error absorption in
//! `all`/`exists`, short-circuiting) match Kubernetes.

use super::ast::{
    Comprehension, Expr, ExprKind, ListElement, Literal, MapEntry, NodeId, Span, operators,
};
use super::error::SyntaxErrorKind;

/// Name of the accumulator variable; `@` cannot appear in source identifiers, so
/// user variables can never shadow it.
pub const ACCUMULATOR: &str = "@result";
/// Iteration variable of `cel.bind` and the optional macros, which loop zero times.
const UNUSED_ITER_VAR: &str = "#unused";
/// Internal map-building function of `transformMap` and `transformMapEntry`.
pub const MAP_INSERT: &str = "cel.@mapInsert";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Macro {
    Has,
    All,
    Exists,
    ExistsOne,
    Map,
    MapFilter,
    Filter,
    AllTwo,
    ExistsTwo,
    ExistsOneTwo,
    TransformList,
    TransformListFilter,
    TransformMap,
    TransformMapFilter,
    TransformMapEntry,
    TransformMapEntryFilter,
    Bind,
    OptMap,
    OptFlatMap,
}

impl Macro {
    /// The macro a call names, if any. `target` is the receiver of a receiver-style call.
    pub(crate) fn find(target: Option<&Expr>, function: &str, argc: usize) -> Option<Macro> {
        let Some(target) = target else {
            return (function == "has" && argc == 1).then_some(Macro::Has);
        };
        if function == "bind" {
            let on_cel = matches!(&target.kind, ExprKind::Ident(name) if name == "cel");
            return (on_cel && argc == 3).then_some(Macro::Bind);
        }
        Some(match (function, argc) {
            ("all", 2) => Macro::All,
            ("exists", 2) => Macro::Exists,
            ("exists_one" | "existsOne", 2) => Macro::ExistsOne,
            ("map", 2) => Macro::Map,
            ("map", 3) => Macro::MapFilter,
            ("filter", 2) => Macro::Filter,
            ("all", 3) => Macro::AllTwo,
            ("exists", 3) => Macro::ExistsTwo,
            ("exists_one" | "existsOne", 3) => Macro::ExistsOneTwo,
            ("transformList", 3) => Macro::TransformList,
            ("transformList", 4) => Macro::TransformListFilter,
            ("transformMap", 3) => Macro::TransformMap,
            ("transformMap", 4) => Macro::TransformMapFilter,
            ("transformMapEntry", 3) => Macro::TransformMapEntry,
            ("transformMapEntry", 4) => Macro::TransformMapEntryFilter,
            ("optMap", 2) => Macro::OptMap,
            ("optFlatMap", 2) => Macro::OptFlatMap,
            _ => return None,
        })
    }
}

/// Allocates node ids and builds the nodes macro expansions need.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    last_id: u32,
}

impl Builder {
    pub(crate) fn id(&mut self) -> NodeId {
        // The parser's size bound keeps node counts far below u32::MAX.
        self.last_id = self.last_id.saturating_add(1);
        NodeId(self.last_id)
    }

    pub(crate) fn node_count(&self) -> u32 {
        self.last_id
    }

    pub(crate) fn expr(&mut self, span: Span, kind: ExprKind) -> Expr {
        Expr { id: self.id(), span, kind }
    }

    fn ident(&mut self, span: Span, name: &str) -> Expr {
        self.expr(span, ExprKind::Ident(name.to_owned()))
    }

    fn literal(&mut self, span: Span, literal: Literal) -> Expr {
        self.expr(span, ExprKind::Literal(literal))
    }

    fn call(&mut self, span: Span, function: &str, args: Vec<Expr>) -> Expr {
        self.expr(span, ExprKind::Call { target: None, function: function.to_owned(), args })
    }

    fn member_call(&mut self, span: Span, target: Expr, function: &str) -> Expr {
        self.expr(
            span,
            ExprKind::Call {
                target: Some(Box::new(target)),
                function: function.to_owned(),
                args: Vec::new(),
            },
        )
    }

    fn conditional(&mut self, span: Span, condition: Expr, then: Expr, otherwise: Expr) -> Expr {
        self.expr(
            span,
            ExprKind::Conditional {
                condition: Box::new(condition),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
        )
    }

    fn list(&mut self, span: Span, values: Vec<Expr>) -> Expr {
        let elements =
            values.into_iter().map(|value| ListElement { value, optional: false }).collect();
        self.expr(span, ExprKind::List(elements))
    }

    /// A copy of `expr` with fresh ids, for expansions that use an argument twice.
    fn renumber(&mut self, expr: &Expr) -> Expr {
        let mut copy = expr.clone();
        self.assign_ids(&mut copy);
        copy
    }

    // Recursion is bounded: the parser's limits bound the height of every argument.
    fn assign_ids(&mut self, expr: &mut Expr) {
        expr.id = self.id();
        match &mut expr.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => {}
            ExprKind::Select { operand, .. } => self.assign_ids(operand),
            ExprKind::Call { target, args, .. } => {
                if let Some(target) = target {
                    self.assign_ids(target);
                }
                args.iter_mut().for_each(|a| self.assign_ids(a));
            }
            ExprKind::Index { operand, index, .. } => {
                self.assign_ids(operand);
                self.assign_ids(index);
            }
            ExprKind::Conditional { condition, then, otherwise } => {
                self.assign_ids(condition);
                self.assign_ids(then);
                self.assign_ids(otherwise);
            }
            ExprKind::List(elements) => {
                elements.iter_mut().for_each(|e| self.assign_ids(&mut e.value))
            }
            ExprKind::Map(entries) => entries.iter_mut().for_each(|e: &mut MapEntry| {
                e.id = self.id();
                self.assign_ids(&mut e.key);
                self.assign_ids(&mut e.value);
            }),
            ExprKind::Struct { fields, .. } => fields.iter_mut().for_each(|f| {
                f.id = self.id();
                self.assign_ids(&mut f.value);
            }),
            ExprKind::Comprehension(c) => {
                self.assign_ids(&mut c.iter_range);
                self.assign_ids(&mut c.accu_init);
                self.assign_ids(&mut c.loop_condition);
                self.assign_ids(&mut c.loop_step);
                self.assign_ids(&mut c.result);
            }
        }
    }
}

/// A macro expansion failure and the argument it concerns.
pub(crate) type MacroError = (SyntaxErrorKind, Span);

fn simple_name(expr: &Expr, message: &'static str) -> Result<String, MacroError> {
    match &expr.kind {
        ExprKind::Ident(name) if !name.starts_with('.') => Ok(name.clone()),
        _ => Err((SyntaxErrorKind::Macro(message), expr.span)),
    }
}

const NOT_A_NAME: &str = "argument must be a simple name";

/// Expands `mac` applied to `target` (for receiver-style macros) and `args`, whose
/// count [`Macro::find`] has checked.
pub(crate) fn expand(
    b: &mut Builder,
    mac: Macro,
    span: Span,
    target: Option<Expr>,
    args: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let mut args = args.into_iter();
    let mut arg = || args.next().ok_or((SyntaxErrorKind::Macro("missing macro argument"), span));
    if mac == Macro::Has {
        let operand = arg()?;
        return match operand.kind {
            ExprKind::Select { operand, field, optional: false, .. } => Ok(
                b.expr(span, ExprKind::Select { operand, field, test_only: true, optional: false })
            ),
            _ => Err((SyntaxErrorKind::Macro("invalid argument to has() macro"), operand.span)),
        };
    }
    let Some(target) = target else {
        return Err((SyntaxErrorKind::Macro("macro requires a receiver"), span));
    };
    match mac {
        Macro::Bind => {
            let var = arg()?;
            let name = simple_name(&var, "cel.bind() variable names must be simple identifiers")?;
            let init = arg()?;
            let body = arg()?;
            let range = b.list(span, Vec::new());
            let never = b.literal(span, Literal::Bool(false));
            let step = b.ident(span, &name);
            Ok(fold(b, span, UNUSED_ITER_VAR, None, range, &name, init, never, step, body))
        }
        Macro::OptMap | Macro::OptFlatMap => {
            let var = arg()?;
            let name = simple_name(&var, NOT_A_NAME)?;
            let body = arg()?;
            let copy = b.renumber(&target);
            let has_value = b.member_call(span, target, "hasValue");
            let value = b.member_call(span, copy, "value");
            let range = b.list(span, Vec::new());
            let never = b.literal(span, Literal::Bool(false));
            let step = b.ident(span, &name);
            let inner =
                fold(b, span, UNUSED_ITER_VAR, None, range, &name, value, never, step, body);
            let present =
                if mac == Macro::OptMap { b.call(span, "optional.of", vec![inner]) } else { inner };
            let none = b.call(span, "optional.none", Vec::new());
            Ok(b.conditional(span, has_value, present, none))
        }
        _ => {
            let two_vars = !matches!(
                mac,
                Macro::All
                    | Macro::Exists
                    | Macro::ExistsOne
                    | Macro::Map
                    | Macro::MapFilter
                    | Macro::Filter
            );
            let first = arg()?;
            let var = simple_name(&first, NOT_A_NAME)?;
            let var2 = if two_vars {
                let second = arg()?;
                let name = simple_name(&second, NOT_A_NAME)?;
                if name == var {
                    return Err((SyntaxErrorKind::Macro("duplicate variable name"), second.span));
                }
                Some(name)
            } else {
                None
            };
            let rest: Vec<Expr> = std::iter::from_fn(|| arg().ok()).collect();
            comprehension(b, mac, span, target, var, var2, rest)
        }
    }
}

/// The list/map comprehension macros; `rest` holds the predicate and/or transform.
fn comprehension(
    b: &mut Builder,
    mac: Macro,
    span: Span,
    range: Expr,
    var: String,
    var2: Option<String>,
    rest: Vec<Expr>,
) -> Result<Expr, MacroError> {
    let mut rest = rest.into_iter();
    let mut next = || rest.next().ok_or((SyntaxErrorKind::Macro("missing macro argument"), span));
    let accu = |b: &mut Builder| b.ident(span, ACCUMULATOR);
    let always = |b: &mut Builder| b.literal(span, Literal::Bool(true));
    let (init, condition, step, result) = match mac {
        Macro::All | Macro::AllTwo | Macro::Exists | Macro::ExistsTwo => {
            let all = matches!(mac, Macro::All | Macro::AllTwo);
            let predicate = next()?;
            let init = b.literal(span, Literal::Bool(all));
            // Loop while the result can still change: all stops at a false, exists at a true.
            let current = accu(b);
            let watched =
                if all { current } else { b.call(span, operators::LOGICAL_NOT, vec![current]) };
            let condition = b.call(span, operators::NOT_STRICTLY_FALSE, vec![watched]);
            let op = if all { operators::LOGICAL_AND } else { operators::LOGICAL_OR };
            let current = accu(b);
            let step = b.call(span, op, vec![current, predicate]);
            (init, condition, step, accu(b))
        }
        Macro::ExistsOne | Macro::ExistsOneTwo => {
            let predicate = next()?;
            let init = b.literal(span, Literal::Int(0));
            let current = accu(b);
            let one = b.literal(span, Literal::Int(1));
            let incremented = b.call(span, operators::ADD, vec![current, one]);
            let unchanged = accu(b);
            let step = b.conditional(span, predicate, incremented, unchanged);
            let current = accu(b);
            let one = b.literal(span, Literal::Int(1));
            let result = b.call(span, operators::EQUALS, vec![current, one]);
            (init, always(b), step, result)
        }
        Macro::Map
        | Macro::MapFilter
        | Macro::Filter
        | Macro::TransformList
        | Macro::TransformListFilter => {
            let filtered =
                matches!(mac, Macro::MapFilter | Macro::Filter | Macro::TransformListFilter);
            let predicate = if filtered { Some(next()?) } else { None };
            let element = if mac == Macro::Filter { b.ident(span, &var) } else { next()? };
            let current = accu(b);
            let appended = b.list(span, vec![element]);
            let grown = b.call(span, operators::ADD, vec![current, appended]);
            let step = match predicate {
                Some(p) => {
                    let unchanged = accu(b);
                    b.conditional(span, p, grown, unchanged)
                }
                None => grown,
            };
            let init = b.list(span, Vec::new());
            (init, always(b), step, accu(b))
        }
        _ => {
            // transformMap and transformMapEntry (with or without a filter).
            let filtered =
                matches!(mac, Macro::TransformMapFilter | Macro::TransformMapEntryFilter);
            let predicate = if filtered { Some(next()?) } else { None };
            let transform = next()?;
            let current = accu(b);
            let args = if matches!(mac, Macro::TransformMap | Macro::TransformMapFilter) {
                let key = b.ident(span, &var);
                vec![current, key, transform]
            } else {
                vec![current, transform]
            };
            let grown = b.call(span, MAP_INSERT, args);
            let step = match predicate {
                Some(p) => {
                    let unchanged = accu(b);
                    b.conditional(span, p, grown, unchanged)
                }
                None => grown,
            };
            let init = b.expr(span, ExprKind::Map(Vec::new()));
            (init, always(b), step, accu(b))
        }
    };
    Ok(fold(b, span, &var, var2, range, ACCUMULATOR, init, condition, step, result))
}

#[allow(clippy::too_many_arguments)] // One argument per field of the node it builds.
fn fold(
    b: &mut Builder,
    span: Span,
    iter_var: &str,
    iter_var2: Option<String>,
    iter_range: Expr,
    accu_var: &str,
    accu_init: Expr,
    loop_condition: Expr,
    loop_step: Expr,
    result: Expr,
) -> Expr {
    let comprehension = Comprehension {
        iter_var: iter_var.to_owned(),
        iter_var2,
        iter_range,
        accu_var: accu_var.to_owned(),
        accu_init,
        loop_condition,
        loop_step,
        result,
    };
    b.expr(span, ExprKind::Comprehension(Box::new(comprehension)))
}
