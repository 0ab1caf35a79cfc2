//! The approver-policy CEL environment: `self` (the attribute value), `cr` (the
//! request), the service-account functions, and every library certgate offers: the
//! standard library and macros, cel-go's strings extension (which upstream enables),
//! and beyond upstream optionals, `cel.bind`, two-variable comprehensions and the
//! Kubernetes libraries. A rule valid upstream is valid here.
//!
//! Built once per process: it is immutable and shared by every program.

use std::sync::{Arc, LazyLock};

use crate::check::{self, DeclError, Type};
use crate::cost::SizeBounds;
use crate::eval::{Environment, Functions};
use crate::syntax::ParserOptions;
use crate::value::{ObjectValue, Value};
use crate::{CompileError, CrVariable, limits, service_account};

/// Name of the `cr` object type, as upstream declares it.
pub(crate) const REQUEST_TYPE: &str =
    "cm.io.policy.pkg.internal.approver.validation.CertificateRequest";

/// Size bounds of the policy variables, for static cost estimates: `self` is an
/// attribute of a CSR, which certgate-pki refuses above 64 KiB; `cr.name` is an object
/// name (a DNS subdomain, 253 bytes) and `cr.namespace` a DNS label (63). The username
/// and groups come from the API server's authenticator and have no Kubernetes limit:
/// they are bounded by the 3 MiB the API server accepts for a request body.
pub(crate) fn size_bounds() -> SizeBounds {
    const CSR_LIMIT: u64 = 64 * 1024;
    const REQUEST_BODY_LIMIT: u64 = 3 * 1024 * 1024;
    SizeBounds::new()
        .with_variable("self", CSR_LIMIT)
        .with_path("cr.name", 253)
        .with_path("cr.namespace", 63)
        .with_path("cr.username", REQUEST_BODY_LIMIT)
        .with_path("cr.groups", REQUEST_BODY_LIMIT)
        .with_path("cr.groups.@items", REQUEST_BODY_LIMIT)
}

/// The environment and where its two variables are bound.
pub(crate) struct PolicyEnvironment {
    pub(crate) env: Environment,
    pub(crate) bounds: SizeBounds,
    self_slot: usize,
    cr_slot: usize,
}

static ENVIRONMENT: LazyLock<Result<PolicyEnvironment, DeclError>> = LazyLock::new(build);

/// The shared environment, or why it could not be built (a certgate bug, since its
/// declarations are fixed; reported as a compile error rather than a panic).
pub(crate) fn environment() -> Result<&'static PolicyEnvironment, CompileError> {
    ENVIRONMENT.as_ref().map_err(|err| {
        CompileError::new(format!(
            "the CEL environment could not be built ({err}); this is a certgate bug, \
             please report it"
        ))
    })
}

fn build() -> Result<PolicyEnvironment, DeclError> {
    let mut decls = check::full_library()?;
    decls.add_object_type(
        REQUEST_TYPE,
        vec![
            ("name".to_owned(), Type::String),
            ("namespace".to_owned(), Type::String),
            ("username".to_owned(), Type::String),
            ("groups".to_owned(), Type::list(Type::String)),
        ],
    )?;
    decls.add_variable("self", Type::String)?;
    decls.add_variable("cr", Type::object(REQUEST_TYPE))?;
    // The type names as values: `type(cr) == cm.io.policy...CertificateRequest`.
    decls.add_variable(REQUEST_TYPE, Type::type_of(Type::object(REQUEST_TYPE)))?;
    service_account::declare(&mut decls)?;
    let mut functions = Functions::full_library();
    service_account::register(&mut functions);
    let parser = ParserOptions {
        max_depth: u32::try_from(limits::MAX_POLICY_NESTING_DEPTH).unwrap_or(u32::MAX),
        max_code_points: limits::MAX_POLICY_RULE_CODE_POINTS,
        macros: true,
    };
    let env = Environment::new(decls, functions).with_parser_options(parser);
    let slot = |name: &str| {
        env.slot(name).ok_or_else(|| DeclError::DuplicateVariable { name: name.to_owned() })
    };
    let (self_slot, cr_slot) = (slot("self")?, slot("cr")?);
    Ok(PolicyEnvironment { env, bounds: size_bounds(), self_slot, cr_slot })
}

impl PolicyEnvironment {
    /// The variables of one evaluation, by slot.
    pub(crate) fn bind(&self, self_value: &str, cr: &BoundRequest) -> [Value; 2] {
        let mut values = [Value::Null, Value::Null];
        if let Some(v) = values.get_mut(self.self_slot) {
            *v = Value::string(self_value);
        }
        if let Some(v) = values.get_mut(self.cr_slot) {
            *v = cr.0.clone();
        }
        values
    }
}

/// The `cr` variable converted once for every rule evaluated against one request.
#[derive(Clone, Debug)]
pub struct BoundRequest(Value);

impl BoundRequest {
    /// Upstream's `cr` is a proto3 message: a field holding its zero value (an empty
    /// string, no groups) is not set, so `has(cr.name)` is false for an empty name while
    /// `cr.name` still reads `''`. Empty fields are therefore left out.
    pub fn new(cr: &CrVariable) -> Self {
        let mut fields = Vec::with_capacity(4);
        for (name, value) in
            [("name", &cr.name), ("namespace", &cr.namespace), ("username", &cr.username)]
        {
            if !value.is_empty() {
                fields.push((Arc::from(name), Value::string(value)));
            }
        }
        if !cr.groups.is_empty() {
            let groups = cr.groups.iter().map(|g| Value::string(g)).collect();
            fields.push((Arc::from("groups"), Value::list(groups)));
        }
        Self(Value::Object(ObjectValue::new(REQUEST_TYPE, fields)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_builds() {
        assert!(environment().is_ok());
    }

    #[test]
    fn empty_request_fields_are_unset_as_in_proto3() {
        let cel = crate::PolicyCel::new(4);
        let empty = CrVariable::default();
        let named = CrVariable { name: "a".into(), groups: vec![String::new()], ..empty.clone() };
        let has = |rule: &str, cr: &CrVariable| cel.compile(rule).unwrap().eval("", cr).unwrap();
        assert!(!has("has(cr.name)", &empty));
        assert!(!has("has(cr.groups)", &empty));
        assert!(has("cr.name == '' && cr.groups == []", &empty));
        assert!(has("has(cr.name) && has(cr.groups)", &named));
    }
}
