//! gotmpl's parse-error texts mapped to Go's.
//!
//! Only mappings confirmed against Go's `text/template/parse` sources are made; other texts
//! pass through unchanged (listed in the crate documentation).

/// Go's line and message for a gotmpl parse or lex error.
pub(crate) fn go_parse_error(error: &gotmpl::TemplateError) -> (usize, String) {
    match error {
        gotmpl::TemplateError::Parse { line, message, .. }
        | gotmpl::TemplateError::Lex { line, message, .. } => (*line, go_message(message)),
        other => (1, other.to_string()),
    }
}

fn go_message(message: &str) -> String {
    let mapped = match message {
        "unterminated string" => "unterminated quoted string",
        "unterminated raw string" => "unterminated raw quoted string",
        "unterminated character literal" => "unterminated character constant",
        "comment not terminated by closing delimiter" => "comment ends before closing delimiter",
        // Go names the context (`command`, `if`, ...); gotmpl does not say which it was.
        "empty command" => "missing value for command",
        // Go's parser words this one with its own `template: ` prefix inside the location.
        _ if message.starts_with("multiple definition of template ") => {
            return format!("template: {message}");
        }
        _ if message.starts_with("expected RightParen,") => "unclosed left paren",
        _ if message.starts_with("expected closing delimiter, got RightParen") => {
            "unexpected right paren"
        }
        _ => message,
    };
    mapped.to_owned()
}

#[cfg(test)]
mod tests {
    use super::go_message;

    /// Found by the differential test: Go's text repeats `template: ` after the location.
    #[test]
    fn multiple_definition_carries_gos_inner_prefix() {
        assert_eq!(
            go_message("multiple definition of template \"t\""),
            "template: multiple definition of template \"t\""
        );
        assert_eq!(go_message("unterminated string"), "unterminated quoted string");
    }
}
