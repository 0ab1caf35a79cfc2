//! The Go formatting rules that upstream messages are made of.
//!
//! Users script against upstream message texts, so these reproduce Go's output byte for byte:
//! [`quote`] is `strconv.Quote` (`%q`), [`json()`] is `encoding/json.Marshal` (with
//! [`push_json_string`] for a single string under either HTML-escaping setting),
//! [`format_float_g`] / [`format_float_f`] are `strconv.FormatFloat` with shortest precision
//! (`%v` of a `float64` is [`format_float_g`]), [`json_float`] is `encoding/json`'s float
//! layout, [`GoDuration`] is `time.ParseDuration` and `time.Duration.String()`, and [`url`]
//! is `net/url`'s parsing, escaping and `URL.String()`, and [`sprintf`] / [`sprint`] /
//! [`sprintln`] are `fmt`'s over JSON-like values ([`Arg`]).
#![forbid(unsafe_code)]

mod duration;
mod float;
mod json;
mod printf;
mod quote;
pub mod unicode;
pub mod url;
mod utf8;

pub use duration::{DurationError, GoDuration};
pub use float::{format_float_f, format_float_g, json_float};
pub use json::{JsonEscape, json, push_json_string, unmarshal_kind};
pub use printf::{Arg, sprint, sprintf, sprintln};
pub use quote::{go_string_slice, quote, quote_bytes, quote_list};
pub use utf8::lossy_utf8;
