//! `x-kubernetes-validations`: the CEL rules of a schema node, compiled with the schema.
//!
//! `self` (and `oldSelf`) are declared `dyn`: the value's fields and functions resolve when
//! the rule runs, so a rule the API server accepts compiles here too. The typed check the
//! API server makes when the CRD is stored is [`crate::crd_rule_errors`]'s.
//! A rule that mentions `oldSelf` is a transition rule, run only on updates that have an
//! old value at the node, or with `optionalOldSelf: true` on every write, `oldSelf` then
//! being an optional value.

use std::sync::{Arc, LazyLock};

use certgate_api::field::ErrorType;
use certgate_cel::check::{DeclError, Type};
use certgate_cel::eval::{Environment, Program};
use certgate_cel::syntax::ParserOptions;
use serde_json::{Map, Value};

use crate::error::SchemaError;

/// Rules per node, as bounded as the API server's `maxItems` on the list (its CRD schema
/// allows any count; this keeps one node's work bounded).
pub const MAX_RULES_PER_NODE: usize = 64;
/// Longest rule or message expression accepted, in bytes.
pub const MAX_RULE_BYTES: usize = certgate_cel::MAX_RULE_BYTES;

/// One compiled rule.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub source: String,
    pub program: Arc<Program>,
    pub transition: bool,
    /// `optionalOldSelf: true`: the rule also runs without an old value, `oldSelf` being
    /// an optional (empty on creates).
    pub optional_old_self: bool,
    pub message: Option<String>,
    pub message_expression: Option<Arc<Program>>,
    pub reason: ErrorType,
    /// `fieldPath`, relative to the node (`.b`, `.x['y']`, `.list[0]`).
    pub field_path: Option<String>,
}

/// The rules' environment and the slots of `self` and `oldSelf`.
pub(crate) struct RuleEnvironment {
    pub env: Environment,
    pub self_slot: usize,
    pub old_self_slot: usize,
}

static ENVIRONMENT: LazyLock<Result<RuleEnvironment, DeclError>> = LazyLock::new(|| {
    let env = Environment::with_full_library([
        ("self".to_owned(), Type::Dyn),
        ("oldSelf".to_owned(), Type::Dyn),
    ])?
    .with_parser_options(ParserOptions {
        max_depth: u32::try_from(certgate_cel::MAX_NESTING_DEPTH).unwrap_or(u32::MAX),
        max_code_points: MAX_RULE_BYTES,
        macros: true,
    });
    let slot = |name: &str| {
        env.slot(name).ok_or_else(|| DeclError::DuplicateVariable { name: name.to_owned() })
    };
    let (self_slot, old_self_slot) = (slot("self")?, slot("oldSelf")?);
    Ok(RuleEnvironment { env, self_slot, old_self_slot })
});

pub(crate) fn environment() -> Option<&'static RuleEnvironment> {
    ENVIRONMENT.as_ref().ok()
}

/// Compiles the `x-kubernetes-validations` of the schema at `at`.
pub(crate) fn compile(map: &Map<String, Value>, at: &str) -> Result<Vec<Rule>, SchemaError> {
    let Some(list) = map.get("x-kubernetes-validations") else { return Ok(Vec::new()) };
    let keyword = "x-kubernetes-validations";
    let Value::Array(list) = list else {
        return Err(SchemaError::Malformed {
            at: at.to_owned(),
            keyword,
            expected: "a list of rules",
        });
    };
    if list.len() > MAX_RULES_PER_NODE {
        return Err(SchemaError::Rule {
            at: format!("{at}.{keyword}"),
            reason: format!("more than {MAX_RULES_PER_NODE} rules on one schema"),
        });
    }
    let env = environment().ok_or_else(|| SchemaError::Rule {
        at: at.to_owned(),
        reason: "the CEL environment could not be built (a certgate bug)".to_owned(),
    })?;
    list.iter()
        .enumerate()
        .map(|(index, rule)| one(env, rule, &format!("{at}.{keyword}[{index}]")))
        .collect()
}

fn one(env: &RuleEnvironment, rule: &Value, at: &str) -> Result<Rule, SchemaError> {
    let refuse = |reason: String| SchemaError::Rule { at: at.to_owned(), reason };
    let text = |name: &str| -> Result<Option<String>, SchemaError> {
        match rule.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(refuse(format!("{name} must be a string"))),
        }
    };
    let Some(source) = text("rule")?.filter(|s| !s.trim().is_empty()) else {
        return Err(refuse("rule is required".to_owned()));
    };
    let program = compile_bool(env, &source).map_err(|e| refuse(format!("rule: {e}")))?;
    let message_expression = match text("messageExpression")? {
        None => None,
        Some(expression) => Some(Arc::new(
            compile_string(env, &expression)
                .map_err(|e| refuse(format!("messageExpression: {e}")))?,
        )),
    };
    let reason = match text("reason")?.as_deref() {
        None | Some("FieldValueInvalid") => ErrorType::Invalid,
        Some("FieldValueForbidden") => ErrorType::Forbidden,
        Some("FieldValueRequired") => ErrorType::Required,
        Some("FieldValueDuplicate") => ErrorType::Duplicate,
        Some(other) => {
            return Err(refuse(format!(
                "reason {} is not one of FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate",
                certgate_gofmt::quote(other)
            )));
        }
    };
    Ok(Rule {
        transition: mentions_old_self(&source),
        optional_old_self: rule.get("optionalOldSelf").and_then(Value::as_bool) == Some(true),
        source,
        program: Arc::new(program),
        message: text("message")?,
        message_expression,
        reason,
        field_path: text("fieldPath")?.filter(|p| !p.is_empty()),
    })
}

fn compile_bool(env: &RuleEnvironment, source: &str) -> Result<Program, String> {
    let program = compile_checked(env, source)?;
    match program.result_type() {
        Type::Bool | Type::Dyn => Ok(program),
        other => Err(format!("got {other}, wanted bool result type")),
    }
}

fn compile_string(env: &RuleEnvironment, source: &str) -> Result<Program, String> {
    let program = compile_checked(env, source)?;
    match program.result_type() {
        Type::String | Type::Dyn => Ok(program),
        other => Err(format!("got {other}, wanted string result type")),
    }
}

fn compile_checked(env: &RuleEnvironment, source: &str) -> Result<Program, String> {
    if source.len() > MAX_RULE_BYTES {
        return Err(format!("longer than {MAX_RULE_BYTES} bytes"));
    }
    env.env.compile(source).map_err(|e| e.to_string())
}

/// Whether `oldSelf` occurs as an identifier (not inside a longer name).
pub(crate) fn mentions_old_self(source: &str) -> bool {
    let bytes = source.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    source.match_indices("oldSelf").any(|(at, _)| {
        let before = at.checked_sub(1).and_then(|i| bytes.get(i)).copied();
        let after = bytes.get(at + "oldSelf".len()).copied();
        !before.is_some_and(|b| ident(b) || b == b'.') && !after.is_some_and(ident)
    })
}

#[cfg(test)]
mod tests {
    use super::mentions_old_self;

    #[test]
    fn transition_rules_are_the_ones_naming_old_self() {
        assert!(mentions_old_self("self == oldSelf"));
        assert!(mentions_old_self("oldSelf.x < self.x"));
        assert!(!mentions_old_self("self.oldSelfish == 1"));
        assert!(!mentions_old_self("self.oldSelf == 1"));
    }
}
