//! Go's `net/url`: `url.Parse`, `url.ParseRequestURI`, `URL.String()`, `URL.EscapedPath()`
//! and the per-component percent-escaping behind them, with Go's rejection reasons.
//!
//! Go's rules are those of Go 1.26 (only IPv6 inside brackets, a single `:` in `http`
//! and `https` hosts). Go checks a bracketed host with `netip.ParseAddr`; that parser is
//! supplied by the caller (see [`AddrParser`]) so that its error text can be Go's.

mod escape;
mod parse;
mod string;

pub use escape::{EscapeError, Mode, escape, unescape, valid_encoded};
pub use parse::{AddrParser, GoUrl, UrlParseReason, User, valid_optional_port};

#[cfg(test)]
mod tests;
