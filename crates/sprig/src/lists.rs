//! List functions. sprig's plain versions panic where the `must*` ones return an error; Go's
//! template engine turns both into `error calling <fn>: <msg>`, so both report the same text.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use certgate_gotemplate::{FuncError, FuncMap, Value};

use crate::args::{Arity, call_err, check_size, list, reg, s};
use crate::convert::{is_empty, to_int64};
use crate::gofmt::sprint;

/// reflect's kind name of a non-list value, as sprig prints it in `Cannot … on type %s`.
pub fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "invalid",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Uint(_) => "uint64",
        Value::Float(_) => "float64",
        Value::String(_) => "string",
        Value::List(_) => "slice",
        Value::Map(_) => "map",
        _ => "func",
    }
}

/// Go panics when sprig asks `reflect.TypeOf(nil).Kind()`.
const NIL_DEREF: &str = "runtime error: invalid memory address or nil pointer dereference";

/// The list argument, or sprig's `Cannot <what> on type <kind>` error.
fn as_list<'a>(v: &'a Value, what: &str) -> Result<&'a [Value], FuncError> {
    match v {
        Value::List(items) => Ok(items),
        Value::Nil => Err(call_err(NIL_DEREF)),
        // `chunk` alone says "Cannot chunk type …".
        other if what == "chunk" => {
            Err(call_err(format!("Cannot chunk type {}", kind_name(other))))
        }
        other => Err(call_err(format!("Cannot {what} on type {}", kind_name(other)))),
    }
}

