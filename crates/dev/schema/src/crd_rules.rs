//! The checks kube-apiserver makes on a CRD's `x-kubernetes-validations` when the CRD is
//! created or updated: each rule and `messageExpression` type-checked against `self` typed
//! from the schema ([`crate::rule_types`]), rules that must return `bool` and messages
//! `string`, and the static cost estimate of each expression (times the number of times
//! the rule may run in one object) against the per-expression budget, and their sum
//! against the budget of the whole schema. Errors come in upstream's words and order:
//! deepest nodes first, per rule its cost, then its compile error, then its message's.

use std::sync::LazyLock;

use certgate_api::field::{BadValue, FieldError, Path};
use certgate_cel::check::{self, Declarations};
use certgate_cel::cost;
use certgate_cel::syntax::{self, ParserOptions};
use serde_json::{Map, Value};

use crate::rule_types::{self, SelfType};

/// Most any one expression may be estimated to cost (kube-apiserver's
/// `StaticEstimatedCostLimit`).
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// Most all expressions of one schema may be estimated to cost together
/// (`StaticEstimatedCRDCostLimit`).
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;
/// How many of the dearest expressions the total's error names, as upstream.
const MOST_EXPENSIVE: usize = 4;

static LIBRARY: LazyLock<Option<Declarations>> = LazyLock::new(|| check::full_library().ok());

/// The errors kube-apiserver reports for the `x-kubernetes-validations` of the
/// `openAPIV3Schema` found at `at` (`spec.validation.openAPIV3Schema` when every version
/// shares one schema, else `spec.versions[i].schema.openAPIV3Schema`). Empty when every
/// rule compiles and fits the cost budgets.
pub fn crd_rule_errors(open_api_v3_schema: &Value, at: &Path) -> Vec<FieldError> {
    let mut walk = Walk { errors: Vec::new(), total: 0, dearest: Vec::new() };
    walk.node(open_api_v3_schema, at, true, Some(1), None, 0);
    if walk.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
        for (path, _) in &walk.dearest {
            walk.errors.push(FieldError::forbidden(
                path.clone(),
                "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
            ));
        }
        walk.errors.push(FieldError::forbidden(
            at.clone(),
            cost_message(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                walk.total,
                STATIC_ESTIMATED_CRD_COST_LIMIT,
            ),
        ));
    }
    walk.errors
}

struct Walk {
    errors: Vec<FieldError>,
    total: u64,
    /// The dearest expressions (at least 1% of the schema's budget), dearest first.
    dearest: Vec<(Path, u64)>,
}

impl Walk {
    /// Children first (properties by name), then the node's own rules, as upstream.
    /// `cardinality` is how many times the node may occur in one object: the product of
    /// the enclosing lists' `maxItems` and maps' `maxProperties`, `None` when one has none.
    /// `uncorrelatable` is the highest enclosing list that is not a `map` list: below it
    /// nothing has an old value, so transition rules are refused.
    fn node(
        &mut self,
        schema: &Value,
        at: &Path,
        root: bool,
        cardinality: Option<u64>,
        uncorrelatable: Option<&Path>,
        depth: usize,
    ) {
        let Some(map) = schema.as_object() else { return };
        if depth > crate::MAX_DEPTH {
            return;
        }
        if let Some(properties) = map.get("properties").and_then(Value::as_object) {
            let mut names: Vec<&String> = properties.keys().collect();
            names.sort();
            for name in names {
                let child = &properties[name];
                let at = at.child("properties").key(name);
                self.node(child, &at, false, cardinality, uncorrelatable, depth + 1);
            }
        }
        if let Some(items) = map.get("items").filter(|i| i.is_object()) {
            let times = rule_types::repeat(schema, "maxItems")
                .and_then(|n| cardinality.map(|c| c.saturating_mul(n)));
            let keyed = map.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
            let below = uncorrelatable.or(if keyed { None } else { Some(at) });
            self.node(items, &at.child("items"), false, times, below, depth + 1);
        }
        if let Some(values) = map.get("additionalProperties").filter(|a| a.is_object()) {
            let times = rule_types::repeat(schema, "maxProperties")
                .and_then(|n| cardinality.map(|c| c.saturating_mul(n)));
            let at = at.child("additionalProperties");
            self.node(values, &at, false, times, uncorrelatable, depth + 1);
        }
        if let Some(Value::Array(rules)) = map.get("x-kubernetes-validations") {
            let self_type = rule_types::self_type(schema, root);
            // Unbounded, upstream bounds the node's count by what fits in a request.
            let cardinality = cardinality.unwrap_or_else(|| rule_types::max_in_request(schema));
            let at = at.child("x-kubernetes-validations");
            for (index, rule) in rules.iter().take(crate::rules::MAX_RULES_PER_NODE).enumerate() {
                if let Some(rule) = rule.as_object() {
                    self.rule(rule, &self_type, &at.index(index), cardinality, uncorrelatable);
                }
            }
        }
    }

