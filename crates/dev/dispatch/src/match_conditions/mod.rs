//! Webhook `matchConditions` (upstream's `matchconditions.Matcher` as `ShouldCallHook` uses
//! it): CEL expressions over the request, all true to call the webhook, any false to skip
//! it, and an evaluation error decided by the webhook's `failurePolicy`.
//!
//! Cost is bounded as upstream bounds it: each expression by the per-call limit, and all
//! the conditions of one webhook for one request by [`REQUEST_COST_BUDGET`].

mod bind;
mod environment;

use std::sync::Arc;

use certgate_cel::eval::{COST_LIMIT_EXCEEDED, Program};
use certgate_cel::value::Value as Cel;
use k8s_openapi::api::admissionregistration::v1::MatchCondition;

use crate::attributes::AdmissionAttributes;
use crate::configurations::FailurePolicy;

pub(crate) use environment::compile;

/// The cost one expression may spend (kube-apiserver's `PerCallLimit`).
pub const PER_CALL_COST_LIMIT: u64 = certgate_cel::eval::DEFAULT_COST_LIMIT;
/// The cost all conditions of one webhook may spend on one request
/// (kube-apiserver's `RuntimeCELCostBudgetMatchConditions`).
pub const REQUEST_COST_BUDGET: u64 = 2_500_000;

/// Upstream's error when the budget runs out; no later condition is evaluated.
const OUT_OF_BUDGET: &str =
    "validation failed due to running out of cost budget, no further validation rules will be run";

/// One condition, compiled when the configuration is loaded.
#[derive(Debug)]
pub(crate) struct Condition {
    expression: String,
    /// The compile error's detail for stored conditions that never passed validation.
    program: Result<Arc<Program>, String>,
}

impl Condition {
    pub(crate) fn compile(condition: &MatchCondition) -> Condition {
        Condition {
            expression: condition.expression.clone(),
            program: compile(&condition.expression).map(Arc::new),
        }
    }
}

/// What the conditions decide for one request.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    Call,
    Skip,
    /// Refuse the request with upstream's `Forbidden` and this message.
    Refuse(String),
}

/// Evaluates `conditions` (none: call) for the request.
pub(crate) fn decide(
    conditions: &[Condition],
    policy: FailurePolicy,
    attributes: &AdmissionAttributes,
) -> Decision {
    if conditions.is_empty() {
        return Decision::Call;
    }
    let on_error = |message: String| match policy {
        FailurePolicy::Fail => Decision::Refuse(message),
        FailurePolicy::Ignore => Decision::Skip,
    };
    let env = match environment::environment() {
        Ok(env) => env,
        Err(message) => return on_error(message),
    };
    let variables = bind::variables(env, attributes);
    let mut remaining = REQUEST_COST_BUDGET;
    let mut any_false = false;
    let mut errors: Vec<String> = Vec::new();
    // Upstream evaluates every condition before looking at the results, so running out
    // of budget wins over a false condition seen earlier.
    for condition in conditions {
        let program = match &condition.program {
            Ok(program) => program,
            Err(detail) => {
                errors.push(format!("compilation error: {detail}"));
                continue;
            }
        };
        let (result, cost) = match program.eval_with_limit(&variables, PER_CALL_COST_LIMIT) {
            Ok(evaluated) => (Ok(evaluated.value), evaluated.cost),
            // The evaluator does not report what a failed evaluation cost: one over the
            // limit spent at least the limit, other failures are counted as free.
            Err(error) if error.message == COST_LIMIT_EXCEEDED => {
                (Err(error.message), PER_CALL_COST_LIMIT)
            }
            Err(error) => (Err(error.message), 0),
        };
        if cost > remaining {
            return on_error(OUT_OF_BUDGET.to_owned());
        }
        remaining -= cost;
        match result {
            Ok(Cel::Bool(false)) => any_false = true,
            // Only `false` excludes (the checker guarantees `bool`).
            Ok(_) => {}
            Err(message) => errors.push(format!(
                "expression '{}' resulted in error: {message}",
                condition.expression
            )),
        }
    }
    if any_false {
        Decision::Skip
    } else if !errors.is_empty() {
        on_error(aggregate(&errors))
    } else {
        Decision::Call
    }
}

/// apimachinery's aggregate error text: one distinct message alone, several in brackets.
fn aggregate(errors: &[String]) -> String {
    let mut distinct: Vec<&str> = Vec::new();
    for error in errors {
        if !distinct.contains(&error.as_str()) {
            distinct.push(error);
        }
    }
    match distinct.as_slice() {
        [one] => (*one).to_owned(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
mod tests;
