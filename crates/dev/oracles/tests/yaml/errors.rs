//! Error texts: documents both yaml.v3 and certgate reject, with yaml.v3's exact message.
//!
//! `FIXED` holds one or more documents per class of message certgate once worded or placed
//! differently (libyaml's 0-based parser lines and 1-based scanner lines, context marks,
//! content after a quoted scalar, `{a:[b]}`, `[ , x]`, duplicate keys stopping the
//! mapping), each with the answer recorded from the oracle. [`exception`] names the classes
//! where the two parsers still fail at different places; any other difference in wording
//! fails the generated runs.

/// A document both reject, with yaml.v3's message as the test shows it (`err <message>`).
pub struct ErrorCase {
    pub yaml: &'static str,
    pub upstream: &'static str,
}

pub const FIXED: &[ErrorCase] = &[
    // Parser errors: libyaml's 0-based context line (the collection's start), nothing on 0.
    ErrorCase { yaml: "- &a0 *a0\n", upstream: "err yaml: did not find expected '-' indicator" },
    ErrorCase {
        yaml: "c1:\n    - &a0 *a0\na: x\n",
        upstream: "err yaml: line 1: did not find expected '-' indicator",
    },
    ErrorCase {
        yaml: "%YAML 1.1\n---\nb: &a0 *a0\n",
        upstream: "err yaml: line 2: did not find expected key",
    },
    ErrorCase { yaml: "a: 'x'\n  b: c\n", upstream: "err yaml: line 1: did not find expected key" },
    // Scanner errors: 1-based, nothing when the mark is on the first line.
    ErrorCase {
        yaml: "a: b: c\n",
        upstream: "err yaml: mapping values are not allowed in this context",
    },
    ErrorCase {
        yaml: "a: b\nc: d: e\n",
        upstream: "err yaml: line 2: mapping values are not allowed in this context",
    },
    ErrorCase { yaml: "@x\n", upstream: "err yaml: found character that cannot start any token" },
    ErrorCase {
        yaml: "a: b\nc: |x\n  b\n",
        upstream: "err yaml: line 2: did not find expected comment or line break",
    },
    ErrorCase {
        yaml: "a: b\nc: !<x>y z\n",
        upstream: "err yaml: line 2: did not find expected whitespace or line break",
    },
    // Quoted scalars: the scalar's start, else the end of the stream or the indicator.
    ErrorCase { yaml: "a: \"x\n", upstream: "err yaml: line 2: found unexpected end of stream" },
    ErrorCase { yaml: "c1: \"---\\\"", upstream: "err yaml: found unexpected end of stream" },
    ErrorCase {
        yaml: "b: \"x\n---\n'\n\"\n",
        upstream: "err yaml: line 2: found unexpected document indicator",
    },
    ErrorCase {
        yaml: "a: x\nb: \"x\n---\ny\"\n",
        upstream: "err yaml: line 2: found unexpected document indicator",
    },
    ErrorCase {
        yaml: "a: x\nb: \"x\n\\q\"\n",
        upstream: "err yaml: line 2: found unknown escape character",
    },
    // Content right after a closing quote.
    ErrorCase {
        yaml: "a: x\nb: \"x\n y\"z\nc: d\n",
        upstream: "err yaml: line 2: did not find expected key",
    },
    ErrorCase {
        yaml: "a: x\nb: \"x\"z: w\n",
        upstream: "err yaml: line 2: mapping values are not allowed in this context",
    },
    ErrorCase {
        yaml: "- \"x\" y\n- z\n",
        upstream: "err yaml: did not find expected '-' indicator",
    },
    ErrorCase {
        yaml: "a: b\n\"x\" y\nc: d\n",
        upstream: "err yaml: line 2: could not find expected ':'",
    },
    ErrorCase { yaml: "{a: \"x\" y}\n", upstream: "err yaml: did not find expected ',' or '}'" },
    // Flow collections: a leading comma, `a:` right before `[` or `{`.
    ErrorCase { yaml: "[ , x]\n", upstream: "err yaml: did not find expected node content" },
    ErrorCase {
        yaml: "a:\n  [\n , 1: x]\n",
        upstream: "err yaml: line 2: did not find expected node content",
    },
    ErrorCase {
        yaml: "# c\n{ 'q': x,\n c:[], c: y}\n",
        upstream: "err yaml: line 1: did not find expected ',' or '}'",
    },
    ErrorCase { yaml: "[a, b:{c: d}]\n", upstream: "err yaml: did not find expected ',' or ']'" },
    // A tab after a sequence entry's `-` (formerly a listed class).
    ErrorCase {
        yaml: "a:\n  - b\n  -\tc: d\n  - e: \"\n",
        upstream: "err yaml: line 3: found character that cannot start any token",
    },
    // A mapping with duplicate keys is not decoded further.
    ErrorCase {
        yaml: "a: 1\na: 2\nb:\n  c: 1\n  c: 2\n",
        upstream: "err yaml: unmarshal errors:\n  line 2: mapping key \"a\" already defined at line 1",
    },
    ErrorCase {
        yaml: "a:\n  {p: q}: 1\n  {r: s}: 2\n",
        upstream: "err yaml: unmarshal errors:\n  line 3: mapping key \"\" already defined at line 2",
    },
    ErrorCase {
        yaml: "a:\n  b: &x [1, 2]\n  b: 2\n  c: !!binary x\n",
        upstream: "err yaml: unmarshal errors:\n  line 3: mapping key \"b\" already defined at line 2",
    },
];

