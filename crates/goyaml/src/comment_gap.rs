//! Comments that start right after a token, with no white space before the `#`.
//!
//! libyaml (and so yaml.v3) reads a `#` met where a token could start as a comment, whatever
//! precedes it: `a: "x"#c`, `[a]#c`, `[a,#c` and `|#c` (a block scalar header) all carry a
//! comment. Only inside a plain scalar does a `#` need white space before it to start one
//! (`a: b#c` is the string `b#c` to both parsers). The parser used here follows YAML 1.2,
//! which refuses such a comment ("comments must be separated from other tokens by
//! whitespace"). A space before that `#` changes nothing for libyaml — the rest of the line is
//! the comment either way, and no later column moves — so on that refusal the decoder inserts
//! one where the parser stopped and parses again (see [`crate::reindent::decode_lenient`],
//! which bounds the retries).

use granit_parser::{ErrorKind, ScanError};

/// `text` with a space inserted before the comment the parser refused for lack of white space
/// before it, or `None` when `error` (the text's first parser error) is another one.
pub fn separate(text: &str, error: &ScanError) -> Option<String> {
    if !matches!(error.kind(), ErrorKind::CommentNotSeparated) {
        return None;
    }
    let at = error.marker().byte_offset()?;
    // The parser stops on the `#` itself; anything else means the refusal is not understood.
    if text.as_bytes().get(at) != Some(&b'#') {
        return None;
    }
    let mut spaced = String::with_capacity(text.len() + 1);
    spaced.push_str(&text[..at]);
    spaced.push(' ');
    spaced.push_str(&text[at..]);
    (spaced.len() <= crate::MAX_INPUT_BYTES).then_some(spaced)
}

#[cfg(test)]
mod tests {
    fn separate(text: &str) -> Option<String> {
        super::separate(text, &crate::decode::first_parser_error(text)?)
    }

    #[test]
    fn inserts_a_space_before_the_refused_comment_only() {
        assert_eq!(separate("a: \"x#y\"#c\n").as_deref(), Some("a: \"x#y\" #c\n"));
        assert_eq!(separate("a: [x]#c\n").as_deref(), Some("a: [x] #c\n"));
        assert_eq!(separate("a: |#c\n x\n").as_deref(), Some("a: | #c\n x\n"));
    }

    #[test]
    fn leaves_other_errors_and_valid_text_alone() {
        assert_eq!(separate("a: b#c\n"), None);
        assert_eq!(separate("a: \"x\" #c\n"), None);
        assert_eq!(separate("a: [x\n"), None);
    }
}
