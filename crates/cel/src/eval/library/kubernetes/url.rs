//! `kubernetes.URL` values and their functions.

use std::any::Any;
use std::sync::Arc;

use super::{message, opaque};
use crate::check::{Type, URL_TYPE_NAME};
use crate::eval::{Functions, Impl};
use crate::k8s::{self, Url};
use crate::value::{MapValue, Opaque, Value, ValueError};

/// A `kubernetes.URL` value. Equality is Kubernetes': equal Go `URL.String()` forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UrlValue(pub Url);

impl Opaque for UrlValue {
    fn type_of(&self) -> Type {
        Type::opaque(URL_TYPE_NAME, vec![])
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub(super) fn register(functions: &mut Functions) {
    functions.add("string_to_url", Impl::Unary(string_to_url));
    functions.add("is_url_string", Impl::Unary(is_url));
    functions.add(
        "url_get_scheme",
        Impl::Unary(|v| component(v, "getScheme", |u| u.scheme().to_owned())),
    );
    functions
        .add("url_get_host", Impl::Unary(|v| component(v, "getHost", |u| u.host().to_owned())));
    functions.add(
        "url_get_hostname",
        Impl::Unary(|v| component(v, "getHostname", |u| u.hostname().to_owned())),
    );
    functions
        .add("url_get_port", Impl::Unary(|v| component(v, "getPort", |u| u.port().to_owned())));
    functions.add(
        "url_get_escaped_path",
        Impl::Unary(|v| component(v, "getEscapedPath", Url::escaped_path)),
    );
    functions.add("url_get_query", Impl::Unary(get_query));
}

/// `url(string)`.
fn string_to_url(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => {
            Url::parse(s).map(|u| Value::Opaque(Arc::new(UrlValue(u)))).map_err(message)
        }
        _ => Err(ValueError::no_overload("url", &[s])),
    }
}

/// `isURL(string)`.
fn is_url(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => Ok(Value::Bool(k8s::is_url(s))),
        _ => Err(ValueError::no_overload("isURL", &[s])),
    }
}

fn component(v: &Value, function: &str, f: fn(&Url) -> String) -> Result<Value, ValueError> {
    match opaque::<UrlValue>(v) {
        Some(UrlValue(url)) => Ok(Value::String(f(url).into())),
        None => Err(ValueError::no_overload(function, &[v])),
    }
}

/// `url.getQuery()`: `map<string, list<string>>`, values in query order.
fn get_query(v: &Value) -> Result<Value, ValueError> {
    let Some(UrlValue(url)) = opaque::<UrlValue>(v) else {
        return Err(ValueError::no_overload("getQuery", &[v]));
    };
    let entries = url
        .query()
        .into_iter()
        .map(|(key, values)| {
            let values = values.into_iter().map(|s| Value::String(s.into())).collect();
            (Value::String(key.into()), Value::list(values))
        })
        .collect();
    MapValue::from_entries(entries).map(Value::Map)
}
