//! What a message decodes to before it is rendered: one slot per table field, borrowing
//! strings and bytes from the body. Keeping this step apart from rendering lets repeated
//! occurrences of a field merge the way Go's generated decoder merges them.

use std::collections::BTreeMap;

use crate::schema::Message;

/// A decoded message: `slots[i]` holds the value of `message.fields[i]`.
#[derive(Debug)]
pub(crate) struct Decoded<'a> {
    pub(crate) message: &'static Message,
    pub(crate) slots: Vec<Slot<'a>>,
}

/// The value of one field. Lists and maps are only created by their first item, so a list
/// slot is never empty.
#[derive(Debug)]
pub(crate) enum Slot<'a> {
    /// Not on the wire.
    Absent,
    String(&'a str),
    Int(i64),
    Bool(bool),
    Bytes {
        bytes: &'a [u8],
        offset: usize,
    },
    Message(Decoded<'a>),
    /// `offset` is where the field's key starts, for range errors found while rendering.
    Time {
        time: Timestamp,
        offset: usize,
    },
    /// `raw` is `FieldsV1.Raw` and where it starts; `None` when the message had no Raw.
    FieldsV1 {
        raw: Option<(&'a [u8], usize)>,
    },
    Strings(Vec<&'a str>),
    Messages(Vec<Decoded<'a>>),
    /// Map keys are kept sorted, which is the order `encoding/json` writes them in.
    StringMap(BTreeMap<&'a str, &'a str>),
    BytesMap(BTreeMap<&'a str, &'a [u8]>),
    ExtraMap(BTreeMap<&'a str, Vec<&'a str>>),
}

/// A `metav1.Time` or `MicroTime` as it came off the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Timestamp {
    /// An empty message: Go's zero time.
    Zero,
    At {
        seconds: i64,
        nanos: i32,
    },
}

impl<'a> Decoded<'a> {
    /// A message with no field on the wire.
    pub(crate) fn empty(message: &'static Message) -> Self {
        Self { message, slots: message.fields.iter().map(|_| Slot::Absent).collect() }
    }

    fn slot(&self, number: u32) -> Option<&Slot<'a>> {
        self.message.index_of(number).and_then(|index| self.slots.get(index))
    }

    /// A string field, "" when absent.
    pub(crate) fn string(&self, number: u32) -> &'a str {
        match self.slot(number) {
            Some(Slot::String(text)) => text,
            _ => "",
        }
    }

    /// An integer field, 0 when absent.
    pub(crate) fn int(&self, number: u32) -> i64 {
        match self.slot(number) {
            Some(Slot::Int(value)) => *value,
            _ => 0,
        }
    }

    /// A bytes field and its offset in the body.
    pub(crate) fn bytes(&self, number: u32) -> Option<(&'a [u8], usize)> {
        match self.slot(number) {
            Some(Slot::Bytes { bytes, offset }) => Some((bytes, *offset)),
            _ => None,
        }
    }

    /// An embedded message field.
    pub(crate) fn message(&self, number: u32) -> Option<&Decoded<'a>> {
        match self.slot(number) {
            Some(Slot::Message(decoded)) => Some(decoded),
            _ => None,
        }
    }

    /// A repeated string field, empty when absent.
    pub(crate) fn into_strings(mut self, number: u32) -> Vec<&'a str> {
        let slot = self.message.index_of(number).and_then(|index| self.slots.get_mut(index));
        match slot.map(|slot| std::mem::replace(slot, Slot::Absent)) {
            Some(Slot::Strings(list)) => list,
            _ => Vec::new(),
        }
    }
}
