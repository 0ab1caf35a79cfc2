//! Type reflection functions and OS/network access.

use std::net::ToSocketAddrs;

use certgate_gotemplate::{FuncMap, Value, type_name};

use crate::args::{Arity, reg, s};
use crate::lists::{deep_equal, kind_name};

pub fn register(m: &mut FuncMap) {
    reg(m, "typeOf", Arity::Exact(1), |a| Ok(s(type_name(a.any(0)))));
    reg(m, "typeIs", Arity::Exact(2), |a| Ok(Value::Bool(a.str(0)? == type_name(a.any(1)))));
    reg(m, "typeIsLike", Arity::Exact(2), |a| {
        let t = type_name(a.any(1));
        let target = a.str(0)?;
        Ok(Value::Bool(target == t || format!("*{target}") == t))
    });
    reg(m, "kindOf", Arity::Exact(1), |a| Ok(s(kind_name(a.any(0)))));
    reg(m, "kindIs", Arity::Exact(2), |a| Ok(Value::Bool(a.str(0)? == kind_name(a.any(1)))));
    reg(m, "deepEqual", Arity::Exact(2), |a| Ok(Value::Bool(deep_equal(a.any(0), a.any(1)))));

    reg(m, "env", Arity::Exact(1), |a| Ok(s(std::env::var(a.str(0)?).unwrap_or_default())));
    reg(m, "expandenv", Arity::Exact(1), |a| Ok(s(expand_env(a.str(0)?))));
    reg(m, "getHostByName", Arity::Exact(1), |a| {
        // sprig picks one of the resolved addresses at random; with none, Go's
        // `rand.Intn(0)` panics.
        let name = a.str(0)?;
        let mut addrs: Vec<String> = (name, 0u16)
            .to_socket_addrs()
            .map(|it| it.map(|sa| sa.ip().to_string()).collect())
            .unwrap_or_default();
        addrs.dedup();
        if addrs.is_empty() {
            return Err(crate::args::call_err("invalid argument to Intn"));
        }
        let pick = crate::crypto::random_below(addrs.len() as u64)? as usize;
        Ok(s(addrs.swap_remove(pick)))
    });
}

/// Go's `os.ExpandEnv`: `$NAME` and `${NAME}` replaced by the variable (empty if unset).
pub fn expand_env(st: &str) -> String {
    let b = st.as_bytes();
    let mut out = String::with_capacity(st.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] == b'$' && i + 1 < b.len() {
            out.push_str(&st[last..i]);
            let (name, width) = shell_name(&st[i + 1..]);
            if name.is_none() && width > 0 {
                // Bad syntax (`${}`): dropped, like Go.
            } else if let Some(n) = name {
                out.push_str(&std::env::var(n).unwrap_or_default());
            } else {
                out.push('$');
            }
            i += 1 + width;
            last = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&st[last..]);
    out
}

/// Go's `getShellName`: the variable name after `$` and how many bytes it used.
fn shell_name(st: &str) -> (Option<&str>, usize) {
    let b = st.as_bytes();
    match b.first() {
        Some(b'{') => {
            if b.len() > 2 && is_special(b[1]) && b[2] == b'}' {
                return (Some(&st[1..2]), 3);
            }
            match st[1..].find('}') {
                Some(0) => (None, 2),
                Some(end) => (Some(&st[1..=end]), end + 2),
                None => (None, 1),
            }
        }
        Some(c) if is_special(*c) => (Some(&st[0..1]), 1),
        _ => {
            let n = b.iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
            if n == 0 { (None, 0) } else { (Some(&st[..n]), n) }
        }
    }
}

fn is_special(c: u8) -> bool {
    matches!(c, b'*' | b'#' | b'$' | b'@' | b'!' | b'?' | b'-') || c.is_ascii_digit()
}
