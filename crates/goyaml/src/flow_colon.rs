//! `[a:, b]`: a plain scalar in a flow collection ending in `:` right before a flow indicator.
//!
//! In a flow collection libyaml ends a plain scalar at `,`, `[`, `]`, `{`, `}`, or at a `:`
//! followed by white space; a `:` followed by a flow indicator stays in the scalar, so
//! `[a:, b]` is `["a:", "b"]` and `{x y:}` is `{"x y:": null}`. The parser used here (YAML 1.2)
//! reads that `:` as a value indicator (`[{a: null}, b]`). Before decoding, such scalars are
//! rewritten as the single-quoted scalars libyaml reads them as (`['a:', b]`): a plain scalar
//! ending in `:` is a string to yaml.v3's resolver either way, single quotes fold line breaks
//! as plain scalars do, and line numbers stay.
//!
//! Finding them takes a scan of the text, done only when a `:` directly follows a character
//! that can end a plain scalar and directly precedes a flow indicator.

use std::borrow::Cow;

use granit_parser::{ScalarStyle, TokenType};

/// `text` with every plain scalar that libyaml reads with a final `:` in a flow collection
/// written single-quoted, as far as the text scans; `text` itself when there is none.
pub fn rewrite(text: &str) -> Cow<'_, str> {
    if !maybe(text) {
        return Cow::Borrowed(text);
    }
    let mut flow = 0usize;
    // The span of the last plain scalar in a flow collection, while it is the last token.
    let mut last_plain: Option<(usize, usize)> = None;
    let mut found = Vec::new();
    for token in crate::tokens::tokens(text) {
        // Up to a scanner error (which the decoder reports or works around and then calls
        // this again on the changed text), the scalars found are rewritten.
        let Ok(token) = token else { break };
        let span = token.span();
        let plain = last_plain.take();
        match token.token_type() {
            TokenType::FlowSequenceStart | TokenType::FlowMappingStart => flow += 1,
            TokenType::FlowSequenceEnd | TokenType::FlowMappingEnd => {
                flow = flow.saturating_sub(1);
            }
            TokenType::Scalar(ScalarStyle::Plain, _) if flow > 0 => {
                last_plain = span.start.byte_offset().zip(span.end.byte_offset());
            }
            TokenType::Value if flow > 0 => {
                let Some(colon) = span.start.byte_offset() else { continue };
                let next = text.as_bytes().get(colon + 1);
                if let Some((start, end)) = plain
                    && end == colon
                    && text.as_bytes().get(colon) == Some(&b':')
                    && matches!(next, Some(b',' | b'[' | b']' | b'{' | b'}'))
                {
                    found.push((start, colon + 1));
                }
            }
            _ => {}
        }
    }
    if found.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 4 * found.len());
    let mut copied = 0;
    for (start, end) in found {
        out.push_str(&text[copied..start]);
        out.push('\'');
        out.push_str(&text[start..end].replace('\'', "''"));
        out.push('\'');
        copied = end;
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Whether a `:` follows a character that may end a plain scalar and precedes a flow
/// indicator (a necessary condition, so most texts skip the scan).
fn maybe(text: &str) -> bool {
    text.as_bytes().windows(3).any(|w| {
        w[1] == b':'
            && matches!(w[2], b',' | b'[' | b']' | b'{' | b'}')
            && !matches!(w[0], b'"' | b'\'' | b' ' | b'\t' | b'\n' | b'\r' | b']' | b'}' | b',')
    })
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn plain_scalars_ending_in_a_colon_are_quoted() {
        assert_eq!(rewrite("[a:, b]\n"), "['a:', b]\n");
        assert_eq!(rewrite("{ x y:}\n"), "{ 'x y:'}\n");
        assert_eq!(rewrite("a: [it's:, b::]\n"), "a: ['it''s:', 'b::']\n");
    }

    #[test]
    fn other_colons_are_left_alone() {
        for text in ["[a: , b]\n", "[a:b, c]\n", "[\"a\":, b]\n", "{\"a\":{\"b\":1}}\n", "a:\n"] {
            assert_eq!(rewrite(text), text);
        }
    }
}
