//! yaml.v3's `parser` type in decode.go: the events of the first document as a node tree.
//!
//! Built iteratively (libyaml allows 10,000 levels of nesting, too deep for recursion here);
//! the decoder bounds the depth it walks. Anchors are registered when their node starts, so
//! an alias inside its own anchor points at it (a cycle the decoder reports), and an alias
//! to an anchor not seen yet fails here with yaml.v3's message.

use std::borrow::Cow;
use std::collections::HashMap;

use super::event::{Event, EventType};
use super::parser::Parser;
use super::token::ScalarStyle;
use crate::YamlError;
use crate::resolve::{MAP_TAG, MERGE_TAG, SEQ_TAG, STR_TAG, resolve_plain_ref, short_tag};

pub(crate) enum Kind {
    Scalar { value: String },
    Sequence(Vec<usize>),
    Mapping(Vec<usize>),
    Alias { target: usize, name: String },
}

pub(crate) struct Node {
    pub kind: Kind,
    /// The tag yaml.v3's `parser.node` stores: the explicit tag, or `!!str` for quoted and
    /// block scalars, `!!merge` for a plain `<<`, the resolved tag for other plain scalars,
    /// `!!map`/`!!seq` for collections, and nothing for aliases.
    pub tag: Cow<'static, str>,
    /// 1-based, as `Node.Line`.
    pub line: usize,
}

/// The nodes of the first document and its root (`None` for a stream without documents).
pub(crate) struct Composed {
    pub nodes: Vec<Node>,
    pub root: Option<usize>,
}

/// `yaml.Unmarshal`'s `p.parse()` over `text`.
pub(crate) fn compose(text: &str) -> Result<Composed, YamlError> {
    let mut c =
        Composer { p: Parser::new(text), event: None, anchors: HashMap::new(), nodes: Vec::new() };
    c.expect(EventType::StreamStart)?;
    let root = match c.peek()? {
        EventType::StreamEnd => None,
        EventType::DocumentStart => {
            c.expect(EventType::DocumentStart)?;
            let root = c.node_tree()?;
            c.peek()?;
            c.expect(EventType::DocumentEnd)?;
            Some(root)
        }
        other => return Err(unexpected(other)),
    };
    Ok(Composed { nodes: c.nodes, root })
}

struct Composer<'a> {
    p: Parser<'a>,
    /// The event peeked and not consumed (`p.event`).
    event: Option<Event>,
    anchors: HashMap<Vec<u8>, usize>,
    nodes: Vec<Node>,
}

