//! Events (`yaml_event_t`), without the comment fields yaml.v3 only copies into nodes.

use super::Mark;
use super::token::ScalarStyle;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum EventType {
    #[default]
    None,
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias,
    Scalar,
    SequenceStart,
    SequenceEnd,
    MappingStart,
    MappingEnd,
}

impl EventType {
    /// yaml.v3's `eventStrings`, used in "expected ... event but got ...".
    pub(crate) fn name(self) -> &'static str {
        match self {
            EventType::None => "none",
            EventType::StreamStart => "stream start",
            EventType::StreamEnd => "stream end",
            EventType::DocumentStart => "document start",
            EventType::DocumentEnd => "document end",
            EventType::Alias => "alias",
            EventType::Scalar => "scalar",
            EventType::SequenceStart => "sequence start",
            EventType::SequenceEnd => "sequence end",
            EventType::MappingStart => "mapping start",
            EventType::MappingEnd => "mapping end",
        }
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Event {
    pub typ: EventType,
    pub start_mark: Mark,
    pub anchor: Option<Vec<u8>>,
    /// The resolved tag (`tag:yaml.org,2002:str`, `!local`, ...), empty when none.
    pub tag: Vec<u8>,
    pub value: Vec<u8>,
    pub style: ScalarStyle,
}

impl Event {
    pub(crate) fn new(typ: EventType, start_mark: Mark) -> Self {
        Event { typ, start_mark, ..Event::default() }
    }
}
