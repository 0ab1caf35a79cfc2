//! Slash-separated path functions (Go's `path`; `filepath` is the same on Linux).

use certgate_gotemplate::{FuncMap, Value};

use crate::args::{Arity, reg, s};

/// Go's `path.Clean`: lexical processing of `.`, `..` and repeated slashes.
pub fn clean(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let rooted = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|l| *l != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

pub fn base(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".into();
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
}

pub fn dir(p: &str) -> String {
    let cut = p.rfind('/').map_or(0, |i| i + 1);
    clean(&p[..cut])
}

pub fn ext(p: &str) -> String {
    for (i, c) in p.char_indices().rev() {
        if c == '/' {
            break;
        }
        if c == '.' {
            return p[i..].to_string();
        }
    }
    String::new()
}

pub fn register(m: &mut FuncMap) {
    for (plain, os) in
        [("base", "osBase"), ("dir", "osDir"), ("clean", "osClean"), ("ext", "osExt")]
    {
        let f: fn(&str) -> String = match plain {
            "base" => base,
            "dir" => dir,
            "clean" => clean,
            _ => ext,
        };
        reg(m, plain, Arity::Exact(1), move |a| Ok(s(f(a.str(0)?))));
        reg(m, os, Arity::Exact(1), move |a| Ok(s(f(a.str(0)?))));
    }
    reg(m, "isAbs", Arity::Exact(1), |a| Ok(Value::Bool(a.str(0)?.starts_with('/'))));
    reg(m, "osIsAbs", Arity::Exact(1), |a| Ok(Value::Bool(a.str(0)?.starts_with('/'))));
}
