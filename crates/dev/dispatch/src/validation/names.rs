//! apimachinery's name and label checks (`util/validation`), with their messages.

/// Go's `RegexError`: the message, the examples and the regular expression. The double
/// space before each " or " is upstream's.
fn regex_error(message: &str, regex: &str, examples: &[&str]) -> String {
    let mut out = format!("{message} (e.g. ");
    for (i, example) in examples.iter().enumerate() {
        if i > 0 {
            out.push_str(" or ");
        }
        out.push_str(&format!("'{example}', "));
    }
    out.push_str(&format!("regex used for validation is '{regex}')"));
    out
}

fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// Whether `s` is `first (middle)* last` with one-byte classes, or a single `first` byte
/// that is also a valid `last` (the shape of every regular expression above).
fn shaped(s: &str, first: fn(u8) -> bool, middle: fn(u8) -> bool, last: fn(u8) -> bool) -> bool {
    let bytes = s.as_bytes();
    match bytes {
        [] => false,
        [only] => first(*only) && last(*only),
        [head, inner @ .., tail] => first(*head) && last(*tail) && inner.iter().all(|b| middle(*b)),
    }
}

fn lower_alnum(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

fn lower_alnum_dash(b: u8) -> bool {
    lower_alnum(b) || b == b'-'
}

fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn label_middle(b: u8) -> bool {
    alnum(b) || matches!(b, b'-' | b'_' | b'.')
}

fn is_dns1123_label_shape(s: &str) -> bool {
    shaped(s, lower_alnum, lower_alnum_dash, lower_alnum)
}

/// `IsDNS1123Subdomain`.
pub(crate) fn dns1123_subdomain(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 253 {
        errors.push(max_len_error(253));
    }
    if !value.split('.').all(is_dns1123_label_shape) {
        errors.push(regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, &["example.com"]));
    }
    errors
}

/// `IsDNS1035Label`.
pub(crate) fn dns1035_label(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push(max_len_error(63));
    }
    if !shaped(value, |b| b.is_ascii_lowercase(), lower_alnum_dash, lower_alnum) {
        errors.push(regex_error(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, &["my-name", "abc-123"]));
    }
    errors
}

/// `IsQualifiedName` (a label key): an optional DNS subdomain prefix and `/`, then a name
/// of at most 63 characters.
pub(crate) fn qualified_name(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let name = match value.split_once('/') {
        None => value,
        Some((_, suffix)) if suffix.contains('/') => {
            return vec![format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            )];
        }
        Some((prefix, suffix)) => {
            if prefix.is_empty() {
                errors.push("prefix part must be non-empty".to_owned());
            } else {
                errors.extend(
                    dns1123_subdomain(prefix).into_iter().map(|m| format!("prefix part {m}")),
                );
            }
            suffix
        }
    };
    if name.is_empty() {
        errors.push("name part must be non-empty".to_owned());
    } else if name.len() > 63 {
        errors.push(format!("name part {}", max_len_error(63)));
    }
    if !shaped(name, alnum, label_middle, alnum) {
        errors.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
        ));
    }
    errors
}

/// `IsValidLabelValue`.
pub(crate) fn label_value(value: &str) -> Vec<String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push(max_len_error(63));
    }
    if !value.is_empty() && !shaped(value, alnum, label_middle, alnum) {
        errors.push(regex_error(
            LABEL_VALUE_MSG,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errors
}

/// `IsValidPortNum`.
pub(crate) fn port_number(port: i32) -> Vec<String> {
    if (1..=65535).contains(&port) {
        Vec::new()
    } else {
        vec!["must be between 1 and 65535, inclusive".to_owned()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subdomains() {
        assert!(dns1123_subdomain("a.b-c.d0").is_empty());
        assert_eq!(
            dns1123_subdomain("Bad_Name"),
            [
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        assert!(!dns1123_subdomain("a..b").is_empty());
        assert!(!dns1123_subdomain("-a").is_empty());
        assert_eq!(dns1123_subdomain(&"a".repeat(254))[0], "must be no more than 253 characters");
    }

    #[test]
    fn label_keys_and_values() {
        assert!(qualified_name("example.com/My_name.1").is_empty());
        assert_eq!(
            qualified_name("a b"),
            [
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ]
        );
        assert_eq!(qualified_name("/x"), ["prefix part must be non-empty"]);
        assert!(qualified_name("a/b/c")[0].starts_with("a valid label key must consist"));
        assert!(label_value("").is_empty());
        assert!(label_value("a.b_c-1").is_empty());
        assert_eq!(label_value("-x").len(), 1);
        assert_eq!(dns1035_label("v1"), Vec::<String>::new());
        assert_eq!(dns1035_label("1v").len(), 1);
    }
}
