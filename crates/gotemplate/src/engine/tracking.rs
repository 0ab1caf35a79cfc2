//! Sites for the failures gotmpl reports without a call: field access and `range`.
//!
//! Go reports these at the node it evaluated last (`s.at(node)`): the field or variable
//! whose chain failed, and for `range` the last node its pipeline evaluated. gotmpl reports
//! neither. Two rewrites give them sites, like the function calls in `sites`:
//! - a field chain `.a.b` (or `$x.a.b`) becomes `(certgate#field#<site> .).a.b`: the marker
//!   hands dot back unchanged and records its site, so when gotmpl's walk of `.a.b` fails
//!   right after it, the last recorded site is the chain Go names ([`last_field`]);
//! - a `range` pipeline gets a last command `certgate#range#<site>` that refuses, with Go's
//!   text, the values Go cannot range over, and hands the others back.
//!
//! `#` cannot appear in an identifier of template source, so no template can name these.

use std::cell::Cell;
use std::sync::Arc;

use gotmpl::parse::{CommandNode, Expr, PipeNode, Pos, SmolStr};

use crate::{FuncError, Value, print};

/// The field marker's function name.
pub(crate) const FIELD: &str = "certgate#field";
/// The range check's function name for a `range` declaring at most one variable.
pub(crate) const RANGE: &str = "certgate#range";
/// The range check's function name for a `range` declaring two variables.
pub(crate) const RANGE_PAIR: &str = "certgate#rangepair";

thread_local! {
    static LAST_FIELD: Cell<Option<usize>> = const { Cell::new(None) };
    /// Go's name of the type of the last chain's receiver (dot or the variable).
    static LAST_RECEIVER: Cell<&'static str> = const { Cell::new("") };
}

/// Clears the last field site for one execution and restores the outer one after it (a
/// function may execute another template).
pub(crate) struct FieldScope(Option<usize>, &'static str);

pub(crate) fn enter() -> FieldScope {
    FieldScope(LAST_FIELD.with(|c| c.replace(None)), LAST_RECEIVER.with(|c| c.replace("")))
}

impl Drop for FieldScope {
    fn drop(&mut self) {
        LAST_FIELD.with(|c| c.set(self.0));
        LAST_RECEIVER.with(|c| c.set(self.1));
    }
}

/// The site of the field chain evaluated last in this execution.
pub(crate) fn last_field() -> Option<usize> {
    LAST_FIELD.with(Cell::get)
}

/// Go's name of the type of the receiver of the field chain evaluated last.
pub(crate) fn last_receiver() -> &'static str {
    LAST_RECEIVER.with(Cell::get)
}

/// The marker registered for field site `id`, whose chain is written `chain` (`.a.b`,
/// `$x.a.b`). Before gotmpl walks the chain it refuses, with Go's text, a step through a
/// null stored in a map: Go's map lookup yields a nil `interface {}` there, and a field of
/// that is an error, where gotmpl (like Go for a missing key) yields no value.
pub(crate) fn field_marker(
    id: usize,
    chain: &str,
    encode: impl Fn(&FuncError) -> String + Send + Sync + 'static,
) -> gotmpl::ValueFunc {
    let fields: Vec<Arc<str>> = chain.split('.').skip(1).map(Arc::from).collect();
    Arc::new(move |args: &[Value]| {
        let receiver = args.first().cloned().unwrap_or(Value::Nil);
        LAST_FIELD.with(|c| c.set(Some(id)));
        LAST_RECEIVER.with(|c| c.set(crate::type_name(&receiver)));
        if let Some(message) = nil_step(&receiver, &fields) {
            return Err(gotmpl::TemplateError::Exec(encode(&FuncError::arguments(message))));
        }
        Ok(receiver)
    })
}

/// Go's failure of the chain `fields` on `receiver` at a null stored in a map, if any.
fn nil_step(receiver: &Value, fields: &[Arc<str>]) -> Option<String> {
    let mut value = receiver;
    for (field, next) in fields.iter().zip(fields.iter().skip(1)) {
        let Value::Map(map) = value else { return None };
        match map.get(field)? {
            Value::Nil => return Some(format!("nil pointer evaluating interface {{}}.{next}")),
            present => value = present,
        }
    }
    None
}

/// `expr` with its fields walked on the marker's result, or `None` when it has no fields.
pub(crate) fn mark_fields(expr: &Expr, alias: SmolStr) -> Option<Expr> {
    let (pos, receiver, fields) = match expr {
        Expr::Field(pos, fields) if !fields.is_empty() => (*pos, Expr::Dot(*pos), fields),
        Expr::Variable(pos, name, fields) if !fields.is_empty() => {
            (*pos, Expr::Variable(*pos, name.clone(), Vec::new()), fields)
        }
        _ => return None,
    };
    let marker = CommandNode { pos, args: vec![Expr::Identifier(pos, alias), receiver] };
    let pipe = PipeNode { pos, decl: Vec::new(), commands: vec![marker], is_assign: false };
    Some(Expr::Chain(pos, Box::new(Expr::Pipe(pos, pipe)), fields.clone()))
}

