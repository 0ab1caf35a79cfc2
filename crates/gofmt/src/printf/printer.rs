//! Go's `doPrintf` (the format string's flags, width, precision, argument indexes and
//! verbs) and `printArg` / `printValue` (each verb on each kind of value).

use super::Arg;
use super::fmt::{Flags, Fmt};

/// Go's bound on a width, precision or argument index (`tooLarge`): a number is read digit
/// by digit while what was read so far is at most this.
const TOO_LARGE: i64 = 1_000_000;

#[derive(Default)]
pub(super) struct Printer {
    fmt: Fmt,
    /// The current verb's argument index is valid.
    good_arg_num: bool,
    /// An explicit argument index was used: no `%!(EXTRA ...)` check then.
    reordered: bool,
}

/// `parsenum`: digits at `s[start..end]`; an overlong number ends the format (Go).
fn parse_num(s: &[u8], start: usize, end: usize) -> (i64, bool, usize) {
    let mut num: i64 = 0;
    let mut is_num = false;
    let mut i = start;
    while i < end && s[i].is_ascii_digit() {
        if num > TOO_LARGE {
            return (0, false, end);
        }
        num = num * 10 + i64::from(s[i] - b'0');
        is_num = true;
        i += 1;
    }
    (num, is_num, i)
}

/// `parseArgNumber`: `[n]` at the start of `s`; the index (0-based), bytes consumed, ok.
fn parse_arg_number(s: &[u8]) -> (i64, usize, bool) {
    if s.len() < 3 {
        return (0, 1, false);
    }
    for i in 1..s.len() {
        if s[i] == b']' {
            let (width, ok, new_i) = parse_num(s, 1, i);
            if !ok || new_i != i {
                return (0, i + 1, false);
            }
            return (width - 1, i + 1, true);
        }
    }
    (0, 1, false)
}

