//! `cel.@mapInsert`, the step of `transformMap` and `transformMapEntry`, for the
//! (unusual) case the compiler could not turn it into an in-place fold.

use std::collections::BTreeMap;

use crate::value::{MapKey, MapValue, Value, ValueError};

/// `cel.@mapInsert(map, key, value)`: `map` with one more entry.
pub(crate) fn map_insert_key_value(
    map: &Value,
    key: &Value,
    value: &Value,
) -> Result<Value, ValueError> {
    let Value::Map(m) = map else {
        return Err(ValueError::no_overload("cel.@mapInsert", &[map, key, value]));
    };
    let mut entries: BTreeMap<MapKey, Value> =
        m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    insert(&mut entries, key, value.clone())?;
    Ok(Value::Map(MapValue::from_btree(entries)))
}

/// `cel.@mapInsert(map, entries)`: `map` with the entries of a second map added.
pub(crate) fn map_insert_map(map: &Value, more: &Value) -> Result<Value, ValueError> {
    let (Value::Map(m), Value::Map(_)) = (map, more) else {
        return Err(ValueError::no_overload("cel.@mapInsert", &[map, more]));
    };
    let mut entries: BTreeMap<MapKey, Value> =
        m.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    insert_all(&mut entries, more)?;
    Ok(Value::Map(MapValue::from_btree(entries)))
}

/// Adds one entry; a key already present is an error, as in cel-go.
pub(crate) fn insert(
    entries: &mut BTreeMap<MapKey, Value>,
    key: &Value,
    value: Value,
) -> Result<(), ValueError> {
    let normalised = MapKey::from_value(key)?;
    if entries.contains_key(&normalised) {
        return Err(ValueError::Message(format!(
            "insert failed: key {} already exists",
            display_key(key)
        )));
    }
    entries.insert(normalised, value);
    Ok(())
}

/// Adds every entry of the map `more`.
pub(crate) fn insert_all(
    entries: &mut BTreeMap<MapKey, Value>,
    more: &Value,
) -> Result<(), ValueError> {
    let Value::Map(more) = more else {
        return Err(ValueError::no_overload("cel.@mapInsert", &[more]));
    };
    for (k, v) in more.iter() {
        insert(entries, &k.to_value(), v.clone())?;
    }
    Ok(())
}

fn display_key(key: &Value) -> String {
    match key {
        Value::String(s) => s.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}
