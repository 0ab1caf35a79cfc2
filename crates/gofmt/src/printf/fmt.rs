//! The per-verb formatting state (flags, width, precision) and the primitives that pad,
//! truncate and lay out one operand, as Go's `fmt` does.

use super::ftoa::format_float;
use crate::quote::{can_backquote, is_print, quote, quote_ascii, quote_rune};

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Flags {
    pub sharp: bool,
    pub zero: bool,
    pub plus: bool,
    pub minus: bool,
    pub space: bool,
    /// `%#v`: Go syntax.
    pub sharp_v: bool,
    /// `%+v`: field names (no effect on the values handled here).
    pub plus_v: bool,
    pub wid: usize,
    pub wid_present: bool,
    pub prec: usize,
    pub prec_present: bool,
}

/// The output and the current verb's flags.
#[derive(Default)]
pub(super) struct Fmt {
    pub buf: String,
    pub f: Flags,
}

const LOWER: &[u8; 17] = b"0123456789abcdefx";
const UPPER: &[u8; 17] = b"0123456789ABCDEFX";

impl Fmt {
    pub fn write_padding(&mut self, n: usize) {
        let c = if self.f.zero && !self.f.minus { '0' } else { ' ' };
        self.buf.extend(std::iter::repeat_n(c, n));
    }

    /// Pads to the width (counted in characters) on the side the `-` flag says.
    pub fn pad(&mut self, s: &str) {
        if !self.f.wid_present || self.f.wid == 0 {
            self.buf.push_str(s);
            return;
        }
        let width = self.f.wid.saturating_sub(s.chars().count());
        if self.f.minus {
            self.buf.push_str(s);
            self.write_padding(width);
        } else {
            self.write_padding(width);
            self.buf.push_str(s);
        }
    }

    /// `pad` with the zero flag off (numbers lay their zeros out themselves).
    fn pad_spaces(&mut self, s: &str) {
        let zero = std::mem::replace(&mut self.f.zero, false);
        self.pad(s);
        self.f.zero = zero;
    }

    pub fn fmt_boolean(&mut self, v: bool) {
        self.pad(if v { "true" } else { "false" });
    }

    /// An integer in `base` (`u` holds the two's complement of a signed value).
    pub fn fmt_integer(&mut self, u: u64, base: u32, signed: bool, verb: char, upper: bool) {
        let negative = signed && (u as i64) < 0;
        let mut u = if negative { u.wrapping_neg() } else { u };
        let digits = if upper { UPPER } else { LOWER };
        let mut prec: i64 = 0;
        if self.f.prec_present {
            prec = self.f.prec as i64;
            if prec == 0 && u == 0 {
                let zero = std::mem::replace(&mut self.f.zero, false);
                self.write_padding(self.f.wid);
                self.f.zero = zero;
                return;
            }
        } else if self.f.zero && !self.f.minus && self.f.wid_present {
            prec = self.f.wid as i64;
            if negative || self.f.plus || self.f.space {
                prec -= 1;
            }
        }
        let mut rev: Vec<u8> = Vec::new();
        let b = u64::from(base);
        loop {
            rev.push(digits[(u % b) as usize]);
            u /= b;
            if u == 0 {
                break;
            }
        }
        while (rev.len() as i64) < prec {
            rev.push(b'0');
        }
        if self.f.sharp {
            match base {
                2 => rev.extend_from_slice(b"b0"),
                8 if rev.last() != Some(&b'0') => rev.push(b'0'),
                16 => rev.extend_from_slice(&[digits[16], b'0']),
                _ => {}
            }
        }
        if verb == 'O' {
            rev.extend_from_slice(b"o0");
        }
        if negative {
            rev.push(b'-');
        } else if self.f.plus {
            rev.push(b'+');
        } else if self.f.space {
            rev.push(b' ');
        }
        rev.reverse();
        let text: String = rev.into_iter().map(char::from).collect();
        self.pad_spaces(&text);
    }

    /// `%U`: `U+0041`, with `%#U` the character too when printable.
    pub fn fmt_unicode(&mut self, u: u64) {
        let prec = if self.f.prec_present && self.f.prec > 4 { self.f.prec } else { 4 };
        // Built by hand: Rust's formatter refuses widths beyond `u16::MAX`.
        let hex = format!("{u:X}");
        let mut text = String::from("U+");
        text.extend(std::iter::repeat_n('0', prec.saturating_sub(hex.len())));
        text.push_str(&hex);
        if self.f.sharp
            && let Some(c) = u32::try_from(u).ok().and_then(char::from_u32)
            && is_print(c)
        {
            text.push_str(" '");
            text.push(c);
            text.push('\'');
        }
        self.pad_spaces(&text);
    }

    fn rune(c: u64) -> char {
        u32::try_from(c).ok().and_then(char::from_u32).unwrap_or('\u{fffd}')
    }

    pub fn fmt_c(&mut self, c: u64) {
        self.pad(Self::rune(c).encode_utf8(&mut [0; 4]));
    }

    pub fn fmt_qc(&mut self, c: u64) {
        let text = quote_rune(Self::rune(c), self.f.plus);
        self.pad(&text);
    }

