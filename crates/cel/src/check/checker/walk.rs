//! The recursive walk that types each node, following the CEL checker's rules.

use std::collections::BTreeMap;

use super::errors::{Anchor, CheckError, CheckErrorKind, CheckErrors, MAX_CHECK_ERRORS};
use super::{CheckedAst, Reference};
use crate::check::{
    CIDR_TYPE_NAME, CallStyle, Declarations, IP_TYPE_NAME, OPTIONAL_TYPE_NAME, ResolveError,
    Substitution, Type, URL_TYPE_NAME,
};
use crate::syntax::ast::{Comprehension, ListElement, MapEntry};
use crate::syntax::macros::MAP_INSERT;
use crate::syntax::{Ast, Expr, ExprKind, Literal, NodeId};

pub(super) struct Checker<'d> {
    decls: &'d Declarations,
    subst: Substitution,
    /// Comprehension variables in scope, innermost last; they shadow declarations.
    scopes: Vec<(String, Type)>,
    types: BTreeMap<NodeId, Type>,
    references: BTreeMap<NodeId, Reference>,
    errors: Vec<CheckError>,
}

impl<'d> Checker<'d> {
    pub(super) fn new(decls: &'d Declarations) -> Self {
        Checker {
            decls,
            subst: Substitution::new(),
            scopes: Vec::new(),
            types: BTreeMap::new(),
            references: BTreeMap::new(),
            errors: Vec::new(),
        }
    }

    pub(super) fn run(mut self, ast: &Ast) -> Result<CheckedAst, CheckErrors> {
        self.expr(&ast.root);
        if !self.errors.is_empty() {
            return Err(CheckErrors::new(self.errors));
        }
        // Parameters still unbound at the end (the element type of `[]`) are `dyn`.
        let subst = &self.subst;
        let types =
            self.types.into_iter().map(|(id, ty)| (id, subst.substitute(&ty, true))).collect();
        Ok(CheckedAst {
            types,
            references: self.references,
            root: ast.root.id,
            root_span: ast.root.span,
            root_anchor: anchor(&ast.root),
        })
    }

    /// Records an error about node `e`; the node's type becomes `*error*`, which agrees
    /// with everything so one mistake is reported once.
    fn error(&mut self, kind: CheckErrorKind, e: &Expr) -> Type {
        if self.errors.len() < MAX_CHECK_ERRORS {
            self.errors.push(CheckError { kind, span: e.span, anchor: anchor(e) });
        }
        Type::Error
    }

    /// Types `e`, records the type and returns it with known bindings applied.
    fn expr(&mut self, e: &Expr) -> Type {
        crate::stack::guarded(|| self.expr_unguarded(e))
    }

    fn expr_unguarded(&mut self, e: &Expr) -> Type {
        let ty = match &e.kind {
            ExprKind::Literal(lit) => literal(lit),
            ExprKind::Ident(name) => self.ident(e, name),
            ExprKind::Select { operand, field, test_only, optional } => {
                self.select(e, operand, field, *test_only, *optional)
            }
            ExprKind::Call { target, function, args } => {
                self.call(e, target.as_deref(), function, args)
            }
            ExprKind::Index { operand, index, optional } => {
                let function = if *optional { "_[?_]" } else { "_[_]" };
                let args = [self.expr(operand), self.expr(index)];
                self.resolve(e, function, CallStyle::Global, &args)
            }
            ExprKind::Conditional { condition, then, otherwise } => {
                let args = [self.expr(condition), self.expr(then), self.expr(otherwise)];
                self.resolve(e, "_?_:_", CallStyle::Global, &args)
            }
            ExprKind::List(elements) => self.list(elements),
            ExprKind::Map(entries) => self.map(entries),
            ExprKind::Struct { type_name, fields } => {
                // No message types are declared in certgate's environments.
                for field in fields {
                    self.expr(&field.value);
                }
                let name = type_name.trim_start_matches('.').to_owned();
                self.error(CheckErrorKind::UndeclaredReference { name }, e)
            }
            ExprKind::Comprehension(c) => self.comprehension(c),
        };
        let ty = self.subst.substitute(&ty, false);
        self.types.insert(e.id, ty.clone());
        ty
    }

    /// The type of variable `name`: comprehension variables shadow declared ones, except
    /// for a leading-dot name (`.x`), which always names the declared `x`.
    fn lookup(&self, name: &str) -> Option<Type> {
        let (name, scoped) = match name.strip_prefix('.') {
            Some(root) => (root, false),
            None => (name, true),
        };
        if scoped && let Some((_, ty)) = self.scopes.iter().rev().find(|(n, _)| n == name) {
            return Some(ty.clone());
        }
        self.decls.variable(name).map(|v| v.ty.clone()).or_else(|| self.type_name(name))
    }

