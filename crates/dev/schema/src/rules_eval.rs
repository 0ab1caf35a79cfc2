//! Running the `x-kubernetes-validations` of a normalized object, as the API server does
//! after the schema's own checks: each node's rules with `self` bound to the value there
//! (typed by the node: a `number` is always a double), transition rules only where the
//! old object has a value at the same path (object properties and map values correlate,
//! so do items of `map` lists by key; other lists' items do not). Nodes are visited in schema order: a node's rules, then its
//! properties by name, map values by key, list items by index.
//!
//! Cost is bounded per evaluation by certgate-cel's Kubernetes per-call limit and per
//! request by [`REQUEST_COST_BUDGET`] (kube-apiserver's `RuntimeCELCostBudget`).

use std::collections::HashMap;
use std::sync::Arc;

use certgate_api::field::{BadValue, ErrorType, FieldError, Path};
use certgate_cel::eval::{DEFAULT_COST_LIMIT, Program};
use certgate_cel::value::{MapValue, Value as Cel};
use serde_json::Value;

use crate::node::{ListType, Node, Type, is_type_meta_or_metadata};
use crate::rules::{Rule, RuleEnvironment, environment};

/// The total CEL cost one request may spend on rules.
pub const REQUEST_COST_BUDGET: u64 = 10_000_000;

struct Run<'a> {
    env: &'a RuleEnvironment,
    budget: u64,
    errors: Vec<FieldError>,
    exhausted: bool,
}

/// The rules' errors for `object` (the new state) against `old` (the stored one, on updates).
pub(crate) fn root(node: &Node, object: &Value, old: Option<&Value>) -> Vec<FieldError> {
    let Some(env) = environment() else { return Vec::new() };
    let mut run = Run { env, budget: REQUEST_COST_BUDGET, errors: Vec::new(), exhausted: false };
    walk(&mut run, node, object, old, None, true);
    run.errors
}

fn walk(
    run: &mut Run<'_>,
    node: &Node,
    value: &Value,
    old: Option<&Value>,
    path: Option<&Path>,
    is_root: bool,
) {
    if run.exhausted || value.is_null() {
        return;
    }
    if !node.rules.is_empty() {
        let at = path.cloned().unwrap_or_else(|| Path::new("<nil>"));
        let self_value = to_cel(node, value);
        let old_value = old.map(|old| to_cel(node, old));
        for rule in &node.rules {
            evaluate(run, rule, node, value, &self_value, old_value.as_ref(), &at);
            if run.exhausted {
                return;
            }
        }
    }
    let child = |key: &str| match path {
        None => Path::new(key),
        Some(path) => path.child(key),
    };
    match value {
        Value::Object(map) => {
            for (name, property) in &node.properties {
                if (is_root || node.embedded) && is_type_meta_or_metadata(name) {
                    continue;
                }
                let Some(v) = map.get(name) else { continue };
                let old = old.and_then(|o| o.get(name));
                walk(run, property, v, old, Some(&child(name)), false);
            }
            if let crate::node::Additional::Schema(values) = &node.additional {
                for (key, v) in map.iter().filter(|(k, _)| !node.properties.contains_key(*k)) {
                    let at = match path {
                        None => Path::new(key),
                        Some(path) => path.key(key),
                    };
                    walk(run, values, v, old.and_then(|o| o.get(key)), Some(&at), false);
                }
            }
        }
        Value::Array(items) => {
            let (Some(item), Some(path)) = (&node.items, path) else { return };
            let olds = correlation(&node.list, old.and_then(Value::as_array));
            for (index, v) in items.iter().enumerate() {
                let old = olds.as_ref().and_then(|olds| olds.get(&identity(&node.list, v)));
                walk(run, item, v, old.copied(), Some(&path.index(index)), false);
            }
        }
        _ => {}
    }
}

/// The old items of a `map` list by key, which transition rules of the new items correlate
/// with, as upstream; `None` for other lists, whose items have no old value (the API server
/// refuses a CRD with transition rules below them).
fn correlation<'a>(
    list: &ListType,
    old: Option<&'a Vec<Value>>,
) -> Option<HashMap<String, &'a Value>> {
    let ListType::Map(_) = list else { return None };
    Some(old.into_iter().flatten().map(|item| (identity(list, item), item)).collect())
}

fn identity(list: &ListType, item: &Value) -> String {
    match list {
        ListType::Map(keys) => crate::listtype::key_of(item, keys).to_string(),
        ListType::Set | ListType::Atomic => String::new(),
    }
}

fn evaluate(
    run: &mut Run<'_>,
    rule: &Rule,
    node: &Node,
    value: &Value,
    self_value: &Cel,
    old_value: Option<&Cel>,
    at: &Path,
) {
    if rule.transition && old_value.is_none() && !rule.optional_old_self {
        return;
    }
    let optional;
    let old_value = if rule.optional_old_self {
        optional = Cel::Optional(old_value.map(|old| Box::new(old.clone())));
        Some(&optional)
    } else {
        old_value
    };
    let variables = bind(run.env, self_value, old_value);
    let passed = match spend(run, &rule.program, &variables) {
        Ok(Cel::Bool(passed)) => passed,
        Ok(other) => {
            run.errors.push(FieldError::invalid(
                at.clone(),
                bad_value(node, value).unwrap_or(BadValue::Null),
                format!(
                    "rule result is {}, not a bool, evaluating rule: {}",
                    other.type_of(),
                    rule.source
                ),
            ));
            return;
        }
        Err(message) => {
            let mut error = FieldError::invalid(
                at.clone(),
                BadValue::Null,
                format!("{message} evaluating rule: {}", rule.source),
            );
            error.value = bad_value(node, value);
            run.errors.push(error);
            return;
        }
    };
    if passed {
        return;
    }
    let message = rule
        .message_expression
        .as_ref()
        .and_then(|expression| match spend(run, expression, &variables) {
            Ok(Cel::String(text)) if !text.trim().is_empty() && !text.contains('\n') => {
                Some(text.to_string())
            }
            _ => None,
        })
        .or_else(|| rule.message.clone())
        .unwrap_or_else(|| format!("failed rule: {}", rule.source));
    let path = match &rule.field_path {
        Some(relative) => join(at, relative),
        None => at.clone(),
    };
    run.errors.push(FieldError {
        kind: rule.reason,
        path,
        value: if rule.reason == ErrorType::Invalid { bad_value(node, value) } else { None },
        detail: message,
    });
}

