//! The input cursor: `readerc.go` and the character helpers of `scannerc.go`.
//!
//! The input is a `&str`, so its bytes already are the UTF-8 that libyaml's reader would
//! decode into its buffer; what remains of the reader is *when* it checks them. libyaml
//! decodes its input in windows of 512 raw bytes, only when the scanner asks for more
//! characters than it has (`cache`), and refuses a control character anywhere in a window
//! it decodes. So a control character far past the point where yaml.v3 stops reading is
//! never seen, and one in the same window as the last character read is. Past the end the
//! buffer reads as NUL bytes.

use super::{Mark, Problem, Stage, Step, Stop};

/// libyaml's `input_raw_buffer_size`.
const RAW_WINDOW: usize = 512;

pub(crate) struct Reader<'a> {
    input: &'a [u8],
    /// Byte offset of the current character (`buffer_pos`, absolute).
    pub pos: usize,
    pub mark: Mark,
    /// Characters decoded and not consumed yet, as libyaml counts them (an `int` there).
    pub unread: isize,
    /// Line breaks since the last character that was neither a break nor blank.
    pub newlines: usize,
    /// End of the decoded input (`raw_buffer_pos`, absolute).
    decoded: usize,
    /// End of the raw window read so far.
    raw_end: usize,
    eof: bool,
    started: bool,
    /// Where libyaml's decoded buffer begins: `is_bom` looks there, not at the cursor.
    front: usize,
    pub problem: Problem,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(input: &'a str) -> Self {
        // yaml.v3's newParser reads "\n" for an empty input.
        let input = if input.is_empty() { "\n" } else { input };
        Reader {
            input: input.as_bytes(),
            pos: 0,
            mark: Mark::default(),
            unread: 0,
            newlines: 0,
            decoded: 0,
            raw_end: 0,
            eof: false,
            started: false,
            front: 0,
            problem: Problem::default(),
        }
    }

    /// The byte `k` bytes past the cursor (NUL past the end).
    #[inline]
    pub(crate) fn at(&self, k: usize) -> u8 {
        self.input.get(self.pos + k).copied().unwrap_or(0)
    }

    #[inline]
    pub(crate) fn byte(&self) -> u8 {
        self.at(0)
    }

    /// `cache(parser, length)`.
    #[inline]
    pub(crate) fn cache(&mut self, length: usize) -> Step {
        if self.unread >= length as isize { Ok(()) } else { self.update_buffer(length) }
    }

    /// Like [`Reader::cache`], for the comment look-ahead, which records a reader error and
    /// goes on (`break`) instead of failing.
    pub(crate) fn cache_quietly(&mut self, length: usize) -> bool {
        self.cache(length).is_ok()
    }

    /// `yaml_parser_update_buffer`.
    fn update_buffer(&mut self, length: usize) -> Step {
        if !self.started {
            self.started = true;
            // yaml_parser_determine_encoding: the first read fills a raw window; a UTF-8 BOM
            // is skipped (only UTF-8 reaches here: the input is a `str`).
            self.raw_end = self.input.len().min(RAW_WINDOW);
            if self.input.len() < 3 {
                self.eof = true;
            }
            if self.input.starts_with(b"\xEF\xBB\xBF") {
                self.decoded = 3;
                self.pos = 3;
                self.front = 3;
            }
        }
        // The decoded buffer is moved to start at the cursor.
        self.front = self.pos;
        let mut first = true;
        while self.unread < length as isize {
            if !first || self.decoded == self.raw_end {
                self.update_raw_buffer();
            }
            first = false;
            // Decode the window: count its characters and refuse a control character. The
            // input is valid UTF-8, so only the refused sequences need looking at.
            let mut end = self.raw_end;
            while self.input.get(end).is_some_and(|&b| b & 0xC0 == 0x80) {
                // A character split by the window is decoded with the next one.
                end -= 1;
            }
            let window = &self.input[self.decoded..end];
            let mut count = 0;
            for (i, &b) in window.iter().enumerate() {
                let refused = match b {
                    b'\t' | b'\n' | b'\r' | 0x20..=0x7E => false,
                    0x00..=0x1F | 0x7F => true,
                    // C1 controls but NEL: U+0080..U+009F are C2 80..C2 9F.
                    0xC2 => {
                        window.get(i + 1).is_some_and(|&n| (0x80..=0x9F).contains(&n) && n != 0x85)
                    }
                    // U+FFFE and U+FFFF are EF BF BE and EF BF BF.
                    0xEF => {
                        window.get(i + 1) == Some(&0xBF)
                            && matches!(window.get(i + 2), Some(0xBE | 0xBF))
                    }
                    _ => false,
                };
                if refused {
                    // The characters before it were decoded.
                    self.unread += count;
                    self.decoded += i;
                    self.problem.stage = Stage::Reader;
                    self.problem.problem = "control characters are not allowed".to_owned();
                    return Err(Stop);
                }
                count += isize::from(b & 0xC0 != 0x80);
            }
            self.unread += count;
            self.decoded = end;
            if self.eof {
                self.unread += 1;
                break;
            }
        }
        Ok(())
    }

    /// `yaml_parser_update_raw_buffer`: the next window starts at the first byte not decoded.
    fn update_raw_buffer(&mut self) {
        if self.eof {
            return;
        }
        if self.raw_end == self.input.len() {
            // The read handler returns io.EOF once the input is exhausted.
            self.eof = true;
            return;
        }
        self.raw_end = self.input.len().min(self.decoded + RAW_WINDOW);
    }

    /// Whether the start of libyaml's buffer is a BOM (`is_bom` ignores its index).
    pub(crate) fn front_is_bom(&self) -> bool {
        self.input.get(self.front..self.front + 3) == Some(b"\xEF\xBB\xBF")
    }

    /// `skip`.
    #[inline]
    pub(crate) fn skip(&mut self) {
        if !is_blank(self.byte()) {
            self.newlines = 0;
        }
        self.mark.index += 1;
        self.mark.column += 1;
        self.unread -= 1;
        self.pos += width(self.byte()).max(1);
    }

    /// `skip_line`.
    pub(crate) fn skip_line(&mut self) {
        if self.is_crlf() {
            self.mark.index += 2;
            self.mark.column = 0;
            self.mark.line += 1;
            self.unread -= 2;
            self.pos += 2;
            self.newlines += 1;
        } else if self.is_break(0) {
            self.mark.index += 1;
            self.mark.column = 0;
            self.mark.line += 1;
            self.unread -= 1;
            self.pos += width(self.byte()).max(1);
            self.newlines += 1;
        }
    }

    /// `read`: appends the current character to `s`.
    #[inline]
    pub(crate) fn read(&mut self, s: &mut Vec<u8>) {
        if !is_blank(self.byte()) {
            self.newlines = 0;
        }
        let w = width(self.byte()).max(1);
        match self.input.get(self.pos..self.pos + w) {
            Some(bytes) => s.extend_from_slice(bytes),
            None => s.push(0),
        }
        self.pos += w;
        self.mark.index += 1;
        self.mark.column += 1;
        self.unread -= 1;
    }

    /// Reads as many ASCII characters as `accept` takes at once, as repeated `read` and
    /// `cache(keep)` would: only characters already decoded, leaving `keep` of them, so no
    /// window is decoded earlier than the per-character loop would decode it.
    #[inline]
    pub(crate) fn read_run(&mut self, s: &mut Vec<u8>, keep: usize, accept: impl Fn(u8) -> bool) {
        let limit = usize::try_from(self.unread - keep as isize).unwrap_or(0);
        let rest = &self.input[self.pos.min(self.input.len())..];
        let n = rest.iter().take(limit).take_while(|&&b| b.is_ascii() && accept(b)).count();
        if n == 0 {
            return;
        }
        let run = &rest[..n];
        if run.iter().any(|&b| !is_blank(b)) {
            self.newlines = 0;
        }
        s.extend_from_slice(run);
        self.pos += n;
        self.mark.index += n as isize;
        self.mark.column += n as isize;
        self.unread -= n as isize;
    }

    /// `read_line`: appends a line break to `s`, normalised as libyaml does (CR, LF, CR LF
    /// and NEL become LF; LS and PS are kept).
    pub(crate) fn read_line(&mut self, s: &mut Vec<u8>) {
        let (b0, b1, b2) = (self.at(0), self.at(1), self.at(2));
        match (b0, b1, b2) {
            (b'\r', b'\n', _) => {
                s.push(b'\n');
                self.pos += 2;
                self.mark.index += 1;
                self.unread -= 1;
            }
            (b'\r' | b'\n', _, _) => {
                s.push(b'\n');
                self.pos += 1;
            }
            (0xC2, 0x85, _) => {
                s.push(b'\n');
                self.pos += 2;
            }
            (0xE2, 0x80, 0xA8 | 0xA9) => {
                s.extend_from_slice(&[b0, b1, b2]);
                self.pos += 3;
            }
            _ => return,
        }
        self.mark.index += 1;
        self.mark.column = 0;
        self.mark.line += 1;
        self.unread -= 1;
        self.newlines += 1;
    }

    pub(crate) fn is_crlf(&self) -> bool {
        self.at(0) == b'\r' && self.at(1) == b'\n'
    }

    /// `is_break` at `k` bytes past the cursor: CR, LF, NEL, LS, PS.
    pub(crate) fn is_break(&self, k: usize) -> bool {
        match self.at(k) {
            b'\r' | b'\n' => true,
            0xC2 => self.at(k + 1) == 0x85,
            0xE2 => self.at(k + 1) == 0x80 && matches!(self.at(k + 2), 0xA8 | 0xA9),
            _ => false,
        }
    }

    pub(crate) fn is_breakz(&self, k: usize) -> bool {
        self.at(k) == 0 || self.is_break(k)
    }

    pub(crate) fn is_blank_at(&self, k: usize) -> bool {
        is_blank(self.at(k))
    }

    pub(crate) fn is_blankz(&self, k: usize) -> bool {
        is_blank(self.at(k)) || self.is_breakz(k)
    }

    /// `is_alpha`: the characters of anchors, tag handles and directive names.
    pub(crate) fn is_alpha(&self, k: usize) -> bool {
        let b = self.at(k);
        b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
    }

    /// Records a scanner problem at the cursor (`yaml_parser_set_scanner_error`).
    pub(crate) fn scanner_error(
        &mut self,
        context: &'static str,
        context_mark: Mark,
        problem: &str,
    ) -> Stop {
        self.problem.stage = Stage::Scanner;
        self.problem.context = context;
        self.problem.context_mark = context_mark;
        self.problem.problem = problem.to_owned();
        self.problem.problem_mark = self.mark;
        Stop
    }

    pub(crate) fn failed(&self) -> bool {
        self.problem.stage != Stage::None
    }
}

