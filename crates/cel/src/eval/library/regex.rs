//! Regular expressions for `matches`, `find` and `findAll` (RE2 syntax, as cel-go).
//!
//! Patterns are compiled by the `regex` crate, whose syntax is RE2's with a few
//! extensions; errors are reported with Go's `regexp` wording
//! (`error parsing regexp: missing closing ): ...`) so messages match cel-go and
//! Kubernetes.
//!
//! Where the two engines read the same syntax differently, the pattern is rewritten to
//! Go's meaning before compiling: `\d`, `\s`, `\w` and `\b` are ASCII-only in Go but
//! Unicode-aware in Rust. Rust-only syntax Go rejects (the flags `u`, `x`, `R`, and the
//! `\b{start}`, `\<` family) is rejected with Go's message. Remaining known
//! differences: Rust rejects `\Q...\E`, `\C` and an unclosed `x{2` (which Go reads
//! literally), and reads `[[a]]`, `[a&&b]` and `[a--b]` as nested classes and set
//! operations where Go sees literal characters.
//!
//! Compilation is bounded twice: patterns longer than [`MAX_PATTERN_BYTES`] are
//! refused before parsing, and the compiled program and lazy DFA are capped by
//! [`MAX_COMPILED_BYTES`], so a short pattern such as `(a{1000}){1000}` cannot make
//! the engine allocate without limit.

use regex::{Regex, RegexBuilder};
use regex_syntax::ast::{
    self, AssertionKind, Ast, ClassPerl, ClassPerlKind, ClassSetItem, ErrorKind, Flag, Flags,
    FlagsItemKind, GroupKind, Span, Visitor,
};

use crate::eval::{Functions, Impl};
use crate::value::{MAX_CONCAT_LEN, Value, ValueError};

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 16 * 1024;

/// Cap on the compiled program and on the lazy DFA cache of one pattern, in bytes.
pub const MAX_COMPILED_BYTES: usize = 2 * 1024 * 1024;

/// Deepest group nesting accepted, as Go's `regexp` limit (1000).
const MAX_NESTING: u32 = 1000;

pub(super) fn register(functions: &mut Functions) {
    functions.add("string_find_string", Impl::Binary(find_dynamic));
    functions.add("string_find_all_string", Impl::Binary(find_all_dynamic));
    functions.add("string_find_all_string_int", Impl::Ternary(find_all_limit_dynamic));
}

/// Compiles an RE2 pattern; the error text is Go's `regexp.Compile` one (cel-go
/// reports it as is for a constant pattern).
pub fn compile(pattern: &str) -> Result<Regex, ValueError> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(ValueError::Message(format!(
            "error parsing regexp: expression too large: the pattern is {} bytes, more than \
             the limit of {MAX_PATTERN_BYTES}; use a shorter pattern",
            pattern.len()
        )));
    }
    // The AST parser reports what is wrong and where, which Go's messages need.
    let parsed = ast::parse::ParserBuilder::new()
        .nest_limit(MAX_NESTING)
        .build()
        .parse(pattern)
        .map_err(|e| syntax_error(pattern, &e))?;
    let go_pattern = ast::visit(&parsed, GoMeaning { pattern, replacements: Vec::new() })?;
    // The rewrite wraps word boundaries in one more group.
    RegexBuilder::new(&go_pattern)
        .size_limit(MAX_COMPILED_BYTES)
        .dfa_size_limit(MAX_COMPILED_BYTES)
        .nest_limit(MAX_NESTING + 1)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => go_error("expression too large", pattern),
            // Translation errors of a pattern that parsed: Unicode classes the tables
            // lack, or constructs that could match invalid UTF-8 (`(?-u)\xff`).
            _ => go_error("invalid or unsupported Perl syntax", pattern),
        })
}

fn go_error(code: &str, fragment: &str) -> ValueError {
    ValueError::Message(format!("error parsing regexp: {code}: `{fragment}`"))
}