/// Listed classes where both reject the document but fail at different places.
pub const EXCEPTED: &[(&str, &str, &str)] = &[
    (
        "---\n'': >\n   \n \ta b\n\n[1, 2]:\n- ?x\n  \n \n",
        "err yaml: line 2: found a tab character where an indentation space is expected",
        TABS,
    ),
    (
        "? |2+\n: 1\n? |2+\n: 2\n",
        "err yaml: unmarshal errors:\n  line 3: mapping key \"\" already defined at line 1",
        EMPTY_BLOCK_KEY_LINE,
    ),
];

pub const TABS: &str = "the document contains a tab: libyaml refuses tabs wherever a token \
    or indentation could start (`found character that cannot start any token`, `found a tab \
    character ...`) while certgate's YAML 1.2 parser takes many of them for separation white \
    space, so the two fail at different places";

pub const LONG_KEY: &str = "the document has a line longer than 1024 characters: libyaml \
    gives up simple keys that long (`could not find expected ':'` or `mapping values are not \
    allowed`), certgate's parser has no such limit and fails elsewhere";

pub const EMPTY_BLOCK_KEY_LINE: &str = "duplicate keys where a key is an empty block scalar \
    (`? |2+` with no content): yaml.v3 places the key on its header's line, certgate on the \
    line after it; the texts are otherwise identical";

pub const QUOTED_CONTINUATION: &str = "a quoted scalar continues on a line indented no deeper \
    than the line it opened on: libyaml never checks that indentation, certgate's parser \
    refuses it and `reindent` pads the line, which ends the scalar elsewhere than libyaml \
    when the line holds an escaped quote, a document indicator or a lone `\\`, so the later \
    failures differ";

pub const LEADING_BLANKS: &str = "a block scalar's leading blank lines are longer than its \
    first content line: libyaml reads an empty scalar and goes on to fail on the content \
    line, certgate's YAML 1.2 parser refuses the scalar itself";

/// The reason a generated difference between two rejections is listed, if it is.
pub fn exception(case: &str, certgate: &str, upstream: &str) -> Option<&'static str> {
    if !(certgate.starts_with("err ") && upstream.starts_with("err ")) {
        return None;
    }
    let yaml = case.strip_prefix("decode ").and_then(unescape_debug)?;
    if yaml.contains('\t') {
        return Some(TABS);
    }
    if yaml.lines().any(|line| line.chars().count() > 1024) {
        return Some(LONG_KEY);
    }
    let digits = |s: &str| s.replace(|c: char| c.is_ascii_digit(), "0");
    if certgate.starts_with("err yaml: unmarshal errors:")
        && digits(certgate) == digits(upstream)
        && yaml.contains(['|', '>'])
    {
        return Some(EMPTY_BLOCK_KEY_LINE);
    }
    if quoted_continuation(&yaml) {
        return Some(QUOTED_CONTINUATION);
    }
    if longer_leading_blanks(&yaml) {
        return Some(LEADING_BLANKS);
    }
    None
}

/// The text of a Rust `{:?}` string literal (the form a case is shown in).
fn unescape_debug(shown: &str) -> Option<String> {
    let inner = shown.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            '0' => out.push('\0'),
            'u' => {
                let hex: String = chars.by_ref().skip(1).take_while(|&c| c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// Whether a quoted scalar (opened where a token can start) continues on a non-blank line
/// indented no deeper than the line it opened on.
fn quoted_continuation(yaml: &str) -> bool {
    let lines: Vec<&str> = yaml.split('\n').collect();
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    let mut chars = yaml.chars().peekable();
    let (mut line, mut token_start, mut previous) = (0usize, true, '\n');
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '#' if previous.is_whitespace() => while chars.next_if(|&c| c != '\n').is_some() {},
            '"' | '\'' if token_start => {
                let opened = lines.get(line).map_or(0, |l| indent(l));
                while let Some(q) = chars.next() {
                    if q == '\n' {
                        line += 1;
                        let next = lines.get(line).copied().unwrap_or("");
                        if !next.trim().is_empty() && indent(next) <= opened {
                            return true;
                        }
                    } else if q == '\\' && c == '"' {
                        if chars.next_if_eq(&'\n').is_some() {
                            line += 1;
                        } else {
                            chars.next();
                        }
                    } else if q == c {
                        if c == '\'' && chars.next_if_eq(&'\'').is_some() {
                            continue;
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
        token_start = c.is_whitespace() || matches!(c, ',' | '[' | '{' | ':' | '-' | '?');
        previous = c;
    }
    false
}

/// Whether a block scalar header (`|` or `>` ending a line) is followed by a white-space
/// line longer than the indentation of its first content line.
fn longer_leading_blanks(yaml: &str) -> bool {
    let lines: Vec<&str> = yaml.split('\n').collect();
    lines.iter().enumerate().any(|(n, line)| {
        let header =
            line.split(" #").next().unwrap_or(line).trim_end().rsplit(' ').next().unwrap_or("");
        if !(header.starts_with(['|', '>']) && header.len() <= 3) {
            return false;
        }
        let mut widest = 0;
        for next in &lines[n + 1..] {
            if next.trim().is_empty() {
                widest = widest.max(next.len());
                continue;
            }
            return widest > next.len() - next.trim_start_matches(' ').len();
        }
        false
    })
}
