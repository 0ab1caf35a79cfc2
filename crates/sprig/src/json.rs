//! Go `encoding/json` for template values: the encoder (`toJson` & co.) and a decoder that
//! gives Go's syntax error texts and Go's types (every number is a float64).

use std::sync::Arc;

use certgate_gofmt::{JsonEscape, format_float_g, json_float, push_json_string};
use certgate_gotemplate::{Value, type_name};

use crate::args::{Map, list, map_value};

/// `json.Marshal` (`html` = escape `<`, `>`, `&`) or `MarshalIndent(v, "", "  ")`.
pub fn encode(v: &Value, html: bool, pretty: bool) -> Result<String, String> {
    let mut out = String::new();
    write(&mut out, v, html, pretty, 0)?;
    Ok(out)
}

fn newline(out: &mut String, pretty: bool, depth: usize) {
    if pretty {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    }
}

fn write(
    out: &mut String,
    v: &Value,
    html: bool,
    pretty: bool,
    depth: usize,
) -> Result<(), String> {
    match v {
        Value::Nil => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(n) => out.push_str(&n.to_string()),
        Value::Uint(n) => out.push_str(&n.to_string()),
        Value::Float(f) => out.push_str(&float(*f)?),
        Value::String(s) => string(out, s, html),
        Value::List(items) => {
            if items.is_empty() {
                out.push_str("[]");
                return Ok(());
            }
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, pretty, depth + 1);
                write(out, item, html, pretty, depth + 1)?;
            }
            newline(out, pretty, depth);
            out.push(']');
        }
        Value::Map(m) => {
            if m.is_empty() {
                out.push_str("{}");
                return Ok(());
            }
            out.push('{');
            for (i, (k, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                newline(out, pretty, depth + 1);
                string(out, k, html);
                out.push(':');
                if pretty {
                    out.push(' ');
                }
                write(out, item, html, pretty, depth + 1)?;
            }
            newline(out, pretty, depth);
            out.push('}');
        }
        other => return Err(format!("json: unsupported type: {}", type_name(other))),
    }
    Ok(())
}

/// Go's float encoding ([`json_float`]), except that negative zero is written `0`.
fn float(f: f64) -> Result<String, String> {
    if f == 0.0 {
        return Ok("0".into());
    }
    json_float(f).ok_or_else(|| format!("json: unsupported value: {}", format_float_g(f)))
}

/// A JSON string: `<`, `>`, `&` escaped only with `html`; U+0008 and U+000C as `\u0008` and
/// `\u000c` (the long forms of Go before 1.22).
fn string(out: &mut String, s: &str, html: bool) {
    push_json_string(out, s, JsonEscape { html, short_b_f: false });
}

/// `json.Unmarshal` into `interface{}`.
pub fn decode(text: &str) -> Result<Value, String> {
    let mut p = Parser { b: text.as_bytes(), i: 0, depth: 0 };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.i < p.b.len() {
        return Err(p.bad("after top-level value"));
    }
    Ok(v)
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
    depth: usize,
}

/// Go's `quoteChar`.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => "'\\''".into(),
        b'"' => "'\"'".into(),
        _ => {
            let q = certgate_gofmt::quote(&String::from_utf8_lossy(&[c]));
            format!("'{}'", &q[1..q.len() - 1])
        }
    }
}

const EOF: &str = "unexpected end of JSON input";

