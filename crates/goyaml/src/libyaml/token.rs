//! Tokens (`yaml_token_t`).

use super::Mark;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum TokenType {
    #[default]
    NoToken,
    StreamStart,
    StreamEnd,
    VersionDirective,
    TagDirective,
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias,
    Anchor,
    Tag,
    Scalar,
}

/// `yaml_scalar_style_t`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ScalarStyle {
    #[default]
    Any,
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Token {
    pub typ: TokenType,
    pub start_mark: Mark,
    pub end_mark: Mark,
    /// Scalar, anchor and alias text; a tag's handle; a %TAG directive's handle.
    pub value: Vec<u8>,
    /// A tag's suffix.
    pub suffix: Vec<u8>,
    /// A %TAG directive's prefix.
    pub prefix: Vec<u8>,
    pub style: ScalarStyle,
    pub major: i8,
    pub minor: i8,
}

impl Token {
    pub(crate) fn new(typ: TokenType, start_mark: Mark, end_mark: Mark) -> Self {
        Token { typ, start_mark, end_mark, ..Token::default() }
    }
}
