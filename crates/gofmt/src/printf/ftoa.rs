//! `strconv.FormatFloat(v, fmt, prec, 64)` for every format letter `fmt` prints floats with:
//! `e E f g G` (shortest with `prec < 0`, else rounded exactly), `b` and `x X`.

use std::fmt::Write as _;

use crate::float::{non_finite, shortest_digits};

/// Exact decimal expansions of a `float64` end within this many significant digits (767)
/// or fractional digits (1074); further requested digits are zeros, so they are appended
/// rather than asked of Rust's formatter (which refuses very long precisions).
const EXACT_DIGITS: usize = 1100;

/// Decimal digits `0.d1d2... × 10^point` (no trailing-zero guarantee); empty for zero.
struct Digits {
    digits: Vec<u8>,
    point: i64,
}

pub(crate) fn format_float(v: f64, fmt: char, prec: i64) -> String {
    if !v.is_finite() {
        return non_finite(v);
    }
    match fmt {
        'b' => return binary(v),
        'x' | 'X' => return hex(v, fmt, prec),
        _ => {}
    }
    let neg = v.is_sign_negative();
    let abs = v.abs();
    let mut out = String::new();
    if prec < 0 {
        let d = if abs == 0.0 { Digits { digits: Vec::new(), point: 0 } } else { shortest(abs) };
        let nd = d.digits.len() as i64;
        let prec = match fmt {
            'e' | 'E' => (nd - 1).max(0),
            'f' => (nd - d.point).max(0),
            _ => nd,
        };
        layout(&mut out, neg, &d, prec, fmt, true);
        return out;
    }
    match fmt {
        'f' => {
            if neg {
                out.push('-');
            }
            let asked = usize::try_from(prec).unwrap_or(usize::MAX);
            let exact = asked.min(EXACT_DIGITS);
            let _ = write!(out, "{abs:.exact$}");
            out.extend(std::iter::repeat_n('0', asked - exact));
        }
        'e' | 'E' => {
            let d = rounded(abs, prec.saturating_add(1));
            layout(&mut out, neg, &d, prec, fmt, false);
        }
        _ => {
            let prec = prec.max(1);
            let mut d = rounded(abs, prec);
            while d.digits.last() == Some(&b'0') {
                d.digits.pop();
            }
            layout(&mut out, neg, &d, prec, fmt, false);
        }
    }
    out
}

fn shortest(abs: f64) -> Digits {
    let (digits, point) = shortest_digits(abs);
    Digits { digits: digits.into_bytes(), point: i64::from(point) }
}

/// `abs` rounded (half to even, exactly) to `significant` digits.
fn rounded(abs: f64, significant: i64) -> Digits {
    if abs == 0.0 {
        return Digits { digits: Vec::new(), point: 0 };
    }
    let after = usize::try_from(significant - 1).unwrap_or(0).min(EXACT_DIGITS);
    let text = format!("{abs:.after$e}");
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text.as_str(), "0"));
    let digits = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    Digits { digits, point: exponent.parse::<i64>().unwrap_or(0) + 1 }
}

/// strconv's `formatDigits`: the `%e`, `%f` or `%g` layout of rounded digits.
fn layout(out: &mut String, neg: bool, d: &Digits, prec: i64, fmt: char, shortest: bool) {
    match fmt {
        'e' | 'E' => exponent(out, neg, d, prec, fmt),
        'f' => fixed(out, neg, d, prec),
        _ => {
            let nd = d.digits.len() as i64;
            let mut eprec = prec;
            if eprec > nd && nd >= d.point {
                eprec = nd;
            }
            if shortest {
                eprec = 6;
            }
            let exp = d.point - 1;
            if exp < -4 || exp >= eprec {
                let letter = if fmt == 'G' { 'E' } else { 'e' };
                exponent(out, neg, d, prec.min(nd) - 1, letter);
            } else {
                let prec = if prec > d.point { nd } else { prec };
                fixed(out, neg, d, (prec - d.point).max(0));
            }
        }
    }
}