    /// Type names usable as values that the declaration tables do not list: `type`
    /// itself, `optional_type`, and the opaque types of the libraries declared.
    fn type_name(&self, name: &str) -> Option<Type> {
        let opaque = |library_function: &str, ty: &str| {
            self.decls.function(library_function).map(|_| Type::opaque(ty, Vec::new()))
        };
        let ty = match name {
            "type" => Type::type_of(Type::Dyn),
            OPTIONAL_TYPE_NAME => {
                self.decls.function("optional.of").map(|_| Type::optional(Type::Dyn))?
            }
            IP_TYPE_NAME => opaque("ip", IP_TYPE_NAME)?,
            CIDR_TYPE_NAME => opaque("cidr", CIDR_TYPE_NAME)?,
            URL_TYPE_NAME => opaque("url", URL_TYPE_NAME)?,
            _ => return None,
        };
        Some(Type::type_of(ty))
    }

    fn ident(&mut self, e: &Expr, name: &str) -> Type {
        match self.lookup(name) {
            Some(ty) => {
                self.references.insert(e.id, Reference::Variable(name.to_owned()));
                ty
            }
            None => {
                let name = name.trim_start_matches('.').to_owned();
                self.error(CheckErrorKind::UndeclaredReference { name }, e)
            }
        }
    }

    fn select(
        &mut self,
        e: &Expr,
        operand: &Expr,
        field: &str,
        test_only: bool,
        optional: bool,
    ) -> Type {
        // `a.b.c` may name a declared variable with a dot-qualified name.
        if !test_only
            && !optional
            && let Some(name) = qualified_name(e)
            && let Some(ty) = self.lookup(&name)
        {
            self.references.insert(e.id, Reference::Variable(name));
            return ty;
        }
        let mut operand_ty = self.expr(operand);
        // Selecting on an optional value (`x.?a.b`) chains: the field of the value, if
        // any, as an optional.
        let mut wrap = optional;
        if let Type::Opaque { name, params } = &operand_ty
            && name == OPTIONAL_TYPE_NAME
        {
            operand_ty = params.first().cloned().unwrap_or(Type::Dyn);
            wrap = true;
        }
        let field_ty = match operand_ty {
            Type::Map(_, value) => *value,
            Type::Dyn | Type::Error | Type::Param(_) => Type::Dyn,
            Type::Object(name) if self.decls.object_type(&name).is_some() => {
                match self.decls.object_type(&name).and_then(|o| o.field(field)) {
                    Some(ty) => ty.clone(),
                    None => {
                        let field = field.to_owned();
                        return self.error(CheckErrorKind::UndefinedField { field }, e);
                    }
                }
            }
            other => {
                return self.error(CheckErrorKind::NoFieldSelection { ty: other }, e);
            }
        };
        if test_only {
            Type::Bool
        } else if wrap {
            Type::optional(field_ty)
        } else {
            field_ty
        }
    }

    fn call(&mut self, e: &Expr, target: Option<&Expr>, function: &str, args: &[Expr]) -> Type {
        if let Some(target) = target {
            // `strings.quote(x)`: a namespaced global function, unless the prefix is a
            // variable (then it is a receiver call on that variable).
            if let Some(prefix) = qualified_name(target) {
                let full = format!("{prefix}.{function}");
                if self.lookup(&prefix).is_none() && self.decls.function(&full).is_some() {
                    let arg_types: Vec<Type> = args.iter().map(|a| self.expr(a)).collect();
                    return self.resolve(e, &full, CallStyle::Global, &arg_types);
                }
            }
            let mut arg_types = vec![self.expr(target)];
            arg_types.extend(args.iter().map(|a| self.expr(a)));
            return self.resolve(e, function, CallStyle::Receiver, &arg_types);
        }
        let arg_types: Vec<Type> = args.iter().map(|a| self.expr(a)).collect();
        if function == MAP_INSERT {
            return self.map_insert(e, &arg_types);
        }
        self.resolve(e, function.trim_start_matches('.'), CallStyle::Global, &arg_types)
    }

    fn resolve(&mut self, e: &Expr, function: &str, style: CallStyle, args: &[Type]) -> Type {
        match self.decls.resolve(function, style, args, &mut self.subst) {
            Ok(resolution) => {
                self.references.insert(
                    e.id,
                    Reference::Call {
                        function: function.to_owned(),
                        overload_ids: resolution.overload_ids,
                    },
                );
                resolution.result
            }
            Err(err) => self.error(err.into(), e),
        }
    }

    /// The internal step of `transformMap` (`map, key, value`) and `transformMapEntry`
    /// (`map, entry map`): the accumulated map with the entry added. Not declared in
    /// any library because source text cannot call it.
    fn map_insert(&mut self, e: &Expr, args: &[Type]) -> Type {
        let (key, value) = (self.subst.fresh_param(), self.subst.fresh_param());
        let map = Type::map(key.clone(), value.clone());
        let (params, overload) = match args.len() {
            3 => (vec![map.clone(), key, value], "map_insert_key_value"),
            _ => (vec![map.clone(), map.clone()], "map_insert_map"),
        };
        if !self.subst.is_assignable_all(args, &params) {
            let name = MAP_INSERT.to_owned();
            let signature = format!(
                "({})",
                args.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
            );
            return self.error(ResolveError::NoMatchingOverload { name, signature }.into(), e);
        }
        self.references.insert(
            e.id,
            Reference::Call {
                function: MAP_INSERT.to_owned(),
                overload_ids: vec![overload.to_owned()],
            },
        );
        map
    }