/// Go's error code for a parse error, and the part of the pattern Go quotes: the whole
/// pattern for unbalanced parentheses, the rest from `[` for an unclosed class, the
/// offending piece otherwise.
fn syntax_error(pattern: &str, error: &ast::Error) -> ValueError {
    let span = error.span();
    let from_start = pattern.get(span.start.offset..).unwrap_or(pattern);
    // Some errors point at a position (a repetition operator with nothing before it);
    // Go quotes the character there.
    let piece = match pattern.get(span.start.offset..span.end.offset) {
        Some("") | None => {
            from_start.get(..from_start.chars().next().map_or(0, char::len_utf8)).unwrap_or("")
        }
        Some(piece) => piece,
    };
    let (code, fragment) = match error.kind() {
        ErrorKind::GroupUnclosed => ("missing closing )", pattern),
        ErrorKind::GroupUnopened => ("unexpected )", pattern),
        ErrorKind::ClassUnclosed => ("missing closing ]", from_start),
        ErrorKind::ClassRangeInvalid | ErrorKind::ClassRangeLiteral => {
            ("invalid character class range", piece)
        }
        ErrorKind::UnicodeClassInvalid => ("invalid character class range", piece),
        ErrorKind::EscapeUnexpectedEof => ("trailing backslash at end of expression", ""),
        ErrorKind::ClassEscapeInvalid
        | ErrorKind::EscapeHexEmpty
        | ErrorKind::EscapeHexInvalid
        | ErrorKind::EscapeHexInvalidDigit
        | ErrorKind::EscapeUnrecognized
        | ErrorKind::UnsupportedBackreference
        | ErrorKind::SpecialWordBoundaryUnclosed
        | ErrorKind::SpecialWordBoundaryUnrecognized
        | ErrorKind::SpecialWordOrRepetitionUnexpectedEof => ("invalid escape sequence", piece),
        ErrorKind::RepetitionMissing => ("missing argument to repetition operator", piece),
        ErrorKind::RepetitionCountInvalid
        | ErrorKind::RepetitionCountDecimalEmpty
        | ErrorKind::RepetitionCountUnclosed
        | ErrorKind::DecimalEmpty
        | ErrorKind::DecimalInvalid => ("invalid repeat count", piece),
        ErrorKind::GroupNameDuplicate { .. }
        | ErrorKind::GroupNameEmpty
        | ErrorKind::GroupNameInvalid
        | ErrorKind::GroupNameUnexpectedEof => ("invalid named capture", piece),
        ErrorKind::NestLimitExceeded(_) => ("expression nests too deeply", pattern),
        ErrorKind::CaptureLimitExceeded => ("expression too large", pattern),
        _ => ("invalid or unsupported Perl syntax", piece),
    };
    go_error(code, fragment)
}

/// Collects the rewrites that give a parsed pattern Go's meaning, and rejects the
/// syntax only Rust accepts.
struct GoMeaning<'p> {
    pattern: &'p str,
    /// Byte ranges of `pattern` and their replacements, in pattern order.
    replacements: Vec<(Span, &'static str)>,
}

impl GoMeaning<'_> {
    fn text(&self, span: &Span) -> &str {
        self.pattern.get(span.start.offset..span.end.offset).unwrap_or(self.pattern)
    }

    /// Go's Perl classes are ASCII; a bracketed class is valid both alone and nested
    /// in another class, so one replacement serves both places.
    fn perl(&mut self, class: &ClassPerl) {
        let replacement = match (&class.kind, class.negated) {
            (ClassPerlKind::Digit, false) => "[0-9]",
            (ClassPerlKind::Digit, true) => "[^0-9]",
            (ClassPerlKind::Space, false) => "[\\t\\n\\f\\r ]",
            (ClassPerlKind::Space, true) => "[^\\t\\n\\f\\r ]",
            (ClassPerlKind::Word, false) => "[0-9A-Za-z_]",
            (ClassPerlKind::Word, true) => "[^0-9A-Za-z_]",
        };
        self.replacements.push((class.span, replacement));
    }

    /// Go knows the flags `i`, `m`, `s` and `U` only.
    fn flags(&self, flags: &Flags) -> Result<(), ValueError> {
        for item in &flags.items {
            if let FlagsItemKind::Flag(Flag::Unicode | Flag::CRLF | Flag::IgnoreWhitespace) =
                item.kind
            {
                // Go quotes from the group's `(?` to the offending flag.
                let start = flags.span.start.offset.saturating_sub(2);
                let fragment = self.pattern.get(start..item.span.end.offset).unwrap_or_default();
                return Err(go_error("invalid or unsupported Perl syntax", fragment));
            }
        }
        Ok(())
    }
}