fn unexpected(typ: EventType) -> YamlError {
    YamlError(format!("yaml: internal error: attempted to parse unknown event: {}", typ.name()))
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

impl Composer<'_> {
    /// `p.fail()`.
    fn fail(&self) -> YamlError {
        YamlError(self.p.s.r.problem.message())
    }

    /// `p.peek()`: the next event's type; fails on any recorded problem, also one recorded
    /// without stopping the parser.
    fn peek(&mut self) -> Result<EventType, YamlError> {
        if let Some(event) = &self.event
            && event.typ != EventType::None
        {
            return Ok(event.typ);
        }
        match self.p.parse() {
            Ok(event) if !self.p.s.r.failed() => {
                let typ = event.typ;
                self.event = Some(event);
                Ok(typ)
            }
            _ => Err(self.fail()),
        }
    }

    /// `p.expect(e)`: consumes the next event, which must be `e`.
    fn expect(&mut self, e: EventType) -> Result<(), YamlError> {
        if self.event.as_ref().is_none_or(|event| event.typ == EventType::None) {
            match self.p.parse() {
                Ok(event) => self.event = Some(event),
                Err(_) => return Err(self.fail()),
            }
        }
        let typ = self.event.as_ref().map_or(EventType::None, |event| event.typ);
        if typ == EventType::StreamEnd {
            return Err(YamlError(
                "yaml: attempted to go past the end of stream; corrupted value?".to_owned(),
            ));
        }
        if typ != e {
            self.p.s.r.problem.problem =
                format!("expected {} event but got {}", e.name(), typ.name());
            return Err(self.fail());
        }
        self.event = None;
        Ok(())
    }

    /// The peeked event, consumed for building its node (`p.expect` of its own type).
    fn current(&mut self) -> Event {
        self.event.take().unwrap_or_default()
    }

    /// Adds a node for `event`, registering its anchor.
    fn add(&mut self, event: &mut Event, kind: Kind, tag: Cow<'static, str>) -> usize {
        let idx = self.nodes.len();
        if let Some(anchor) = event.anchor.take() {
            self.anchors.insert(anchor, idx);
        }
        self.nodes.push(Node { kind, tag, line: (event.start_mark.line + 1) as usize });
        idx
    }

    /// `parser.node`'s tag: an explicit one (but the non-specific `!`), else the default.
    fn explicit_tag(event: &Event) -> Option<Cow<'static, str>> {
        if event.tag.is_empty() || event.tag == b"!" {
            return None;
        }
        Some(Cow::Owned(short_tag(&String::from_utf8_lossy(&event.tag))))
    }

    fn scalar(&mut self) -> Result<usize, YamlError> {
        let mut event = self.current();
        let value = text(std::mem::take(&mut event.value));
        let tag = match Self::explicit_tag(&event) {
            Some(tag) => tag,
            None if event.style != ScalarStyle::Plain && event.style != ScalarStyle::Any => {
                Cow::Borrowed(STR_TAG)
            }
            None if value == "<<" => Cow::Borrowed(MERGE_TAG),
            None => Cow::Borrowed(resolve_plain_ref(&value).map_or(STR_TAG, |(tag, _)| tag)),
        };
        let idx = self.add(&mut event, Kind::Scalar { value }, tag);
        Ok(idx)
    }

    fn alias(&mut self) -> Result<usize, YamlError> {
        let mut event = self.current();
        let name = text(event.anchor.take().unwrap_or_default());
        let Some(&target) = self.anchors.get(name.as_bytes()) else {
            return Err(YamlError(format!("yaml: unknown anchor '{name}' referenced")));
        };
        let idx = self.add(&mut event, Kind::Alias { target, name }, Cow::Borrowed(""));
        Ok(idx)
    }

    /// Starts a sequence or mapping node; its items follow.
    fn collection(&mut self, typ: EventType) -> Result<usize, YamlError> {
        let mut event = self.current();
        let (kind, default_tag) = match typ {
            EventType::SequenceStart => (Kind::Sequence(Vec::new()), SEQ_TAG),
            _ => (Kind::Mapping(Vec::new()), MAP_TAG),
        };
        let tag = Self::explicit_tag(&event).unwrap_or(Cow::Borrowed(default_tag));
        let idx = self.add(&mut event, kind, tag);
        Ok(idx)
    }

    /// `p.parse()` for one node and everything in it, with an explicit stack of the
    /// collections still open.
    fn node_tree(&mut self) -> Result<usize, YamlError> {
        let mut open: Vec<usize> = Vec::new();
        loop {
            let mut done = match self.peek()? {
                EventType::Scalar => Some(self.scalar()?),
                EventType::Alias => Some(self.alias()?),
                typ @ (EventType::SequenceStart | EventType::MappingStart) => {
                    open.push(self.collection(typ)?);
                    None
                }
                other => return Err(unexpected(other)),
            };
            loop {
                if let Some(child) = done {
                    let Some(&parent) = open.last() else { return Ok(child) };
                    if let Kind::Sequence(items) | Kind::Mapping(items) =
                        &mut self.nodes[parent].kind
                    {
                        items.push(child);
                    }
                }
                let Some(&top) = open.last() else { break };
                let end = match self.nodes[top].kind {
                    Kind::Mapping(_) => EventType::MappingEnd,
                    _ => EventType::SequenceEnd,
                };
                if self.peek()? != end {
                    break;
                }
                self.expect(end)?;
                open.pop();
                done = Some(top);
            }
        }
    }
}
