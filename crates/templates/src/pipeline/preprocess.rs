//! Text rewrites go-template-utils applies to the YAML before parsing it (§7.2 steps 7–8 of
//! the spec). Both are regular expressions over the whole text, reproduced here with the same
//! semantics: leftmost-first matching, `.` never crosses a line, and `\s` is Go's ASCII class.

use std::borrow::Cow;

use regex::Regex;

/// Go's `\s`: `[\t\n\f\r ]` (Rust's `\s` is Unicode-aware and would also match e.g. U+00A0).
const GO_SPACE: &str = r"[\t\n\x0C\r ]";

/// The two rewrites for one pair of delimiters, compiled once.
#[derive(Clone, Debug)]
pub struct Preprocessor {
    typed: Regex,
    autoindent: Regex,
    additional_indentation: i64,
}

impl Preprocessor {
    /// Fails only if the delimiters make a pattern too large to compile.
    pub fn new(
        start: &str,
        stop: &str,
        additional_indentation: usize,
    ) -> Result<Self, regex::Error> {
        let (d1, d2) = (regex::escape(start), regex::escape(stop));
        let s = GO_SPACE;
        // After `key:` and whitespace: an optional block-scalar indicator, an optional opening
        // single quote, then a template that pipes into toInt/toBool/toLiteral or calls a
        // copy*Data function, and an optional closing quote. Replaced by `: <template>` so the
        // value the template prints is read as a typed YAML value, not a string.
        let typed = format!(
            r":{s}+(?:[|>]-?{s}+)?(?:'?{s}*)({d1}-?(?:.*\|{s}*(?:toInt|toBool|toLiteral)|(?:.*(?:copyConfigMapData|copySecretData))).*{d2})(?:{s}*'?)"
        );
        // Spaces before a template that pipes into autoindent (and its optional opening quote).
        let autoindent = format!(r#"( *)(?:'|")?({d1}.*\| *autoindent *-?{d2})"#);
        Ok(Self {
            typed: Regex::new(&typed)?,
            autoindent: Regex::new(&autoindent)?,
            additional_indentation: i64::try_from(additional_indentation).unwrap_or(i64::MAX),
        })
    }

    /// Removes the quotes around templates whose output must keep its type.
    pub fn typed_values<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.typed.replace_all(text, ": $1")
    }

    /// Rewrites `autoindent` to `indent N`, N being the spaces before the template minus the
    /// additional indentation (possibly negative, as upstream). Only when the text mentions
    /// `autoindent` at all, as upstream.
    pub fn autoindent<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !text.contains("autoindent") {
            return Cow::Borrowed(text);
        }
        // Upstream finds every match in the original text, then replaces the first occurrence
        // of each matched template in the text being rewritten: identical templates at
        // different depths are rewritten in order, each with its own indentation.
        let matches: Vec<(usize, String)> = self
            .autoindent
            .captures_iter(text)
            .filter_map(|c| Some((c.get(1)?.as_str().len(), c.get(2)?.as_str().to_owned())))
            .collect();
        let mut processed = text.to_owned();
        for (spaces, template) in matches {
            let n = i64::try_from(spaces).unwrap_or(i64::MAX) - self.additional_indentation;
            let rewritten = template.replacen("autoindent", &format!("indent {n}"), 1);
            processed = processed.replacen(&template, &rewritten, 1);
        }
        Cow::Owned(processed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub() -> Preprocessor {
        Preprocessor::new("{{hub", "hub}}", 8).expect("the hub delimiters compile")
    }

    #[test]
    fn quotes_around_typed_templates_are_removed() {
        let cases = [
            ("replicas: '{{hub \"6\" | toInt hub}}'\n", "replicas: {{hub \"6\" | toInt hub}}\n"),
            ("on: '{{hub- .X | toBool -hub}}'\n", "on: {{hub- .X | toBool -hub}}\n"),
            ("v: '{{hub .X | toLiteral hub}}'\n", "v: {{hub .X | toLiteral hub}}\n"),
            (
                "data: '{{hub copySecretData \"ns\" \"s\" hub}}'\n",
                "data: {{hub copySecretData \"ns\" \"s\" hub}}\n",
            ),
            ("v: |\n  '{{hub \"1\" | toInt hub}}'\n", "v: {{hub \"1\" | toInt hub}}\n"),
            // Without a closing quote, the trailing `\s*` also takes the line break (upstream).
            ("v: >-\n  {{hub \"1\" | toInt hub}}\n", "v: {{hub \"1\" | toInt hub}}"),
        ];
        for (input, want) in cases {
            assert_eq!(hub().typed_values(input), want, "{input}");
        }
    }

    #[test]
    fn other_templates_keep_their_quotes() {
        for input in [
            "name: '{{hub .ManagedClusterName hub}}'\n",
            "n: '{{ \"6\" | toInt }}'\n",
            "n: '{{hub fromSecret \"a\" \"b\" \"c\" hub}}'\n",
        ] {
            assert_eq!(hub().typed_values(input), input);
        }
    }

    #[test]
    fn autoindent_becomes_indent_of_the_leading_spaces_minus_the_additional_indentation() {
        let input = "data:\n  key: |\n            {{hub .X | autoindent hub}}\n";
        assert_eq!(
            hub().autoindent(input),
            "data:\n  key: |\n            {{hub .X | indent 4 hub}}\n"
        );
        // A quoted template on the key's line: one space before the quote.
        assert_eq!(
            hub().autoindent("k: '{{hub .X | autoindent hub}}'\n"),
            "k: '{{hub .X | indent -7 hub}}'\n"
        );
        // Identical templates at two depths are each rewritten once, in order.
        let twice = "a:\n          {{hub .X | autoindent hub}}\nb:\n            {{hub .X | autoindent hub}}\n";
        assert_eq!(
            hub().autoindent(twice),
            "a:\n          {{hub .X | indent 2 hub}}\nb:\n            {{hub .X | indent 4 hub}}\n"
        );
        assert_eq!(hub().autoindent("no templates"), "no templates");
    }
}
