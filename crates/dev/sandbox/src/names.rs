//! apimachinery's name rules and their exact messages
//! (k8s.io/apimachinery/pkg/util/validation/validation.go at v0.33.0): qualified names
//! (label keys, annotation keys, finalizers), label values, RFC 1123 labels and subdomains.
//! Each returns every message that applies, as upstream does, empty when the value is valid.

const QUALIFIED_NAME_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_REGEX: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_MESSAGE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_LABEL_MESSAGE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_LABEL_REGEX: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_REGEX: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

/// Longest name part of a qualified name, label value and RFC 1123 label.
const MAX_NAME_PART: usize = 63;
/// Longest RFC 1123 subdomain.
const MAX_SUBDOMAIN: usize = 253;

/// `RegexError`: the message, examples, and the regex.
fn regex_error(message: &str, regex: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{message} (regex used for validation is '{regex}')");
    }
    let quoted: Vec<String> = examples.iter().map(|e| format!("'{e}', ")).collect();
    format!("{message} (e.g. {}regex used for validation is '{regex}')", quoted.join(" or "))
}

fn max_len_error(max: usize) -> String {
    format!("must be no more than {max} characters")
}

/// `[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?`
fn is_qualified_name_part(name: &str) -> bool {
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_dns1123_label(label: &str) -> bool {
    !label.is_empty()
        && label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !label.starts_with('-')
        && !label.ends_with('-')
}

fn is_dns1123_subdomain(name: &str) -> bool {
    name.split('.').all(is_dns1123_label)
}

/// `IsQualifiedName`: `[prefix/]name`, the prefix an RFC 1123 subdomain.
pub fn qualified_name(value: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                problems.push("prefix part must be non-empty".to_owned());
            } else {
                problems.extend(
                    dns1123_subdomain(prefix).into_iter().map(|m| format!("prefix part {m}")),
                );
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_MESSAGE,
                    QUALIFIED_NAME_REGEX,
                    &["MyName", "my.name", "123-abc"]
                )
            )];
        }
    };
    if name.is_empty() {
        problems.push("name part must be non-empty".to_owned());
    } else if name.len() > MAX_NAME_PART {
        problems.push(format!("name part {}", max_len_error(MAX_NAME_PART)));
    }
    if !is_qualified_name_part(name) {
        problems.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_MESSAGE,
                QUALIFIED_NAME_REGEX,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    problems
}

/// `IsValidLabelValue`: empty, or a qualified name part of at most 63 characters.
pub fn label_value(value: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if value.len() > MAX_NAME_PART {
        problems.push(max_len_error(MAX_NAME_PART));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        problems.push(regex_error(
            LABEL_VALUE_MESSAGE,
            &format!("({QUALIFIED_NAME_REGEX})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    problems
}

/// `IsDNS1123Label`.
pub fn dns1123_label(value: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if value.len() > MAX_NAME_PART {
        problems.push(max_len_error(MAX_NAME_PART));
    }
    if !is_dns1123_label(value) {
        if is_dns1123_subdomain(value) {
            problems.push("must not contain dots".to_owned());
        } else {
            problems.push(regex_error(
                DNS1123_LABEL_MESSAGE,
                DNS1123_LABEL_REGEX,
                &["my-name", "123-abc"],
            ));
        }
    }
    problems
}

/// `IsDNS1123Subdomain`.
pub fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if value.len() > MAX_SUBDOMAIN {
        problems.push(max_len_error(MAX_SUBDOMAIN));
    }
    if !is_dns1123_subdomain(value) {
        problems.push(regex_error(
            DNS1123_SUBDOMAIN_MESSAGE,
            DNS1123_SUBDOMAIN_REGEX,
            &["example.com"],
        ));
    }
    problems
}

/// `path.ValidatePathSegmentName` (k8s.io/apimachinery/pkg/api/validation/path): names
/// that must fit in a URL path segment (RBAC objects).
pub fn path_segment(name: &str, prefix: bool) -> Vec<String> {
    let mut problems = Vec::new();
    if !prefix && (name == "." || name == "..") {
        problems.push(format!("may not be '{name}'"));
    }
    for banned in ["/", "%"] {
        if name.contains(banned) {
            problems.push(format!("may not contain '{banned}'"));
        }
    }
    problems
}

/// `maskTrailingDash`: a `generateName` prefix may end in '-', as the random suffix follows.
pub fn mask_trailing_dash(prefix: &str) -> String {
    match prefix.strip_suffix('-') {
        Some(rest) if prefix.len() > 1 => format!("{rest}a"),
        _ => prefix.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_apimachinerys() {
        assert_eq!(
            qualified_name("bad key!"),
            [
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ]
        );
        assert_eq!(qualified_name("example.com/ok"), Vec::<String>::new());
        assert_eq!(qualified_name("/x"), ["prefix part must be non-empty"]);
        assert_eq!(label_value(""), Vec::<String>::new());
        assert_eq!(label_value(&"a".repeat(64)), ["must be no more than 63 characters"]);
        assert_eq!(dns1123_label("a.b"), ["must not contain dots"]);
        assert_eq!(mask_trailing_dash("app-"), "appa");
    }
}
