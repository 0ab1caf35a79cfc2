//! Where the first document's root node ends in a token stream.
//!
//! yaml.v3 decodes the first document's root node and stops: libyaml's scanner reads on only
//! as far as its parser asks (one token past the node, and on while a simple key is pending).
//! So a refusal that certgate checks on the token stream (a tab after a block indicator, a
//! `:` with no key) only counts up to the end of the root node; past it yaml.v3 accepts the
//! document (`" a: \nn\n:"` is `{"a": null}`).

use granit_parser::TokenType;

/// Follows tokens until the root node is complete.
#[derive(Default)]
pub(crate) struct RootExtent {
    depth: usize,
    complete: bool,
}

impl RootExtent {
    /// Feeds the next token; `true` when it lies past the root node (the token completing
    /// the node is still part of it).
    pub(crate) fn past_root(&mut self, token: &TokenType<'_>) -> bool {
        if self.complete {
            return true;
        }
        match token {
            TokenType::BlockMappingStart
            | TokenType::BlockSequenceStart
            | TokenType::FlowMappingStart
            | TokenType::FlowSequenceStart => self.depth += 1,
            TokenType::BlockEnd | TokenType::FlowMappingEnd | TokenType::FlowSequenceEnd => {
                self.depth = self.depth.saturating_sub(1);
                self.complete = self.depth == 0;
            }
            TokenType::Scalar(..) | TokenType::Alias(_) if self.depth == 0 => {
                self.complete = true;
            }
            _ => {}
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use crate::from_yaml;

    fn decoded(text: &str) -> Result<String, String> {
        from_yaml(text).map(|v| v.to_string()).map_err(|e| e.to_string())
    }

    #[test]
    fn refusals_past_the_root_node_do_not_count() {
        // Answers recorded from yaml.v3 v3.0.1 (tools/oracles/yaml).
        assert_eq!(decoded(" 3e: \nn\n\n:"), Ok(r#"{"3e":null}"#.to_owned()));
        assert_eq!(decoded("8\n: x"), Ok("8".to_owned()));
        assert_eq!(decoded("8\n#\n- x\n-\ty"), Ok("8".to_owned()));
        assert_eq!(decoded("a: 1\n: x"), Err("yaml: line 1: did not find expected key".to_owned()));
        // The first token past the root is still scanned.
        assert_eq!(
            decoded("'q'\n-\tx"),
            Err("yaml: line 2: found character that cannot start any token".to_owned())
        );
    }
}
