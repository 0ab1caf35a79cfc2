//! The parser states inside block and flow collections.

use super::super::event::{Event, EventType};
use super::super::token::TokenType;
use super::{Parser, State, empty_scalar};
use crate::libyaml::Step;

impl Parser<'_> {
    /// Remembers where a collection starts (its error context) and consumes its start token.
    fn open_collection(&mut self) -> Step {
        let (_, start, _) = self.peek()?;
        self.marks.push(start);
        self.skip_token();
        Ok(())
    }

    /// Ends a collection with `typ` at the head token (which it consumes), the event taking
    /// the pending comments.
    fn close_collection(&mut self, typ: EventType) -> Step<Event> {
        let (_, start, _) = self.peek()?;
        self.pop_state();
        self.marks.pop();
        self.set_event_comments();
        self.skip_token();
        Ok(Event::new(typ, start))
    }

    /// Fails with `problem` in the context of the innermost open collection.
    fn collection_error(&mut self, context: &'static str, problem: &str) -> crate::libyaml::Stop {
        let context_mark = self.marks.pop().unwrap_or_default();
        let problem_mark = self.s.tokens.front().map(|t| t.start_mark).unwrap_or_default();
        self.error_context(context, context_mark, problem, problem_mark)
    }

    pub(super) fn parse_block_sequence_entry(&mut self, first: bool) -> Step<Event> {
        if first {
            self.open_collection()?;
        }
        let (typ, _, end) = self.peek()?;
        match typ {
            TokenType::BlockEntry => {
                let prior_head_len = self.head_comment.len();
                self.skip_token();
                self.split_stem_comment(prior_head_len);
                let (typ, _, _) = self.peek()?;
                if typ != TokenType::BlockEntry && typ != TokenType::BlockEnd {
                    self.states.push(State::BlockSequenceEntry);
                    self.parse_node(true, false)
                } else {
                    self.state = State::BlockSequenceEntry;
                    Ok(empty_scalar(end))
                }
            }
            TokenType::BlockEnd => {
                let (_, start, _) = self.peek()?;
                self.pop_state();
                self.marks.pop();
                self.skip_token();
                Ok(Event::new(EventType::SequenceEnd, start))
            }
            _ => Err(self.collection_error(
                "while parsing a block collection",
                "did not find expected '-' indicator",
            )),
        }
    }

    pub(super) fn parse_indentless_sequence_entry(&mut self) -> Step<Event> {
        let (typ, start, end) = self.peek()?;
        if typ == TokenType::BlockEntry {
            let prior_head_len = self.head_comment.len();
            self.skip_token();
            self.split_stem_comment(prior_head_len);
            let (typ, _, _) = self.peek()?;
            if !matches!(
                typ,
                TokenType::BlockEntry | TokenType::Key | TokenType::Value | TokenType::BlockEnd
            ) {
                self.states.push(State::IndentlessSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = State::IndentlessSequenceEntry;
            return Ok(empty_scalar(end));
        }
        self.pop_state();
        Ok(Event::new(EventType::SequenceEnd, start))
    }

    pub(super) fn parse_block_mapping_key(&mut self, first: bool) -> Step<Event> {
        if first {
            self.open_collection()?;
        }
        // yaml.v3's tail comment events need comment text, which is not kept (and its
        // parser never sets `tail_comment`, so none is ever emitted).
        let (typ, _, end) = self.peek()?;
        match typ {
            TokenType::Key => {
                self.skip_token();
                let (typ, _, _) = self.peek()?;
                if !matches!(typ, TokenType::Key | TokenType::Value | TokenType::BlockEnd) {
                    self.states.push(State::BlockMappingValue);
                    self.parse_node(true, true)
                } else {
                    self.state = State::BlockMappingValue;
                    Ok(empty_scalar(end))
                }
            }
            TokenType::BlockEnd => self.close_collection(EventType::MappingEnd),
            _ => {
                Err(self
                    .collection_error("while parsing a block mapping", "did not find expected key"))
            }
        }
    }

    pub(super) fn parse_block_mapping_value(&mut self) -> Step<Event> {
        let (typ, start, end) = self.peek()?;
        if typ == TokenType::Value {
            self.skip_token();
            let (typ, _, _) = self.peek()?;
            if !matches!(typ, TokenType::Key | TokenType::Value | TokenType::BlockEnd) {
                self.states.push(State::BlockMappingKey);
                return self.parse_node(true, true);
            }
            self.state = State::BlockMappingKey;
            return Ok(empty_scalar(end));
        }
        self.state = State::BlockMappingKey;
        Ok(empty_scalar(start))
    }

    pub(super) fn parse_flow_sequence_entry(&mut self, first: bool) -> Step<Event> {
        if first {
            self.open_collection()?;
        }
        let (mut typ, _, _) = self.peek()?;
        if typ != TokenType::FlowSequenceEnd {
            if !first {
                if typ != TokenType::FlowEntry {
                    return Err(self.collection_error(
                        "while parsing a flow sequence",
                        "did not find expected ',' or ']'",
                    ));
                }
                self.skip_token();
                (typ, _, _) = self.peek()?;
            }
            if typ == TokenType::Key {
                // A single-pair mapping inside a flow sequence.
                let (_, start, _) = self.peek()?;
                self.state = State::FlowSequenceEntryMappingKey;
                let event = Event::new(EventType::MappingStart, start);
                self.skip_token();
                return Ok(event);
            } else if typ != TokenType::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntry);
                return self.parse_node(false, false);
            }
        }
        self.close_collection(EventType::SequenceEnd)
    }

    pub(super) fn parse_flow_sequence_entry_mapping_key(&mut self) -> Step<Event> {
        let (typ, _, end) = self.peek()?;
        if !matches!(typ, TokenType::Value | TokenType::FlowEntry | TokenType::FlowSequenceEnd) {
            self.states.push(State::FlowSequenceEntryMappingValue);
            return self.parse_node(false, false);
        }
        self.skip_token();
        self.state = State::FlowSequenceEntryMappingValue;
        Ok(empty_scalar(end))
    }

    pub(super) fn parse_flow_sequence_entry_mapping_value(&mut self) -> Step<Event> {
        let (typ, start, _) = self.peek()?;
        if typ == TokenType::Value {
            self.skip_token();
            let (typ, _, _) = self.peek()?;
            if typ != TokenType::FlowEntry && typ != TokenType::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntryMappingEnd);
                return self.parse_node(false, false);
            }
        }
        self.state = State::FlowSequenceEntryMappingEnd;
        // Go reports the empty value at the token it looked at first.
        Ok(empty_scalar(start))
    }

    pub(super) fn parse_flow_sequence_entry_mapping_end(&mut self) -> Step<Event> {
        let (_, start, _) = self.peek()?;
        self.state = State::FlowSequenceEntry;
        Ok(Event::new(EventType::MappingEnd, start))
    }

    pub(super) fn parse_flow_mapping_key(&mut self, first: bool) -> Step<Event> {
        if first {
            self.open_collection()?;
        }
        let (mut typ, _, _) = self.peek()?;
        if typ != TokenType::FlowMappingEnd {
            if !first {
                if typ != TokenType::FlowEntry {
                    return Err(self.collection_error(
                        "while parsing a flow mapping",
                        "did not find expected ',' or '}'",
                    ));
                }
                self.skip_token();
                (typ, _, _) = self.peek()?;
            }
            if typ == TokenType::Key {
                self.skip_token();
                let (typ, start, _) = self.peek()?;
                if !matches!(
                    typ,
                    TokenType::Value | TokenType::FlowEntry | TokenType::FlowMappingEnd
                ) {
                    self.states.push(State::FlowMappingValue);
                    return self.parse_node(false, false);
                }
                self.state = State::FlowMappingValue;
                return Ok(empty_scalar(start));
            } else if typ != TokenType::FlowMappingEnd {
                self.states.push(State::FlowMappingEmptyValue);
                return self.parse_node(false, false);
            }
        }
        self.close_collection(EventType::MappingEnd)
    }

    pub(super) fn parse_flow_mapping_value(&mut self, empty: bool) -> Step<Event> {
        let (typ, start, _) = self.peek()?;
        if empty {
            self.state = State::FlowMappingKey;
            return Ok(empty_scalar(start));
        }
        if typ == TokenType::Value {
            self.skip_token();
            let (typ, start, _) = self.peek()?;
            if typ != TokenType::FlowEntry && typ != TokenType::FlowMappingEnd {
                self.states.push(State::FlowMappingKey);
                return self.parse_node(false, false);
            }
            self.state = State::FlowMappingKey;
            return Ok(empty_scalar(start));
        }
        self.state = State::FlowMappingKey;
        Ok(empty_scalar(start))
    }
}
