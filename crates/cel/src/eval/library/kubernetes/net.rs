//! `net.IP` and `net.CIDR` values and their functions.

use std::any::Any;
use std::sync::Arc;

use super::{message, opaque};
use crate::check::{CIDR_TYPE_NAME, IP_TYPE_NAME, Type};
use crate::eval::{Functions, Impl};
use crate::k8s::{self, Cidr, Ip};
use crate::value::{Opaque, Value, ValueError};

/// A `net.IP` value. Equal to another IP of the same address (IPv4 never equals IPv6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpValue(pub Ip);

/// A `net.CIDR` value. Equal to another CIDR of the same address and prefix length, so
/// `cidr('10.0.0.1/8') != cidr('10.0.0.0/8')`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CidrValue(pub Cidr);

impl Opaque for IpValue {
    fn type_of(&self) -> Type {
        Type::opaque(IP_TYPE_NAME, vec![])
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Opaque for CidrValue {
    fn type_of(&self) -> Type {
        Type::opaque(CIDR_TYPE_NAME, vec![])
    }

    fn equals(&self, other: &dyn Opaque) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub(super) fn register(functions: &mut Functions) {
    functions.add("string_to_ip", Impl::Unary(string_to_ip));
    functions.add("is_ip", Impl::Unary(is_ip));
    functions.add("ip_is_canonical", Impl::Unary(ip_is_canonical));
    functions.add("ip_to_string", Impl::Unary(ip_to_string));
    functions
        .add("ip_family", Impl::Unary(|v| ip_method(v, "family", |ip| Value::Int(ip.family()))));
    functions.add(
        "ip_is_unspecified",
        Impl::Unary(|v| ip_method(v, "isUnspecified", |ip| Value::Bool(ip.is_unspecified()))),
    );
    functions.add(
        "ip_is_loopback",
        Impl::Unary(|v| ip_method(v, "isLoopback", |ip| Value::Bool(ip.is_loopback()))),
    );
    functions.add(
        "ip_is_link_local_multicast",
        Impl::Unary(|v| {
            ip_method(v, "isLinkLocalMulticast", |ip| Value::Bool(ip.is_link_local_multicast()))
        }),
    );
    functions.add(
        "ip_is_link_local_unicast",
        Impl::Unary(|v| {
            ip_method(v, "isLinkLocalUnicast", |ip| Value::Bool(ip.is_link_local_unicast()))
        }),
    );
    functions.add(
        "ip_is_global_unicast",
        Impl::Unary(|v| ip_method(v, "isGlobalUnicast", |ip| Value::Bool(ip.is_global_unicast()))),
    );

    functions.add("string_to_cidr", Impl::Unary(string_to_cidr));
    functions.add("is_cidr", Impl::Unary(is_cidr));
    functions.add("cidr_to_string", Impl::Unary(cidr_to_string));
    functions.add("cidr_contains_ip_string", Impl::Binary(cidr_contains_ip_string));
    functions.add("cidr_contains_ip_ip", Impl::Binary(cidr_contains_ip));
    functions.add("cidr_contains_cidr_string", Impl::Binary(cidr_contains_cidr_string));
    functions.add("cidr_contains_cidr", Impl::Binary(cidr_contains_cidr));
    functions.add("cidr_ip", Impl::Unary(|v| cidr_method(v, "ip", |c| ip_value(c.ip()))));
    functions
        .add("cidr_masked", Impl::Unary(|v| cidr_method(v, "masked", |c| cidr_value(c.masked()))));
    functions.add(
        "cidr_prefix_length",
        Impl::Unary(|v| cidr_method(v, "prefixLength", |c| Value::Int(c.prefix_length()))),
    );
}

fn ip_value(ip: Ip) -> Value {
    Value::Opaque(Arc::new(IpValue(ip)))
}

fn cidr_value(cidr: Cidr) -> Value {
    Value::Opaque(Arc::new(CidrValue(cidr)))
}

/// `ip(string)`.
fn string_to_ip(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => Ip::parse(s).map(ip_value).map_err(message),
        _ => Err(ValueError::no_overload("ip", &[s])),
    }
}

/// `isIP(string)`.
fn is_ip(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => Ok(Value::Bool(k8s::is_ip(s))),
        _ => Err(ValueError::no_overload("isIP", &[s])),
    }
}

/// `ip.isCanonical(string)`: an unparsable string is an error.
fn ip_is_canonical(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => k8s::is_canonical(s).map(Value::Bool).map_err(message),
        _ => Err(ValueError::no_overload("ip.isCanonical", &[s])),
    }
}

