//! Defaults, flow control and JSON functions.

use certgate_gotemplate::{FuncError, FuncMap, Value, budget};

use crate::args::{Arity, call_err, reg, s};
use crate::convert::is_empty;
use crate::json::{decode, encode};

pub fn register(m: &mut FuncMap) {
    reg(m, "default", Arity::AtLeast(1), |a| {
        Ok(match a.values.get(1) {
            Some(given) if !is_empty(given) => given.clone(),
            _ => a.any(0).clone(),
        })
    });
    reg(m, "empty", Arity::Exact(1), |a| Ok(Value::Bool(is_empty(a.any(0)))));
    reg(m, "coalesce", Arity::AtLeast(0), |a| {
        Ok(a.rest(0).iter().find(|v| !is_empty(v)).cloned().unwrap_or(Value::Nil))
    });
    reg(m, "all", Arity::AtLeast(0), |a| Ok(Value::Bool(a.rest(0).iter().all(|v| !is_empty(v)))));
    reg(m, "any", Arity::AtLeast(0), |a| Ok(Value::Bool(a.rest(0).iter().any(|v| !is_empty(v)))));
    reg(m, "ternary", Arity::Exact(3), |a| {
        Ok(if a.bool(2)? { a.any(0).clone() } else { a.any(1).clone() })
    });
    reg(m, "fail", Arity::Exact(1), |a| Err(call_err(a.str(0)?)));

    reg(m, "fromJson", Arity::Exact(1), |a| Ok(decode(a.str(0)?).unwrap_or(Value::Nil)));
    reg(m, "mustFromJson", Arity::Exact(1), |a| decode(a.str(0)?).map_err(call_err));
    // (name, escape HTML, indent, must)
    for (name, html, pretty, must) in [
        ("toJson", true, false, false),
        ("mustToJson", true, false, true),
        ("toPrettyJson", true, true, false),
        ("mustToPrettyJson", true, true, true),
        ("toRawJson", false, false, false),
        ("mustToRawJson", false, false, true),
    ] {
        reg(m, name, Arity::Exact(1), move |a| {
            // Refused before encoding: a value sharing parts (a dictionary holding another
            // twice, nested) encodes to far more text than it occupies.
            budget::check_values(a.values, 1, 0)?;
            encode_result(a.any(0), html, pretty, must)
        });
    }
}

fn encode_result(value: &Value, html: bool, pretty: bool, must: bool) -> Result<Value, FuncError> {
    match encode(value, html, pretty) {
        Ok(text) => Ok(s(text)),
        Err(e) if must => Err(call_err(e)),
        Err(_) => Ok(s("")),
    }
}