    fn rule(
        &mut self,
        rule: &Map<String, Value>,
        self_type: &SelfType,
        at: &Path,
        times: u64,
        uncorrelatable: Option<&Path>,
    ) {
        let text = |name: &str| rule.get(name).and_then(Value::as_str).unwrap_or_default();
        let source = text("rule");
        if source.trim().is_empty() {
            return; // The schema's own checks refuse it.
        }
        let optional_old_self = rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true);
        let Some(mut decls) = LIBRARY.clone() else { return };
        let Ok(bounds) = self_type.declare(&mut decls, optional_old_self) else { return };
        let rule_path = at.child("rule");
        let invalid = |path: &Path, detail: String| {
            FieldError::invalid(path.clone(), BadValue::GoSyntax(go_json(rule)), detail)
        };
        let uses_old_self = match compile(source, &decls, &bounds) {
            Err(message) => {
                self.errors.push(invalid(&rule_path, format!("compilation failed: {message}")));
                false
            }
            Ok((result, _)) if result != check::Type::Bool => {
                let detail = "cel expression must evaluate to a bool".to_owned();
                self.errors.push(invalid(&rule_path, detail));
                false
            }
            Ok((_, estimate)) => {
                let cost = estimate.saturating_mul(times);
                if cost > STATIC_ESTIMATED_COST_LIMIT {
                    let limit = STATIC_ESTIMATED_COST_LIMIT;
                    let message = cost_message("estimated rule cost", cost, limit);
                    self.errors.push(FieldError::forbidden(rule_path.clone(), message));
                }
                self.observe(&rule_path, cost);
                self.message_expression(text("messageExpression"), &decls, &bounds, at, &invalid);
                crate::rules::mentions_old_self(source)
            }
        };
        // A rule that does not compile does not count as using `oldSelf`, as upstream.
        match (uses_old_self, uncorrelatable, rule.get("optionalOldSelf")) {
            (true, Some(list), _) => self.errors.push(FieldError::invalid(
                rule_path,
                BadValue::Str(source.to_owned()),
                format!(
                    "oldSelf cannot be used on the uncorrelatable portion of the schema within {list}"
                ),
            )),
            (false, _, Some(Value::Bool(set))) => self.errors.push(FieldError::invalid(
                at.child("optionalOldSelf"),
                BadValue::Bool(*set),
                "may not be set if oldSelf is not used in rule",
            )),
            _ => {}
        }
    }

    fn message_expression(
        &mut self,
        expression: &str,
        decls: &Declarations,
        bounds: &cost::SizeBounds,
        at: &Path,
        invalid: &dyn Fn(&Path, String) -> FieldError,
    ) {
        if expression.trim().is_empty() {
            return;
        }
        let message_path = at.child("messageExpression");
        match compile(expression, decls, bounds) {
            Err(message) => self.errors.push(invalid(
                &message_path,
                format!("messageExpression compilation failed: {message}"),
            )),
            Ok((result, _)) if result != check::Type::String => self
                .errors
                .push(invalid(&message_path, "messageExpression must evaluate to a string".into())),
            Ok((_, cost)) => {
                if cost > STATIC_ESTIMATED_COST_LIMIT {
                    let message = cost_message(
                        "estimated messageExpression cost",
                        cost,
                        STATIC_ESTIMATED_COST_LIMIT,
                    );
                    self.errors.push(FieldError::forbidden(message_path, message));
                }
                // Probed: a message over budget alone does not push the schema's total
                // over its budget upstream, so message costs are not added to it here.
            }
        }
    }

    fn observe(&mut self, path: &Path, cost: u64) {
        self.total = self.total.saturating_add(cost);
        if cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            return;
        }
        let at = self.dearest.iter().position(|(_, c)| *c < cost).unwrap_or(self.dearest.len());
        self.dearest.insert(at, (path.clone(), cost));
        self.dearest.truncate(MOST_EXPENSIVE);
    }
}