    fn truncate<'s>(&self, s: &'s str) -> &'s str {
        if self.f.prec_present
            && let Some((i, _)) = s.char_indices().nth(self.f.prec)
        {
            return &s[..i];
        }
        s
    }

    pub fn fmt_s(&mut self, s: &str) {
        let s = self.truncate(s);
        self.pad(s);
    }

    /// `%x` / `%X` of a string's bytes, with `#` (`0x` prefixes) and space (separated).
    pub fn fmt_sx(&mut self, s: &str, upper: bool) {
        let digits = if upper { UPPER } else { LOWER };
        let mut length = s.len();
        if self.f.prec_present && self.f.prec < length {
            length = self.f.prec;
        }
        let mut width = 2 * length;
        if width == 0 {
            if self.f.wid_present {
                self.write_padding(self.f.wid);
            }
            return;
        }
        if self.f.space {
            if self.f.sharp {
                width *= 2;
            }
            width += length - 1;
        } else if self.f.sharp {
            width += 2;
        }
        if self.f.wid_present && self.f.wid > width && !self.f.minus {
            self.write_padding(self.f.wid - width);
        }
        let prefix = [b'0', digits[16]];
        if self.f.sharp {
            self.buf.extend(prefix.map(char::from));
        }
        for (i, c) in s.bytes().take(length).enumerate() {
            if self.f.space && i > 0 {
                self.buf.push(' ');
                if self.f.sharp {
                    self.buf.extend(prefix.map(char::from));
                }
            }
            self.buf.push(char::from(digits[usize::from(c >> 4)]));
            self.buf.push(char::from(digits[usize::from(c & 0xf)]));
        }
        if self.f.wid_present && self.f.wid > width && self.f.minus {
            self.write_padding(self.f.wid - width);
        }
    }

    /// `%q` of a string: quoted (ASCII-only with `+`), or backquoted with `#` when it can be.
    pub fn fmt_q(&mut self, s: &str) {
        let s = self.truncate(s);
        if self.f.sharp && can_backquote(s) {
            let text = format!("`{s}`");
            self.pad(&text);
        } else if self.f.plus {
            self.pad(&quote_ascii(s));
        } else {
            self.pad(&quote(s));
        }
    }

    /// A float in strconv's format letter `verb` with default precision `prec` (−1:
    /// shortest), then Go's sign, `#` and zero-padding rules.
    pub fn fmt_float(&mut self, v: f64, verb: char, prec: i64) {
        let prec = if self.f.prec_present { self.f.prec as i64 } else { prec };
        let formatted = format_float(v, verb, prec);
        let mut num =
            if formatted.starts_with(['-', '+']) { formatted } else { format!("+{formatted}") };
        if self.f.space && num.starts_with('+') && !self.f.plus {
            num.replace_range(..1, " ");
        }
        let body = &num[1..];
        if body.starts_with(['I', 'N']) {
            let zero = std::mem::replace(&mut self.f.zero, false);
            let text = if body.starts_with('N') && !self.f.space && !self.f.plus {
                body.to_owned()
            } else {
                num.clone()
            };
            self.pad(&text);
            self.f.zero = zero;
            return;
        }
        if self.f.sharp && verb != 'b' {
            num = sharp_float(num, verb, prec);
        }
        if self.f.plus || !num.starts_with('+') {
            if self.f.zero && !self.f.minus && self.f.wid_present && self.f.wid > num.len() {
                let (sign, rest) = num.split_at(1);
                self.buf.push_str(sign);
                self.write_padding(self.f.wid - num.len());
                self.buf.push_str(rest);
                return;
            }
            self.pad(&num);
            return;
        }
        self.pad(&num[1..]);
    }
}

/// The `#` flag on floats: always a decimal point, and for `%g`-like verbs the trailing
/// zeros up to the precision (6 by default).
fn sharp_float(num: String, verb: char, prec: i64) -> String {
    let mut digits: i64 = match verb {
        'v' | 'g' | 'G' | 'x' => {
            if prec == -1 {
                6
            } else {
                prec
            }
        }
        _ => 0,
    };
    let bytes = num.as_bytes();
    let mut head_end = bytes.len();
    let mut has_point = false;
    let mut nonzero = false;
    for (i, &c) in bytes.iter().enumerate().skip(1) {
        match c {
            b'.' => has_point = true,
            b'p' | b'P' => {
                head_end = i;
                break;
            }
            b'e' | b'E' if verb != 'x' && verb != 'X' => {
                head_end = i;
                break;
            }
            _ => {
                if c != b'0' {
                    nonzero = true;
                }
                if nonzero {
                    digits -= 1;
                }
            }
        }
    }
    let (head, tail) = num.split_at(head_end);
    let mut out = head.to_owned();
    if !has_point {
        if head.len() == 2 && head.as_bytes()[1] == b'0' {
            digits -= 1;
        }
        out.push('.');
    }
    while digits > 0 {
        out.push('0');
        digits -= 1;
    }
    out.push_str(tail);
    out
}