fn both(
    m: &mut FuncMap,
    names: &[&'static str],
    arity: Arity,
    f: fn(&crate::args::Args<'_>) -> Result<Value, FuncError>,
) {
    for name in names {
        reg(m, name, arity, f);
    }
}

pub fn register(m: &mut FuncMap) {
    reg(m, "list", Arity::AtLeast(0), |a| Ok(list(a.rest(0).to_vec())));
    reg(m, "tuple", Arity::AtLeast(0), |a| Ok(list(a.rest(0).to_vec())));
    both(m, &["append", "push", "mustAppend", "mustPush"], Arity::Exact(2), |a| {
        let items = as_list(a.any(0), "push")?;
        check_size(a.name, items.len() + 1)?;
        let mut out = items.to_vec();
        out.push(a.any(1).clone());
        Ok(list(out))
    });
    both(m, &["prepend", "mustPrepend"], Arity::Exact(2), |a| {
        let items = as_list(a.any(0), "prepend")?;
        check_size(a.name, items.len() + 1)?;
        let mut out = Vec::with_capacity(items.len() + 1);
        out.push(a.any(1).clone());
        out.extend_from_slice(items);
        Ok(list(out))
    });
    both(m, &["first", "mustFirst"], Arity::Exact(1), |a| {
        Ok(as_list(a.any(0), "find first")?.first().cloned().unwrap_or(Value::Nil))
    });
    both(m, &["last", "mustLast"], Arity::Exact(1), |a| {
        Ok(as_list(a.any(0), "find last")?.last().cloned().unwrap_or(Value::Nil))
    });
    both(m, &["rest", "mustRest"], Arity::Exact(1), |a| {
        let items = as_list(a.any(0), "find rest")?;
        // Go returns a nil `[]interface {}` for an empty list: typed, so it prints `[]`.
        Ok(list(items.get(1..).unwrap_or_default().to_vec()))
    });
    both(m, &["initial", "mustInitial"], Arity::Exact(1), |a| {
        let items = as_list(a.any(0), "find initial")?;
        Ok(list(items.get(..items.len().saturating_sub(1)).unwrap_or_default().to_vec()))
    });
    both(m, &["reverse", "mustReverse"], Arity::Exact(1), |a| {
        let mut out = as_list(a.any(0), "find reverse")?.to_vec();
        out.reverse();
        Ok(list(out))
    });
    both(m, &["compact", "mustCompact"], Arity::Exact(1), |a| {
        let items = as_list(a.any(0), "compact")?;
        Ok(list(items.iter().filter(|v| !is_empty(v)).cloned().collect()))
    });
    both(m, &["uniq", "mustUniq"], Arity::Exact(1), |a| {
        let items = as_list(a.any(0), "find uniq")?;
        // Compared within buckets of equal hashes: comparing every item with every kept one
        // takes minutes on a list of 100,000.
        let mut out: Vec<Value> = Vec::new();
        let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
        for item in items {
            let bucket = buckets.entry(equality_hash(item)).or_default();
            if !bucket.iter().any(|&kept| deep_equal(&out[kept], item)) {
                bucket.push(out.len());
                out.push(item.clone());
            }
        }
        Ok(list(out))
    });
    both(m, &["without", "mustWithout"], Arity::AtLeast(1), |a| {
        let items = as_list(a.any(0), "find without")?;
        let omit = a.rest(1);
        Ok(list(items.iter().filter(|v| !omit.iter().any(|o| deep_equal(o, v))).cloned().collect()))
    });
    both(m, &["has", "mustHas"], Arity::Exact(2), |a| {
        let needle = a.any(0);
        match a.any(1) {
            Value::Nil => Ok(Value::Bool(false)),
            Value::List(items) => Ok(Value::Bool(items.iter().any(|i| deep_equal(i, needle)))),
            other => Err(call_err(format!("Cannot find has on type {}", kind_name(other)))),
        }
    });
    both(m, &["slice", "mustSlice"], Arity::AtLeast(1), |a| {
        let items = match a.any(0) {
            Value::List(items) => items,
            Value::Nil => return Err(call_err(NIL_DEREF)),
            other => {
                return Err(call_err(format!(
                    "list should be type of slice or array but {}",
                    kind_name(other)
                )));
            }
        };
        if items.is_empty() {
            return Ok(Value::Nil);
        }
        let len = items.len() as i64;
        let start = a.values.get(1).map_or(0, to_int64);
        let end = a.values.get(2).map_or(len, to_int64);
        if start < 0 || end < start || end > len {
            return Err(call_err("reflect.Value.Slice: slice index out of bounds"));
        }
        Ok(list(items[start as usize..end as usize].to_vec()))
    });
    reg(m, "concat", Arity::AtLeast(0), |a| {
        let mut out = Vec::new();
        for v in a.rest(0) {
            match v {
                Value::List(items) => {
                    check_size("concat", out.len() + items.len())?;
                    out.extend_from_slice(items);
                }
                Value::Nil => return Err(call_err(NIL_DEREF)),
                other => {
                    return Err(call_err(format!(
                        "Cannot concat type {} as list",
                        kind_name(other)
                    )));
                }
            }
        }
        Ok(list(out))
    });
    both(m, &["chunk", "mustChunk"], Arity::Exact(2), |a| {
        let size = a.int(0)?;
        let items = as_list(a.any(1), "chunk")?;
        chunk(size, items).map(list)
    });
    reg(m, "until", Arity::Exact(1), |a| {
        let count = a.int(0)?;
        until_step(0, count, if count < 0 { -1 } else { 1 }).map(ints)
    });
    reg(m, "untilStep", Arity::Exact(3), |a| until_step(a.int(0)?, a.int(1)?, a.int(2)?).map(ints));
    reg(m, "seq", Arity::AtLeast(0), |a| {
        let p: Vec<i64> = a
            .rest(0)
            .iter()
            .enumerate()
            .map(|(i, v)| crate::args::value_int(v).map_err(|e| e.at_argument(i)))
            .collect::<Result<_, _>>()?;
        let nums = match p.as_slice() {
            [end] => {
                let inc = if *end < 1 { -1 } else { 1 };
                until_step(1, end.saturating_add(inc), inc)?
            }
            [start, end] => {
                let step = if end < start { -1 } else { 1 };
                until_step(*start, end.saturating_add(step), step)?
            }
            // sprig's three-argument form is `seq FIRST INCREMENT LAST`, as GNU seq.
            [start, step, end] => {
                let inc = if end < start { -1 } else { 1 };
                if end < start && *step > 0 {
                    return Ok(s(""));
                }
                until_step(*start, end.saturating_add(inc), *step)?
            }
            _ => return Ok(s("")),
        };
        let parts: Vec<String> = nums.iter().map(i64::to_string).collect();
        Ok(s(parts.join(" ")))
    });
}

/// sprig's `chunk`, with its float arithmetic: `floor((len-1)/size)+1` chunks, the last one
/// `floor(mod(len, size))` long (or `size`). A size of 0 or below makes Go allocate a negative
/// length for some lengths (a runtime panic the template reports) and an empty list or a
/// single chunk for others.
fn chunk(size: i64, items: &[Value]) -> Result<Vec<Value>, FuncError> {
    let makeslice = || call_err("runtime error: makeslice: len out of range");
    let len = items.len() as f64;
    let count = go_int(((len - 1.0) / size as f64).floor() + 1.0);
    if count < 0 {
        return Err(makeslice());
    }
    let mut chunks = Vec::new();
    for i in 0..count {
        let mut chunk_len = size;
        if i == count - 1 {
            chunk_len = go_int((len % size as f64).floor());
            if chunk_len == 0 {
                chunk_len = size;
            }
        }
        if chunk_len < 0 {
            return Err(makeslice());
        }
        let chunk = (0..chunk_len)
            .map(|j| {
                let index = usize::try_from(i.saturating_mul(size).saturating_add(j)).ok();
                index
                    .and_then(|ix| items.get(ix))
                    .cloned()
                    .ok_or_else(|| call_err("reflect: slice index out of range"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        chunks.push(list(chunk));
    }
    Ok(chunks)
}

/// Go's float-to-int conversion on amd64: NaN and values out of range give `i64::MIN`.
fn go_int(f: f64) -> i64 {
    to_int64(&Value::Float(f))
}

fn ints(v: Vec<i64>) -> Value {
    list(v.into_iter().map(Value::Int).collect())
}

/// sprig's `untilStep`: counts from `start` towards `stop` (exclusive) by `step`; a step
/// pointing away from `stop` gives an empty list.
pub fn until_step(start: i64, stop: i64, step: i64) -> Result<Vec<i64>, FuncError> {
    let mut out = Vec::new();
    if stop < start {
        if step >= 0 {
            return Ok(out);
        }
        let n = ((start as i128 - stop as i128 - step as i128 - 1) / -(step as i128)) as u128;
        check_size("untilStep", usize::try_from(n).unwrap_or(usize::MAX))?;
        let mut i = start;
        while i > stop {
            out.push(i);
            i = match i.checked_add(step) {
                Some(n) => n,
                None => break,
            };
        }
        return Ok(out);
    }
    if step <= 0 {
        return Ok(out);
    }
    let n = ((stop as i128 - start as i128 + step as i128 - 1) / step as i128) as u128;
    check_size("untilStep", usize::try_from(n).unwrap_or(usize::MAX))?;
    let mut i = start;
    while i < stop {
        out.push(i);
        i = match i.checked_add(step) {
            Some(n) => n,
            None => break,
        };
    }
    Ok(out)
}

/// Go's `reflect.DeepEqual` for template values: same type and equal contents (an int and a
/// float are never equal; nil equals nil only).
/// A hash on which [`deep_equal`] values agree.
fn equality_hash(value: &Value) -> u64 {
    fn feed(value: &Value, hasher: &mut DefaultHasher) {
        match value {
            Value::List(items) => {
                (1u8, items.len()).hash(hasher);
                items.iter().for_each(|item| feed(item, hasher));
            }
            Value::Map(map) => {
                (2u8, map.len()).hash(hasher);
                for (key, item) in map.iter() {
                    key.hash(hasher);
                    feed(item, hasher);
                }
            }
            // 0.0 and -0.0 are equal; NaN equals nothing, so its hash does not matter.
            Value::Float(x) => (3u8, if *x == 0.0 { 0 } else { x.to_bits() }).hash(hasher),
            Value::Function(_) => 4u8.hash(hasher),
            other => (5u8, sprint(other)).hash(hasher),
        }
    }
    let mut hasher = DefaultHasher::new();
    feed(value, &mut hasher);
    hasher.finish()
}

pub fn deep_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| deep_equal(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter().zip(y.iter()).all(|((k1, v1), (k2, v2))| k1 == k2 && deep_equal(v1, v2))
        }
        (Value::Float(x), Value::Float(y)) => x == y,
        (Value::Function(_), _) | (_, Value::Function(_)) => false,
        _ => a == b && sprint(a) == sprint(b),
    }
}
