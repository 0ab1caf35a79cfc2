//! Positions and literal texts recovered from the template source.
//!
//! gotmpl's nodes carry byte offsets but not the text of literals (strings are unquoted,
//! numbers parsed), while Go's error texts print literals as written; both are recovered
//! here from the source. Nothing here indexes in a way that can panic: offsets come from
//! gotmpl and are treated as untrusted.

/// The line starts of one source, so that locating many offsets (one per call site of a
/// 64 KiB template: thousands) costs a binary search each instead of a scan back to the
/// start, which made parsing quadratic (found by the `template_exec` fuzz campaign).
pub(crate) struct LineIndex {
    /// Byte offsets of the source's newlines, ascending.
    newlines: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub(crate) fn new(source: &str) -> LineIndex {
        let newlines = source.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i);
        LineIndex { newlines: newlines.collect(), len: source.len() }
    }

    /// Go's `ErrorContext` location of a byte offset: the 1-based line and the 0-based
    /// byte offset within that line. An offset past the end counts as the end.
    pub(crate) fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.len);
        let before = self.newlines.partition_point(|&newline| newline < offset);
        let line_start = match before.checked_sub(1).and_then(|i| self.newlines.get(i)) {
            Some(newline) => newline + 1,
            None => 0,
        };
        (before + 1, offset - line_start)
    }
}

/// The 1-based line of a byte offset (for a single error: [`LineIndex`] for many).
pub(crate) fn line_of(source: &str, offset: usize) -> usize {
    LineIndex::new(source).line_column(offset).0
}

/// The literal (string, raw string, character or number) that starts at `offset`, exactly
/// as written, or `None` when the source does not hold one there.
pub(crate) fn literal_at(source: &str, offset: usize) -> Option<&str> {
    let rest = source.get(offset..)?;
    let bytes = rest.as_bytes();
    let end = match bytes.first()? {
        b'"' => quoted_end(bytes, b'"')?,
        b'\'' => quoted_end(bytes, b'\'')?,
        b'`' => bytes.iter().skip(1).position(|&b| b == b'`')? + 2,
        _ => number_end(bytes),
    };
    rest.get(..end).filter(|text| !text.is_empty())
}

/// End (exclusive) of a quoted literal with backslash escapes.
fn quoted_end(bytes: &[u8], quote: u8) -> Option<usize> {
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate().skip(1) {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'\n' => return None,
            _ if b == quote => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// End (exclusive) of a number as Go's lexer scans it: an optional sign, then
/// alphanumerics, `_` and `.`, with a sign allowed only after an exponent letter.
fn number_end(bytes: &[u8]) -> usize {
    let mut end = 0;
    let mut previous = 0u8;
    let hex = bytes.get(..2).is_some_and(|p| p.eq_ignore_ascii_case(b"0x"))
        || bytes.get(1..3).is_some_and(|p| p.eq_ignore_ascii_case(b"0x"));
    for (i, &b) in bytes.iter().enumerate() {
        let exponent =
            if hex { matches!(previous, b'p' | b'P') } else { matches!(previous, b'e' | b'E') };
        let sign_ok = i == 0 || exponent;
        let accepted = b.is_ascii_alphanumeric()
            || b == b'_'
            || b == b'.'
            || ((b == b'+' || b == b'-') && sign_ok);
        if !accepted {
            break;
        }
        previous = b;
        end = i + 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line_column(source: &str, offset: usize) -> (usize, usize) {
        LineIndex::new(source).line_column(offset)
    }

    #[test]
    fn columns_are_zero_based_bytes_within_the_line() {
        assert_eq!(line_column("abc", 2), (1, 2));
        assert_eq!(line_column("a\nbc\n  x", 7), (3, 2));
        assert_eq!(line_column("a\n", 99), (2, 0));
        assert_eq!(line_column("", 0), (1, 0));
        assert_eq!(line_column("\n\n", 1), (2, 0));
    }

    #[test]
    fn every_offset_is_located_as_by_counting_newlines_before_it() {
        let source = "{{ a }}\n\n  {{ b\n c }}x\n{{ d }}";
        let index = LineIndex::new(source);
        for offset in 0..=source.len() + 2 {
            let before = &source.as_bytes()[..offset.min(source.len())];
            let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
            let column =
                before.len() - before.iter().rposition(|&b| b == b'\n').map_or(0, |n| n + 1);
            assert_eq!(index.line_column(offset), (line, column), "offset {offset}");
        }
    }

    #[test]
    fn literals_keep_their_quoting() {
        let src = r#"f "a\"b" `r"aw` 'c' 0x1F -2.5e+3 1_000}}"#;
        assert_eq!(literal_at(src, 2), Some(r#""a\"b""#));
        assert_eq!(literal_at(src, 9), Some("`r\"aw`"));
        assert_eq!(literal_at(src, 16), Some("'c'"));
        assert_eq!(literal_at(src, 20), Some("0x1F"));
        assert_eq!(literal_at(src, 25), Some("-2.5e+3"));
        assert_eq!(literal_at(src, 33), Some("1_000"));
        assert_eq!(literal_at(src, 999), None);
        assert_eq!(literal_at("\"open", 0), None);
    }
}