/// Runs `program` within the remaining request budget and the per-call limit.
fn spend(run: &mut Run<'_>, program: &Arc<Program>, variables: &[Cel]) -> Result<Cel, String> {
    let limit = run.budget.min(DEFAULT_COST_LIMIT);
    match program.eval_with_limit(variables, limit) {
        Ok(evaluated) => {
            run.budget = run.budget.saturating_sub(evaluated.cost);
            Ok(evaluated.value)
        }
        Err(err) => {
            if run.budget < DEFAULT_COST_LIMIT
                && err.message == certgate_cel::eval::COST_LIMIT_EXCEEDED
            {
                run.exhausted = true;
            }
            Err(err.message)
        }
    }
}

fn bind(env: &RuleEnvironment, self_value: &Cel, old_value: Option<&Cel>) -> Vec<Cel> {
    let mut variables = vec![Cel::Null; env.env.slots().len()];
    if let Some(slot) = variables.get_mut(env.self_slot) {
        *slot = self_value.clone();
    }
    if let (Some(slot), Some(old)) = (variables.get_mut(env.old_self_slot), old_value) {
        *slot = old.clone();
    }
    variables
}

/// The value shown in an Invalid error: scalars as Go prints them; objects and lists are
/// not shown (kube-apiserver 1.37 omits them).
fn bad_value(node: &Node, value: &Value) -> Option<BadValue> {
    match value {
        Value::String(s) => Some(BadValue::Str(s.clone())),
        Value::Bool(b) => Some(BadValue::Bool(*b)),
        Value::Number(n) => match (node.ty, n.as_i64()) {
            (Some(Type::Integer), Some(i)) => Some(BadValue::Int(i)),
            _ => Some(BadValue::Json(value.clone())),
        },
        Value::Null => Some(BadValue::Json(Value::Null)),
        Value::Object(_) | Value::Array(_) => None,
    }
}

/// `fieldPath` (`.a.b`, `.a['k']`, `.list[0]`) appended to the node's path.
fn join(at: &Path, relative: &str) -> Path {
    let mut path = at.clone();
    let mut rest = relative;
    while !rest.is_empty() {
        if let Some(tail) = rest.strip_prefix('.') {
            let end = tail.find(['.', '[']).unwrap_or(tail.len());
            path = path.child(&tail[..end]);
            rest = &tail[end..];
        } else if let Some(tail) = rest.strip_prefix("['") {
            let end = tail.find("']").unwrap_or(tail.len());
            path = path.child(&tail[..end]);
            rest = tail.get(end + 2..).unwrap_or_default();
        } else if let Some(tail) = rest.strip_prefix('[') {
            let end = tail.find(']').unwrap_or(tail.len());
            path = match tail[..end].parse::<usize>() {
                Ok(index) => path.index(index),
                Err(_) => path.key(&tail[..end]),
            };
            rest = tail.get(end + 1..).unwrap_or_default();
        } else {
            path = path.child(rest);
            break;
        }
    }
    path
}

/// The JSON value as CEL sees it, typed by its schema where the schema says more than
/// JSON does (a `number` is a double even when written without a fraction).
fn to_cel(node: &Node, value: &Value) -> Cel {
    match value {
        Value::Null => Cel::Null,
        Value::Bool(b) => Cel::Bool(*b),
        Value::Number(n) => match (node.ty, n.as_i64(), n.as_u64()) {
            (Some(Type::Number), _, _) => Cel::Double(n.as_f64().unwrap_or(f64::NAN)),
            (_, Some(i), _) => Cel::Int(i),
            (_, None, Some(u)) => Cel::Uint(u),
            _ => Cel::Double(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Cel::string(s),
        Value::Array(items) => {
            let item = node.items.as_deref();
            Cel::list(
                items.iter().map(|v| item.map_or_else(|| untyped(v), |n| to_cel(n, v))).collect(),
            )
        }
        Value::Object(map) => {
            let entries = map
                .iter()
                .map(|(k, v)| {
                    let converted = match node.child(k) {
                        Some(child) => to_cel(child, v),
                        None => untyped(v),
                    };
                    (Cel::string(k), converted)
                })
                .collect();
            MapValue::from_entries(entries).map(Cel::Map).unwrap_or(Cel::Null)
        }
    }
}

fn untyped(value: &Value) -> Cel {
    to_cel(&Node::default(), value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_paths_join_like_the_api_server() {
        let at = Path::new("spec");
        assert_eq!(join(&at, ".b").as_str(), "spec.b");
        assert_eq!(join(&at, ".a.b").as_str(), "spec.a.b");
        assert_eq!(join(&at, ".m['k.x']").as_str(), "spec.m.k.x");
        assert_eq!(join(&at, ".list[2]").as_str(), "spec.list[2]");
    }
}
