//! Go's `URL.String()`, `URL.EscapedPath()` and `URL.EscapedFragment()`: how Go
//! re-serialises a parsed URL.

use std::fmt;

use super::escape::{Mode, escape, unescape, valid_encoded};
use super::parse::GoUrl;

/// The escaped form of a path or fragment: as written when that is a valid encoding of
/// the decoded bytes, otherwise Go's escaping of them.
fn escaped(raw: &str, decoded: &[u8], mode: Mode) -> String {
    if !raw.is_empty()
        && valid_encoded(raw, mode)
        && unescape(raw, mode).is_ok_and(|bytes| bytes == decoded)
    {
        return raw.to_owned();
    }
    escape(decoded, mode)
}

impl GoUrl {
    /// Go's `URL.EscapedPath()`.
    pub fn escaped_path(&self) -> String {
        if self.raw_path.is_empty() && self.path == b"*" {
            // Go leaves the request-target `*` alone.
            return "*".to_owned();
        }
        escaped(&self.raw_path, &self.path, Mode::Path)
    }

    /// Go's `URL.EscapedFragment()`.
    pub fn escaped_fragment(&self) -> String {
        escaped(&self.raw_fragment, &self.fragment, Mode::Fragment)
    }
}

/// Go's `URL.String()`.
impl fmt::Display for GoUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        if !self.scheme.is_empty() {
            out.push_str(&self.scheme);
            out.push(':');
        }
        if self.opaque.is_empty() {
            let has_host = !self.host.is_empty();
            let has_authority = !self.scheme.is_empty() || has_host || self.user.is_some();
            let omit = self.omit_host && !has_host && self.user.is_none();
            if has_authority && !omit {
                if has_host || !self.path.is_empty() || self.user.is_some() {
                    out.push_str("//");
                }
                if let Some(user) = &self.user {
                    out.push_str(&escape(&user.name, Mode::UserPassword));
                    if let Some(password) = &user.password {
                        out.push(':');
                        out.push_str(&escape(password, Mode::UserPassword));
                    }
                    out.push('@');
                }
                out.push_str(&escape(&self.host, Mode::Host));
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && has_host {
                out.push('/');
            }
            // A colon in the first segment of a scheme-less path would read as a scheme.
            if out.is_empty() && path.split('/').next().is_some_and(|s| s.contains(':')) {
                out.push_str("./");
            }
            out.push_str(&path);
        } else {
            out.push_str(&self.opaque);
        }
        if self.force_query || !self.raw_query.is_empty() {
            out.push('?');
            out.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            out.push('#');
            out.push_str(&self.escaped_fragment());
        }
        f.write_str(&out)
    }
}
