//! `serviceAccount(string)`, `<ServiceAccount>.getName()`,
//! `<ServiceAccount>.getNamespace()` and `isServiceAccount(string)`, with Kubernetes'
//! service-account username rules.

use std::any::Any;
use std::sync::Arc;

use crate::check::{DeclError, Declarations, Overload, Type};
use crate::eval::{Functions, Impl};
use crate::value::{Opaque, Value, ValueError};

/// Name of the ServiceAccount type, as upstream declares it.
pub(crate) const TYPE_NAME: &str = "cm.io.policy.pkg.internal.approver.validation.ServiceAccount";

const PREFIX: &str = "system:serviceaccount:";

fn service_account_type() -> Type {
    Type::opaque(TYPE_NAME, vec![])
}

/// Declares the functions, with upstream's overload ids.
pub(crate) fn declare(decls: &mut Declarations) -> Result<(), DeclError> {
    let sa = service_account_type;
    decls.add_variable(TYPE_NAME, Type::type_of(sa()))?;
    decls.add_function(
        "serviceAccount",
        [Overload::global("username_to_serviceaccount", vec![Type::String], sa())],
    )?;
    decls.add_function(
        "isServiceAccount",
        [Overload::global("serviceaccount_is_sa", vec![Type::String], Type::Bool)],
    )?;
    decls.add_function(
        "getName",
        [Overload::receiver("serviceaccount_get_name", vec![sa()], Type::String)],
    )?;
    decls.add_function(
        "getNamespace",
        [Overload::receiver("serviceaccount_get_namespace", vec![sa()], Type::String)],
    )
}

/// Registers the implementations of [`declare`]'s overloads.
pub(crate) fn register(functions: &mut Functions) {
    functions.add("username_to_serviceaccount", Impl::Unary(service_account));
    functions.add("serviceaccount_is_sa", Impl::Unary(is_service_account));
    functions.add("serviceaccount_get_name", Impl::Unary(get_name));
    functions.add("serviceaccount_get_namespace", Impl::Unary(get_namespace));
}

/// A service account named by a username.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServiceAccount {
    namespace: String,
    name: String,
}

impl Opaque for ServiceAccount {
    fn type_of(&self) -> Type {
        service_account_type()
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<ServiceAccount>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

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

fn service_account(username: &Value) -> Result<Value, ValueError> {
    let Value::String(username) = username else {
        return Err(ValueError::no_overload("serviceAccount", &[username]));
    };
    match split_username(username) {
        Some(account) => Ok(Value::Opaque(Arc::new(account))),
        None => Err(ValueError::Message(format!(
            "Unable to convert to serviceaccount: err: Username must be in the form \
             system:serviceaccount:namespace:name, username: {username}"
        ))),
    }
}

fn is_service_account(username: &Value) -> Result<Value, ValueError> {
    match username {
        Value::String(s) => Ok(Value::Bool(split_username(s).is_some())),
        other => Err(ValueError::no_overload("isServiceAccount", &[other])),
    }
}

fn account<'v>(value: &'v Value, function: &str) -> Result<&'v ServiceAccount, ValueError> {
    match value {
        Value::Opaque(o) => o.as_any().downcast_ref::<ServiceAccount>(),
        _ => None,
    }
    .ok_or_else(|| ValueError::no_overload(function, &[value]))
}

fn get_name(value: &Value) -> Result<Value, ValueError> {
    Ok(Value::string(&account(value, "getName")?.name))
}

fn get_namespace(value: &Value) -> Result<Value, ValueError> {
    Ok(Value::string(&account(value, "getNamespace")?.namespace))
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
