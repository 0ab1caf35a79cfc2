//! apimachinery's (0.36) label and annotation checks, as cert-manager's webhook applies them to
//! a Certificate's `spec.secretTemplate`: `metav1validation.ValidateLabels` and
//! `apivalidation.ValidateAnnotations`, with their texts (`validate/content`'s, which count
//! lengths in bytes). Go walks the maps in random order; certgate reports keys in sorted
//! order, one of the orders Go can take.

use std::collections::BTreeMap;

use certgate_api::field::{BadValue, FieldError, Path};

const KEY_FORMAT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const KEY_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must \
    start and end with an alphanumeric character";
const VALUE_FORMAT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const VALUE_MESSAGE: &str = "a valid label must be an empty string or consist of alphanumeric \
    characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const SUBDOMAIN_FORMAT: &str = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case \
    alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
/// `TotalAnnotationSizeLimitB`: 256 KiB of keys and values together.
const ANNOTATIONS_SIZE_LIMIT: usize = 256 * 1024;

/// `ValidateLabels(labels, path)`.
pub(crate) fn validate_labels(labels: &BTreeMap<String, String>, path: &Path) -> Vec<FieldError> {
    let mut el = Vec::new();
    for (key, value) in labels {
        for message in qualified_name_errors(key) {
            el.push(FieldError::invalid(path.clone(), BadValue::Str(key.clone()), message));
        }
        for message in label_value_errors(value) {
            el.push(FieldError::invalid(path.clone(), BadValue::Str(value.clone()), message));
        }
    }
    el
}

/// `ValidateAnnotations(annotations, path)`: keys are qualified names whatever their case,
/// and keys and values together fit in 256 KiB.
pub(crate) fn validate_annotations(
    annotations: &BTreeMap<String, String>,
    path: &Path,
) -> Vec<FieldError> {
    let mut el = Vec::new();
    for key in annotations.keys() {
        for message in qualified_name_errors(&key.to_lowercase()) {
            el.push(FieldError::invalid(path.clone(), BadValue::Str(key.clone()), message));
        }
    }
    let size = annotations.iter().fold(0usize, |n, (k, v)| n.saturating_add(k.len() + v.len()));
    if size > ANNOTATIONS_SIZE_LIMIT {
        el.push(FieldError::too_long(path.clone(), Some(ANNOTATIONS_SIZE_LIMIT)));
    }
    el
}

