//! `urlParse` and `urlJoin` over Go's `net/url` rules (the common subset: scheme, opaque,
//! userinfo, host, path, query, fragment, with Go's escaping when joining).

use certgate_gotemplate::{FuncError, FuncMap, Value};

use crate::args::{Arity, Map, call_err, map_value, reg, s};

fn unescape(st: &str) -> Result<String, String> {
    let b = st.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(v) => {
                    out.push(v);
                    i += 3;
                }
                None => {
                    let end = (i + 3).min(b.len());
                    return Err(format!(
                        "invalid URL escape {}",
                        certgate_gofmt::quote(&String::from_utf8_lossy(&b[i..end]))
                    ));
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(certgate_gofmt::lossy_utf8(&out))
}

struct Url {
    scheme: String,
    opaque: String,
    user: Option<String>,
    host: String,
    path: String,
    raw_query: String,
    fragment: String,
}

fn parse(raw: &str) -> Result<Url, String> {
    let wrap = |e: String| format!("parse {}: {e}", certgate_gofmt::quote(raw));
    let (rest, fragment) = match raw.split_once('#') {
        Some((r, f)) => (r, unescape(f).map_err(wrap)?),
        None => (raw, String::new()),
    };
    let mut u = Url {
        scheme: String::new(),
        opaque: String::new(),
        user: None,
        host: String::new(),
        path: String::new(),
        raw_query: String::new(),
        fragment,
    };
    let mut rest = rest;
    // Scheme: letter followed by letters, digits, + - . then ':'.
    for (i, c) in rest.char_indices() {
        if c.is_ascii_alphabetic() {
            continue;
        }
        if i > 0 && (c.is_ascii_digit() || "+-.".contains(c)) {
            continue;
        }
        if c == ':' {
            if i == 0 {
                return Err(wrap("missing protocol scheme".into()));
            }
            u.scheme = rest[..i].to_ascii_lowercase();
            rest = &rest[i + 1..];
        }
        break;
    }
    if let Some((r, q)) = rest.split_once('?') {
        u.raw_query = q.to_string();
        rest = r;
    }
    if !rest.starts_with('/') && !u.scheme.is_empty() {
        u.opaque = rest.to_string();
        return Ok(u);
    }
    if let Some(after) = rest.strip_prefix("//") {
        let (authority, path) = match after.find('/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, ""),
        };
        let host = match authority.rsplit_once('@') {
            Some((user, host)) => {
                u.user = Some(user.to_string());
                host
            }
            None => authority,
        };
        u.host = unescape(host).map_err(wrap)?;
        rest = path;
    }
    u.path = unescape(rest).map_err(wrap)?;
    Ok(u)
}

fn hostname(host: &str) -> String {
    if let Some(inner) = host.strip_prefix('[') {
        return inner.split(']').next().unwrap_or("").to_string();
    }
    match host.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h.to_string(),
        _ => host.to_string(),
    }
}

/// Go's `shouldEscape` for paths (`fragment` also keeps `!()*`).
fn escape(st: &str, fragment: bool) -> String {
    let mut out = String::new();
    for &c in st.as_bytes() {
        let keep = c.is_ascii_alphanumeric()
            || b"-_.~$&+,/:;=@".contains(&c)
            || (fragment && b"!()*?".contains(&c));
        if keep {
            out.push(c as char);
        } else {
            out.push_str(&format!("%{c:02X}"));
        }
    }
    out
}

fn user_string(user: &str) -> String {
    // Userinfo.String escapes what is not allowed in userinfo; keep the common characters.
    user.to_string()
}

fn get_str(d: &Map, key: &str) -> Result<String, FuncError> {
    match d.get(key) {
        None => Ok(String::new()),
        Some(Value::String(v)) => Ok(v.to_string()),
        Some(other) => Err(call_err(format!(
            "unable to parse {key} key, must be of type string, but {} found",
            certgate_gotemplate::type_name(other)
        ))),
    }
}

pub fn register(m: &mut FuncMap) {
    reg(m, "urlParse", Arity::Exact(1), |a| {
        let u = parse(a.str(0)?).map_err(|e| call_err(format!("unable to parse url: {e}")))?;
        let mut d = Map::new();
        d.insert("scheme".into(), s(&u.scheme));
        d.insert("host".into(), s(&u.host));
        d.insert("hostname".into(), s(hostname(&u.host)));
        d.insert("path".into(), s(&u.path));
        d.insert("query".into(), s(&u.raw_query));
        d.insert("opaque".into(), s(&u.opaque));
        d.insert("fragment".into(), s(&u.fragment));
        d.insert("userinfo".into(), s(u.user.as_deref().map(user_string).unwrap_or_default()));
        Ok(map_value(d))
    });
    reg(m, "urlJoin", Arity::Exact(1), |a| {
        let d = a.map(0)?;
        let scheme = get_str(&d, "scheme")?;
        let host = get_str(&d, "host")?;
        let path = get_str(&d, "path")?;
        let query = get_str(&d, "query")?;
        let opaque = get_str(&d, "opaque")?;
        let fragment = get_str(&d, "fragment")?;
        let userinfo = get_str(&d, "userinfo")?;
        let mut out = String::new();
        if !scheme.is_empty() {
            out.push_str(&scheme);
            out.push(':');
        }
        if !opaque.is_empty() {
            out.push_str(&opaque);
        } else {
            if !scheme.is_empty() || !host.is_empty() || !userinfo.is_empty() {
                if !host.is_empty() || !path.is_empty() || !userinfo.is_empty() {
                    out.push_str("//");
                }
                if !userinfo.is_empty() {
                    out.push_str(&userinfo);
                    out.push('@');
                }
                out.push_str(&host);
            }
            let ep = escape(&path, false);
            if !ep.is_empty() && !ep.starts_with('/') && !host.is_empty() {
                out.push('/');
            }
            out.push_str(&ep);
        }
        if !query.is_empty() {
            out.push('?');
            out.push_str(&query);
        }
        if !fragment.is_empty() {
            out.push('#');
            out.push_str(&escape(&fragment, true));
        }
        Ok(s(out))
    });
}
