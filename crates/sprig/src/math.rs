//! Integer and float math. Integer functions convert every argument with cast's `ToInt64`
//! rules; the `*f` functions compute in decimal (as sprig does with shopspring/decimal), so
//! `addf 0.1 0.2` is 0.3, then convert back to float64.

use certgate_gotemplate::{FuncError, FuncMap, Value};

use crate::args::{Arity, call_err, reg};
use crate::convert::{to_float64, to_int64};

/// Go's integer `/` and `%`: division by zero panics (a call error here); overflow wraps.
fn int_div(a: i64, b: i64, rem: bool) -> Result<Value, FuncError> {
    if b == 0 {
        return Err(call_err("runtime error: integer divide by zero"));
    }
    Ok(Value::Int(if rem { a.wrapping_rem(b) } else { a.wrapping_div(b) }))
}

pub fn register(m: &mut FuncMap) {
    reg(m, "add1", Arity::Exact(1), |a| Ok(Value::Int(to_int64(a.any(0)).wrapping_add(1))));
    reg(m, "add", Arity::AtLeast(0), |a| {
        Ok(Value::Int(a.rest(0).iter().fold(0i64, |acc, v| acc.wrapping_add(to_int64(v)))))
    });
    reg(m, "sub", Arity::Exact(2), |a| {
        Ok(Value::Int(to_int64(a.any(0)).wrapping_sub(to_int64(a.any(1)))))
    });
    reg(m, "div", Arity::Exact(2), |a| int_div(to_int64(a.any(0)), to_int64(a.any(1)), false));
    reg(m, "mod", Arity::Exact(2), |a| int_div(to_int64(a.any(0)), to_int64(a.any(1)), true));
    reg(m, "mul", Arity::AtLeast(1), |a| {
        Ok(Value::Int(
            a.rest(1).iter().fold(to_int64(a.any(0)), |acc, v| acc.wrapping_mul(to_int64(v))),
        ))
    });
    reg(m, "randInt", Arity::Exact(2), |a| {
        let (min, max) = (a.int(0)?, a.int(1)?);
        let span = max
            .checked_sub(min)
            .filter(|n| *n > 0)
            .ok_or_else(|| call_err("invalid argument to Intn"))?;
        let r = crate::crypto::random_below(span as u64)?;
        Ok(Value::Int(min + r as i64))
    });
    for name in ["max", "biggest"] {
        reg(m, name, Arity::AtLeast(1), |a| {
            Ok(Value::Int(a.rest(1).iter().map(to_int64).fold(to_int64(a.any(0)), i64::max)))
        });
    }
    reg(m, "min", Arity::AtLeast(1), |a| {
        Ok(Value::Int(a.rest(1).iter().map(to_int64).fold(to_int64(a.any(0)), i64::min)))
    });
    reg(m, "maxf", Arity::AtLeast(1), |a| {
        Ok(Value::Float(a.rest(1).iter().map(to_float64).fold(to_float64(a.any(0)), go_max)))
    });
    reg(m, "minf", Arity::AtLeast(1), |a| {
        Ok(Value::Float(a.rest(1).iter().map(to_float64).fold(to_float64(a.any(0)), go_min)))
    });
    reg(m, "floor", Arity::Exact(1), |a| Ok(Value::Float(to_float64(a.any(0)).floor())));
    reg(m, "ceil", Arity::Exact(1), |a| Ok(Value::Float(to_float64(a.any(0)).ceil())));
    reg(m, "round", Arity::AtLeast(2), |a| {
        let places = a.int(1)?;
        let round_on = match a.values.get(2) {
            Some(Value::Float(f)) => *f,
            Some(Value::Int(n)) => *n as f64,
            Some(other) => return Err(crate::args::wrong_type("float64", other)),
            None => 0.5,
        };
        Ok(Value::Float(round(to_float64(a.any(0)), places, round_on)))
    });
    reg(m, "add1f", Arity::Exact(1), |a| {
        Ok(Value::Float(dec_op(to_float64(a.any(0)), &[1.0], Op::Add)))
    });
    reg(m, "addf", Arity::AtLeast(0), |a| {
        let rest: Vec<f64> = a.rest(0).iter().map(to_float64).collect();
        Ok(Value::Float(dec_op(0.0, &rest, Op::Add)))
    });
    for (name, op) in [("subf", Op::Sub), ("mulf", Op::Mul), ("divf", Op::Div)] {
        reg(m, name, Arity::AtLeast(1), move |a| {
            let rest: Vec<f64> = a.rest(1).iter().map(to_float64).collect();
            if op == Op::Div && rest.contains(&0.0) {
                return Err(call_err("decimal division by 0"));
            }
            Ok(Value::Float(dec_op(to_float64(a.any(0)), &rest, op)))
        });
    }
}

