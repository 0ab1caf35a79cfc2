//! `yaml_parser_fetch_*`: the token a character starts, with its simple-key and indentation
//! effects.

use super::super::token::{ScalarStyle, Token, TokenType};
use super::{Scanner, SimpleKey};
use crate::libyaml::Step;

impl Scanner<'_> {
    /// The dispatch at the end of `yaml_parser_fetch_next_token`.
    pub(super) fn fetch_token(&mut self) -> Step {
        let c = self.r.byte();
        let flow = self.flow_level > 0;
        match c {
            b'[' => return self.fetch_flow_collection_start(TokenType::FlowSequenceStart),
            b'{' => return self.fetch_flow_collection_start(TokenType::FlowMappingStart),
            b']' => return self.fetch_flow_collection_end(TokenType::FlowSequenceEnd),
            b'}' => return self.fetch_flow_collection_end(TokenType::FlowMappingEnd),
            b',' => return self.fetch_flow_entry(),
            b'-' if self.r.is_blankz(1) => return self.fetch_block_entry(),
            b'?' if flow || self.r.is_blankz(1) => return self.fetch_key(),
            b':' if flow || self.r.is_blankz(1) => return self.fetch_value(),
            b'*' => return self.fetch_anchor(TokenType::Alias),
            b'&' => return self.fetch_anchor(TokenType::Anchor),
            b'!' => return self.fetch_tag(),
            b'|' if !flow => return self.fetch_block_scalar(true),
            b'>' if !flow => return self.fetch_block_scalar(false),
            b'\'' => return self.fetch_flow_scalar(true),
            b'"' => return self.fetch_flow_scalar(false),
            _ => {}
        }
        // A plain scalar starts with any non-blank character but the indicators; '-' also
        // when a non-blank follows, and in block context '?' and ':' when a non-blank does.
        let indicator = self.r.is_blankz(0)
            || matches!(
                c,
                b'-' | b'?'
                    | b':'
                    | b','
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'#'
                    | b'&'
                    | b'*'
                    | b'!'
                    | b'|'
                    | b'>'
                    | b'\''
                    | b'"'
                    | b'%'
                    | b'@'
                    | b'`'
            );
        if !indicator
            || (c == b'-' && !self.r.is_blank_at(1))
            || (!flow && (c == b'?' || c == b':') && !self.r.is_blankz(1))
        {
            return self.fetch_plain_scalar();
        }
        let mark = self.r.mark;
        Err(self.r.scanner_error(
            "while scanning for the next token",
            mark,
            "found character that cannot start any token",
        ))
    }

    pub(super) fn fetch_stream_start(&mut self) {
        self.indent = -1;
        self.simple_keys.push(SimpleKey::default());
        self.simple_keys_by_tok.clear();
        self.simple_key_allowed = true;
        self.stream_start_produced = true;
        let mark = self.r.mark;
        self.insert_token(None, Token::new(TokenType::StreamStart, mark, mark));
    }

    pub(super) fn fetch_stream_end(&mut self) -> Step {
        // Force a new line.
        if self.r.mark.column != 0 {
            self.r.mark.column = 0;
            self.r.mark.line += 1;
        }
        self.unroll_indent(-1, self.r.mark);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let mark = self.r.mark;
        self.insert_token(None, Token::new(TokenType::StreamEnd, mark, mark));
        Ok(())
    }

    pub(super) fn fetch_directive(&mut self) -> Step {
        self.unroll_indent(-1, self.r.mark);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_directive()?;
        self.insert_token(None, token);
        Ok(())
    }

    pub(super) fn fetch_document_indicator(&mut self, typ: TokenType) -> Step {
        self.unroll_indent(-1, self.r.mark);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let start = self.r.mark;
        self.r.skip();
        self.r.skip();
        self.r.skip();
        let end = self.r.mark;
        self.insert_token(None, Token::new(typ, start, end));
        Ok(())
    }

    /// One indicator character as a token.
    fn single(&mut self, typ: TokenType) {
        let start = self.r.mark;
        self.r.skip();
        let end = self.r.mark;
        self.insert_token(None, Token::new(typ, start, end));
    }

    fn fetch_flow_collection_start(&mut self, typ: TokenType) -> Step {
        // '[' and '{' may start a simple key.
        self.save_simple_key()?;
        self.increase_flow_level()?;
        self.simple_key_allowed = true;
        self.single(typ);
        Ok(())
    }

    fn fetch_flow_collection_end(&mut self, typ: TokenType) -> Step {
        self.remove_simple_key()?;
        self.decrease_flow_level();
        self.simple_key_allowed = false;
        self.single(typ);
        Ok(())
    }

    fn fetch_flow_entry(&mut self) -> Step {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        self.single(TokenType::FlowEntry);
        Ok(())
    }

    /// In block context, where a '-', '?' or ':' may open a block collection: refused with
    /// `refusal` where no simple key may start, else the collection is opened at the column.
    fn open_block_collection(&mut self, typ: TokenType, refusal: &str) -> Step {
        if self.flow_level > 0 {
            return Ok(());
        }
        let mark = self.r.mark;
        if !self.simple_key_allowed {
            return Err(self.r.scanner_error("", mark, refusal));
        }
        self.roll_indent(mark.column, None, typ, mark)
    }

    fn fetch_block_entry(&mut self) -> Step {
        // In flow context the parser reports the '-' (it can point at the context).
        self.open_block_collection(
            TokenType::BlockSequenceStart,
            "block sequence entries are not allowed in this context",
        )?;
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        self.single(TokenType::BlockEntry);
        Ok(())
    }

    fn fetch_key(&mut self) -> Step {
        self.open_block_collection(
            TokenType::BlockMappingStart,
            "mapping keys are not allowed in this context",
        )?;
        self.remove_simple_key()?;
        self.simple_key_allowed = self.flow_level == 0;
        self.single(TokenType::Key);
        Ok(())
    }

    fn fetch_value(&mut self) -> Step {
        let last = self.simple_keys.len() - 1;
        if self.simple_key_is_valid(last)? {
            // The simple key becomes a KEY token, and may open a block mapping, both
            // inserted before the key's first token.
            let key = self.simple_keys[last];
            let pos = key.token_number.saturating_sub(self.tokens_parsed);
            self.insert_token(Some(pos), Token::new(TokenType::Key, key.mark, key.mark));
            self.roll_indent(
                key.mark.column,
                Some(key.token_number),
                TokenType::BlockMappingStart,
                key.mark,
            )?;
            self.simple_keys[last].possible = false;
            self.simple_keys_by_tok.remove(&key.token_number);
            // A simple key cannot follow another simple key.
            self.simple_key_allowed = false;
        } else {
            // The ':' follows a complex key (or none).
            self.open_block_collection(
                TokenType::BlockMappingStart,
                "mapping values are not allowed in this context",
            )?;
            self.simple_key_allowed = self.flow_level == 0;
        }
        self.single(TokenType::Value);
        Ok(())
    }

    fn fetch_anchor(&mut self, typ: TokenType) -> Step {
        // An anchor or an alias may start a simple key; nothing simple may follow it.
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_anchor(typ)?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_tag(&mut self) -> Step {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_tag()?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_block_scalar(&mut self, literal: bool) -> Step {
        self.remove_simple_key()?;
        // A simple key may follow a block scalar.
        self.simple_key_allowed = true;
        let token = self.scan_block_scalar(literal)?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_flow_scalar(&mut self, single: bool) -> Step {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_flow_scalar(single)?;
        self.insert_token(None, token);
        Ok(())
    }

    fn fetch_plain_scalar(&mut self) -> Step {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_plain_scalar()?;
        debug_assert_eq!(token.style, ScalarStyle::Plain);
        self.insert_token(None, token);
        Ok(())
    }
}
