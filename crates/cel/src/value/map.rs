//! CEL maps and their keys.
//!
//! Representation: a sorted `BTreeMap` behind an `Arc`, keyed by [`MapKey`]. Numeric
//! keys are normalised when the key is built so that keys CEL's heterogeneous
//! equality calls equal are the same key: an unsigned key that fits `i64` is stored as
//! `Int`, and a double key with an integral value is stored as the int (or uint) of the
//! same value, so `{1: a}[1u]` and `{1: a}[1.0]` both find `a`. Doubles that are not
//! integral cannot be keys; lookups with them simply find nothing.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{TWO_POW_63, TWO_POW_64, Value, ValueError};

/// A normalised CEL map key.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MapKey {
    Bool(bool),
    Int(i64),
    /// Only values above `i64::MAX`; smaller ones are `Int`.
    Uint(u64),
    String(Arc<str>),
}

impl MapKey {
    /// The key a value stands for when it is used to build a map (errors for kinds
    /// CEL does not allow as keys).
    pub fn from_value(value: &Value) -> Result<Self, ValueError> {
        match value {
            Value::Bool(b) => Ok(Self::Bool(*b)),
            Value::Int(i) => Ok(Self::Int(*i)),
            Value::Uint(u) => Ok(Self::from_uint(*u)),
            Value::String(s) => Ok(Self::String(s.clone())),
            _ => Err(ValueError::UnsupportedKey { kind: value.type_of().to_string() }),
        }
    }

    /// The key a value finds in a lookup: like [`MapKey::from_value`], and integral
    /// doubles find int and uint keys. `None` when no key can equal the value.
    pub fn for_lookup(value: &Value) -> Option<Self> {
        match value {
            Value::Double(d) => double_key(*d),
            other => Self::from_value(other).ok(),
        }
    }

    fn from_uint(u: u64) -> Self {
        match i64::try_from(u) {
            Ok(i) => Self::Int(i),
            Err(_) => Self::Uint(u),
        }
    }

    /// The key as a value; normalised uints come back as ints.
    pub fn to_value(&self) -> Value {
        match self {
            Self::Bool(b) => Value::Bool(*b),
            Self::Int(i) => Value::Int(*i),
            Self::Uint(u) => Value::Uint(*u),
            Self::String(s) => Value::String(s.clone()),
        }
    }
}

fn double_key(d: f64) -> Option<MapKey> {
    if d.fract() != 0.0 || !d.is_finite() {
        return None;
    }
    // Bounds are exclusive at the top: 2^63 and 2^64 are not representable as i64/u64.
    if (-TWO_POW_63..TWO_POW_63).contains(&d) {
        #[allow(clippy::cast_possible_truncation)]
        return Some(MapKey::Int(d as i64));
    }
    if (0.0..TWO_POW_64).contains(&d) {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        return Some(MapKey::Uint(d as u64));
    }
    None
}

/// An immutable CEL map.
#[derive(Clone, Debug, Default)]
pub struct MapValue(Arc<BTreeMap<MapKey, Value>>);

impl MapValue {
    /// Builds a map; a repeated key is an error, as in CEL map literals.
    pub fn from_entries(entries: Vec<(Value, Value)>) -> Result<Self, ValueError> {
        let mut map = BTreeMap::new();
        for (k, v) in entries {
            let key = MapKey::from_value(&k)?;
            if map.insert(key, v).is_some() {
                return Err(ValueError::DuplicateKey { key: to_display(&k) });
            }
        }
        Ok(Self(Arc::new(map)))
    }

    /// A map of already-normalised keys (built by the evaluator's folds).
    pub(crate) fn from_btree(map: BTreeMap<MapKey, Value>) -> Self {
        Self(Arc::new(map))
    }

    pub fn get(&self, key: &Value) -> Option<&Value> {
        MapKey::for_lookup(key).and_then(|k| self.0.get(&k))
    }

    /// The value at string key `key`. Small maps are scanned, which avoids building an
    /// owned key for the lookup; larger ones are searched, so the work stays
    /// logarithmic whatever the map's size.
    pub fn get_str(&self, key: &str) -> Option<&Value> {
        const SCAN_UP_TO: usize = 8;
        if self.0.len() > SCAN_UP_TO {
            return self.0.get(&MapKey::String(Arc::from(key)));
        }
        self.0.iter().find_map(|(k, v)| match k {
            MapKey::String(s) if &**s == key => Some(v),
            _ => None,
        })
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&MapKey, &Value)> {
        self.0.iter()
    }
}

fn to_display(v: &Value) -> String {
    match super::to_string(v) {
        Ok(Value::String(s)) => s.to_string(),
        _ => format!("{v:?}"),
    }
}
