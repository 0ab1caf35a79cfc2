//! The `bool` result requirement: `got <T>, wanted bool result type`.
//!
//! cel-go rejects a rule whose checked output type is not `bool` when compiling it.
//! Without a type checker, [`static_type`] infers the type of the forms whose type is
//! certain (literals, the variables, well-typed function results) so that those are
//! still compile errors; for anything else the result is checked when evaluating,
//! and [`runtime_type`] names the type of the value the rule produced.

use crate::request::{self, CR, FIELDS, SELF};
use crate::service_account;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelList, CelMap};
use cel::common::value::Val;

/// The error text for a rule whose result has type `got`.
pub(crate) fn not_bool(got: &str) -> String {
    format!("got {got}, wanted bool result type")
}

/// The type of `expr` when it is certain without a type checker, in cel-go's
/// spelling (`string`, `list(string)`, ...). Comprehensions are not inferred, so
/// `self` and `cr` always mean the variables here.
pub(crate) fn static_type(expr: &IdedExpr) -> Option<String> {
    match &expr.expr {
        Expr::Literal(literal) => Some(literal_type(literal).to_owned()),
        Expr::Ident(name) if name == SELF => Some("string".to_owned()),
        Expr::Ident(name) if name == CR => Some(request::TYPE_NAME.to_owned()),
        Expr::Select(select) if select.test => Some("bool".to_owned()),
        Expr::Select(select) => match &select.operand.expr {
            Expr::Ident(name) if name == CR => FIELDS
                .iter()
                .find(|(field, _)| *field == select.field)
                .map(|(_, t)| (*t).to_owned()),
            _ => None,
        },
        Expr::List(list) => {
            uniform(list.elements.iter().map(static_type)).map(|t| format!("list({t})"))
        }
        Expr::Map(map) => {
            let entries = map.entries.iter().map(|entry| match &entry.expr {
                EntryExpr::MapEntry(entry) => Some((&entry.key, &entry.value)),
                EntryExpr::StructField(_) => None,
            });
            let entries: Option<Vec<_>> = entries.collect();
            let entries = entries?;
            let key = uniform(entries.iter().map(|(k, _)| static_type(k)))?;
            let value = uniform(entries.iter().map(|(_, v)| static_type(v)))?;
            Some(format!("map({key}, {value})"))
        }
        Expr::Call(call) => {
            let target = call.target.as_deref().map(static_type);
            let args: Vec<Option<String>> = call.args.iter().map(static_type).collect();
            call_type(&call.func_name, target, &args)
        }
        _ => None,
    }
}

fn literal_type(literal: &LiteralValue) -> &'static str {
    match literal {
        LiteralValue::Boolean(_) => "bool",
        LiteralValue::Bytes(_) => "bytes",
        LiteralValue::Double(_) => "double",
        LiteralValue::Int(_) => "int",
        LiteralValue::Null => "null_type",
        LiteralValue::String(_) => "string",
        LiteralValue::UInt(_) => "uint",
    }
}

/// The one type all of `types` have; `None` if any is unknown, they differ, or
/// there are none (cel-go's type for `[]` is a type parameter).
fn uniform(mut types: impl Iterator<Item = Option<String>>) -> Option<String> {
    let first = types.next()??;
    types.try_fold(first, |first, t| (t? == first).then_some(first))
}

/// The result type of a call whose overloads all return the same type, when its
/// arguments' known types are ones those overloads accept.
fn call_type(
    function: &str,
    target: Option<Option<String>>,
    args: &[Option<String>],
) -> Option<String> {
    let arg = |i: usize| args.get(i).cloned().flatten();
    // `None` (unknown) is accepted: the call may still succeed at runtime.
    let accepts =
        |t: &Option<String>, allowed: &[&str]| t.as_deref().is_none_or(|t| allowed.contains(&t));
    let same_operands = |allowed: &[&str]| {
        let (left, right) = (arg(0)?, arg(1)?);
        (left == right && allowed.contains(&left.as_str())).then_some(left)
    };
    let member = target.is_some();
    let receiver = target.flatten();
    let string_member = |result: &str| accepts(&receiver, &["string"]).then(|| result.to_owned());
    match (function, member, args.len()) {
        ("size", false, 1) => sized(&arg(0)),
        ("size", true, 0) => sized(&receiver),
        ("_+_", false, 2) => same_operands(&["int", "uint", "double", "string", "bytes"])
            .or_else(|| arg(0).filter(|t| t.starts_with("list(") && arg(1).as_ref() == Some(t))),
        ("_-_" | "_*_" | "_/_", false, 2) => same_operands(&["int", "uint", "double"]),
        ("_%_", false, 2) => same_operands(&["int", "uint"]),
        ("-_", false, 1) => arg(0).filter(|t| t == "int" || t == "double"),
        ("_?_:_", false, 3) => arg(1).filter(|t| arg(2).as_ref() == Some(t)),
        ("int" | "uint" | "double", false, 1) => {
            accepts(&arg(0), &["int", "uint", "double", "string"]).then(|| function.to_owned())
        }
        ("string", false, 1) => {
            accepts(&arg(0), &["int", "uint", "double", "string", "bytes", "bool"])
                .then(|| "string".to_owned())
        }
        ("bytes", false, 1) => accepts(&arg(0), &["string", "bytes"]).then(|| "bytes".to_owned()),
        ("dyn", false, 1) => Some("dyn".to_owned()),
        (
            "lowerAscii" | "upperAscii" | "trim" | "reverse" | "replace" | "substring" | "charAt"
            | "format",
            true,
            _,
        ) => string_member("string"),
        ("indexOf" | "lastIndexOf", true, _) => string_member("int"),
        ("split", true, _) => string_member("list(string)"),
        ("join", true, _) => accepts(&receiver, &["list(string)"]).then(|| "string".to_owned()),
        ("serviceAccount", false, 1) => {
            accepts(&arg(0), &["string"]).then(|| service_account::TYPE_NAME.to_owned())
        }
        ("getName" | "getNamespace", true, 0) => {
            accepts(&receiver, &[service_account::TYPE_NAME]).then(|| "string".to_owned())
        }
        _ => None,
    }
}

/// `size` of a string, bytes, list or map is an `int`.
fn sized(t: &Option<String>) -> Option<String> {
    let sized = t.as_deref().is_none_or(|t| {
        t == "string" || t == "bytes" || t.starts_with("list(") || t.starts_with("map(")
    });
    sized.then(|| "int".to_owned())
}

/// The type of a value a rule produced, in cel-go's spelling where it can be told
/// from the value: a list or map is named by its elements' common type, or `dyn`.
pub(crate) fn runtime_type(value: &dyn Val) -> String {
    if let Some(list) = value.downcast_ref::<CelList>() {
        let element = common_name(list.inner().iter().map(|v| v.get_type().name()));
        return format!("list({element})");
    }
    if let Some(map) = value.downcast_ref::<CelMap>() {
        let key = common_name(map.inner().keys().map(|k| k.inner().get_type().name()));
        let value = common_name(map.inner().values().map(|v| v.get_type().name()));
        return format!("map({key}, {value})");
    }
    value.get_type().name().to_owned()
}

fn common_name<'a>(mut names: impl Iterator<Item = &'a str>) -> &'a str {
    let Some(first) = names.next() else {
        return "dyn";
    };
    if names.all(|name| name == first) { first } else { "dyn" }
}
