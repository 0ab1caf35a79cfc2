//! A block-style YAML emitter that writes JSON values byte for byte as yaml.v3's
//! `Encoder` (with `SetIndent`) does after go-template-utils decoded the JSON into
//! `interface{}`.
//!
//! The layout follows the libyaml-derived state machine in yaml.v3's `emitterc.go`: the same
//! column/indentation bookkeeping (`write_indent`, `write_indicator`, `increase_indent`) and
//! the same scalar analysis and style choice. Only what JSON values need is kept: no flow
//! collections except the empty `{}` / `[]`, no anchors, tags or comments. The line width is
//! unlimited because yaml.v3 initialises `best_width` to -1 (no folding of long scalars).

use serde_json::Value;

use crate::float::format_yaml_float;
use crate::resolve::plain_keeps_string;
use crate::sort::key_cmp;

/// Scalar styles of the emitter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// Which state sits on top of the emitter's state stack when a node starts; yaml.v3's
/// `increase_indent` indents children of a block sequence item by 2 (past "- ") and
/// everything else to the next multiple of the indent.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parent {
    Other,
    SequenceItem,
}

struct Emitter {
    out: String,
    best_indent: i64,
    indent: i64,
    indents: Vec<i64>,
    column: i64,
    whitespace: bool,
    indention: bool,
}

/// What `yaml_emitter_analyze_scalar` concludes about a scalar.
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

/// libyaml `is_break`.
fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml `is_printable` as applied to UTF-8: no C0/C1 controls except LF, no surrogates,
/// no BOM, no U+FFFE/U+FFFF, and nothing outside the Basic Multilingual Plane (so emoji are
/// escaped in double quotes).
fn is_printable(c: char) -> bool {
    let v = u32::from(c);
    v == 0x0A
        || (0x20..=0x7E).contains(&v)
        || (0xA0..=0xD7FF).contains(&v)
        || ((0xE000..=0xFFFD).contains(&v) && v != 0xFEFF)
}

fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = value.chars().collect();
    let mut block_indicators = value.starts_with("---") || value.starts_with("...");
    let mut line_breaks = false;
    let mut special = false;
    let mut tabs = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut preceded_by_ws = true;
    let mut previous_space = false;
    let mut previous_break = false;
    let last = chars.len() - 1;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_ws = i == last || matches!(chars[i + 1], ' ' | '\t');
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_ws => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_ws => block_indicators = true,
                '#' if preceded_by_ws => block_indicators = true,
                _ => {}
            }
        }
        if c == '\t' {
            tabs = true;
        } else if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i == last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= i == last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_ws = matches!(c, ' ' | '\t' | '\0') || is_break(c);
    }
    let mut a = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || tabs || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// The style `encode.go` (`stringv`) asks for, before the emitter's own checks.
fn requested_string_style(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if plain_keeps_string(s) {
        Style::Plain
    } else {
        Style::DoubleQuoted
    }
}

/// `yaml_emitter_select_scalar_style` for block context (flow level 0).
fn select_style(requested: Style, a: &Analysis, value: &str, simple_key: bool) -> Style {
    let mut style = requested;
    if simple_key && a.multiline {
        style = Style::DoubleQuoted;
    }
    if style == Style::Plain && (!a.block_plain_allowed || (value.is_empty() && simple_key)) {
        style = Style::SingleQuoted;
    }
    if style == Style::SingleQuoted && !a.single_quoted_allowed {
        style = Style::DoubleQuoted;
    }
    if style == Style::Literal && (!a.block_allowed || simple_key) {
        style = Style::DoubleQuoted;
    }
    style
}

impl Emitter {
    fn new(best_indent: i64) -> Self {
        Emitter {
            out: String::new(),
            best_indent,
            indent: -1,
            indents: Vec::new(),
            column: 0,
            whitespace: true,
            indention: true,
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
        self.indention = true;
    }

    /// libyaml `write_break`: a line feed starts a new line; other break characters are
    /// copied as they are and also reset the column.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.put(c);
            self.column = 0;
            self.indention = true;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
    }