/// Parses and checks `source`: its result type and its estimated maximum cost, or the
/// error as cel-go renders it.
fn compile(
    source: &str,
    decls: &Declarations,
    bounds: &cost::SizeBounds,
) -> Result<(check::Type, u64), String> {
    if source.len() > crate::rules::MAX_RULE_BYTES {
        return Err(format!("longer than {} bytes", crate::rules::MAX_RULE_BYTES));
    }
    let options = ParserOptions {
        max_depth: u32::try_from(certgate_cel::MAX_NESTING_DEPTH).unwrap_or(u32::MAX),
        max_code_points: crate::rules::MAX_RULE_BYTES,
        macros: true,
    };
    let ast = syntax::parse_with(source, &options).map_err(|e| e.to_string())?;
    let checked = check::check(&ast, decls).map_err(|e| e.render(source))?;
    let estimate = cost::estimate(&ast, &checked, decls, bounds);
    let free = presence_tests(&ast.root, 0);
    let scans = equality_scans(&ast.root, &checked, bounds, 0);
    Ok((checked.root_type().clone(), estimate.max.saturating_sub(free).saturating_add(scans)))
}

/// What Kubernetes charges beyond certgate's estimate for comparing strings or bytes with
/// `==` or `!=` outside comprehensions: a tenth per byte of the shorter operand (certgate's
/// interpreter compares for a constant 1). Operands are sized by their schema path
/// (`self.name`) or literal; anything else counts as empty, keeping the estimate low.
fn equality_scans(
    e: &syntax::Expr,
    checked: &check::CheckedAst,
    bounds: &cost::SizeBounds,
    depth: usize,
) -> u64 {
    use syntax::ExprKind;
    if depth > crate::MAX_DEPTH {
        return 0;
    }
    let count = |e: &syntax::Expr| equality_scans(e, checked, bounds, depth + 1);
    match &e.kind {
        ExprKind::Call { target, function, args } => {
            let own = match (function.as_str(), args.as_slice()) {
                ("_==_" | "_!=_", [a, b])
                    if matches!(
                        checked.type_of(a.id),
                        Some(check::Type::String | check::Type::Bytes)
                    ) =>
                {
                    let size = size_of(a, bounds).min(size_of(b, bounds));
                    size.div_ceil(10)
                }
                _ => 0,
            };
            own + target.as_deref().map_or(0, count) + args.iter().map(count).sum::<u64>()
        }
        ExprKind::Select { operand, .. } => count(operand),
        ExprKind::Index { operand, index, .. } => count(operand) + count(index),
        ExprKind::Conditional { condition, then, otherwise } => {
            count(condition) + count(then).min(count(otherwise))
        }
        ExprKind::List(elements) => elements.iter().map(|el| count(&el.value)).sum(),
        ExprKind::Map(entries) => entries.iter().map(|en| count(&en.key) + count(&en.value)).sum(),
        ExprKind::Struct { fields, .. } => fields.iter().map(|f| count(&f.value)).sum(),
        ExprKind::Literal(_) | ExprKind::Ident(_) | ExprKind::Comprehension(_) => 0,
    }
}

/// The declared size of an operand that is a literal or a variable's field path.
fn size_of(e: &syntax::Expr, bounds: &cost::SizeBounds) -> u64 {
    use syntax::{ExprKind, Literal};
    match &e.kind {
        ExprKind::Literal(Literal::String(s)) => s.len() as u64,
        ExprKind::Literal(Literal::Bytes(b)) => b.len() as u64,
        _ => path_of(e, 0).and_then(|path| bounds.declared(&path)).unwrap_or(0),
    }
}