/// `width`: the length of the UTF-8 sequence a leading byte starts (0 for a trailing byte).
#[inline]
pub(crate) fn width(b: u8) -> usize {
    match b {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 0,
    }
}

#[inline]
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the whole input one character at a time as the scanner does.
    fn read_all(text: &str) -> Result<Vec<u8>, String> {
        let mut r = Reader::new(text);
        let mut out = Vec::new();
        loop {
            r.cache(1).map_err(|_| r.problem.problem.clone())?;
            if r.byte() == 0 && r.pos >= text.len() {
                return Ok(out);
            }
            r.read(&mut out);
        }
    }

    #[test]
    fn reads_utf8_and_skips_one_leading_bom() {
        assert_eq!(read_all("a\u{e9}\u{1F600}").unwrap(), "a\u{e9}\u{1F600}".as_bytes());
        assert_eq!(read_all("\u{FEFF}x").unwrap(), b"x");
        assert_eq!(read_all("\u{FEFF}\u{FEFF}x").unwrap(), "\u{FEFF}x".as_bytes());
    }

    #[test]
    fn control_characters_are_refused_when_their_window_is_decoded() {
        assert_eq!(read_all("a\u{1}").unwrap_err(), "control characters are not allowed");
        // The window holding the control character is decoded before the characters ahead
        // of it are handed out: the first cache fails even though 'a' was decodable.
        let mut r = Reader::new("a\u{7}");
        assert!(r.cache(1).is_err());
        assert!(r.cache(1).is_ok(), "'a' was decoded before the control character");
        // Beyond the first window, a control character is only seen once its window is.
        let text = format!("{}\u{0}", "a".repeat(600));
        let mut r = Reader::new(&text);
        for _ in 0..511 {
            r.cache(1).unwrap();
            r.skip();
        }
        assert!(r.cache(1).is_ok(), "the 512th byte is in the first window");
        r.skip();
        assert!(r.cache(1).is_err(), "the second window holds the NUL");
    }

    #[test]
    fn past_the_end_reads_nul() {
        let mut r = Reader::new("ab");
        r.cache(4).unwrap();
        assert_eq!((r.at(0), r.at(1), r.at(2), r.at(3)), (b'a', b'b', 0, 0));
    }

    #[test]
    fn line_breaks_are_normalised_as_libyaml_does() {
        for (text, want) in
            [("\r\n", "\n"), ("\r", "\n"), ("\u{85}", "\n"), ("\u{2028}", "\u{2028}")]
        {
            let mut r = Reader::new(text);
            r.cache(2).unwrap();
            let mut s = Vec::new();
            r.read_line(&mut s);
            assert_eq!(s, want.as_bytes(), "{text:?}");
            assert_eq!((r.mark.line, r.mark.column), (1, 0));
        }
    }
}