/// Go's words for gotmpl's failure of the field chain written `chain` (`.a.b`, `$x.a`):
/// gotmpl names a list `list`, and Go names the static type of the receiver, which past the
/// chain's first field is a map's element type, `interface {}`. `receiver` is Go's name of
/// the chain's receiver when known (gotmpl names a byte `uint`).
pub(crate) fn field_message(message: &str, chain: &str, receiver: &str) -> Option<String> {
    let rest = message.strip_prefix("can't evaluate field ")?;
    let (field, type_name) = rest.split_once(" in type ")?;
    let first = chain.split('.').nth(1);
    let type_name = match type_name {
        _ if first.is_some_and(|first| first != field) => "interface {}",
        _ if !receiver.is_empty() => receiver,
        "list" => "[]interface {}",
        "map" => "map[string]interface {}",
        other => other,
    };
    Some(format!("can't evaluate field {field} in type {type_name}"))
}

/// The range check registered for range site `id`.
pub(crate) fn range_check(
    pair: bool,
    encode: impl Fn(&FuncError) -> String + Send + Sync + 'static,
) -> gotmpl::ValueFunc {
    Arc::new(move |args: &[Value]| {
        let value = args.last().cloned().unwrap_or(Value::Nil);
        match range_error(&value, pair) {
            Some(message) => {
                Err(gotmpl::TemplateError::Exec(encode(&FuncError::arguments(message))))
            }
            None => Ok(value),
        }
    })
}

/// Go's refusal to range over `value` (`pair`: two variables declared).
fn range_error(value: &Value, pair: bool) -> Option<String> {
    let text = || print::sprint(std::slice::from_ref(value));
    match value {
        Value::Int(_) | Value::Uint(_) if pair => {
            Some(format!("can't use {} to iterate over more than one variable", text()))
        }
        Value::Float(_) | Value::Bool(_) | Value::String(_) => {
            Some(format!("range can't iterate over {}", text()))
        }
        _ => None,
    }
}

/// The node Go evaluates last in `pipe` (its `s.at` when the pipeline's value is refused).
/// Go's `and`/`or` may stop early; the last argument is assumed.
pub(crate) fn last_node(pipe: &PipeNode) -> Option<&Expr> {
    let cmd = pipe.commands.last()?;
    let first = cmd.args.first()?;
    Some(match first {
        Expr::Identifier(..) => match cmd.args.last() {
            Some(last) if cmd.args.len() > 1 => last_of(last)?,
            _ => first,
        },
        Expr::Pipe(_, inner) => last_node(inner)?,
        Expr::Chain(_, inner, _) => last_of(inner)?,
        _ => first,
    })
}

pub(crate) fn last_of(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::Pipe(_, inner) => last_node(inner),
        Expr::Chain(_, inner, _) => last_of(inner),
        other => Some(other),
    }
}

/// The range check command appended to a `range` pipeline.
pub(crate) fn range_command(pos: Pos, alias: SmolStr) -> CommandNode {
    CommandNode { pos, args: vec![Expr::Identifier(pos, alias)] }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_refusals_are_gos() {
        let s = |t: &str| Value::String(Arc::from(t));
        assert_eq!(
            range_error(&Value::Float(1e3), false).as_deref(),
            Some("range can't iterate over 1000")
        );
        assert_eq!(range_error(&s(""), false).as_deref(), Some("range can't iterate over "));
        assert_eq!(
            range_error(&Value::Bool(true), true).as_deref(),
            Some("range can't iterate over true")
        );
        assert_eq!(
            range_error(&Value::Int(1), true).as_deref(),
            Some("can't use 1 to iterate over more than one variable")
        );
        assert_eq!(range_error(&Value::Int(3), false), None);
        assert_eq!(range_error(&Value::Nil, true), None);
    }

    #[test]
    fn field_messages_use_gos_type_names() {
        assert_eq!(
            field_message("can't evaluate field f in type list", ".f", "").as_deref(),
            Some("can't evaluate field f in type []interface {}")
        );
        assert_eq!(
            field_message("can't evaluate field z in type string", "$x.z", "").as_deref(),
            Some("can't evaluate field z in type string")
        );
        // Past the first field the receiver came out of a map.
        assert_eq!(
            field_message("can't evaluate field y in type int", ".d.y.z", "int").as_deref(),
            Some("can't evaluate field y in type interface {}")
        );
        assert_eq!(field_message("boom", ".a", ""), None);
        // A byte (`index` of a string) is a `uint` to gotmpl.
        assert_eq!(
            field_message("can't evaluate field n in type uint", ".n", "uint8").as_deref(),
            Some("can't evaluate field n in type uint8")
        );
    }
}