fn exponent(out: &mut String, neg: bool, d: &Digits, prec: i64, letter: char) {
    if neg {
        out.push('-');
    }
    out.push(d.digits.first().map_or('0', |&c| char::from(c)));
    if prec > 0 {
        out.push('.');
        let prec = usize::try_from(prec).unwrap_or(0);
        let have = d.digits.len().min(prec + 1);
        out.extend(d.digits.get(1..have).unwrap_or(&[]).iter().map(|&c| char::from(c)));
        out.extend(std::iter::repeat_n('0', (prec + 1).saturating_sub(have.max(1))));
    }
    out.push(letter);
    let exp = if d.digits.is_empty() { 0 } else { d.point - 1 };
    out.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", exp.unsigned_abs());
}

fn fixed(out: &mut String, neg: bool, d: &Digits, prec: i64) {
    if neg {
        out.push('-');
    }
    let nd = d.digits.len() as i64;
    if d.point > 0 {
        let m = nd.min(d.point);
        out.extend(d.digits[..m as usize].iter().map(|&c| char::from(c)));
        out.extend(std::iter::repeat_n('0', (d.point - m) as usize));
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            let j = d.point + i - 1;
            let c = if (0..nd).contains(&j) { char::from(d.digits[j as usize]) } else { '0' };
            out.push(c);
        }
    }
}

/// Mantissa and binary exponent as strconv sees them (denormals with exponent −1022).
fn parts(v: f64) -> (u64, i64) {
    let bits = v.to_bits();
    let mut exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mant = bits & ((1 << 52) - 1);
    if exp == 0 {
        exp += 1;
    } else {
        mant |= 1 << 52;
    }
    (mant, exp - 1023)
}

/// `%b`: `-ddddp±ddd`, the mantissa times two to the exponent.
fn binary(v: f64) -> String {
    let (mant, exp) = parts(v);
    let exp = exp - 52;
    let sign = if v.is_sign_negative() { "-" } else { "" };
    let exp_sign = if exp >= 0 { "+" } else { "" };
    format!("{sign}{mant}p{exp_sign}{exp}")
}

/// `%x`: `-0x1.hhhp±dd`, rounded to `prec` hex digits (half to even) when `prec` < 15.
fn hex(v: f64, fmt: char, prec: i64) -> String {
    let (mut mant, mut exp) = parts(v);
    if mant == 0 {
        exp = 0;
    }
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if (0..15).contains(&prec) {
        let shift = (prec * 4) as u32;
        let extra = (mant << shift) & ((1 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let upper = fmt == 'X';
    let digit = |d: u64| {
        let c = char::from_digit(d as u32, 16).unwrap_or('0');
        if upper { c.to_ascii_uppercase() } else { c }
    };
    let mut out = String::new();
    if v.is_sign_negative() {
        out.push('-');
    }
    out.push('0');
    out.push(fmt);
    out.push(digit((mant >> 60) & 1));
    mant <<= 4;
    if prec < 0 && mant != 0 {
        out.push('.');
        while mant != 0 {
            out.push(digit((mant >> 60) & 15));
            mant <<= 4;
        }
    } else if prec > 0 {
        out.push('.');
        for _ in 0..prec {
            out.push(digit((mant >> 60) & 15));
            mant <<= 4;
        }
    }
    out.push(if upper { 'P' } else { 'p' });
    out.push(if exp < 0 { '-' } else { '+' });
    let _ = write!(out, "{:02}", exp.unsigned_abs());
    out
}

#[cfg(test)]
mod tests {
    use super::format_float;

    /// Outputs recorded from Go 1.26's strconv.FormatFloat (through fmt).
    #[test]
    fn matches_go() {
        for (v, fmt, prec, want) in [
            (1.0, 'g', 3, "1"),
            (1e100, 'e', 6, "1.000000e+100"),
            (1e-7, 'G', -1, "1E-07"),
            (15.5, 'e', 0, "2e+01"),
            (1.0, 'x', 3, "0x1.000p+00"),
            (3.0, 'x', -1, "0x1.8p+01"),
            (-0.1, 'X', -1, "-0X1.999999999999AP-04"),
            (1.0, 'b', -1, "4503599627370496p-52"),
            (1e21, 'g', -1, "1e+21"),
            (0.0, 'g', 3, "0"),
            (0.0, 'e', 2, "0.00e+00"),
        ] {
            assert_eq!(format_float(v, fmt, prec), want, "{v} {fmt} {prec}");
        }
    }
}
