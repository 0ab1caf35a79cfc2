//! The Go formatting rules that upstream messages are made of.
//!
//! Users script against upstream message texts, so these reproduce Go's output byte for byte:
//! [`quote`] is `strconv.Quote` (`%q`), [`json()`] is `encoding/json.Marshal`, and
//! [`GoDuration`] is `time.ParseDuration` and `time.Duration.String()`, and [`url`] is
//! `net/url`'s parsing, escaping and `URL.String()`.
#![forbid(unsafe_code)]

mod duration;
mod json;
mod quote;
pub mod url;

pub use duration::{DurationError, GoDuration};
pub use json::json;
pub use quote::{go_string_slice, quote, quote_bytes, quote_list};