/// `content.IsLabelKey` (`IsQualifiedName`).
fn qualified_name_errors(key: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let mut parts = key.split('/');
    let (first, second, rest) = (parts.next(), parts.next(), parts.next());
    let name = match (first, second, rest) {
        (Some(name), None, _) => name,
        (Some(prefix), Some(name), None) => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_owned());
            } else {
                errors.extend(
                    subdomain_errors(prefix).into_iter().map(|e| format!("prefix part {e}")),
                );
            }
            name
        }
        _ => {
            return vec![format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. \
                 'example.com/MyName')",
                regex_error(KEY_MESSAGE, KEY_FORMAT, &["MyName", "my.name", "123-abc"])
            )];
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errors.push("name part must be no more than 63 bytes".to_owned());
    }
    if !is_key_name(name) {
        errors.push(format!(
            "name part {}",
            regex_error(KEY_MESSAGE, KEY_FORMAT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errors
}

/// `content.IsLabelValue`.
fn label_value_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 bytes".to_owned());
    }
    if !value.is_empty() && !is_key_name(value) {
        errors.push(regex_error(VALUE_MESSAGE, VALUE_FORMAT, &["MyValue", "my_value", "12345"]));
    }
    errors
}

/// `content.IsDNS1123Subdomain`.
fn subdomain_errors(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 253 {
        errors.push("must be no more than 253 bytes".to_owned());
    }
    let label = |l: &str| {
        let edge = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
        framed(l, edge, |b| edge(b) || b == b'-')
    };
    if !value.split('.').all(label) {
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

/// Non-empty, first and last bytes satisfy `edge`, every byte satisfies `inner`.
fn framed(text: &str, edge: impl Fn(u8) -> bool, inner: impl Fn(u8) -> bool) -> bool {
    let bytes = text.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(&first), Some(&last)) => edge(first) && edge(last) && bytes.iter().all(|&b| inner(b)),
        _ => false,
    }
}

/// `content.RegexError`, with its `', or '`-less joining (`'a',  or 'b', `).
fn regex_error(message: &str, format: &str, examples: &[&str]) -> String {
    let examples: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!("{message} (e.g. {}regex used for validation is '{format}')", examples.join(" or "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(errors: Vec<FieldError>) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn valid_labels_and_annotations_pass() {
        let path = Path::new("l");
        let ok = map(&[("app", "web"), ("example.com/Tier", ""), ("a.b_c-d", "1.2_3-4")]);
        assert_eq!(texts(validate_labels(&ok, &path)), Vec::<String>::new());
        let ok = map(&[("Example.COM/Note", "anything at all: <>&"), ("x", "")]);
        assert_eq!(texts(validate_annotations(&ok, &path)), Vec::<String>::new());
    }

    #[test]
    fn apimachinerys_texts() {
        let path = Path::new("spec").child("secretTemplate").child("labels");
        let name = "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is \
                    '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        assert_eq!(
            texts(validate_labels(&map(&[("-bad", "ok"), ("k", "bad value")]), &path)),
            [
                format!(
                    "spec.secretTemplate.labels: Invalid value: \"-bad\": name part must consist \
                     of alphanumeric characters, '-', '_' or '.', and must start and end with an \
                     alphanumeric character {name}"
                ),
                "spec.secretTemplate.labels: Invalid value: \"bad value\": a valid label must be \
                 an empty string or consist of alphanumeric characters, '-', '_' or '.', and must \
                 start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or \
                 '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
                    .to_owned(),
            ]
        );
        assert_eq!(
            texts(validate_labels(&map(&[("/x", &"v".repeat(64))]), &path)),
            [
                "spec.secretTemplate.labels: Invalid value: \"/x\": prefix part must be non-empty",
                &format!(
                    "spec.secretTemplate.labels: Invalid value: \"{}\": must be no more than 63 bytes",
                    "v".repeat(64)
                ),
            ]
        );
        let got = texts(validate_labels(&map(&[("Bad_Prefix/x", "")]), &path));
        assert_eq!(got.len(), 1);
        assert!(got[0].starts_with(
            "spec.secretTemplate.labels: Invalid value: \"Bad_Prefix/x\": prefix part a lowercase \
             RFC 1123 subdomain must consist of"
        ));
        let got = texts(validate_labels(&map(&[("a/b/c", "")]), &path));
        assert_eq!(
            got,
            [format!(
                "spec.secretTemplate.labels: Invalid value: \"a/b/c\": a valid label key must \
                 consist of alphanumeric characters, '-', '_' or '.', and must start and end with \
                 an alphanumeric character {name} with an optional DNS subdomain prefix and '/' \
                 (e.g. 'example.com/MyName')"
            )]
        );
        let long = format!("{}/x", "a".repeat(254));
        let got = texts(validate_labels(&map(&[(&long, "")]), &path));
        assert!(got[0].ends_with("prefix part must be no more than 253 bytes"), "{got:?}");
        let got = texts(validate_labels(&map(&[(&"n".repeat(64), "")]), &path));
        assert!(got[0].ends_with("name part must be no more than 63 bytes"), "{got:?}");
    }

    #[test]
    fn annotations_ignore_case_and_are_bounded_in_total() {
        let path = Path::new("a");
        assert_eq!(
            texts(validate_annotations(&map(&[("Bad Key", "")]), &path))[0],
            format!(
                "a: Invalid value: \"Bad Key\": name part must consist of alphanumeric \
                 characters, '-', '_' or '.', and must start and end with an alphanumeric \
                 character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for \
                 validation is '{KEY_FORMAT}')"
            )
        );
        let big = "v".repeat(ANNOTATIONS_SIZE_LIMIT);
        assert_eq!(
            texts(validate_annotations(&map(&[("k", &big)]), &path)),
            ["a: Too long: may not be more than 262144 bytes"]
        );
    }
}
