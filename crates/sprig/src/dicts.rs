//! Dictionary functions.
//!
//! Template values are immutable here, so `set`, `unset`, `merge` and `mergeOverwrite` return
//! the changed dictionary instead of changing the caller's (see the crate docs).

use std::sync::Arc;

use certgate_gotemplate::{FuncError, FuncMap, Value, budget};

use crate::args::{Arity, Map, call_err, list, map_value, reg, s, str_list, value_map};
use crate::convert::{is_empty, strval};

pub fn register(m: &mut FuncMap) {
    reg(m, "dict", Arity::AtLeast(0), |a| {
        let v = a.rest(0);
        let mut out = Map::new();
        for pair in v.chunks(2) {
            let key = strval(&pair[0]);
            let value = pair.get(1).cloned().unwrap_or_else(|| s(""));
            out.insert(key.into(), value);
        }
        Ok(map_value(out))
    });
    reg(m, "get", Arity::Exact(2), |a| {
        let d = a.map(0)?;
        Ok(d.get(a.str(1)?).cloned().unwrap_or_else(|| s("")))
    });
    reg(m, "set", Arity::Exact(3), |a| {
        // Go's nil map (a missing key) cannot take an entry: the call panics.
        if matches!(a.any(0), Value::Nil) && a.str(1).is_ok() {
            return Err(call_err("assignment to entry in nil map"));
        }
        let mut d = (*a.map(0)?).clone();
        d.insert(a.str(1)?.into(), a.any(2).clone());
        Ok(map_value(d))
    });
    reg(m, "unset", Arity::Exact(2), |a| {
        let mut d = (*a.map(0)?).clone();
        d.remove(a.str(1)?);
        Ok(map_value(d))
    });
    reg(m, "hasKey", Arity::Exact(2), |a| Ok(Value::Bool(a.map(0)?.contains_key(a.str(1)?))));
    reg(m, "pluck", Arity::AtLeast(1), |a| {
        let name = a.str(0)?;
        let mut out = Vec::new();
        for (i, d) in a.rest(1).iter().enumerate() {
            if let Some(v) = value_map(d).map_err(|e| e.at_argument(1 + i))?.get(name) {
                out.push(v.clone());
            }
        }
        Ok(list(out))
    });
    reg(m, "keys", Arity::AtLeast(0), |a| {
        let mut out: Vec<String> = Vec::new();
        for (i, d) in a.rest(0).iter().enumerate() {
            let d = value_map(d).map_err(|e| e.at_argument(i))?;
            out.extend(d.keys().map(|k| k.to_string()));
        }
        Ok(str_list(out))
    });
    reg(m, "values", Arity::Exact(1), |a| Ok(list(a.map(0)?.values().cloned().collect())));
    reg(m, "pick", Arity::AtLeast(1), |a| {
        let d = a.map(0)?;
        let mut out = Map::new();
        for (i, k) in a.rest(1).iter().enumerate() {
            let k = str_arg(k).map_err(|e| e.at_argument(1 + i))?;
            if let Some(v) = d.get(k) {
                out.insert(k.into(), v.clone());
            }
        }
        Ok(map_value(out))
    });
    reg(m, "omit", Arity::AtLeast(1), |a| {
        let d = a.map(0)?;
        let omit: Vec<&str> = a
            .rest(1)
            .iter()
            .enumerate()
            .map(|(i, k)| str_arg(k).map_err(|e| e.at_argument(1 + i)))
            .collect::<Result<_, _>>()?;
        Ok(map_value(
            d.iter()
                .filter(|(k, _)| !omit.contains(&&***k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ))
    });
    for (name, overwrite) in [
        ("merge", false),
        ("mustMerge", false),
        ("mergeOverwrite", true),
        ("mustMergeOverwrite", true),
    ] {
        reg(m, name, Arity::AtLeast(1), move |a| {
            budget::check_values(a.values, 1, 0)?;
            let mut dst = (*a.map(0)?).clone();
            for (i, src) in a.rest(1).iter().enumerate() {
                let src = value_map(src).map_err(|e| e.at_argument(1 + i))?;
                merge_into(&mut dst, &src, overwrite);
            }
            Ok(map_value(dst))
        });
    }
    for name in ["deepCopy", "mustDeepCopy"] {
        // Values are immutable and shared, so a copy is the value itself.
        reg(m, name, Arity::Exact(1), |a| Ok(a.any(0).clone()));
    }
    reg(m, "dig", Arity::AtLeast(0), |a| {
        let v = a.rest(0);
        if v.len() < 3 {
            return Err(call_err("dig needs at least three arguments"));
        }
        let dict = match &v[v.len() - 1] {
            Value::Map(d) => d.clone(),
            other => return Err(conversion("map[string]interface {}", other)),
        };
        let default = &v[v.len() - 2];
        let keys: Vec<&str> = v[..v.len() - 2]
            .iter()
            .map(|k| match k {
                Value::String(s) => Ok(&**s),
                other => Err(conversion("string", other)),
            })
            .collect::<Result<_, _>>()?;
        dig(&dict, default, &keys)
    });
}

fn str_arg(v: &Value) -> Result<&str, FuncError> {
    match v {
        Value::String(s) => Ok(s),
        other => Err(crate::args::wrong_type("string", other)),
    }
}

/// Go's text for a failed `x.(T)` type assertion on an `interface{}`.
fn conversion(want: &str, got: &Value) -> FuncError {
    let got = match got {
        Value::Nil => "nil".to_string(),
        other => certgate_gotemplate::type_name(other).to_string(),
    };
    call_err(format!("interface conversion: interface {{}} is {got}, not {want}"))
}

fn dig(dict: &Arc<Map>, default: &Value, keys: &[&str]) -> Result<Value, FuncError> {
    let Some((first, rest)) = keys.split_first() else {
        return Ok(default.clone());
    };
    let Some(step) = dict.get(*first) else {
        return Ok(default.clone());
    };
    if rest.is_empty() {
        return Ok(step.clone());
    }
    match step {
        Value::Map(d) => dig(d, default, rest),
        other => Err(conversion("map[string]interface {}", other)),
    }
}

/// mergo's map merge as sprig configures it: keys missing (or holding an empty value) in `dst`
/// are filled from `src`; nested dictionaries merge recursively; with `overwrite`, every
/// non-nil `src` value replaces the `dst` one, except that non-empty lists and nested
/// dictionaries in `dst` are merged/kept as mergo does.
pub fn merge_into(dst: &mut Map, src: &Map, overwrite: bool) {
    for (k, sv) in src {
        let dv = dst.get(k).cloned();
        match sv {
            Value::Nil => {
                if overwrite {
                    dst.insert(k.clone(), Value::Nil);
                }
                continue;
            }
            Value::Map(sm) => {
                if let Some(Value::Map(dm)) = &dv
                    && !dm.is_empty()
                {
                    let mut inner = (**dm).clone();
                    merge_into(&mut inner, sm, overwrite);
                    dst.insert(k.clone(), map_value(inner));
                    continue;
                }
            }
            Value::List(_) => {
                if let Some(d) = &dv
                    && !is_empty(d)
                    && !overwrite
                {
                    continue;
                }
            }
            _ => {}
        }
        let replace = overwrite || dv.as_ref().is_none_or(is_empty);
        if replace {
            dst.insert(k.clone(), sv.clone());
        }
    }
}
