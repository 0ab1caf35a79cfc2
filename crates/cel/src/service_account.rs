//! `serviceAccount(string)`, `<ServiceAccount>.getName()`,
//! `<ServiceAccount>.getNamespace()` and `isServiceAccount(string)`, with Kubernetes'
//! service-account username rules.

use cel::common::types::{CelBool, CelString, STRING_TYPE, Type};
use cel::common::value::{CowVal, StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError};
use std::any::Any;

/// Name of the ServiceAccount type, as upstream declares it.
pub(crate) const TYPE_NAME: &str = "cm.io.policy.pkg.internal.approver.validation.ServiceAccount";
static SERVICE_ACCOUNT_TYPE: Type = Type::new_struct_type(TYPE_NAME);

/// The function whose errors are reported without the interpreter's
/// `Error executing function` prefix, as upstream words them.
pub(crate) const CONVERT_FUNCTION: &str = "serviceAccount";

const PREFIX: &str = "system:serviceaccount:";

/// Registers the functions on `env`.
pub(crate) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_type(SERVICE_ACCOUNT_TYPE.to_owned())?;
    env.add_overload(
        CONVERT_FUNCTION,
        "username_to_serviceaccount",
        vec![STRING_TYPE],
        service_account,
    )?;
    env.add_overload(
        "isServiceAccount",
        "serviceaccount_is_sa",
        vec![STRING_TYPE],
        is_service_account,
    )?;
    env.add_member_overload(
        "getName",
        "serviceaccount_get_name",
        SERVICE_ACCOUNT_TYPE.to_owned(),
        vec![],
        get_name,
    )?;
    env.add_member_overload(
        "getNamespace",
        "serviceaccount_get_namespace",
        SERVICE_ACCOUNT_TYPE.to_owned(),
        vec![],
        get_namespace,
    )
}

/// A service account named by a username.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServiceAccount {
    namespace: String,
    name: String,
}

impl Val for ServiceAccount {
    fn get_type(&self) -> &Type {
        &SERVICE_ACCOUNT_TYPE
    }

    fn cel_type() -> &'static Type {
        &SERVICE_ACCOUNT_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<ServiceAccount>() == Some(self)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for ServiceAccount {}

/// Splits `system:serviceaccount:<namespace>:<name>` as Kubernetes'
/// `serviceaccount.SplitUsername` does: exactly two parts after the prefix, the
/// namespace a DNS-1123 label and the name a DNS-1123 subdomain.
pub(crate) fn split_username(username: &str) -> Option<ServiceAccount> {
    let (namespace, name) = username.strip_prefix(PREFIX)?.split_once(':')?;
    if name.contains(':') || !is_dns1123_label(namespace) || !is_dns1123_subdomain(name) {
        return None;
    }
    Some(ServiceAccount { namespace: namespace.to_owned(), name: name.to_owned() })
}

fn is_dns1123_label(s: &str) -> bool {
    s.len() <= 63 && is_label_syntax(s)
}

/// Dot-separated labels, at most 253 bytes in all (no per-label length limit, as in
/// Kubernetes' `IsDNS1123Subdomain`).
fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_label_syntax)
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_label_syntax(s: &str) -> bool {
    let alphanumeric = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    !s.is_empty()
        && s.starts_with(alphanumeric)
        && s.ends_with(alphanumeric)
        && s.chars().all(|c| alphanumeric(c) || c == '-')
}

fn string_arg<'a>(args: &'a [CowVal<'_, '_>]) -> Result<&'a str, ExecutionError> {
    let arg = args.first().ok_or_else(|| ExecutionError::invalid_argument_count(1, 0))?;
    arg.downcast_ref::<CelString>().map(CelString::inner).ok_or_else(|| {
        ExecutionError::UnexpectedType {
            got: arg.get_type().name().to_owned(),
            want: STRING_TYPE.name().to_owned(),
        }
    })
}

fn receiver<'a>(args: &'a [CowVal<'_, '_>]) -> Result<&'a ServiceAccount, ExecutionError> {
    let arg = args.first().ok_or_else(ExecutionError::missing_argument_or_target)?;
    arg.downcast_ref::<ServiceAccount>().ok_or_else(|| ExecutionError::UnexpectedType {
        got: arg.get_type().name().to_owned(),
        want: TYPE_NAME.to_owned(),
    })
}

fn service_account<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let username = string_arg(&args)?;
    match split_username(username) {
        Some(account) => Ok(CowVal::owned(account)),
        None => Err(ExecutionError::function_error(
            CONVERT_FUNCTION,
            format!(
                "Unable to convert to serviceaccount: err: Username must be in the form \
                 system:serviceaccount:namespace:name, username: {username}"
            ),
        )),
    }
}

fn is_service_account<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let username = string_arg(&args)?;
    Ok(CowVal::owned(CelBool::from(split_username(username).is_some())))
}

fn get_name<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let account = receiver(&args)?;
    Ok(CowVal::owned(CelString::from(account.name.clone())))
}

fn get_namespace<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let account = receiver(&args)?;
    Ok(CowVal::owned(CelString::from(account.namespace.clone())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(username: &str) -> Option<(&'static str, String, String)> {
        split_username(username).map(|sa| ("ok", sa.namespace, sa.name))
    }

    #[test]
    fn splits_valid_usernames() {
        assert_eq!(
            split("system:serviceaccount:my-ns:my-sa"),
            Some(("ok", "my-ns".into(), "my-sa".into()))
        );
        assert_eq!(
            split("system:serviceaccount:a:b.c.d-e"),
            Some(("ok", "a".into(), "b.c.d-e".into()))
        );
        let label = "a".repeat(63);
        let long_subdomain = format!("{}.{}", "b".repeat(126), "c".repeat(126));
        let username = format!("system:serviceaccount:{label}:{long_subdomain}");
        assert_eq!(split(&username), Some(("ok", label, long_subdomain)));
    }

    #[test]
    fn rejects_what_kubernetes_rejects() {
        for username in [
            "",
            "not-a-service-account",
            "system:serviceaccount:",
            "system:serviceaccount:ns",
            "system:serviceaccount:ns:",
            "system:serviceaccount::name",
            "system:serviceaccount:ns:name:extra",
            "system:serviceaccount:Ns:name",
            "system:serviceaccount:ns:Name",
            "system:serviceaccount:-ns:name",
            "system:serviceaccount:ns-:name",
            "system:serviceaccount:n.s:name",
            "system:serviceaccount:ns:name.",
            "system:serviceaccount:ns:.name",
            "system:serviceaccount:ns:na..me",
            "system:serviceaccount:ns:na_me",
            "system:serviceaccount:ns:näme",
            "system:serviceaccounts:ns:name",
            "System:serviceaccount:ns:name",
        ] {
            assert_eq!(split(username), None, "{username:?}");
        }
        let long_label = format!("system:serviceaccount:{}:name", "a".repeat(64));
        assert_eq!(split(&long_label), None);
        let long_name = format!("system:serviceaccount:ns:{}", "a".repeat(254));
        assert_eq!(split(&long_name), None);
    }
}