/// Go's `math.Max`/`math.Min` (NaN wins).
fn go_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }
}

fn go_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.min(b) }
}

/// sprig's `round`: scale by 10^places, round up when the fractional part reaches `round_on`
/// (default .5), otherwise down.
fn round(val: f64, places: i64, round_on: f64) -> f64 {
    let pow = 10f64.powi(places.clamp(-400, 400) as i32);
    let digit = pow * val;
    let frac = digit.fract();
    let r = if frac >= round_on { digit.ceil() } else { digit.floor() };
    r / pow
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// A decimal number `mant × 10^exp`, exact within i128.
#[derive(Clone, Copy)]
struct Dec {
    mant: i128,
    exp: i32,
}

impl Dec {
    /// The shortest decimal that round-trips to `f` (shopspring's `NewFromFloat`).
    fn from_f64(f: f64) -> Option<Dec> {
        if !f.is_finite() {
            return None;
        }
        let e = format!("{f:e}");
        let (m, x) = e.split_once('e')?;
        let x: i32 = x.parse().ok()?;
        let frac_digits = m.split_once('.').map_or(0, |(_, fr)| fr.len() as i32);
        let mant: i128 = m.replace('.', "").parse().ok()?;
        Some(Dec { mant, exp: x - frac_digits })
    }

    fn to_f64(self) -> f64 {
        format!("{}e{}", self.mant, self.exp).parse().unwrap_or(f64::NAN)
    }

    fn align(a: Dec, b: Dec) -> Option<(i128, i128, i32)> {
        let exp = a.exp.min(b.exp);
        let sa = scale(a.mant, a.exp - exp)?;
        let sb = scale(b.mant, b.exp - exp)?;
        Some((sa, sb, exp))
    }

    fn apply(a: Dec, b: Dec, op: Op) -> Option<Dec> {
        match op {
            Op::Add => {
                let (x, y, exp) = Dec::align(a, b)?;
                Some(Dec { mant: x.checked_add(y)?, exp })
            }
            Op::Sub => {
                let (x, y, exp) = Dec::align(a, b)?;
                Some(Dec { mant: x.checked_sub(y)?, exp })
            }
            Op::Mul => {
                Some(Dec { mant: a.mant.checked_mul(b.mant)?, exp: a.exp.checked_add(b.exp)? })
            }
            Op::Div => {
                // shopspring divides to 16 decimal places, rounding half away from zero.
                if b.mant == 0 {
                    return None;
                }
                let target = -16i32;
                // a/b = (a.mant / b.mant) × 10^(a.exp − b.exp); scale the numerator so the
                // quotient has `target` exponent plus one guard digit.
                let shift = a.exp - b.exp - (target - 1);
                let (num, den) = if shift >= 0 {
                    (scale(a.mant, shift)?, b.mant)
                } else {
                    (a.mant, scale(b.mant, -shift)?)
                };
                let q = num / den;
                let rounded = if q >= 0 { q.checked_add(5)? / 10 } else { q.checked_sub(5)? / 10 };
                Some(Dec { mant: rounded, exp: target })
            }
        }
    }
}

fn scale(m: i128, by: i32) -> Option<i128> {
    if !(0..=38).contains(&by) {
        return None;
    }
    m.checked_mul(10i128.checked_pow(by as u32)?)
}

/// Folds `rest` into `first` with decimal arithmetic; falls back to float arithmetic when a
/// value does not fit (huge exponents), where sprig's arbitrary precision would still be exact.
fn dec_op(first: f64, rest: &[f64], op: Op) -> f64 {
    let mut acc = Dec::from_f64(first);
    let mut facc = first;
    for r in rest {
        facc = match op {
            Op::Add => facc + r,
            Op::Sub => facc - r,
            Op::Mul => facc * r,
            Op::Div => facc / r,
        };
        acc = acc.and_then(|a| Dec::apply(a, Dec::from_f64(*r)?, op));
    }
    match acc {
        Some(d) => d.to_f64(),
        None => facc,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use certgate_gofmt::format_float_g;

    #[test]
    fn decimal_ops() {
        assert_eq!(format_float_g(dec_op(0.0, &[0.1, 0.2], Op::Add)), "0.3");
        assert_eq!(dec_op(1.0, &[3.0], Op::Div), 0.3333333333333333);
        assert_eq!(dec_op(10.0, &[4.0], Op::Div), 2.5);
        assert_eq!(dec_op(1.5, &[2.0], Op::Mul), 3.0);
        assert_eq!(dec_op(-2.0, &[3.0], Op::Div), -0.6666666666666667);
    }
}
