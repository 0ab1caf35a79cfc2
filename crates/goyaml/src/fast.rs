//! One-pass decoding of typical documents straight from parser events to JSON values.
//!
//! Executed hub templates are Kubernetes objects: string keys, untagged scalars, no anchors.
//! For those, yaml.v3's decoder reduces to "resolve each plain scalar, sort each map's keys",
//! so the node tree and the intermediate Go values of the general path (`decode.rs`) are
//! pure overhead. This path builds the `serde_json::Value` while the events arrive and gives
//! up (`None`) at the first thing whose outcome depends on the general path's rules or its
//! error order: anchors, aliases, tags, `<<`, non-string or duplicate keys, values
//! `json.Marshal` rejects, nesting beyond [`MAX_DEPTH`]. The caller then decodes the text
//! again with the general path, so every answer, error text and limit stays that path's.

use granit_parser::{Event, ScalarStyle};
use serde_json::{Map, Value};

use crate::decode::{json_float, parser};
use crate::errors::parse_error;
use crate::resolve::{Scalar, resolve_plain_ref};
use crate::{MAX_DEPTH, YamlError};

/// A collection whose end event has not arrived yet, with where its children start on the
/// shared stacks of [`Builder`].
enum Open {
    Seq(usize),
    /// Also the key read for the value that comes next.
    Map(usize, Option<String>),
}

/// The values being built. Children of all open collections share two stacks, so a finished
/// collection is moved once into an allocation of exactly its size instead of growing one
/// vector or map per collection while its children arrive.
#[derive(Default)]
struct Builder {
    open: Vec<Open>,
    items: Vec<Value>,
    entries: Vec<(String, Value)>,
    root: Option<Value>,
}

/// `Some` with the value or parser error of the first document, or `None` when the general
/// path must decide.
pub fn decode(text: &str) -> Option<Result<Value, YamlError>> {
    let mut b = Builder::default();
    let mut eof = crate::block_eof::EofBlock::new(text);
    for next in parser(text) {
        let (event, span) = match next {
            Ok(next) => next,
            // The general path stops at the same event with the same error: until here the
            // events had no aliases, the only other thing its tree building fails on.
            Err(e) => return Some(Err(YamlError(parse_error(text, &e)))),
        };
        let value = match event {
            Event::Scalar(scalar, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                if let Err(e) = crate::block_tabs::check(text, style, &span) {
                    return Some(Err(e));
                }
                if let Some(Open::Map(_, key @ None)) = b.open.last_mut() {
                    // A key must decode as a Go string: quoted or block style, or a plain
                    // scalar resolving to `!!str` other than the merge key `<<` (which the
                    // parser tags `!!merge` before resolution, whose hint table skips it).
                    if style == ScalarStyle::Plain
                        && (scalar == "<<" || resolve_plain_ref(&scalar).is_some())
                    {
                        return None;
                    }
                    *key = Some(scalar.into_owned());
                    continue;
                }
                // yaml.v3 counts the scalar's own level too (its `d.unmarshal` depth).
                if b.open.len() >= MAX_DEPTH {
                    return None;
                }
                if style == ScalarStyle::Plain {
                    plain(scalar.into_owned())?
                } else {
                    let mut scalar = scalar.into_owned();
                    if eof.added_break(style, &span) {
                        if scalar.chars().all(|c| c == '\n') {
                            crate::block_eof::blank_body(text, &span, &mut scalar);
                        } else {
                            crate::block_eof::trim(text, &span, &mut scalar);
                        }
                    }
                    Value::String(scalar)
                }
            }
            Event::SequenceStart(_, anchor, tag) => {
                let new = Open::Seq(b.items.len());
                b.start(anchor, tag.is_some(), new)?;
                continue;
            }
            Event::MappingStart(_, anchor, tag) => {
                let new = Open::Map(b.entries.len(), None);
                b.start(anchor, tag.is_some(), new)?;
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match b.open.pop() {
                Some(Open::Seq(first)) => Value::Array(b.items.drain(first..).collect()),
                Some(Open::Map(first, _)) => b.finish_map(first)?,
                None => continue,
            },
            Event::Alias(_) | Event::UnresolvedAlias(_) | Event::Anchor(..) => return None,
            // Only the first document is decoded, as in the general path.
            Event::DocumentEnd if b.root.is_some() || b.open.is_empty() => break,
            _ => continue,
        };
        b.attach(value)?;
    }
    Some(Ok(b.root.unwrap_or(Value::Null)))
}

impl Builder {
    /// Opens a collection, unless it is one the general path must see: anchored, tagged,
    /// too deep, or in a key position (a collection key is never a string).
    fn start(&mut self, anchor: usize, tagged: bool, new: Open) -> Option<()> {
        if anchor != 0 || tagged || self.open.len() >= MAX_DEPTH {
            return None;
        }
        if let Some(Open::Map(_, None)) = self.open.last() {
            return None;
        }
        self.open.push(new);
        Some(())
    }

    /// A finished value as the next child of the innermost open collection.
    fn attach(&mut self, value: Value) -> Option<()> {
        match self.open.last_mut() {
            Some(Open::Seq(_)) => self.items.push(value),
            Some(Open::Map(_, key)) => self.entries.push((key.take()?, value)),
            None => self.root = Some(value),
        }
        Some(())
    }

    /// The map whose entries start at `first`, keys sorted as `encoding/json` writes a
    /// `map[string]interface{}`; `None` for a duplicate key, an "unmarshal error" whose text
    /// the general path builds.
    fn finish_map(&mut self, first: usize) -> Option<Value> {
        let entries = &mut self.entries[first..];
        // Templates rendered from JSON mostly have sorted keys already; the sort notices.
        entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if entries.windows(2).any(|pair| pair[0].0 == pair[1].0) {
            return None;
        }
        let mut map = Map::with_capacity(entries.len());
        map.extend(self.entries.drain(first..));
        Some(Value::Object(map))
    }
}

/// An untagged plain scalar as yaml.v3 resolves it and `json.Marshal` writes it; `None` for
/// the merge key and for floats JSON cannot hold.
fn plain(text: String) -> Option<Value> {
    let Some((_, scalar)) = resolve_plain_ref(&text) else {
        return Some(Value::String(text));
    };
    Some(match scalar {
        Scalar::Null => Value::Null,
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::from(i),
        Scalar::Uint(u) => Value::from(u),
        Scalar::Float(f) => Value::Number(json_float(f).ok()?),
        Scalar::Time(t) => Value::String(t.rfc3339_nano()),
        // `resolve_plain_ref` reports strings as `None`, handled above.
        Scalar::Str(_) | Scalar::Merge => return None,
    })
}

#[cfg(test)]
mod tests;
