//! The parser (`parserc.go`): tokens to events, a state machine with libyaml's states.

mod collections;

use super::event::{Event, EventType};
use super::scanner::Scanner;
use super::token::{ScalarStyle, Token, TokenType};
use super::{Mark, Stage, Step, Stop};

/// `yaml_parser_state_t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum State {
    #[default]
    StreamStart,
    ImplicitDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
    End,
}

pub(crate) struct Parser<'a> {
    pub s: Scanner<'a>,
    state: State,
    states: Vec<State>,
    marks: Vec<Mark>,
    tag_directives: Vec<(Vec<u8>, Vec<u8>)>,
    /// The head comment gathered for the next event. Only its length steers the parser: a
    /// sequence entry after a head comment peeks at the next token early and ignores a
    /// failure there (`yaml_parser_split_stem_comment`), so the scanner goes on and a later
    /// problem replaces the first. Line and foot comments steer nothing and are not kept.
    head_comment: Vec<u8>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(input: &'a str) -> Self {
        Parser {
            s: Scanner::new(input),
            state: State::StreamStart,
            states: Vec::new(),
            marks: Vec::new(),
            tag_directives: Vec::new(),
            head_comment: Vec::new(),
        }
    }

    /// `yaml_parser_parse`: the next event; an empty one (`EventType::None`) after the end
    /// of the stream or once a problem is recorded.
    pub(crate) fn parse(&mut self) -> Step<Event> {
        if self.s.stream_end_produced || self.s.r.failed() || self.state == State::End {
            return Ok(Event::default());
        }
        self.state_machine()
    }

    /// `peek_token`: makes the head token available and moves the comments before it into
    /// the pending comments.
    fn peek_token(&mut self) -> Step<&Token> {
        if !self.s.token_available {
            self.s.fetch_more_tokens()?;
        }
        self.unfold_comments();
        self.s.tokens.front().ok_or(Stop)
    }

    /// A copy of the head token's type and marks (the parser mostly needs only these).
    fn peek(&mut self) -> Step<(TokenType, Mark, Mark)> {
        let t = self.peek_token()?;
        Ok((t.typ, t.start_mark, t.end_mark))
    }

    fn skip_token(&mut self) {
        self.s.skip_token();
    }

    /// `yaml_parser_unfold_comments`: hands the comments before the head token to the next
    /// event. A handed-over comment is cleared (the scanner's placement of BLOCK-END tokens
    /// stops at cleared comments).
    fn unfold_comments(&mut self) {
        let Some(token) = self.s.tokens.front() else { return };
        let (typ, index) = (token.typ, token.start_mark.index);
        while let Some(comment) = self.s.comments.get_mut(self.s.comments_head) {
            if index < comment.token_mark.index {
                break;
            }
            if !comment.head.is_empty() {
                if typ == TokenType::BlockEnd {
                    // No heads on ends: kept for the token after.
                    break;
                }
                if !self.head_comment.is_empty() {
                    self.head_comment.push(b'\n');
                }
                self.head_comment.extend_from_slice(&comment.head);
            }
            *comment = Default::default();
            self.s.comments_head += 1;
        }
    }

    /// `yaml_parser_set_event_comments`: the event takes the pending comments.
    fn set_event_comments(&mut self) {
        self.head_comment.clear();
    }

    /// `yaml_parser_split_stem_comment`: after a sequence entry's '-', a head comment gathered
    /// before it belongs to a collection starting right after it. Go peeks at that token
    /// without checking for failure.
    fn split_stem_comment(&mut self, stem_len: usize) {
        if stem_len == 0 {
            return;
        }
        let Ok(token) = self.peek_token() else { return };
        if !matches!(token.typ, TokenType::BlockSequenceStart | TokenType::BlockMappingStart) {
            return;
        }
        self.head_comment =
            self.head_comment.get(stem_len + 1..).map(<[u8]>::to_vec).unwrap_or_default();
    }

    fn error(&mut self, problem: &str, problem_mark: Mark) -> Stop {
        let p = &mut self.s.r.problem;
        p.stage = Stage::Parser;
        p.problem = problem.to_owned();
        p.problem_mark = problem_mark;
        Stop
    }

    fn error_context(
        &mut self,
        context: &'static str,
        context_mark: Mark,
        problem: &str,
        problem_mark: Mark,
    ) -> Stop {
        self.s.r.problem.context = context;
        self.s.r.problem.context_mark = context_mark;
        self.error(problem, problem_mark)
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::End);
    }

    fn state_machine(&mut self) -> Step<Event> {
        match self.state {
            State::StreamStart => self.parse_stream_start(),
            State::ImplicitDocumentStart => self.parse_document_start(true),
            State::DocumentStart => self.parse_document_start(false),
            State::DocumentContent => self.parse_document_content(),
            State::DocumentEnd => self.parse_document_end(),
            State::BlockNode => self.parse_node(true, false),
            State::BlockSequenceFirstEntry => self.parse_block_sequence_entry(true),
            State::BlockSequenceEntry => self.parse_block_sequence_entry(false),
            State::IndentlessSequenceEntry => self.parse_indentless_sequence_entry(),
            State::BlockMappingFirstKey => self.parse_block_mapping_key(true),
            State::BlockMappingKey => self.parse_block_mapping_key(false),
            State::BlockMappingValue => self.parse_block_mapping_value(),
            State::FlowSequenceFirstEntry => self.parse_flow_sequence_entry(true),
            State::FlowSequenceEntry => self.parse_flow_sequence_entry(false),
            State::FlowSequenceEntryMappingKey => self.parse_flow_sequence_entry_mapping_key(),
            State::FlowSequenceEntryMappingValue => self.parse_flow_sequence_entry_mapping_value(),
            State::FlowSequenceEntryMappingEnd => self.parse_flow_sequence_entry_mapping_end(),
            State::FlowMappingFirstKey => self.parse_flow_mapping_key(true),
            State::FlowMappingKey => self.parse_flow_mapping_key(false),
            State::FlowMappingValue => self.parse_flow_mapping_value(false),
            State::FlowMappingEmptyValue => self.parse_flow_mapping_value(true),
            State::End => Ok(Event::default()),
        }
    }

    fn parse_stream_start(&mut self) -> Step<Event> {
        let (typ, start, _) = self.peek()?;
        if typ != TokenType::StreamStart {
            return Err(self.error("did not find expected <stream-start>", start));
        }
        self.state = State::ImplicitDocumentStart;
        self.skip_token();
        Ok(Event::new(EventType::StreamStart, start))
    }

    /// `yaml_parser_parse_document_start`.
    fn parse_document_start(&mut self, implicit: bool) -> Step<Event> {
        let (mut typ, mut start, _) = self.peek()?;
        if !implicit {
            // Extra document end indicators.
            while typ == TokenType::DocumentEnd {
                self.skip_token();
                (typ, start, _) = self.peek()?;
            }
        }
        let directive = matches!(typ, TokenType::VersionDirective | TokenType::TagDirective);
        if implicit && !directive && typ != TokenType::DocumentStart && typ != TokenType::StreamEnd
        {
            // An implicit document.
            self.process_directives()?;
            self.states.push(State::DocumentEnd);
            self.state = State::BlockNode;
            self.split_document_head_comment();
            Ok(Event::new(EventType::DocumentStart, start))
        } else if typ != TokenType::StreamEnd {
            // An explicit document.
            self.process_directives()?;
            let (typ, mark, _) = self.peek()?;
            if typ != TokenType::DocumentStart {
                return Err(self.error("did not find expected <document start>", mark));
            }
            self.states.push(State::DocumentEnd);
            self.state = State::DocumentContent;
            self.skip_token();
            Ok(Event::new(EventType::DocumentStart, start))
        } else {
            self.state = State::End;
            self.skip_token();
            Ok(Event::new(EventType::StreamEnd, start))
        }
    }

    /// The head comment before an implicit document up to its last empty line belongs to
    /// the document; the rest stays for the first node.
    fn split_document_head_comment(&mut self) {
        let head = &self.head_comment;
        for i in (1..head.len()).rev() {
            if head[i] == b'\n' && (i == head.len() - 1 || head[i - 1] == b'\n') {
                self.head_comment = head[i + 1..].to_vec();
                return;
            }
        }
    }

    fn parse_document_content(&mut self) -> Step<Event> {
        let (typ, start, _) = self.peek()?;
        if matches!(
            typ,
            TokenType::VersionDirective
                | TokenType::TagDirective
                | TokenType::DocumentStart
                | TokenType::DocumentEnd
                | TokenType::StreamEnd
        ) {
            self.pop_state();
            return Ok(empty_scalar(start));
        }
        self.parse_node(true, false)
    }

    fn parse_document_end(&mut self) -> Step<Event> {
        let (typ, start, _) = self.peek()?;
        if typ == TokenType::DocumentEnd {
            self.skip_token();
        }
        self.tag_directives.clear();
        self.state = State::DocumentStart;
        self.set_event_comments();
        Ok(Event::new(EventType::DocumentEnd, start))
    }

    /// `yaml_parser_parse_node`: a node with its anchor and tag, or an alias.
    fn parse_node(&mut self, block: bool, indentless_sequence: bool) -> Step<Event> {
        let token = self.peek_token()?;
        if token.typ == TokenType::Alias {
            let mut event = Event::new(EventType::Alias, token.start_mark);
            event.anchor = Some(token.value.clone());
            self.pop_state();
            self.set_event_comments();
            self.skip_token();
            return Ok(event);
        }
        let mut start = token.start_mark;
        let mut anchor = None;
        let mut tag_parts: Option<(Vec<u8>, Vec<u8>)> = None;
        let mut tag_mark = Mark::default();
        if token.typ == TokenType::Anchor {
            anchor = Some(token.value.clone());
            self.skip_token();
            let token = self.peek_token()?;
            if token.typ == TokenType::Tag {
                tag_parts = Some((token.value.clone(), token.suffix.clone()));
                tag_mark = token.start_mark;
                self.skip_token();
                self.peek_token()?;
            }
        } else if token.typ == TokenType::Tag {
            tag_parts = Some((token.value.clone(), token.suffix.clone()));
            start = token.start_mark;
            tag_mark = token.start_mark;
            self.skip_token();
            let token = self.peek_token()?;
            if token.typ == TokenType::Anchor {
                anchor = Some(token.value.clone());
                self.skip_token();
                self.peek_token()?;
            }
        }
        let mut tag = Vec::new();
        if let Some((handle, suffix)) = tag_parts {
            if handle.is_empty() {
                tag = suffix;
            } else {
                if let Some((_, prefix)) = self.tag_directives.iter().find(|(h, _)| *h == handle) {
                    tag = prefix.clone();
                    tag.extend_from_slice(&suffix);
                }
                if tag.is_empty() {
                    return Err(self.error_context(
                        "while parsing a node",
                        start,
                        "found undefined tag handle",
                        tag_mark,
                    ));
                }
            }
        }
        let token = self.s.tokens.front().ok_or(Stop)?;
        let (typ, token_start) = (token.typ, token.start_mark);
        let node = |typ: EventType, anchor: Option<Vec<u8>>, tag: Vec<u8>| Event {
            typ,
            start_mark: start,
            anchor,
            tag,
            ..Event::default()
        };
        if indentless_sequence && typ == TokenType::BlockEntry {
            self.state = State::IndentlessSequenceEntry;
            return Ok(node(EventType::SequenceStart, anchor, tag));
        }
        match typ {
            TokenType::Scalar => {
                let mut event = node(EventType::Scalar, anchor, tag);
                event.value = std::mem::take(&mut self.s.tokens[0].value);
                event.style = self.s.tokens[0].style;
                self.pop_state();
                self.set_event_comments();
                self.skip_token();
                Ok(event)
            }
            TokenType::FlowSequenceStart | TokenType::FlowMappingStart => {
                let sequence = typ == TokenType::FlowSequenceStart;
                self.state = if sequence {
                    State::FlowSequenceFirstEntry
                } else {
                    State::FlowMappingFirstKey
                };
                let event = node(
                    if sequence { EventType::SequenceStart } else { EventType::MappingStart },
                    anchor,
                    tag,
                );
                self.set_event_comments();
                Ok(event)
            }
            TokenType::BlockSequenceStart if block => {
                self.state = State::BlockSequenceFirstEntry;
                Ok(node(EventType::SequenceStart, anchor, tag))
            }
            TokenType::BlockMappingStart if block => {
                self.state = State::BlockMappingFirstKey;
                Ok(node(EventType::MappingStart, anchor, tag))
            }
            _ if anchor.is_some() || !tag.is_empty() => {
                // An anchored or tagged empty scalar.
                self.pop_state();
                let mut event = node(EventType::Scalar, anchor, tag);
                event.style = ScalarStyle::Plain;
                Ok(event)
            }
            _ => {
                let context =
                    if block { "while parsing a block node" } else { "while parsing a flow node" };
                Err(self.error_context(
                    context,
                    start,
                    "did not find expected node content",
                    token_start,
                ))
            }
        }
    }

    /// `yaml_parser_process_directives`: %YAML and %TAG before a document, then the default
    /// tag handles.
    fn process_directives(&mut self) -> Step {
        let mut version_seen = false;
        loop {
            let token = self.peek_token()?;
            let (typ, mark) = (token.typ, token.start_mark);
            match typ {
                TokenType::VersionDirective => {
                    let (major, minor) = (token.major, token.minor);
                    if version_seen {
                        return Err(self.error("found duplicate %YAML directive", mark));
                    }
                    if major != 1 || minor != 1 {
                        return Err(self.error("found incompatible YAML document", mark));
                    }
                    version_seen = true;
                }
                TokenType::TagDirective => {
                    let value = (token.value.clone(), token.prefix.clone());
                    self.append_tag_directive(value, false, mark)?;
                }
                _ => break,
            }
            self.skip_token();
        }
        let (_, mark, _) = self.peek()?;
        for (handle, prefix) in [(&b"!"[..], &b"!"[..]), (b"!!", b"tag:yaml.org,2002:")] {
            self.append_tag_directive((handle.to_vec(), prefix.to_vec()), true, mark)?;
        }
        Ok(())
    }

    fn append_tag_directive(
        &mut self,
        value: (Vec<u8>, Vec<u8>),
        allow_duplicates: bool,
        mark: Mark,
    ) -> Step {
        if self.tag_directives.iter().any(|(handle, _)| *handle == value.0) {
            if allow_duplicates {
                return Ok(());
            }
            return Err(self.error("found duplicate %TAG directive", mark));
        }
        self.tag_directives.push(value);
        Ok(())
    }
}

/// `yaml_parser_process_empty_scalar`.
fn empty_scalar(mark: Mark) -> Event {
    Event {
        typ: EventType::Scalar,
        start_mark: mark,
        style: ScalarStyle::Plain,
        ..Event::default()
    }
}
