//! Masterminds/semver v3: lenient version parsing and constraint checks for `semver` and
//! `semverCompare`.

use std::cmp::Ordering;

use certgate_gotemplate::{FuncMap, Value};

use crate::args::{Arity, Map, call_err, map_value, reg, s};

/// Masterminds/semver v3.5 (what sprig v3.3.0 resolves to) words it in lower case.
const INVALID: &str = "invalid semantic version";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub meta: String,
    pub original: String,
}

fn valid_ident(part: &str) -> bool {
    !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// `semver.NewVersion`: an optional `v`, one to three numeric parts (missing ones are 0),
/// then `-prerelease` and `+metadata`.
pub fn parse_version(text: &str) -> Result<Version, String> {
    let body = text.strip_prefix('v').unwrap_or(text);
    let (body, meta) = match body.split_once('+') {
        Some((b, m)) => (b, m.to_string()),
        None => (body, String::new()),
    };
    let (core, pre) = match body.split_once('-') {
        Some((c, p)) => (c, p.to_string()),
        None => (body, String::new()),
    };
    let parts: Vec<&str> = core.split('.').collect();
    if core.is_empty() || parts.len() > 3 {
        return Err(INVALID.into());
    }
    let mut nums = [0u64; 3];
    for (i, p) in parts.iter().enumerate() {
        if p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()) {
            return Err(INVALID.into());
        }
        nums[i] = p.parse().map_err(|_| INVALID.to_string())?;
    }
    if !pre.is_empty() {
        for id in pre.split('.') {
            if !valid_ident(id) {
                return Err("Invalid Prerelease string".into());
            }
            if id.len() > 1 && id.starts_with('0') && id.chars().all(|c| c.is_ascii_digit()) {
                return Err("Version segment starts with 0".into());
            }
        }
    }
    if !meta.is_empty() && !meta.split('.').all(valid_ident) {
        return Err("Invalid Metadata string".into());
    }
    Ok(Version {
        major: nums[0],
        minor: nums[1],
        patch: nums[2],
        pre,
        meta,
        original: text.to_string(),
    })
}