/// Deepest nesting `fromJson` accepts (Go: 10000).
pub const MAX_DEPTH: usize = 1000;

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn bad(&self, context: &str) -> String {
        match self.peek() {
            None => EOF.into(),
            Some(c) => format!("invalid character {} {context}", quote_char(c)),
        }
    }

    fn value(&mut self) -> Result<Value, String> {
        match self.peek() {
            None => Err(EOF.into()),
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => self.string().map(|s| Value::String(Arc::from(s))),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Nil),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.bad("looking for beginning of value")),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, String> {
        for (k, want) in word.bytes().enumerate() {
            match self.peek() {
                None => return Err(EOF.into()),
                Some(c) if c == want => self.i += 1,
                Some(_) if k == 0 => return Err(self.bad("looking for beginning of value")),
                Some(_) => {
                    return Err(
                        self.bad(&format!("in literal {word} (expecting {})", quote_char(want)))
                    );
                }
            }
        }
        Ok(v)
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                while matches!(self.peek(), Some(b'0'..=b'9')) {
                    self.i += 1;
                }
            }
            None => return Err(EOF.into()),
            Some(_) => return Err(self.bad("in numeric literal")),
        }
        if self.peek() == Some(b'.') {
            self.i += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.bad("after decimal point in numeric literal"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.i += 1;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.bad("in exponent of numeric literal"));
            }
            while matches!(self.peek(), Some(b'0'..=b'9')) {
                self.i += 1;
            }
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("0");
        let f: f64 = text.parse().unwrap_or(f64::INFINITY);
        if f.is_infinite() {
            return Err(format!(
                "json: cannot unmarshal number {text} into Go value of type float64"
            ));
        }
        Ok(Value::Float(f))
    }

    fn string(&mut self) -> Result<String, String> {
        self.i += 1; // opening quote
        let mut buf: Vec<u8> = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(EOF.into());
            };
            match c {
                b'"' => {
                    self.i += 1;
                    return Ok(certgate_gofmt::lossy_utf8(&buf));
                }
                b'\\' => {
                    self.i += 1;
                    let Some(e) = self.peek() else {
                        return Err(EOF.into());
                    };
                    self.i += 1;
                    match e {
                        b'"' | b'\\' | b'/' => buf.push(e),
                        b'b' => buf.push(8),
                        b'f' => buf.push(12),
                        b'n' => buf.push(b'\n'),
                        b'r' => buf.push(b'\r'),
                        b't' => buf.push(b'\t'),
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp)
                                && self.b.get(self.i..self.i + 2) == Some(b"\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                } else {
                                    self.i = save;
                                }
                            }
                            let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                            let mut tmp = [0u8; 4];
                            buf.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                        }
                        _ => {
                            self.i -= 1;
                            return Err(self.bad("in string escape code"));
                        }
                    }
                }
                c if c < 0x20 => return Err(self.bad("in string literal")),
                c => {
                    buf.push(c);
                    self.i += 1;
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(c) = self.peek() else {
                return Err(EOF.into());
            };
            let d = (c as char)
                .to_digit(16)
                .ok_or_else(|| self.bad("in \\u hexadecimal character escape"))?;
            v = v * 16 + d;
            self.i += 1;
        }
        Ok(v)
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        // Go refuses nesting deeper than 10000; certgate stops at MAX_DEPTH so the recursive
        // parser cannot exhaust a thread's stack.
        if self.depth > MAX_DEPTH {
            return Err(self.bad("exceeded max depth"));
        }
        Ok(())
    }

    fn array(&mut self) -> Result<Value, String> {
        self.enter()?;
        self.i += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            self.depth -= 1;
            return Ok(list(items));
        }
        loop {
            self.ws();
            items.push(self.value()?);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(list(items));
                }
                _ => return Err(self.bad("after array element")),
            }
        }
    }

    fn object(&mut self) -> Result<Value, String> {
        self.enter()?;
        self.i += 1;
        let mut m = Map::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            self.depth -= 1;
            return Ok(map_value(m));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.bad("looking for beginning of object key string"));
            }
            let key = self.string()?;
            self.ws();
            if self.peek() != Some(b':') {
                return Err(self.bad("after object key"));
            }
            self.i += 1;
            self.ws();
            let v = self.value()?;
            m.insert(key.into(), v);
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    self.depth -= 1;
                    return Ok(map_value(m));
                }
                _ => return Err(self.bad("after object key:value pair")),
            }
        }
    }
}
