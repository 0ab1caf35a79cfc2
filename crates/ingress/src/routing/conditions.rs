//! Path match conditions as Contour validates and merges them (`internal/dag/conditions.go`):
//! at most one of prefix/exact/regex per block, each starting with `/`; include blocks take
//! prefixes only; merging concatenates the chain's paths, collapses `//` runs and lets the
//! last condition pick prefix or exact. Header, query-parameter and regex matches are not
//! served by certgate and are reported through [`unsupported_condition`].

use crate::types::MatchCondition;

/// A merged path match, as Envoy receives it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathMatch {
    Prefix(String),
    Exact(String),
}

impl PathMatch {
    pub fn path(&self) -> &str {
        match self {
            PathMatch::Prefix(p) | PathMatch::Exact(p) => p,
        }
    }
}

fn non_empty(value: &Option<String>) -> Option<&str> {
    value.as_deref().filter(|v| !v.is_empty())
}

/// Contour's `pathMatchConditionsValid`; the error text is Contour's (the caller prefixes
/// `route: ` or `include: `). Go's regex compilation check is not reproduced: a regex that
/// passes these checks is refused as unsupported afterwards anyway.
pub fn path_conditions_valid(conditions: &[MatchCondition]) -> Result<(), String> {
    let mut count = 0usize;
    for condition in conditions {
        for (kind, value) in [
            ("prefix", non_empty(&condition.prefix)),
            ("exact", non_empty(&condition.exact)),
            ("regex", non_empty(&condition.regex)),
        ] {
            let Some(value) = value else { continue };
            count += 1;
            if !value.starts_with('/') {
                return Err(format!("{kind} conditions must start with /, {value} was supplied"));
            }
        }
    }
    if count > 1 {
        return Err(
            "more than one prefix, exact or regex is not allowed in a condition block".to_string()
        );
    }
    Ok(())
}

/// Contour's `includeMatchConditionsValid`.
pub fn include_conditions_valid(conditions: &[MatchCondition]) -> Result<(), String> {
    for condition in conditions {
        if non_empty(&condition.exact).is_some() {
            return Err("exact conditions are not allowed in includes block".to_string());
        }
        if non_empty(&condition.regex).is_some() {
            return Err("regex conditions are not allowed in includes block".to_string());
        }
    }
    Ok(())
}

/// The first condition field certgate does not serve, named as in the manifest.
pub fn unsupported_condition(conditions: &[MatchCondition]) -> Option<String> {
    conditions.iter().find_map(|c| {
        if c.header.is_some() {
            Some("header".to_string())
        } else if c.query_parameter.is_some() {
            Some("queryParameter".to_string())
        } else if non_empty(&c.regex).is_some() {
            Some("regex".to_string())
        } else {
            c.extra.keys().next().cloned()
        }
    })
}

/// Contour's `mergePathMatchConditions` for prefix and exact conditions.
pub fn merge_path_conditions(conditions: &[MatchCondition]) -> PathMatch {
    let mut merged = String::new();
    for condition in conditions {
        if let Some(p) = non_empty(&condition.prefix) {
            merged.push_str(p);
        } else if let Some(e) = non_empty(&condition.exact) {
            merged.push_str(e);
        }
    }
    let merged = collapse_slashes(&merged);
    let Some(last) = conditions.last() else {
        return PathMatch::Prefix("/".to_string());
    };
    if merged.is_empty() {
        return PathMatch::Prefix("/".to_string());
    }
    if non_empty(&last.prefix).is_none() && non_empty(&last.exact).is_some() {
        PathMatch::Exact(merged)
    } else {
        PathMatch::Prefix(merged)
    }
}

/// Go's `regexp.MustCompile("//+").ReplaceAllString(s, "/")`.
fn collapse_slashes(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        if c == '/' && out.ends_with('/') {
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefix(p: &str) -> MatchCondition {
        MatchCondition { prefix: Some(p.to_string()), ..MatchCondition::default() }
    }
    fn exact(p: &str) -> MatchCondition {
        MatchCondition { exact: Some(p.to_string()), ..MatchCondition::default() }
    }

    #[test]
    fn merges_like_contour() {
        assert_eq!(merge_path_conditions(&[]), PathMatch::Prefix("/".into()));
        assert_eq!(
            merge_path_conditions(&[prefix("/a/"), prefix("/b")]),
            PathMatch::Prefix("/a/b".into())
        );
        assert_eq!(
            merge_path_conditions(&[prefix("/a"), exact("/x")]),
            PathMatch::Exact("/a/x".into())
        );
        assert_eq!(
            merge_path_conditions(&[MatchCondition::default()]),
            PathMatch::Prefix("/".into())
        );
    }

    /// Messages from Contour's internal/dag/conditions.go (`pathMatchConditionsValid`,
    /// `includeMatchConditionsValid`).
    #[test]
    fn validation_messages() {
        assert_eq!(
            path_conditions_valid(&[prefix("a")]).unwrap_err(),
            "prefix conditions must start with /, a was supplied"
        );
        assert_eq!(
            path_conditions_valid(&[exact("b")]).unwrap_err(),
            "exact conditions must start with /, b was supplied"
        );
        assert_eq!(
            path_conditions_valid(&[prefix("/a"), exact("/b")]).unwrap_err(),
            "more than one prefix, exact or regex is not allowed in a condition block"
        );
        assert_eq!(
            include_conditions_valid(&[exact("/b")]).unwrap_err(),
            "exact conditions are not allowed in includes block"
        );
        assert!(path_conditions_valid(&[prefix("/a")]).is_ok());
    }
}