/// `string(ip)`.
fn ip_to_string(v: &Value) -> Result<Value, ValueError> {
    match opaque::<IpValue>(v) {
        Some(IpValue(ip)) => Ok(Value::string(&ip.to_string())),
        None => Err(ValueError::no_overload("string", &[v])),
    }
}

fn ip_method(v: &Value, function: &str, f: fn(&Ip) -> Value) -> Result<Value, ValueError> {
    match opaque::<IpValue>(v) {
        Some(IpValue(ip)) => Ok(f(ip)),
        None => Err(ValueError::no_overload(function, &[v])),
    }
}

/// `cidr(string)`.
fn string_to_cidr(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => Cidr::parse(s).map(cidr_value).map_err(message),
        _ => Err(ValueError::no_overload("cidr", &[s])),
    }
}

/// `isCIDR(string)`.
fn is_cidr(s: &Value) -> Result<Value, ValueError> {
    match s {
        Value::String(s) => Ok(Value::Bool(k8s::is_cidr(s))),
        _ => Err(ValueError::no_overload("isCIDR", &[s])),
    }
}

/// `string(cidr)`.
fn cidr_to_string(v: &Value) -> Result<Value, ValueError> {
    match opaque::<CidrValue>(v) {
        Some(CidrValue(cidr)) => Ok(Value::string(&cidr.to_string())),
        None => Err(ValueError::no_overload("string", &[v])),
    }
}

fn cidr_method(v: &Value, function: &str, f: fn(&Cidr) -> Value) -> Result<Value, ValueError> {
    match opaque::<CidrValue>(v) {
        Some(CidrValue(cidr)) => Ok(f(cidr)),
        None => Err(ValueError::no_overload(function, &[v])),
    }
}

/// `cidr.containsIP(string)`: Kubernetes answers an unparsable address with "no such
/// overload", not with the parse error.
fn cidr_contains_ip_string(c: &Value, s: &Value) -> Result<Value, ValueError> {
    match (opaque::<CidrValue>(c), s) {
        (Some(CidrValue(cidr)), Value::String(text)) => match cidr.contains_ip_str(text) {
            Ok(contains) => Ok(Value::Bool(contains)),
            Err(_) => Err(ValueError::no_overload("containsIP", &[c, s])),
        },
        _ => Err(ValueError::no_overload("containsIP", &[c, s])),
    }
}

/// `cidr.containsIP(ip)`.
fn cidr_contains_ip(c: &Value, ip: &Value) -> Result<Value, ValueError> {
    match (opaque::<CidrValue>(c), opaque::<IpValue>(ip)) {
        (Some(CidrValue(cidr)), Some(IpValue(addr))) => Ok(Value::Bool(cidr.contains_ip(addr))),
        _ => Err(ValueError::no_overload("containsIP", &[c, ip])),
    }
}

/// `cidr.containsCIDR(string)`: the string's parse error is returned as `cidr()` words it.
fn cidr_contains_cidr_string(c: &Value, s: &Value) -> Result<Value, ValueError> {
    match (opaque::<CidrValue>(c), s) {
        (Some(CidrValue(cidr)), Value::String(text)) => {
            cidr.contains_cidr_str(text).map(Value::Bool).map_err(message)
        }
        _ => Err(ValueError::no_overload("containsCIDR", &[c, s])),
    }
}

/// `cidr.containsCIDR(cidr)`.
fn cidr_contains_cidr(c: &Value, other: &Value) -> Result<Value, ValueError> {
    match (opaque::<CidrValue>(c), opaque::<CidrValue>(other)) {
        (Some(CidrValue(cidr)), Some(CidrValue(inner))) => {
            Ok(Value::Bool(cidr.contains_cidr(inner)))
        }
        _ => Err(ValueError::no_overload("containsCIDR", &[c, other])),
    }
}
