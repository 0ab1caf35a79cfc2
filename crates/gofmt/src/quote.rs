//! Go's `strconv.Quote`.

use std::fmt::Write as _;

pub(crate) use crate::unicode::is_print;

/// Go's `%q` / `strconv.Quote` of a string: printable characters (ASCII or not) are kept,
/// everything else is escaped the way Go escapes it.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    out.push('"');
    out
}

/// Go's `%q` of a byte string that may hold invalid UTF-8 (Go strings are bytes): valid
/// runs are quoted as [`quote`] does, each invalid byte becomes `\xNN`.
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_escaped(&mut out, c);
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out.push('"');
    out
}

/// `%q` of a `[]string`: `["a" "b"]`, as kube-apiserver prints group lists.
pub fn quote_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| quote(item)).collect();
    format!("[{}]", quoted.join(" "))
}

/// Go's `%#v` of a `[]T` whose element type is a string kind, e.g. `[]string{"a", "b"}`.
pub fn go_string_slice(type_name: &str, items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|item| quote(item)).collect();
    format!("[]{type_name}{{{}}}", quoted.join(", "))
}

fn push_escaped(out: &mut String, c: char) {
    push_escaped_as(out, c, '"', false);
}

/// Go's `strconv.QuoteToASCII` (`%+q`): like [`quote`], with every non-ASCII character
/// escaped.
pub(crate) fn quote_ascii(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped_as(&mut out, c, '"', true);
    }
    out.push('"');
    out
}

/// Go's `strconv.QuoteRune` (`%q` of an integer), or `QuoteRuneToASCII` with `ascii`.
pub(crate) fn quote_rune(c: char, ascii: bool) -> String {
    let mut out = String::from("'");
    push_escaped_as(&mut out, c, '\'', ascii);
    out.push('\'');
    out
}

/// Go's `strconv.CanBackquote`: one line, no control characters other than tab, no
/// backquote, no U+FEFF.
pub(crate) fn can_backquote(s: &str) -> bool {
    s.chars().all(|c| c != '`' && c != '\u{feff}' && (c == '\t' || (c >= ' ' && c != '\u{7f}')))
}

fn push_escaped_as(out: &mut String, c: char, quote: char, ascii: bool) {
    match c {
        _ if c == quote || c == '\\' => {
            out.push('\\');
            out.push(c);
        }
        _ if if ascii { c.is_ascii() && is_print(c) } else { is_print(c) } => out.push(c),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        // Go uses the two-digit form only for ASCII controls; C1 controls get `\u00XX`.
        _ if c < ' ' || c == '\u{7f}' => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        _ if u32::from(c) < 0x1_0000 => {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
        _ => {
            let _ = write!(out, "\\U{:08x}", u32::from(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{go_string_slice, quote, quote_bytes, quote_list};

    #[test]
    fn string_slices_print_like_go_sharp_v() {
        assert_eq!(go_string_slice("string", &[]), "[]string{}");
        assert_eq!(
            go_string_slice("string", &["*".into(), "apps".into()]),
            r#"[]string{"*", "apps"}"#
        );
    }

    #[test]
    fn quotes_invalid_utf8_bytes_like_go() {
        assert_eq!(quote_bytes(b"a%zz"), r#""a%zz""#);
        assert_eq!(quote_bytes(b"\xff\n\xc3"), r#""\xff\n\xc3""#);
        assert_eq!(quote_bytes("é\"".as_bytes()), r#""é\"""#);
    }

    #[test]
    fn quotes_lists_like_go() {
        assert_eq!(quote_list(&[]), "[]");
        assert_eq!(quote_list(&["a".to_owned(), "b c".to_owned()]), r#"["a" "b c"]"#);
    }

    #[test]
    fn matches_go_strconv_quote() {
        let cases = [
            ("", r#""""#),
            ("value", r#""value""#),
            (r#"a"b\c"#, r#""a\"b\\c""#),
            ("\u{7}\u{8}\u{c}\n\r\t\u{b}", r#""\a\b\f\n\r\t\v""#),
            ("\u{0}\u{1b}\u{7f}", r#""\x00\x1b\x7f""#),
            // C1 control, no-break space and soft hyphen are not printable in Go.
            ("\u{85}\u{a0}\u{ad}", r#""\u0085\u00a0\u00ad""#),
            ("¡ÿ", r#""¡ÿ""#),
            ("héllo wörld ✓ 日本", r#""héllo wörld ✓ 日本""#),
            ("\u{200b}\u{200f}\u{2028}\u{2029}\u{feff}", r#""\u200b\u200f\u2028\u2029\ufeff""#),
            ("\u{3000}", r#""\u3000""#),
            ("\u{e000}", r#""\ue000""#),
            ("\u{10ffff}\u{f0000}", r#""\U0010ffff\U000f0000""#),
            ("😀", r#""😀""#),
            ("e\u{301}", "\"e\u{301}\""),
            ("\u{fffd}", "\"\u{fffd}\""),
            (
                "-----BEGIN CERTIFICATE REQUEST-----\nMIIC",
                r#""-----BEGIN CERTIFICATE REQUEST-----\nMIIC""#,
            ),
            ("<&>", r#""<&>""#),
            ("a\"b\n\u{1}é", "\"a\\\"b\\n\\x01é\""),
            // Assigned after Unicode 15.0 (go1.26's tables): unassigned to Go, so escaped.
            ("\u{113c7}\u{1cc00}", r#""\U000113c7\U0001cc00""#),
            // Assigned in Unicode 15.0 itself (U+1F6DC, U+11F00): printable.
            ("\u{1f6dc}\u{11f00}", "\"\u{1f6dc}\u{11f00}\""),
        ];
        for (input, want) in cases {
            assert_eq!(quote(input), want, "quote({input:?})");
        }
    }
}