/// `intFromArg`: an integer argument for `*` (width or precision).
fn int_from_arg(args: &[Arg<'_>], arg_num: usize) -> (i64, bool, usize) {
    let Some(arg) = args.get(arg_num) else { return (0, false, arg_num) };
    let (num, ok) = match arg {
        Arg::Int(i) => (*i, true),
        Arg::Uint(u) => i64::try_from(*u).map_or((0, false), |n| (n, true)),
        _ => (0, false),
    };
    if !(-TOO_LARGE..=TOO_LARGE).contains(&num) {
        return (0, false, arg_num + 1);
    }
    (num, ok, arg_num + 1)
}

impl Printer {
    pub fn into_string(self) -> String {
        self.fmt.buf
    }

    pub fn push_str(&mut self, s: &str) {
        self.fmt.buf.push_str(s);
    }

    fn arg_number(
        &mut self,
        arg_num: usize,
        format: &[u8],
        i: usize,
        n: usize,
    ) -> (usize, usize, bool) {
        if format.len() <= i || format[i] != b'[' {
            return (arg_num, i, false);
        }
        self.reordered = true;
        let (index, wid, ok) = parse_arg_number(&format[i..]);
        if ok && (0..n as i64).contains(&index) {
            return (index as usize, i + wid, true);
        }
        self.good_arg_num = false;
        (arg_num, i + wid, ok)
    }

    pub fn do_printf(&mut self, format: &str, args: &[Arg<'_>]) {
        let bytes = format.as_bytes();
        let end = bytes.len();
        let mut arg_num = 0usize;
        let mut after_index;
        self.reordered = false;
        let mut i = 0usize;
        while i < end {
            self.good_arg_num = true;
            let last = i;
            while i < end && bytes[i] != b'%' {
                i += 1;
            }
            self.push_str(&format[last..i]);
            if i >= end {
                break;
            }
            i += 1;
            self.fmt.f = Flags::default();
            while i < end {
                match bytes[i] {
                    b'#' => self.fmt.f.sharp = true,
                    b'0' => self.fmt.f.zero = true,
                    b'+' => self.fmt.f.plus = true,
                    b'-' => self.fmt.f.minus = true,
                    b' ' => self.fmt.f.space = true,
                    _ => break,
                }
                i += 1;
            }
            (arg_num, i, after_index) = self.arg_number(arg_num, bytes, i, args.len());

            if i < end && bytes[i] == b'*' {
                i += 1;
                let (wid, present, next) = int_from_arg(args, arg_num);
                arg_num = next;
                self.fmt.f.wid_present = present;
                if !present {
                    self.push_str("%!(BADWIDTH)");
                }
                if wid < 0 {
                    self.fmt.f.minus = true;
                    self.fmt.f.zero = false;
                }
                self.fmt.f.wid = wid.unsigned_abs() as usize;
                after_index = false;
            } else {
                let (wid, present, next) = parse_num(bytes, i, end);
                (self.fmt.f.wid, self.fmt.f.wid_present, i) = (wid as usize, present, next);
                if after_index && present {
                    self.good_arg_num = false;
                }
            }

            if i + 1 < end && bytes[i] == b'.' {
                i += 1;
                if after_index {
                    self.good_arg_num = false;
                }
                (arg_num, i, after_index) = self.arg_number(arg_num, bytes, i, args.len());
                if i < end && bytes[i] == b'*' {
                    i += 1;
                    let (prec, present, next) = int_from_arg(args, arg_num);
                    arg_num = next;
                    // A negative precision is as bad as a missing one.
                    self.fmt.f.prec = prec.max(0) as usize;
                    self.fmt.f.prec_present = present && prec >= 0;
                    if !self.fmt.f.prec_present {
                        self.push_str("%!(BADPREC)");
                    }
                    after_index = false;
                } else {
                    let (prec, _, next) = parse_num(bytes, i, end);
                    (self.fmt.f.prec, self.fmt.f.prec_present, i) = (prec as usize, true, next);
                }
            }

            if !after_index {
                (arg_num, i, _) = self.arg_number(arg_num, bytes, i, args.len());
            }

            let Some(verb) = format[i..].chars().next() else {
                self.push_str("%!(NOVERB)");
                break;
            };
            i += verb.len_utf8();

            if verb == '%' {
                self.push_str("%");
            } else if !self.good_arg_num {
                self.push_str(&format!("%!{verb}(BADINDEX)"));
            } else if arg_num >= args.len() {
                self.push_str(&format!("%!{verb}(MISSING)"));
            } else {
                if verb == 'v' {
                    self.fmt.f.sharp_v = self.fmt.f.sharp;
                    self.fmt.f.sharp = false;
                    self.fmt.f.plus_v = self.fmt.f.plus;
                    self.fmt.f.plus = false;
                }
                self.print_arg(&args[arg_num], verb);
                arg_num += 1;
            }
        }

        if !self.reordered && arg_num < args.len() {
            self.fmt.f = Flags::default();
            self.push_str("%!(EXTRA ");
            for (k, arg) in args[arg_num..].iter().enumerate() {
                if k > 0 {
                    self.push_str(", ");
                }
                if let Arg::Nil = arg {
                    self.push_str("<nil>");
                } else {
                    self.push_str(arg.type_name());
                    self.push_str("=");
                    self.print_arg(arg, 'v');
                }
            }
            self.push_str(")");
        }
    }

    /// `printArg`: one operand at the top level.
    pub fn print_arg(&mut self, arg: &Arg<'_>, verb: char) {
        match (arg, verb) {
            (Arg::Nil, 'T' | 'v') => self.fmt.pad("<nil>"),
            (Arg::Nil, _) => self.bad_verb(arg, verb),
            (_, 'T') => self.fmt.fmt_s(arg.type_name()),
            // Go prints the address of a list or map; data values have none to show.
            (Arg::List(_) | Arg::Map(_), 'p') => self.fmt.pad("0x0"),
            (_, 'p') => self.bad_verb(arg, verb),
            _ => self.print_value(arg, verb, 0),
        }
    }

    /// `printValue`: an operand at any depth (elements of lists and maps at depth > 0).
    fn print_value(&mut self, arg: &Arg<'_>, verb: char, depth: usize) {
        match arg {
            // An element holding nil: never a bad verb.
            Arg::Nil if self.fmt.f.sharp_v => self.push_str("interface {}(nil)"),
            Arg::Nil if depth == 0 => self.print_arg(arg, verb),
            Arg::Nil => self.push_str("<nil>"),
            Arg::Bool(b) => match verb {
                't' | 'v' => self.fmt.fmt_boolean(*b),
                _ => self.bad_verb(arg, verb),
            },
            Arg::Int(i) => self.fmt_integer(arg, *i as u64, true, verb),
            Arg::Uint(u) => self.fmt_integer(arg, *u, false, verb),
            Arg::Float(f) => match verb {
                'v' => self.fmt.fmt_float(*f, 'g', -1),
                'b' | 'g' | 'G' | 'x' | 'X' => self.fmt.fmt_float(*f, verb, -1),
                'f' | 'e' | 'E' => self.fmt.fmt_float(*f, verb, 6),
                'F' => self.fmt.fmt_float(*f, 'f', 6),
                _ => self.bad_verb(arg, verb),
            },
            Arg::Str(s) => match verb {
                'v' if self.fmt.f.sharp_v => self.fmt.fmt_q(s),
                'v' | 's' => self.fmt.fmt_s(s),
                'x' => self.fmt.fmt_sx(s, false),
                'X' => self.fmt.fmt_sx(s, true),
                'q' => self.fmt.fmt_q(s),
                _ => self.bad_verb(arg, verb),
            },
            Arg::List(items) => {
                let go_syntax = self.fmt.f.sharp_v;
                self.push_str(if go_syntax { "[]interface {}{" } else { "[" });
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        self.push_str(if go_syntax { ", " } else { " " });
                    }
                    self.print_value(item, verb, depth + 1);
                }
                self.push_str(if go_syntax { "}" } else { "]" });
            }
            Arg::Map(entries) => {
                let go_syntax = self.fmt.f.sharp_v;
                self.push_str(if go_syntax { "map[string]interface {}{" } else { "map[" });
                let mut sorted: Vec<&(&str, Arg<'_>)> = entries.iter().collect();
                sorted.sort_by(|a, b| a.0.cmp(b.0));
                for (k, (key, value)) in sorted.into_iter().enumerate() {
                    if k > 0 {
                        self.push_str(if go_syntax { ", " } else { " " });
                    }
                    self.print_value(&Arg::Str(key), verb, depth + 1);
                    self.push_str(":");
                    self.print_value(value, verb, depth + 1);
                }
                self.push_str(if go_syntax { "}" } else { "]" });
            }
        }
    }

    fn fmt_integer(&mut self, arg: &Arg<'_>, u: u64, signed: bool, verb: char) {
        let f = &mut self.fmt;
        match verb {
            'v' if f.f.sharp_v && !signed => {
                let sharp = std::mem::replace(&mut f.f.sharp, true);
                f.fmt_integer(u, 16, false, 'v', false);
                f.f.sharp = sharp;
            }
            'v' | 'd' => f.fmt_integer(u, 10, signed, verb, false),
            'b' => f.fmt_integer(u, 2, signed, verb, false),
            'o' | 'O' => f.fmt_integer(u, 8, signed, verb, false),
            'x' => f.fmt_integer(u, 16, signed, verb, false),
            'X' => f.fmt_integer(u, 16, signed, verb, true),
            'c' => f.fmt_c(u),
            'q' => f.fmt_qc(u),
            'U' => f.fmt_unicode(u),
            _ => self.bad_verb(arg, verb),
        }
    }

    /// `%!verb(type=value)`, the value printed with `%v` under the verb's flags.
    fn bad_verb(&mut self, arg: &Arg<'_>, verb: char) {
        self.push_str("%!");
        self.fmt.buf.push(verb);
        self.push_str("(");
        if let Arg::Nil = arg {
            self.push_str("<nil>");
        } else {
            self.push_str(arg.type_name());
            self.push_str("=");
            self.print_arg(arg, 'v');
        }
        self.push_str(")");
    }
}