impl Visitor for GoMeaning<'_> {
    type Output = String;
    type Err = ValueError;

    fn visit_pre(&mut self, ast: &Ast) -> Result<(), ValueError> {
        match ast {
            Ast::ClassPerl(class) => self.perl(class),
            Ast::Assertion(assertion) => match assertion.kind {
                AssertionKind::WordBoundary => {
                    self.replacements.push((assertion.span, "(?-u:\\b)"));
                }
                AssertionKind::NotWordBoundary => {
                    self.replacements.push((assertion.span, "(?-u:\\B)"));
                }
                AssertionKind::StartLine
                | AssertionKind::EndLine
                | AssertionKind::StartText
                | AssertionKind::EndText => {}
                _ => return Err(go_error("invalid escape sequence", self.text(&assertion.span))),
            },
            Ast::Flags(set) => self.flags(&set.flags)?,
            Ast::Group(group) => {
                if let GroupKind::NonCapturing(flags) = &group.kind {
                    self.flags(flags)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn visit_class_set_item_pre(&mut self, item: &ClassSetItem) -> Result<(), ValueError> {
        if let ClassSetItem::Perl(class) = item {
            self.perl(class);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<String, ValueError> {
        self.replacements.sort_by_key(|(span, _)| span.start.offset);
        let mut out = String::with_capacity(self.pattern.len());
        let mut copied = 0;
        for (span, replacement) in &self.replacements {
            out.push_str(self.pattern.get(copied..span.start.offset).unwrap_or_default());
            out.push_str(replacement);
            copied = span.end.offset;
        }
        out.push_str(self.pattern.get(copied..).unwrap_or_default());
        Ok(out)
    }
}

/// `s.find(re)`: the leftmost match, or `""` when there is none.
pub fn find(re: &Regex, s: &str) -> Value {
    Value::string(re.find(s).map_or("", |m| m.as_str()))
}

/// `s.findAll(re[, limit])`: successive non-overlapping matches, at most `limit` of
/// them when `limit` is not negative (Go's `FindAllString`: `0` gives none). An empty
/// match right after a previous match is skipped, as in Go.
pub fn find_all(re: &Regex, s: &str, limit: i64) -> Result<Value, ValueError> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let mut matches = Vec::new();
    let mut previous_end = None;
    for m in re.find_iter(s) {
        if matches.len() >= limit {
            break;
        }
        if m.is_empty() && previous_end == Some(m.start()) {
            continue;
        }
        previous_end = Some(m.end());
        if matches.len() >= MAX_CONCAT_LEN {
            return Err(ValueError::TooLarge { limit: MAX_CONCAT_LEN });
        }
        matches.push(Value::string(m.as_str()));
    }
    Ok(Value::list(matches))
}

/// Compiles a pattern given at evaluation time, with Kubernetes' error prefix.
fn compile_dynamic(pattern: &str) -> Result<Regex, ValueError> {
    compile(pattern).map_err(|e| ValueError::Message(format!("Illegal regex: {e}")))
}

fn find_dynamic(s: &Value, pattern: &Value) -> Result<Value, ValueError> {
    let (Value::String(text), Value::String(pattern)) = (s, pattern) else {
        return Err(ValueError::no_overload("find", &[s, pattern]));
    };
    Ok(find(&compile_dynamic(pattern)?, text))
}

fn find_all_dynamic(s: &Value, pattern: &Value) -> Result<Value, ValueError> {
    let (Value::String(text), Value::String(pattern)) = (s, pattern) else {
        return Err(ValueError::no_overload("findAll", &[s, pattern]));
    };
    find_all(&compile_dynamic(pattern)?, text, -1)
}

fn find_all_limit_dynamic(s: &Value, pattern: &Value, limit: &Value) -> Result<Value, ValueError> {
    let (Value::String(text), Value::String(pattern), Value::Int(limit)) = (s, pattern, limit)
    else {
        return Err(ValueError::no_overload("findAll", &[s, pattern, limit]));
    };
    find_all(&compile_dynamic(pattern)?, text, *limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, args: &[Value]) -> Result<Value, ValueError> {
        let functions = Functions::full_library();
        functions.get(id).unwrap_or_else(|| panic!("no implementation of {id}")).call(args)
    }

    fn strs(items: &[&str]) -> Value {
        Value::list(items.iter().map(|s| Value::string(s)).collect())
    }

    fn compile_error(pattern: &str) -> String {
        compile(pattern).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn find_returns_the_first_match_or_empty() {
        let re = compile("[0-9]+").expect("valid");
        assert_eq!(find(&re, "abc 123 456"), Value::string("123"));
        assert_eq!(find(&re, "abc"), Value::string(""));
        let args = [Value::string("abc 123"), Value::string("[a-z]+")];
        assert_eq!(call("string_find_string", &args), Ok(Value::string("abc")));
    }

    #[test]
    fn find_all_with_and_without_limit() {
        let re = compile("[0-9]+").expect("valid");
        assert_eq!(find_all(&re, "1 22 333", -1), Ok(strs(&["1", "22", "333"])));
        assert_eq!(find_all(&re, "1 22 333", 2), Ok(strs(&["1", "22"])));
        assert_eq!(find_all(&re, "1 22 333", 0), Ok(strs(&[])));
        assert_eq!(find_all(&re, "none", -1), Ok(strs(&[])));
        let args = [Value::string("a1b2"), Value::string("[0-9]")];
        assert_eq!(call("string_find_all_string", &args), Ok(strs(&["1", "2"])));
        let args = [Value::string("a1b2"), Value::string("[0-9]"), Value::Int(1)];
        assert_eq!(call("string_find_all_string_int", &args), Ok(strs(&["1"])));
    }

    #[test]
    fn empty_matches_follow_go() {
        // Go's FindAllString("baaab", -1) for `a*`: an empty match right after "aaa" is
        // dropped, the one at the end is kept.
        let re = compile("a*").expect("valid");
        assert_eq!(find_all(&re, "baaab", -1), Ok(strs(&["", "aaa", ""])));
        assert_eq!(find_all(&re, "", -1), Ok(strs(&[""])));
    }

    #[test]
    fn bad_patterns_have_go_messages() {
        let cases = [
            ("(abc", "error parsing regexp: missing closing ): `(abc`"),
            ("abc)", "error parsing regexp: unexpected ): `abc)`"),
            ("x[a-z", "error parsing regexp: missing closing ]: `[a-z`"),
            ("[z-a]", "error parsing regexp: invalid character class range: `z-a`"),
            ("*", "error parsing regexp: missing argument to repetition operator: `*`"),
            ("a\\q", "error parsing regexp: invalid escape sequence: `\\q`"),
            ("a\\", "error parsing regexp: trailing backslash at end of expression: ``"),
            ("(?=a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
        ];
        for (pattern, want) in cases {
            assert_eq!(compile_error(pattern), want, "{pattern}");
        }
    }

    #[test]
    fn perl_classes_and_word_boundaries_are_ascii_as_in_go() {
        let matches = |pattern: &str, s: &str| compile(pattern).expect("valid").is_match(s);
        // U+0663 ARABIC-INDIC DIGIT THREE is a digit to Rust's Unicode `\d`, not to Go.
        assert!(!matches("^\\d$", "\u{663}"));
        assert!(matches("^\\D$", "\u{663}"));
        assert!(matches("^[\\d]+$", "42"));
        assert!(!matches("^[a\\d]$", "\u{663}"));
        assert!(matches("^[a\\D]$", "\u{663}"));
        assert!(!matches("^\\w$", "é"));
        assert!(matches("^\\W$", "é"));
        // Go's `\s` has no vertical tab.
        assert!(matches("^\\s+$", " \t\n\r\u{c}"));
        assert!(!matches("^\\s$", "\u{b}"));
        assert!(!matches("^\\s$", "\u{a0}"));
        // `é` is not a word character, so Go sees a boundary between it and `a`.
        assert!(matches("a\\b", "aé"));
        assert!(matches("\\Bb", "ab"));
        // Escaped backslashes are not classes.
        assert!(matches("^\\\\d$", "\\d"));
    }

    #[test]
    fn rust_only_syntax_is_rejected_as_go_does() {
        let cases = [
            ("(?x) a", "error parsing regexp: invalid or unsupported Perl syntax: `(?x`"),
            ("(?iu:a)", "error parsing regexp: invalid or unsupported Perl syntax: `(?iu`"),
            ("\\<a", "error parsing regexp: invalid escape sequence: `\\<`"),
            ("a\\b{start}", "error parsing regexp: invalid escape sequence: `\\b{start}`"),
        ];
        for (pattern, want) in cases {
            assert_eq!(compile_error(pattern), want, "{pattern}");
        }
        assert!(compile("(?ims-U:a)").is_ok());
    }

    #[test]
    fn dynamic_patterns_carry_the_kubernetes_prefix() {
        let args = [Value::string("abc"), Value::string("(")];
        assert_eq!(
            call("string_find_string", &args),
            Err(ValueError::Message(
                "Illegal regex: error parsing regexp: missing closing ): `(`".to_owned()
            ))
        );
    }

    #[test]
    fn sizes_are_bounded() {
        let long = "a".repeat(MAX_PATTERN_BYTES + 1);
        assert!(compile_error(&long).starts_with("error parsing regexp: expression too large"));
        assert!(compile(&"a".repeat(MAX_PATTERN_BYTES)).is_ok());
        assert_eq!(
            compile_error("((a{100}){100}){100}"),
            "error parsing regexp: expression too large: `((a{100}){100}){100}`"
        );
    }

    #[test]
    fn wrong_kinds_are_no_such_overload() {
        let args = [Value::Int(1), Value::string("a")];
        assert_eq!(
            call("string_find_string", &args).map_err(|e| e.to_string()),
            Err("no such overload: find(int, string)".to_owned())
        );
        let args = [Value::string("a"), Value::string("a"), Value::string("1")];
        assert!(call("string_find_all_string_int", &args).is_err());
    }
}