    fn write_indicator(&mut self, text: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in text.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, parent: Parent) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { self.best_indent } else { 0 };
        } else if parent == Parent::SequenceItem {
            self.indent += 2;
        } else {
            self.indent = self.best_indent * ((self.indent + self.best_indent) / self.best_indent);
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn node(&mut self, value: &Value, parent: Parent, simple_key: bool) {
        match value {
            Value::Null => self.scalar("null", Style::Plain, parent, simple_key),
            Value::Bool(b) => {
                self.scalar(if *b { "true" } else { "false" }, Style::Plain, parent, simple_key)
            }
            Value::Number(n) => {
                let text = number_text(n);
                self.scalar(&text, Style::Plain, parent, simple_key);
            }
            Value::String(s) => self.scalar(s, requested_string_style(s), parent, simple_key),
            Value::Array(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Object(map) if map.is_empty() => self.empty_flow("{", "}"),
            Value::Array(items) => self.block_sequence(items, parent),
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| key_cmp(a.0, b.0));
                self.block_mapping(&entries, parent);
            }
        }
    }

    /// Empty collections are written in flow style (`yaml_emitter_check_empty_*`).
    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn block_sequence(&mut self, items: &[Value], parent: Parent) {
        self.increase_indent(false, parent);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.node(item, Parent::SequenceItem, false);
        }
        self.pop_indent();
    }

    fn block_mapping(&mut self, entries: &[(&String, &Value)], parent: Parent) {
        self.increase_indent(false, parent);
        for (key, value) in entries {
            self.write_indent();
            if is_simple_key(key) {
                self.node(&Value::String((*key).clone()), Parent::Other, true);
                self.write_indicator(":", false, false, false);
            } else {
                // Long (over 128 bytes) or multi-line keys use the explicit "? " form.
                self.write_indicator("?", true, false, true);
                self.node(&Value::String((*key).clone()), Parent::Other, false);
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.node(value, Parent::Other, false);
        }
        self.pop_indent();
    }

    fn scalar(&mut self, value: &str, requested: Style, parent: Parent, simple_key: bool) {
        let analysis = analyze(value);
        let style = select_style(requested, &analysis, value, simple_key);
        self.increase_indent(true, parent);
        match style {
            Style::Plain => self.write_plain(value),
            Style::SingleQuoted => self.write_single_quoted(value),
            Style::DoubleQuoted => self.write_double_quoted(value),
            Style::Literal => self.write_literal(value),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, value: &str) {
        if !value.is_empty() && !self.whitespace {
            self.put(' ');
        }
        // Plain scalars never contain breaks here (they disqualify the plain style), and
        // the unlimited width means spaces are never turned into line breaks.
        for c in value.chars() {
            self.put(c);
        }
        if !value.is_empty() {
            self.whitespace = false;
        }
        self.indention = false;
    }

    fn write_single_quoted(&mut self, value: &str) {
        self.write_indicator("'", true, false, false);
        let mut breaks = false;
        for c in value.chars() {
            if c == ' ' {
                self.put(c);
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &str) {
        self.write_indicator("\"", true, false, false);
        // yaml.v3's `is_bom` tests the first bytes of the *value*, not of the current
        // character: a value starting with a BOM has every character escaped (`\x62` for b).
        let starts_with_bom = value.starts_with('\u{FEFF}');
        for c in value.chars() {
            if starts_with_bom
                || !is_printable(c)
                || c == '\u{FEFF}'
                || is_break(c)
                || c == '"'
                || c == '\\'
            {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\u{7}' => self.put('a'),
                    '\u{8}' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\u{B}' => self.put('v'),
                    '\u{C}' => self.put('f'),
                    '\r' => self.put('r'),
                    '\u{1B}' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{A0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    other => {
                        let v = u32::from(other);
                        let text = if v <= 0xFF {
                            format!("x{v:02X}")
                        } else if v <= 0xFFFF {
                            format!("u{v:04X}")
                        } else {
                            format!("U{v:08X}")
                        };
                        for t in text.chars() {
                            self.put(t);
                        }
                    }
                }
            } else {
                self.put(c);
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, value: &str) {
        self.write_indicator("|", true, false, false);
        // Block scalar hints: an explicit indentation digit when the text starts with a
        // space or a break, and the chomping indicator from the trailing breaks.
        let chars: Vec<char> = value.chars().collect();
        if chars.first().is_some_and(|&c| c == ' ' || is_break(c)) {
            let digit = char::from_digit(self.best_indent as u32, 10).unwrap_or('2');
            self.write_indicator(&digit.to_string(), false, false, false);
        }
        let chomp = match chars.as_slice() {
            [] => Some("-"),
            [.., last] if !is_break(*last) => Some("-"),
            [_] => Some("+"),
            [.., before, _] if is_break(*before) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
        // yaml.v3 v3.0.1 writes no line break after the header itself (its comment handling
        // replaced libyaml's `put_break`): the first content line's `write_indent` starts the
        // next line, and a value starting with a line break uses that break instead — one
        // leading line break fewer than libyaml, which yaml.v3 then reads back without it.
        self.whitespace = true;
        let mut breaks = true;
        for c in chars {
            if is_break(c) {
                self.write_break(c);
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn finish(mut self) -> String {
        // Document end: the implicit end writes a line break unless one was just written.
        self.write_indent();
        self.out
    }
}

/// `yaml_emitter_check_simple_key` for a string key: single line and at most 128 bytes.
fn is_simple_key(key: &str) -> bool {
    !key.chars().any(is_break) && key.len() <= 128
}

/// A JSON number as the Go value go-template-utils got from `yaml.Unmarshal` of the JSON
/// text: integers stay `int`/`uint64` (printed in decimal), everything else is a float64
/// printed with `FormatFloat(f, 'g', -1, 64)`.
fn number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        format_yaml_float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Emit `value` as one YAML document with the given indent (yaml.v3 falls back to 2 for
/// values outside 2..=9).
pub fn emit(value: &Value, indent: usize) -> String {
    let best = if (2..=9).contains(&indent) { indent as i64 } else { 2 };
    let mut emitter = Emitter::new(best);
    emitter.node(value, Parent::Other, false);
    emitter.finish()
}
