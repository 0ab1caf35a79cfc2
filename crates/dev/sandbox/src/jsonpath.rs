//! The JSONPath subset printer columns use: `.a.b`, `.a[0]`, `.a[*].b` and filters
//! `[?(@.k=="v")]` / `[?(@.k!="v")]`.

use serde_json::Value;

#[derive(Debug, PartialEq)]
enum Step {
    Field(String),
    Index(usize),
    All,
    Filter { field: String, equal: bool, value: String },
}

fn parse(path: &str) -> Option<Vec<Step>> {
    let mut steps = Vec::new();
    let mut rest =
        path.trim().trim_start_matches('{').trim_end_matches('}').trim_start_matches('$');
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after.find(['.', '[']).unwrap_or(after.len());
            let field = &after[..end];
            if !field.is_empty() {
                steps.push(Step::Field(field.to_owned()));
            }
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            let inner = &after[..end];
            rest = &after[end + 1..];
            steps.push(if inner == "*" {
                Step::All
            } else if let Some(filter) =
                inner.strip_prefix("?(@.").and_then(|f| f.strip_suffix(')'))
            {
                let (field, equal, value) = if let Some((f, v)) = filter.split_once("!=") {
                    (f, false, v)
                } else {
                    let (f, v) = filter.split_once("==")?;
                    (f, true, v)
                };
                let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
                Step::Filter { field: field.trim().to_owned(), equal, value: value.to_owned() }
            } else {
                Step::Index(inner.parse().ok()?)
            });
        } else {
            return None;
        }
    }
    Some(steps)
}

/// Every value `path` selects in `object` (empty when none, or the path is not understood).
pub fn evaluate<'a>(object: &'a Value, path: &str) -> Vec<&'a Value> {
    let Some(steps) = parse(path) else { return Vec::new() };
    let mut current = vec![object];
    for step in &steps {
        let mut next = Vec::new();
        for value in current {
            match step {
                Step::Field(name) => next.extend(value.get(name)),
                Step::Index(i) => next.extend(value.get(*i)),
                Step::All => next.extend(value.as_array().into_iter().flatten()),
                Step::Filter { field, equal, value: wanted } => {
                    next.extend(value.as_array().into_iter().flatten().filter(|item| {
                        let actual = match item.get(field) {
                            Some(Value::String(s)) => s.clone(),
                            Some(other) => other.to_string(),
                            None => return false,
                        };
                        (actual == *wanted) == *equal
                    }));
                }
            }
        }
        current = next;
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn printer_column_paths_select_values() {
        let object = json!({"status": {"conditions": [
            {"type": "Approved", "status": "True"},
            {"type": "Ready", "status": "False", "reason": "Pending"},
        ]}, "spec": {"issuerRef": {"name": "ca"}, "items": [1, 2]}});
        let eval = |p: &str| evaluate(&object, p).into_iter().cloned().collect::<Vec<_>>();
        assert_eq!(eval(".spec.issuerRef.name"), vec![json!("ca")]);
        assert_eq!(eval(r#".status.conditions[?(@.type=="Ready")].status"#), vec![json!("False")]);
        assert_eq!(eval(r#".status.conditions[?(@.type!="Ready")].type"#), vec![json!("Approved")]);
        assert_eq!(eval(".spec.items[1]"), vec![json!(2)]);
        assert_eq!(eval(".status.conditions[*].type"), vec![json!("Approved"), json!("Ready")]);
        assert!(eval(".missing.field").is_empty());
        assert!(eval("not a path").is_empty());
    }
}
