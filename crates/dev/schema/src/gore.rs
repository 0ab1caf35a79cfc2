//! Go RE2 patterns as the `regex` crate reads them. Both are RE2 dialects; they differ
//! inside character classes, where Go takes `[`, `&&` and `~~` literally but `regex`
//! reads nested classes and set operations. Escaping those keeps Go's meaning.

/// `pattern` with the characters Go treats as literal inside classes escaped.
pub(crate) fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push('\\');
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                // A `]` right after the opening bracket is a literal in Go.
                if chars.peek() == Some(&']') {
                    out.push_str("\\]");
                    chars.next();
                }
            }
            '[' if chars.peek() == Some(&':') => {
                // POSIX class such as `[:alpha:]`: copied up to its `:]`.
                out.push('[');
                for posix in chars.by_ref() {
                    out.push(posix);
                    if posix == ']' {
                        break;
                    }
                }
            }
            '[' | '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn escapes_what_go_reads_literally_in_classes() {
        assert_eq!(
            translate(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"),
            r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
        );
        assert_eq!(translate(r"[^()<>/[\]?]+"), r"[^()<>/\[\]?]+");
        assert_eq!(translate(r"[a&&b~~c]"), r"[a\&\&b\~\~c]");
        assert_eq!(translate(r"[]a]"), r"[\]a]");
        assert_eq!(translate(r"[[:alpha:]_]"), r"[[:alpha:]_]");
        assert_eq!(translate(r"a&&b"), r"a&&b");
    }

    #[test]
    fn translated_patterns_match_as_go_does() {
        let regex =
            regex::Regex::new(&translate(r#"^[^()<>@,;:\\"\/[\]?={} \t]+$"#)).expect("compiles");
        assert!(regex.is_match("session"));
        assert!(!regex.is_match("a[b"));
        assert!(!regex.is_match("a]b"));
    }
}
