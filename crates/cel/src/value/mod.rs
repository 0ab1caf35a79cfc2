//! Runtime values of certgate's CEL engine (issue #3).
//!
//! Values are immutable and cheap to clone: strings, bytes, lists and maps share their
//! storage through `Arc`, so passing a variable or an intermediate result around never
//! copies its contents. The operations follow the CEL specification as cel-go
//! implements it, including its error texts ([`ValueError`]).

mod arith;
mod compare;
mod convert;
mod error;
mod map;
mod object;
mod time;

#[cfg(test)]
mod conformance_tests;
#[cfg(test)]
mod tests;

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::check::Type;

pub use arith::{MAX_CONCAT_LEN, add, div, mul, neg, rem, sub};
pub use compare::{MAX_COMPARE_DEPTH, compare};
pub use convert::{
    format_double, to_bool, to_bytes, to_double, to_duration, to_int, to_string, to_timestamp,
    to_uint,
};
pub use error::ValueError;
pub use map::{MapKey, MapValue};
pub use object::ObjectValue;
pub use time::{
    Duration, MAX_DURATION_SECONDS, MAX_TIMESTAMP_SECONDS, MIN_TIMESTAMP_SECONDS, Timestamp,
};

/// 2^63 and 2^64 as doubles: the first values beyond `i64` and `u64` (both exact).
pub(crate) const TWO_POW_63: f64 = (1_u64 << 63) as f64;
pub(crate) const TWO_POW_64: f64 = TWO_POW_63 * 2.0;

/// A library type the core engine does not know (IP address, CIDR, URL, ...).
///
/// Libraries implement this so that their values travel through the evaluator like
/// built-in ones; equality is delegated to the library.
pub trait Opaque: fmt::Debug + Send + Sync {
    /// The CEL type of the value, e.g. `Type::opaque("net.IP", vec![])`.
    fn type_of(&self) -> Type;
    /// CEL equality with another opaque value (of any library type).
    fn equals(&self, other: &dyn Opaque) -> bool;
    /// Access to the concrete type, for `equals` and for the library's functions.
    fn as_any(&self) -> &dyn Any;
}

/// A CEL runtime value.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Arc<str>),
    Bytes(Arc<[u8]>),
    List(Arc<[Value]>),
    Map(MapValue),
    Duration(Duration),
    Timestamp(Timestamp),
    /// A type used as a value, as in `type(1) == int`.
    Type(Type),
    /// `optional.of(v)` is `Some`, `optional.none()` is `None`.
    Optional(Option<Box<Value>>),
    Opaque(Arc<dyn Opaque>),
    /// A value of an object type the environment declares (e.g. `cr`).
    Object(ObjectValue),
}

impl Value {
    /// The runtime type of the value, as `type()` reports it. Containers report `dyn`
    /// element types: their elements may be heterogeneous.
    pub fn type_of(&self) -> Type {
        match self {
            Self::Null => Type::Null,
            Self::Bool(_) => Type::Bool,
            Self::Int(_) => Type::Int,
            Self::Uint(_) => Type::Uint,
            Self::Double(_) => Type::Double,
            Self::String(_) => Type::String,
            Self::Bytes(_) => Type::Bytes,
            Self::List(_) => Type::list(Type::Dyn),
            Self::Map(_) => Type::map(Type::Dyn, Type::Dyn),
            Self::Duration(_) => Type::Duration,
            Self::Timestamp(_) => Type::Timestamp,
            Self::Type(t) => Type::type_of(t.clone()),
            Self::Optional(_) => Type::optional(Type::Dyn),
            Self::Opaque(o) => o.type_of(),
            Self::Object(o) => Type::object(o.type_name()),
        }
    }

    pub fn string(s: &str) -> Self {
        Self::String(Arc::from(s))
    }

    pub fn bytes(b: &[u8]) -> Self {
        Self::Bytes(Arc::from(b))
    }

    pub fn list(items: Vec<Value>) -> Self {
        Self::List(Arc::from(items))
    }
}

/// `dyn(v)`: the identity at runtime; it only changes what the checker assumes.
pub fn to_dyn(value: &Value) -> Value {
    value.clone()
}

/// `type(v)`.
pub fn type_value(value: &Value) -> Value {
    Value::Type(value.type_of())
}
