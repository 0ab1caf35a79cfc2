//! Go's `URL.String()`, `URL.EscapedPath()` and `URL.EscapedFragment()`: how Go
//! re-serialises a parsed URL. Kubernetes compares URLs by this form.

use super::url_escape::{Mode, escape, unescape, valid_encoded};
use super::url_parse::GoUrl;

/// The escaped form of a path or fragment: as written when that is a valid encoding
/// of the decoded bytes, otherwise Go's escaping of them.
fn escaped(raw: &str, decoded: &[u8], mode: Mode) -> String {
    if !raw.is_empty()
        && valid_encoded(raw, mode)
        && unescape(raw, mode).is_ok_and(|bytes| bytes == decoded)
    {
        return raw.to_owned();
    }
    escape(decoded, mode)
}

/// Go's `URL.EscapedPath()`.
pub(crate) fn escaped_path(url: &GoUrl) -> String {
    if url.raw_path.is_empty() && url.path == b"*" {
        // Go leaves the request-target `*` alone.
        return "*".to_owned();
    }
    escaped(&url.raw_path, &url.path, Mode::Path)
}

/// Go's `URL.String()` for the URLs Kubernetes accepts (absolute URIs and absolute
/// paths; Go's extra handling of relative paths cannot apply to them).
pub(crate) fn go_string(url: &GoUrl) -> String {
    let mut out = String::new();
    if !url.scheme.is_empty() {
        out.push_str(&url.scheme);
        out.push(':');
    }
    if url.opaque.is_empty() {
        let has_authority = !url.scheme.is_empty() || !url.host.is_empty() || url.user.is_some();
        let omit = url.omit_host && url.host.is_empty() && url.user.is_none();
        if has_authority && !omit {
            if !url.host.is_empty() || !url.path.is_empty() || url.user.is_some() {
                out.push_str("//");
            }
            if let Some((name, password)) = &url.user {
                out.push_str(&escape(name, Mode::UserPassword));
                if let Some(password) = password {
                    out.push(':');
                    out.push_str(&escape(password, Mode::UserPassword));
                }
                out.push('@');
            }
            out.push_str(&escape(&url.host, Mode::Host));
        }
        out.push_str(&escaped_path(url));
    } else {
        out.push_str(&url.opaque);
    }
    if url.force_query || !url.raw_query.is_empty() {
        out.push('?');
        out.push_str(&url.raw_query);
    }
    if !url.fragment.is_empty() {
        out.push('#');
        out.push_str(&escaped(&url.raw_fragment, &url.fragment, Mode::Fragment));
    }
    out
}