fn cmp_pre(a: &str, b: &str) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    let (pa, pb): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for (x, y) in pa.iter().zip(pb.iter()) {
        let o = match (x.parse::<u64>(), y.parse::<u64>()) {
            (Ok(m), Ok(n)) => m.cmp(&n),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            _ => x.cmp(y),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    pa.len().cmp(&pb.len())
}

pub fn compare(a: &Version, b: &Version) -> Ordering {
    (a.major, a.minor, a.patch)
        .cmp(&(b.major, b.minor, b.patch))
        .then_with(|| cmp_pre(&a.pre, &b.pre))
}

/// One parsed constraint: operator, version (wildcards as 0) and which parts were wildcards.
#[derive(Debug)]
struct Constraint {
    op: String,
    v: Version,
    minor_dirty: bool,
    patch_dirty: bool,
    major_dirty: bool,
}

fn is_wild(p: &str) -> bool {
    matches!(p, "x" | "X" | "*")
}

fn parse_constraint(text: &str) -> Result<Constraint, String> {
    let text = text.trim();
    let ops = ["!=", ">=", "=>", "<=", "=<", "~>", "=", ">", "<", "~", "^"];
    let op = ops.iter().find(|o| text.starts_with(*o)).copied().unwrap_or("");
    let ver = text[op.len()..].trim();
    let refuse = || improper(text);
    if ver.is_empty() {
        return Err(refuse());
    }
    let ver_body = ver.strip_prefix('v').unwrap_or(ver);
    let (core, suffix) = match ver_body.find(['-', '+']) {
        Some(i) => (&ver_body[..i], &ver_body[i..]),
        None => (ver_body, ""),
    };
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() > 3 {
        return Err(refuse());
    }
    let major_dirty = parts.first().is_some_and(|p| is_wild(p));
    let minor_dirty = major_dirty || parts.get(1).is_none_or(|p| is_wild(p));
    let patch_dirty = minor_dirty || parts.get(2).is_none_or(|p| is_wild(p));
    let filled: Vec<&str> =
        (0..3).map(|i| parts.get(i).map_or("0", |p| if is_wild(p) { "0" } else { p })).collect();
    let v = parse_version(&format!("{}{suffix}", filled.join("."))).map_err(|_| refuse())?;
    let op = match op {
        "=>" => ">=",
        "=<" => "<=",
        "~>" => "~",
        "" => "=",
        o => o,
    };
    Ok(Constraint { op: op.to_string(), v, minor_dirty, patch_dirty, major_dirty })
}

impl Constraint {
    fn check(&self, v: &Version) -> bool {
        let c = &self.v;
        // Pre-release versions only satisfy constraints that name a pre-release.
        if !v.pre.is_empty() && c.pre.is_empty() {
            return false;
        }
        let ord = compare(v, c);
        match self.op.as_str() {
            "=" | "!=" => {
                let eq = if self.major_dirty {
                    true
                } else if self.minor_dirty {
                    v.major == c.major
                } else if self.patch_dirty {
                    v.major == c.major && v.minor == c.minor
                } else {
                    ord == Ordering::Equal
                };
                if self.op == "=" { eq } else { !eq }
            }
            ">" => {
                if self.major_dirty {
                    false
                } else if self.minor_dirty {
                    v.major > c.major
                } else if self.patch_dirty {
                    v.major > c.major || (v.major == c.major && v.minor > c.minor)
                } else {
                    ord == Ordering::Greater
                }
            }
            "<" => ord == Ordering::Less,
            ">=" => ord != Ordering::Less,
            "<=" => {
                if self.major_dirty {
                    true
                } else if self.minor_dirty {
                    v.major <= c.major
                } else if self.patch_dirty {
                    v.major < c.major || (v.major == c.major && v.minor <= c.minor)
                } else {
                    ord != Ordering::Greater
                }
            }
            "~" => {
                if ord == Ordering::Less {
                    return false;
                }
                if self.major_dirty {
                    return true;
                }
                if self.minor_dirty {
                    return v.major == c.major;
                }
                v.major == c.major && v.minor == c.minor
            }
            "^" => {
                if ord == Ordering::Less {
                    return false;
                }
                if self.major_dirty {
                    return true;
                }
                if c.major > 0 || self.minor_dirty {
                    return v.major == c.major;
                }
                if c.minor > 0 || self.patch_dirty {
                    return v.major == 0 && v.minor == c.minor;
                }
                v.major == 0 && v.minor == 0 && v.patch == c.patch
            }
            _ => false,
        }
    }
}

/// Masterminds/semver v3.5's text for a constraint it cannot parse (Go's `%q`).
fn improper(text: &str) -> String {
    let quoted = certgate_gotemplate::print::sprintf("%q", &[s(text)]);
    format!("improper constraint: {quoted}")
}

/// `semver.NewConstraint(text).Check(v)`: `||` alternatives of comma/space separated
/// constraints, with `a - b` ranges.
pub fn satisfies(constraint: &str, v: &Version) -> Result<bool, String> {
    let mut any = false;
    for alt in constraint.split("||") {
        let alt = alt.trim();
        let mut group: Vec<Constraint> = Vec::new();
        let tokens: Vec<&str> =
            alt.split([',', ' ']).map(str::trim).filter(|t| !t.is_empty()).collect();
        let mut i = 0;
        while i < tokens.len() {
            // An operator written apart from its version (`>= 1.2`).
            let mut tok = tokens[i].to_string();
            if tokens[i].chars().all(|c| "<>=!~^".contains(c))
                && let Some(next) = tokens.get(i + 1)
            {
                tok.push_str(next);
                i += 1;
            }
            if tokens.get(i + 1) == Some(&"-") {
                let hi = tokens.get(i + 2).ok_or_else(|| improper(alt))?;
                group.push(parse_constraint(&format!(">={tok}"))?);
                group.push(parse_constraint(&format!("<={hi}"))?);
                i += 3;
                continue;
            }
            group.push(parse_constraint(&tok)?);
            i += 1;
        }
        if group.is_empty() {
            return Err(improper(constraint));
        }
        if group.iter().all(|c| c.check(v)) {
            any = true;
        }
    }
    Ok(any)
}

pub fn register(m: &mut FuncMap) {
    reg(m, "semver", Arity::Exact(1), |a| {
        let v = parse_version(a.str(0)?).map_err(call_err)?;
        let mut d = Map::new();
        d.insert("Major".into(), Value::Uint(v.major));
        d.insert("Minor".into(), Value::Uint(v.minor));
        d.insert("Patch".into(), Value::Uint(v.patch));
        d.insert("Prerelease".into(), s(&v.pre));
        d.insert("Metadata".into(), s(&v.meta));
        d.insert("Original".into(), s(&v.original));
        Ok(map_value(d))
    });
    reg(m, "semverCompare", Arity::Exact(2), |a| {
        let constraint = a.str(0)?;
        let version = a.str(1)?;
        // Go parses the constraint before the version.
        let any = Version {
            major: 0,
            minor: 0,
            patch: 0,
            pre: String::new(),
            meta: String::new(),
            original: String::new(),
        };
        satisfies(constraint, &any).map_err(call_err)?;
        let v = parse_version(version).map_err(call_err)?;
        satisfies(constraint, &v).map(Value::Bool).map_err(call_err)
    });
}
