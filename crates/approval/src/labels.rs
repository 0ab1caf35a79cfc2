//! Kubernetes label-selector validation for `selector.namespace.matchLabels`: the error
//! `metav1.LabelSelectorAsSelector` returns, with apimachinery's exact texts (label keys
//! are qualified names, values at most 63 bytes of `[-A-Za-z0-9_.]` framed by
//! alphanumerics).

use std::collections::BTreeMap;

use certgate_api::field::{BadValue, FieldError, Path, aggregate};

const NAME_MAX_LENGTH: usize = 63;
const VALUE_MAX_LENGTH: usize = 63;
const SUBDOMAIN_MAX_LENGTH: usize = 253;

const KEY_FORMAT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const KEY_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const VALUE_FORMAT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const VALUE_MESSAGE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const SUBDOMAIN_FORMAT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

/// The error of turning `matchLabels` into a selector, if any. Go walks the map in random
/// order and stops at the first bad entry; sorted order is one of the orders it can take.
pub(crate) fn match_labels_error(labels: &BTreeMap<String, String>) -> Option<String> {
    labels.iter().find_map(|(key, value)| requirement_error(key, value))
}

/// `labels.NewRequirement(key, Equals, [value])`: key and value errors, aggregated.
fn requirement_error(key: &str, value: &str) -> Option<String> {
    let mut errors = Vec::new();
    let key_errors = label_key_errors(key);
    if !key_errors.is_empty() {
        errors.push(FieldError::invalid(
            Path::new("key"),
            BadValue::Str(key.to_owned()),
            key_errors.join("; "),
        ));
    }
    let value_errors = label_value_errors(value);
    if !value_errors.is_empty() {
        errors.push(FieldError::invalid(
            Path::new("values").index(0).key(key),
            BadValue::Str(value.to_owned()),
            value_errors.join("; "),
        ));
    }
    aggregate(&errors)
}

/// apimachinery `IsLabelKey` (a.k.a. `IsQualifiedName`).
pub(crate) fn label_key_errors(key: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let parts: Vec<&str> = key.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_owned());
            } else {
                errors.extend(
                    subdomain_errors(prefix).into_iter().map(|e| format!("prefix part {e}")),
                );
            }
            *name
        }
        _ => {
            return vec![format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(KEY_MESSAGE, KEY_FORMAT, &["MyName", "my.name", "123-abc"])
            )];
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_owned());
    } else if name.len() > NAME_MAX_LENGTH {
        errors.push(format!("name part {}", max_len_error(NAME_MAX_LENGTH)));
    }
    if !is_key_name(name) {
        errors.push(format!(
            "name part {}",
            regex_error(KEY_MESSAGE, KEY_FORMAT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errors
}

/// apimachinery `IsLabelValue` (a.k.a. `IsValidLabelValue`).
pub(crate) fn label_value_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > VALUE_MAX_LENGTH {
        errors.push(max_len_error(VALUE_MAX_LENGTH));
    }
    if !value.is_empty() && !is_key_name(value) {
        errors.push(regex_error(VALUE_MESSAGE, VALUE_FORMAT, &["MyValue", "my_value", "12345"]));
    }
    errors
}

/// apimachinery `IsDNS1123Subdomain`.
fn subdomain_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > SUBDOMAIN_MAX_LENGTH {
        errors.push(max_len_error(SUBDOMAIN_MAX_LENGTH));
    }
    if !value.split('.').all(is_dns_label) {
        errors.push(regex_error(SUBDOMAIN_MESSAGE, SUBDOMAIN_FORMAT, &["example.com"]));
    }
    errors
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, anchored.
fn is_key_name(name: &str) -> bool {
    framed(
        name,
        |b| b.is_ascii_alphanumeric(),
        |b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'),
    )
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`, anchored.
fn is_dns_label(label: &str) -> bool {
    let edge = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    framed(label, edge, |b| edge(b) || b == b'-')
}

/// Non-empty, first and last bytes satisfy `edge`, all bytes satisfy `inner`.
fn framed(text: &str, edge: impl Fn(u8) -> bool, inner: impl Fn(u8) -> bool) -> bool {
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => edge(first) && edge(last) && bytes.iter().all(|&b| inner(b)),
        _ => false,
    }
}

fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} bytes")
}

/// apimachinery `RegexError`, including its doubled space before each " or ".
fn regex_error(message: &str, format: &str, examples: &[&str]) -> String {
    let examples: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!("{message} (e.g. {}regex used for validation is '{format}')", examples.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME_REGEX: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    const VALUE_REGEX: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    const SUBDOMAIN_REGEX: &str = r"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

    #[test]
    fn valid_keys_and_values() {
        for key in ["a", "A1", "a.b_c-d", "example.com/name", "a/b", &"k".repeat(63)] {
            assert_eq!(label_key_errors(key), Vec::<String>::new(), "{key}");
        }
        for value in ["", "v", "My_value.1", &"v".repeat(63)] {
            assert_eq!(label_value_errors(value), Vec::<String>::new(), "{value}");
        }
    }

    #[test]
    fn key_errors_have_apimachinery_texts() {
        assert_eq!(label_key_errors("-a"), vec![format!("name part {NAME_REGEX}")]);
        assert_eq!(
            label_key_errors(""),
            vec!["name part must be non-empty".to_owned(), format!("name part {NAME_REGEX}")]
        );
        assert_eq!(
            label_key_errors(&"k".repeat(64)),
            vec!["name part must be no more than 63 bytes".to_owned()]
        );
        assert_eq!(label_key_errors("/a"), vec!["prefix part must be non-empty".to_owned()]);
        assert_eq!(label_key_errors("Ex.com/a"), vec![format!("prefix part {SUBDOMAIN_REGEX}")]);
        assert_eq!(
            label_key_errors("a/b/c"),
            vec![format!(
                "a valid label key {NAME_REGEX} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            )]
        );
    }

    #[test]
    fn value_errors_have_apimachinery_texts() {
        assert_eq!(label_value_errors("a b"), vec![VALUE_REGEX.to_owned()]);
        assert_eq!(
            label_value_errors(&format!("{}-", "v".repeat(63))),
            vec!["must be no more than 63 bytes".to_owned(), VALUE_REGEX.to_owned()]
        );
    }

    #[test]
    fn requirement_errors_aggregate_key_and_value() {
        let labels = BTreeMap::from([
            ("good".to_owned(), "ok".to_owned()),
            ("bad key!".to_owned(), "bad value!".to_owned()),
        ]);
        assert_eq!(
            match_labels_error(&labels),
            Some(format!(
                r#"[key: Invalid value: "bad key!": name part {NAME_REGEX}, values[0][bad key!]: Invalid value: "bad value!": {VALUE_REGEX}]"#
            ))
        );
        let labels = BTreeMap::from([("env".to_owned(), "prod".to_owned())]);
        assert_eq!(match_labels_error(&labels), None);
    }
}