    fn list(&mut self, elements: &[ListElement]) -> Type {
        let mut elem: Option<Type> = None;
        for element in elements {
            let mut ty = self.expr(&element.value);
            if element.optional {
                ty = self.unwrap_optional(&element.value, ty);
            }
            elem = Some(match elem {
                None => ty,
                Some(previous) => self.subst.join(&previous, &ty),
            });
        }
        Type::list(elem.unwrap_or_else(|| self.subst.fresh_param()))
    }

    fn map(&mut self, entries: &[MapEntry]) -> Type {
        let mut joined: Option<(Type, Type)> = None;
        for entry in entries {
            let key = self.expr(&entry.key);
            let mut value = self.expr(&entry.value);
            if entry.optional {
                value = self.unwrap_optional(&entry.value, value);
            }
            joined = Some(match joined {
                None => (key, value),
                Some((k, v)) => (self.subst.join(&k, &key), self.subst.join(&v, &value)),
            });
        }
        let (key, value) =
            joined.unwrap_or_else(|| (self.subst.fresh_param(), self.subst.fresh_param()));
        Type::map(key, value)
    }

    /// The value type of an optional `[?x]` element or `{?k: x}` entry.
    fn unwrap_optional(&mut self, e: &Expr, ty: Type) -> Type {
        let inner = self.subst.fresh_param();
        let wanted = Type::optional(inner.clone());
        if self.subst.is_assignable(&wanted, &ty) {
            self.subst.substitute(&inner, false)
        } else {
            self.error(CheckErrorKind::Mismatch { expected: wanted, found: ty }, e)
        }
    }

    fn comprehension(&mut self, c: &Comprehension) -> Type {
        let range = self.expr(&c.iter_range);
        let two = c.iter_var2.is_some();
        // One variable: a list yields elements, a map keys. Two: index and element, or
        // key and value.
        let (first, second) = match range {
            Type::List(elem) if two => (Type::Int, *elem),
            Type::List(elem) => (*elem, Type::Dyn),
            Type::Map(key, value) => (*key, *value),
            Type::Dyn | Type::Error | Type::Param(_) => (Type::Dyn, Type::Dyn),
            other => {
                self.error(CheckErrorKind::NotIterable { ty: other }, &c.iter_range);
                (Type::Error, Type::Error)
            }
        };
        let mut iter_vars = vec![(c.iter_var.clone(), first)];
        if let Some(var2) = &c.iter_var2 {
            iter_vars.push((var2.clone(), second));
        }
        let accu = self.expr(&c.accu_init);
        let outer = self.scopes.len();
        self.scopes.push((c.accu_var.clone(), accu.clone()));
        self.scopes.extend(iter_vars);
        self.expr(&c.loop_condition);
        let step = self.expr(&c.loop_step);
        if !self.subst.is_assignable(&accu, &step) {
            let expected = self.subst.substitute(&accu, false);
            self.error(CheckErrorKind::Mismatch { expected, found: step }, &c.loop_step);
        }
        // The result sees the accumulator but not the iteration variables.
        self.scopes.truncate(outer + 1);
        let result = self.expr(&c.result);
        self.scopes.truncate(outer);
        result
    }
}

fn literal(lit: &Literal) -> Type {
    match lit {
        Literal::Null => Type::Null,
        Literal::Bool(_) => Type::Bool,
        Literal::Int(_) => Type::Int,
        Literal::Uint(_) => Type::Uint,
        Literal::Double(_) => Type::Double,
        Literal::String(_) => Type::String,
        Literal::Bytes(_) => Type::Bytes,
    }
}

/// `a.b.c` for a chain of plain selects ending in an identifier.
pub(crate) fn qualified_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(name) => Some(name.clone()),
        ExprKind::Select { operand, field, test_only: false, optional: false } => {
            qualified_name(operand).map(|prefix| format!("{prefix}.{field}"))
        }
        _ => None,
    }
}

/// Where cel-go would place node `e` in error messages (see [`Anchor`]).
fn anchor(e: &Expr) -> Anchor {
    match &e.kind {
        ExprKind::Call { target: Some(target), .. } => {
            Anchor::Char { after: target.span.end, ch: '(' }
        }
        ExprKind::Call { target: None, function, args } => match args.as_slice() {
            [lhs, _] if function.starts_with('_') || function == "@in" => {
                Anchor::Operator { after: lhs.span.end }
            }
            _ if function.ends_with('_') => Anchor::Start,
            _ => Anchor::Char { after: e.span.start, ch: '(' },
        },
        ExprKind::Select { operand, .. } => Anchor::Char { after: operand.span.end, ch: '.' },
        ExprKind::Index { operand, .. } => Anchor::Char { after: operand.span.end, ch: '[' },
        ExprKind::Conditional { condition, .. } => {
            Anchor::Char { after: condition.span.end, ch: '?' }
        }
        _ => Anchor::Start,
    }
}
