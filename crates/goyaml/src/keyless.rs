//! yaml.v3's refusal of a `:` value indicator with no key before it.
//!
//! YAML allows an empty implicit key (`: y`, `- : x`, `[: x]`), and the parser used here
//! reads it as a null key. libyaml's parser does not: a value indicator where it expects a
//! key is "did not find expected key" in a block mapping and "did not find expected node
//! content" in a flow collection. (An explicit empty key, `?` then `:`, is read by both.)
//! Documents that decode are checked for such a `:` in the token stream.

use granit_parser::TokenType;

use crate::YamlError;
use crate::root_extent::RootExtent;

/// The error yaml.v3 reports for the first keyless `:` in the first document, or `None`.
/// Cheap for most texts: the scanner runs only when a `:` could be one.
pub fn check(text: &str) -> Option<YamlError> {
    if !maybe(text) {
        return None;
    }
    // Per open collection: its kind (flow or not), the 0-based line it starts on, and whether
    // a key was given for the value that comes next.
    let mut open: Vec<(bool, usize, bool)> = vec![(false, 0, false)];
    let mut content = false;
    let mut extent = RootExtent::default();
    for token in crate::tokens::tokens(text) {
        let Ok(token) = token else { return None };
        if extent.past_root(token.token_type()) {
            return None;
        }
        let line = token.span().start.line().saturating_sub(1);
        match token.token_type() {
            TokenType::BlockMappingStart | TokenType::BlockSequenceStart => {
                open.push((false, line, false));
            }
            TokenType::FlowMappingStart | TokenType::FlowSequenceStart => {
                open.push((true, line, false));
            }
            TokenType::BlockEnd | TokenType::FlowMappingEnd | TokenType::FlowSequenceEnd
                if open.len() > 1 =>
            {
                open.pop();
            }
            TokenType::Key => {
                if let Some(top) = open.last_mut() {
                    top.2 = true;
                }
            }
            TokenType::Value => {
                let (flow, start, keyed) = open.last().copied().unwrap_or((false, 0, true));
                if !keyed {
                    let problem = if flow {
                        "did not find expected node content"
                    } else {
                        "did not find expected key"
                    };
                    // yaml.v3 prints libyaml's 0-based context line (the collection's start),
                    // or the problem's when that is 0, and nothing when both are.
                    let shown = if start > 0 { start } else { line };
                    return Some(YamlError(if shown > 0 {
                        format!("yaml: line {shown}: {problem}")
                    } else {
                        format!("yaml: {problem}")
                    }));
                }
                if let Some(top) = open.last_mut() {
                    top.2 = false;
                }
            }
            TokenType::DocumentStart | TokenType::DocumentEnd if content => return None,
            TokenType::StreamEnd => return None,
            _ => {}
        }
        content |= matches!(
            token.token_type(),
            TokenType::BlockMappingStart
                | TokenType::FlowMappingStart
                | TokenType::BlockSequenceStart
                | TokenType::FlowSequenceStart
                | TokenType::Scalar(..)
                | TokenType::Alias(_)
                | TokenType::Value
        );
    }
    None
}

/// Whether some `:` before white space has only an indicator or a line start before it (a
/// necessary condition for a keyless one).
fn maybe(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b':'
            && bytes.get(i + 1).is_none_or(|c| matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
            && bytes[..i]
                .iter()
                .rev()
                .find(|&&c| c != b' ' && c != b'\t')
                .is_none_or(|c| matches!(c, b'\n' | b'-' | b'[' | b'{' | b','))
    })
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn a_value_without_a_key_is_refused() {
        let refused = |text: &str| check(text).map(|e| e.0);
        let key = "did not find expected key";
        assert_eq!(refused(": y"), Some(format!("yaml: {key}")));
        assert_eq!(refused("a: 1\nb: 2\n: 3\n"), Some(format!("yaml: line 2: {key}")));
        assert_eq!(refused("x:\n  a: 1\n  : 2\n"), Some(format!("yaml: line 1: {key}")));
        assert_eq!(refused("- a\n- : x\n"), Some(format!("yaml: line 1: {key}")));
        let node = "did not find expected node content";
        assert_eq!(refused("[: x]\n"), Some(format!("yaml: {node}")));
        assert_eq!(refused("[a,\n : x]\n"), Some(format!("yaml: line 1: {node}")));
        // Explicit empty keys and ordinary values are fine.
        assert_eq!(refused("? \n: x\n"), None);
        assert_eq!(refused("? a: 1\n: 2\n"), None);
        assert_eq!(refused("a: 1\n- b\n"), None);
        assert_eq!(refused("- a: 1\n  b: [c: d]\n"), None);
    }
}
