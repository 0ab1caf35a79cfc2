//! Checks on the parsed expression that cel-go's type checker would make and the
//! `cel` crate does not: depth (which bounds the interpreter's recursion), undeclared
//! identifiers and unknown `cr` fields.
//!
//! The walk keeps its own stack, so it cannot overflow however deep the tree is.

use crate::limits::MAX_NESTING_DEPTH;
use crate::request::{CR, FIELDS, SELF};
use crate::{CompileError, parse_errors};
use cel::Env;
use cel::common::ast::{EntryExpr, Expr, IdedExpr};

/// Namespaces of functions called as `namespace.function(...)`: `strings.quote`.
const FUNCTION_NAMESPACES: [&str; 1] = ["strings"];

/// Checks the expression of `rule`.
pub(crate) fn check(rule: &str, program: &cel::Program, env: &Env) -> Result<(), CompileError> {
    let mut walk = Walk {
        rule,
        program,
        env,
        scopes: vec![Scope::default()],
        pending: vec![(program.expression(), 1, 0)],
    };
    walk.run()
}

/// The variables a comprehension binds, within its enclosing scope.
#[derive(Default)]
struct Scope<'a> {
    parent: Option<usize>,
    variables: Vec<&'a str>,
}

struct Walk<'a> {
    rule: &'a str,
    program: &'a cel::Program,
    env: &'a Env,
    scopes: Vec<Scope<'a>>,
    /// Expressions to visit, with their depth and scope.
    pending: Vec<(&'a IdedExpr, usize, usize)>,
}

impl<'a> Walk<'a> {
    fn run(&mut self) -> Result<(), CompileError> {
        while let Some((expr, depth, scope)) = self.pending.pop() {
            if depth > MAX_NESTING_DEPTH {
                return Err(CompileError::new(format!(
                    "rule nests more than {MAX_NESTING_DEPTH} levels deep once its macros \
                     are expanded; flatten it, e.g. split it into several validations"
                )));
            }
            let children = self.pending.len();
            self.visit(expr, depth, scope)?;
            // Visit children left to right, so that the first error in the source is
            // the one reported.
            if let Some(pushed) = self.pending.get_mut(children..) {
                pushed.reverse();
            }
        }
        Ok(())
    }

    fn visit(
        &mut self,
        expr: &'a IdedExpr,
        depth: usize,
        scope: usize,
    ) -> Result<(), CompileError> {
        let child = depth + 1;
        match &expr.expr {
            Expr::Ident(name) => {
                if !self.is_declared(scope, name) && !self.is_type(name) {
                    return Err(self.undeclared(expr, name));
                }
            }
            Expr::Select(select) => {
                if let Some((root, root_name, name)) = qualified_name(expr)
                    && !self.is_declared(scope, root_name)
                {
                    if self.is_type(&name) {
                        return Ok(());
                    }
                    return Err(self.undeclared(root, root_name));
                }
                let selects_cr = matches!(&select.operand.expr, Expr::Ident(name) if name == CR)
                    && !self.is_bound(scope, CR);
                if selects_cr && !FIELDS.iter().any(|(field, _)| *field == select.field) {
                    return Err(self.error(expr, &format!("undefined field '{}'", select.field)));
                }
                self.pending.push((&select.operand, child, scope));
            }
            Expr::Call(call) => {
                if let Some(target) = &call.target
                    && !self.is_namespace(scope, target)
                {
                    self.pending.push((target, child, scope));
                }
                for arg in &call.args {
                    self.pending.push((arg, child, scope));
                }
            }
            Expr::Comprehension(comprehension) => {
                self.pending.push((&comprehension.iter_range, child, scope));
                self.pending.push((&comprehension.accu_init, child, scope));
                let mut variables = vec![comprehension.iter_var.as_str()];
                variables.extend(comprehension.iter_var2.as_deref());
                variables.push(comprehension.accu_var.as_str());
                self.scopes.push(Scope { parent: Some(scope), variables });
                let inner = self.scopes.len() - 1;
                for body in
                    [&comprehension.loop_cond, &comprehension.loop_step, &comprehension.result]
                {
                    self.pending.push((body, child, inner));
                }
            }
            Expr::List(list) => {
                for element in &list.elements {
                    self.pending.push((element, child, scope));
                }
            }
            Expr::Map(map) => self.push_entries(&map.entries, child, scope),
            Expr::Struct(structure) => self.push_entries(&structure.entries, child, scope),
            Expr::Literal(_) | Expr::Unspecified => {}
        }
        Ok(())
    }

    fn push_entries(
        &mut self,
        entries: &'a [cel::common::ast::IdedEntryExpr],
        depth: usize,
        scope: usize,
    ) {
        for entry in entries {
            match &entry.expr {
                EntryExpr::MapEntry(entry) => {
                    self.pending.push((&entry.key, depth, scope));
                    self.pending.push((&entry.value, depth, scope));
                }
                EntryExpr::StructField(field) => self.pending.push((&field.value, depth, scope)),
            }
        }
    }

    /// Bound by an enclosing comprehension.
    fn is_bound(&self, mut scope: usize, name: &str) -> bool {
        loop {
            let Some(current) = self.scopes.get(scope) else {
                return false;
            };
            if current.variables.contains(&name) {
                return true;
            }
            match current.parent {
                Some(parent) => scope = parent,
                None => return false,
            }
        }
    }

    fn is_declared(&self, scope: usize, name: &str) -> bool {
        name == SELF || name == CR || self.is_bound(scope, name)
    }

    /// A type name such as `int` or `google.protobuf.Timestamp`.
    fn is_type(&self, name: &str) -> bool {
        self.env.types().find_type(name).is_some()
    }

    /// `target` names a function namespace rather than a value, as `strings` in
    /// `strings.quote(s)`.
    fn is_namespace(&self, scope: usize, target: &IdedExpr) -> bool {
        matches!(&target.expr, Expr::Ident(name)
            if FUNCTION_NAMESPACES.contains(&name.as_str()) && !self.is_declared(scope, name))
    }

    fn undeclared(&self, expr: &IdedExpr, name: &str) -> CompileError {
        self.error(expr, &format!("undeclared reference to '{name}' (in container '')"))
    }

    fn error(&self, expr: &IdedExpr, message: &str) -> CompileError {
        let offset = self.program.source_info().offset_for(expr.id).map(|(start, _)| start);
        parse_errors::at_offset(self.rule, offset, message)
    }
}

/// For `a.b.c` (field selections on an identifier): the root `a`, its name, and the
/// whole name.
fn qualified_name(expr: &IdedExpr) -> Option<(&IdedExpr, &str, String)> {
    let mut segments = Vec::new();
    let mut current = expr;
    loop {
        match &current.expr {
            Expr::Select(select) if !select.test => {
                segments.push(select.field.as_str());
                current = &select.operand;
            }
            Expr::Ident(root) => {
                segments.push(root.as_str());
                segments.reverse();
                return Some((current, root.as_str(), segments.join(".")));
            }
            _ => return None,
        }
    }
}