fn path_of(e: &syntax::Expr, depth: usize) -> Option<String> {
    use syntax::ExprKind;
    if depth > crate::MAX_DEPTH {
        return None;
    }
    match &e.kind {
        ExprKind::Ident(name) => Some(name.clone()),
        ExprKind::Select { operand, field, test_only: false, optional: false } => {
            path_of(operand, depth + 1).map(|path| format!("{path}.{field}"))
        }
        _ => None,
    }
}

/// The `has()` tests that surely run in the dearest evaluation, outside comprehensions:
/// Kubernetes charges nothing for a presence test (certgate's estimator charges 1, as its
/// interpreter does), so each is taken off the estimate. Tests inside comprehensions stay
/// charged, and of a conditional's branches only the fewer count: the estimate may stay
/// above upstream's, never below it.
fn presence_tests(e: &syntax::Expr, depth: usize) -> u64 {
    use syntax::ExprKind;
    if depth > crate::MAX_DEPTH {
        return 0;
    }
    let count = |e: &syntax::Expr| presence_tests(e, depth + 1);
    match &e.kind {
        ExprKind::Select { operand, test_only, .. } => u64::from(*test_only) + count(operand),
        ExprKind::Call { target, args, .. } => {
            target.as_deref().map_or(0, count) + args.iter().map(count).sum::<u64>()
        }
        ExprKind::Index { operand, index, .. } => count(operand) + count(index),
        ExprKind::Conditional { condition, then, otherwise } => {
            count(condition) + count(then).min(count(otherwise))
        }
        ExprKind::List(elements) => elements.iter().map(|el| count(&el.value)).sum(),
        ExprKind::Map(entries) => entries.iter().map(|en| count(&en.key) + count(&en.value)).sum(),
        ExprKind::Struct { fields, .. } => fields.iter().map(|f| count(&f.value)).sum(),
        ExprKind::Literal(_) | ExprKind::Ident(_) | ExprKind::Comprehension(_) => 0,
    }
}

/// Upstream's words for a cost over `limit`: the factor exact below 1.5, to one decimal
/// up to 100, then only "more than 100x".
fn cost_message(what: &str, cost: u64, limit: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // A ratio for display, as upstream computes it.
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_owned()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{what} exceeds budget by factor of {factor} (try simplifying the rule, or adding \
         maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// The rule as Go's `encoding/json` prints upstream's `ValidationRule` struct: its Go
/// field names in order, unset pointers as `null`, and `<`, `>`, `&` escaped.
fn go_json(rule: &Map<String, Value>) -> String {
    let string = |name: &str| {
        Value::String(rule.get(name).and_then(Value::as_str).unwrap_or_default().to_owned())
    };
    let pointer = |name: &str| match rule.get(name) {
        Some(value @ (Value::String(_) | Value::Bool(_))) => value.clone(),
        _ => Value::Null,
    };
    let fields = [
        ("Rule", string("rule")),
        ("Message", string("message")),
        ("MessageExpression", string("messageExpression")),
        ("Reason", pointer("reason")),
        ("FieldPath", string("fieldPath")),
        ("OptionalOldSelf", pointer("optionalOldSelf")),
    ];
    let body: Vec<String> = fields
        .iter()
        .map(|(name, value)| format!("\"{name}\":{}", certgate_gofmt::json(value)))
        .collect();
    format!("{{{}}}", body.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cost_factors_are_worded_as_upstream() {
        let limit = STATIC_ESTIMATED_COST_LIMIT;
        assert!(cost_message("x", limit * 101, limit).contains("by factor of more than 100x ("));
        assert!(cost_message("x", limit * 3, limit).contains("by factor of 3.0x ("));
        assert!(cost_message("x", limit + limit / 4, limit).contains("by factor of 1.250000x ("));
    }

    #[test]
    fn rules_print_as_go_structs() {
        let rule = serde_json::json!({"rule": "a > b && c", "reason": "FieldValueForbidden",
            "optionalOldSelf": true, "message": "m"});
        assert_eq!(
            go_json(rule.as_object().unwrap_or(&Map::new())),
            r#"{"Rule":"a \u003e b \u0026\u0026 c","Message":"m","MessageExpression":"","Reason":"FieldValueForbidden","FieldPath":"","OptionalOldSelf":true}"#
        );
    }
}
