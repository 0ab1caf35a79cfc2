//! The CEL environment of webhook `matchConditions`, as kube-apiserver declares it:
//! `object` and `oldObject` (`dyn`), `request` (the typed AdmissionRequest) and
//! `namespaceObject` (always `null` for webhooks). `authorizer` and
//! `authorizer.requestResource` are not declared: the dispatcher has no authorizer to
//! hand to them, so expressions using them are refused when the configuration is
//! written rather than evaluated as if every check passed (docs/dispatch.md).

use std::sync::LazyLock;

use certgate_cel::check::{self, DeclError, Type};
use certgate_cel::eval::{Environment, Functions, Program};
use certgate_cel::syntax::ParserOptions;

pub(crate) const REQUEST_TYPE: &str = "kubernetes.AdmissionRequest";
pub(crate) const GVK_TYPE: &str = "kubernetes.GroupVersionKind";
pub(crate) const GVR_TYPE: &str = "kubernetes.GroupVersionResource";
pub(crate) const USER_INFO_TYPE: &str = "kubernetes.UserInfo";

/// The environment and the slots its variables are bound at.
pub(crate) struct ConditionEnvironment {
    pub env: Environment,
    pub object: usize,
    pub old_object: usize,
    pub request: usize,
    pub namespace_object: usize,
}

static ENVIRONMENT: LazyLock<Result<ConditionEnvironment, DeclError>> = LazyLock::new(build);

fn build() -> Result<ConditionEnvironment, DeclError> {
    let mut decls = check::full_library()?;
    let string_fields = |names: &[&str]| -> Vec<(String, Type)> {
        names.iter().map(|n| ((*n).to_owned(), Type::String)).collect()
    };
    decls.add_object_type(GVK_TYPE, string_fields(&["group", "version", "kind"]))?;
    decls.add_object_type(GVR_TYPE, string_fields(&["group", "version", "resource"]))?;
    let mut user = string_fields(&["username", "uid"]);
    user.push(("groups".to_owned(), Type::list(Type::String)));
    user.push(("extra".to_owned(), Type::map(Type::String, Type::list(Type::String))));
    decls.add_object_type(USER_INFO_TYPE, user)?;
    let gvk = || Type::object(GVK_TYPE);
    let gvr = || Type::object(GVR_TYPE);
    decls.add_object_type(
        REQUEST_TYPE,
        vec![
            ("kind".to_owned(), gvk()),
            ("resource".to_owned(), gvr()),
            ("subResource".to_owned(), Type::String),
            ("requestKind".to_owned(), gvk()),
            ("requestResource".to_owned(), gvr()),
            ("requestSubResource".to_owned(), Type::String),
            ("name".to_owned(), Type::String),
            ("namespace".to_owned(), Type::String),
            ("operation".to_owned(), Type::String),
            ("userInfo".to_owned(), Type::object(USER_INFO_TYPE)),
            ("dryRun".to_owned(), Type::Bool),
            ("options".to_owned(), Type::Dyn),
        ],
    )?;
    decls.add_variable("object", Type::Dyn)?;
    decls.add_variable("oldObject", Type::Dyn)?;
    decls.add_variable("request", Type::object(REQUEST_TYPE))?;
    // Upstream types it as a Namespace; webhooks always see `null` there.
    decls.add_variable("namespaceObject", Type::Dyn)?;
    let env =
        Environment::new(decls, Functions::full_library()).with_parser_options(ParserOptions {
            max_depth: u32::try_from(certgate_cel::MAX_NESTING_DEPTH).unwrap_or(u32::MAX),
            max_code_points: certgate_cel::MAX_RULE_BYTES,
            macros: true,
        });
    let slot = |name: &str| {
        env.slot(name).ok_or_else(|| DeclError::DuplicateVariable { name: name.to_owned() })
    };
    Ok(ConditionEnvironment {
        object: slot("object")?,
        old_object: slot("oldObject")?,
        request: slot("request")?,
        namespace_object: slot("namespaceObject")?,
        env,
    })
}

pub(crate) fn environment() -> Result<&'static ConditionEnvironment, String> {
    ENVIRONMENT.as_ref().map_err(|error| {
        format!("the matchConditions CEL environment could not be built ({error}); this is a certgate bug")
    })
}

/// Why an expression that kube-apiserver would accept is refused by the sandbox.
pub(crate) const AUTHORIZER_UNSUPPORTED: &str = "the certgate sandbox cannot evaluate 'authorizer' or 'authorizer.requestResource' in matchConditions (its webhook dispatcher has no authorizer), so it refuses them rather than guess their result; kube-apiserver accepts this expression";

/// Compiles one condition; the error is the detail of upstream's field error
/// (`compilation failed: ERROR: <input>:1:13: ...`, `must evaluate to bool but got string`).
pub(crate) fn compile(expression: &str) -> Result<Program, String> {
    let env = environment()?;
    let program = env.env.compile(expression).map_err(|error| {
        let rendered = error.to_string();
        if rendered.contains("undeclared reference to 'authorizer") {
            AUTHORIZER_UNSUPPORTED.to_owned()
        } else {
            format!("compilation failed: {rendered}")
        }
    })?;
    // Upstream requires exactly `bool`: `dyn` is refused too.
    match program.result_type() {
        Type::Bool => Ok(program),
        other => Err(format!("must evaluate to bool but got {other}")),
    }
}
