//! Label selectors of ClusterRole aggregation rules (`metav1.LabelSelector`).

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

/// Problems the API server's validation would report for a selector, as
/// `(field path relative to the selector, detail)`.
pub(crate) fn problems(selector: &LabelSelector) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (i, requirement) in expressions(selector).iter().enumerate() {
        let field = format!("matchExpressions[{i}]");
        let has_values = requirement.values.as_ref().is_some_and(|v| !v.is_empty());
        match requirement.operator.as_str() {
            "In" | "NotIn" if !has_values => found.push((
                format!("{field}.values"),
                "Required value: must be specified when `operator` is 'In' or 'NotIn'".to_owned(),
            )),
            "Exists" | "DoesNotExist" if has_values => found.push((
                format!("{field}.values"),
                "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
                    .to_owned(),
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => found.push((
                format!("{field}.operator"),
                format!(
                    "Invalid value: {}: not a valid selector operator",
                    certgate_gofmt::quote(other)
                ),
            )),
        }
    }
    found
}

/// Whether `labels` satisfy every requirement of the selector. An empty selector matches
/// everything. A selector the API server would reject matches nothing: the aggregation
/// controller cannot use it either.
pub fn matches(selector: &LabelSelector, labels: &BTreeMap<String, String>) -> bool {
    let labels_match = selector
        .match_labels
        .iter()
        .flatten()
        .all(|(key, value)| labels.get(key).is_some_and(|actual| actual == value));
    labels_match && expressions(selector).iter().all(|r| requirement_matches(r, labels))
}

fn expressions(selector: &LabelSelector) -> &[LabelSelectorRequirement] {
    selector.match_expressions.as_deref().unwrap_or_default()
}

fn requirement_matches(
    requirement: &LabelSelectorRequirement,
    labels: &BTreeMap<String, String>,
) -> bool {
    let values = requirement.values.as_deref().unwrap_or_default();
    let actual = labels.get(&requirement.key);
    let listed = || actual.is_some_and(|a| values.contains(a));
    match requirement.operator.as_str() {
        "In" => !values.is_empty() && listed(),
        "NotIn" => !values.is_empty() && !listed(),
        "Exists" => values.is_empty() && actual.is_some(),
        "DoesNotExist" => values.is_empty() && actual.is_none(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn requirement(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.to_owned(),
            operator: operator.to_owned(),
            values: Some(values.iter().map(|v| (*v).to_owned()).collect()),
        }
    }

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn by_labels(pairs: &[(&str, &str)]) -> LabelSelector {
        LabelSelector { match_labels: Some(labels(pairs)), ..Default::default() }
    }

    fn by_expression(key: &str, operator: &str, values: &[&str]) -> LabelSelector {
        LabelSelector {
            match_expressions: Some(vec![requirement(key, operator, values)]),
            ..Default::default()
        }
    }

    #[test]
    fn matching() {
        let tier = labels(&[("tier", "edit"), ("team", "a")]);
        let none = labels(&[]);
        let both = LabelSelector {
            match_labels: Some(labels(&[("team", "a")])),
            match_expressions: Some(vec![requirement("tier", "In", &["view"])]),
        };
        #[rustfmt::skip]
        let cases: &[(&str, LabelSelector, &BTreeMap<String, String>, bool)] = &[
            ("empty matches all", LabelSelector::default(), &none, true),
            ("matchLabels", by_labels(&[("tier", "edit")]), &tier, true),
            ("matchLabels value", by_labels(&[("tier", "view")]), &tier, false),
            ("matchLabels absent", by_labels(&[("tier", "edit")]), &none, false),
            ("In", by_expression("tier", "In", &["view", "edit"]), &tier, true),
            ("In absent", by_expression("tier", "In", &["edit"]), &none, false),
            ("NotIn listed", by_expression("tier", "NotIn", &["edit"]), &tier, false),
            ("NotIn absent", by_expression("tier", "NotIn", &["edit"]), &none, true),
            ("Exists", by_expression("team", "Exists", &[]), &tier, true),
            ("Exists absent", by_expression("team", "Exists", &[]), &none, false),
            ("DoesNotExist", by_expression("team", "DoesNotExist", &[]), &tier, false),
            ("DoesNotExist absent", by_expression("team", "DoesNotExist", &[]), &none, true),
            ("all must hold", both, &tier, false),
            ("invalid NotIn matches nothing", by_expression("tier", "NotIn", &[]), &none, false),
            ("unknown operator matches nothing", by_expression("tier", "Equals", &["edit"]), &tier, false),
        ];
        for (name, selector, labels, want) in cases {
            assert_eq!(matches(selector, labels), *want, "{name}");
        }
    }

    #[test]
    fn validation_messages() {
        let selector = LabelSelector {
            match_expressions: Some(vec![
                requirement("a", "In", &[]),
                requirement("b", "Exists", &["x"]),
                requirement("c", "Equals", &["x"]),
                requirement("d", "DoesNotExist", &[]),
            ]),
            ..Default::default()
        };
        let want = [
            (
                "matchExpressions[0].values",
                "Required value: must be specified when `operator` is 'In' or 'NotIn'",
            ),
            (
                "matchExpressions[1].values",
                "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
            (
                "matchExpressions[2].operator",
                "Invalid value: \"Equals\": not a valid selector operator",
            ),
        ];
        let want: Vec<(String, String)> =
            want.iter().map(|(f, d)| ((*f).to_owned(), (*d).to_owned())).collect();
        assert_eq!(problems(&selector), want);
    }
}
