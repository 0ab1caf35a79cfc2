//! Go's checks on the block structure of a template, which gotmpl's parser does not make:
//! gotmpl accepts a missing `{{end}}` (the block runs to the end of the input) and stops
//! parsing silently at a stray `{{end}}` or `{{else}}`. Go rejects all three.
//!
//! The scan runs only on source gotmpl has already lexed, so strings and comments are
//! well-formed; it still never indexes out of bounds on any input.

/// A structural error: the byte offset where Go would stop, its line and Go's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StructureError {
    pub offset: usize,
    pub line: usize,
    pub message: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    Control,
    Define,
    Clause,
}

struct Frame {
    block: Block,
    /// A plain `{{else}}` was seen; another `{{else}}` is an error.
    had_else: bool,
}

/// One action: where it starts and ends, and its leading keyword (if any).
struct Action<'a> {
    start: usize,
    end: usize,
    keyword: &'a str,
    second_word: &'a str,
}

pub(crate) fn check(source: &str, left: &str, right: &str) -> Result<(), StructureError> {
    let mut stack: Vec<Frame> = Vec::new();
    let mut pos = 0;
    while let Some(action) = next_action(source, left, right, pos) {
        pos = action.end.max(pos + 1);
        let error = |message: &str| StructureError {
            offset: action.start,
            // Go reports the line of the last token read: the action's closing delimiter.
            line: super::source::line_of(source, action.end.saturating_sub(right.len())),
            message: message.to_owned(),
        };
        match action.keyword {
            "if" | "range" | "with" => stack.push(Frame { block: Block::Control, had_else: false }),
            "define" => stack.push(Frame { block: Block::Define, had_else: false }),
            "block" => stack.push(Frame { block: Block::Clause, had_else: false }),
            // The guard pops the closed block; only an empty stack is an error.
            "end" if stack.pop().is_none() => return Err(error("unexpected {{end}}")),
            "else" => match stack.last_mut() {
                None => return Err(error("unexpected {{else}}")),
                Some(frame) if frame.block == Block::Define => {
                    return Err(error("unexpected {{else}} in define clause"));
                }
                Some(frame) if frame.block == Block::Clause => {
                    return Err(error("unexpected {{else}} in block clause"));
                }
                Some(frame) if frame.had_else => {
                    return Err(error("expected end; found {{else}}"));
                }
                Some(frame) => {
                    // `{{else if ...}}` / `{{else with ...}}` continue the chain; only a
                    // plain `{{else}}` closes it to further branches.
                    if !matches!(action.second_word, "if" | "with") {
                        frame.had_else = true;
                    }
                }
            },
            _ => {}
        }
    }
    if stack.is_empty() {
        Ok(())
    } else {
        Err(StructureError {
            offset: source.len(),
            line: super::source::line_of(source, source.len()),
            message: "unexpected EOF".to_owned(),
        })
    }
}

/// The next action at or after `from`; comments are skipped.
fn next_action<'a>(source: &'a str, left: &str, right: &str, from: usize) -> Option<Action<'a>> {
    let mut search = from;
    loop {
        let start = search + source.get(search..)?.find(left)?;
        let mut p = start + left.len();
        let bytes = source.as_bytes();
        // A left trim marker is a dash followed by white space.
        if bytes.get(p) == Some(&b'-') && bytes.get(p + 1).is_some_and(u8::is_ascii_whitespace) {
            p += 1;
        }
        p = skip_space(bytes, p);
        if source.get(p..)?.starts_with("/*") {
            let close = p + 2 + source.get(p + 2..)?.find("*/")? + 2;
            let end = close + source.get(close..)?.find(right)? + right.len();
            search = end;
            continue;
        }
        let (keyword, after) = word(source, p);
        let (second_word, _) = word(source, skip_space(bytes, after));
        let end = action_end(source, after, right)?;
        return Some(Action { start, end, keyword, second_word });
    }
}

fn skip_space(bytes: &[u8], mut p: usize) -> usize {
    while bytes.get(p).is_some_and(u8::is_ascii_whitespace) {
        p += 1;
    }
    p
}

/// The identifier-like word at `p` and the offset after it.
fn word(source: &str, p: usize) -> (&str, usize) {
    let rest = source.get(p..).unwrap_or_default();
    let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
    (rest.get(..len).unwrap_or_default(), p + len)
}

/// Offset just past the right delimiter closing the action, skipping quoted text.
fn action_end(source: &str, mut p: usize, right: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    while p < bytes.len() {
        if source.get(p..).is_some_and(|rest| rest.starts_with(right)) {
            return Some(p + right.len());
        }
        match bytes.get(p) {
            Some(&quote @ (b'"' | b'\'')) => {
                p += 1;
                while let Some(&b) = bytes.get(p) {
                    p += if b == b'\\' { 2 } else { 1 };
                    if b == quote {
                        break;
                    }
                }
            }
            Some(b'`') => {
                p += 1 + source.get(p + 1..)?.find('`')? + 1;
            }
            _ => p += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> Option<(usize, String)> {
        check(src, "{{", "}}").err().map(|e| (e.line, e.message))
    }

    #[test]
    fn balanced_templates_pass() {
        assert_eq!(err("{{if .A}}{{else if .B}}{{else}}{{end}}"), None);
        assert_eq!(
            err(r#"{{define "x"}}{{range .}}{{else}}{{end}}{{end}}{{ "}}{{end}}" }}"#),
            None
        );
        assert_eq!(err("{{/* {{end}} */}}{{with .}}{{end}}"), None);
    }

    #[test]
    fn unbalanced_templates_fail_as_go() {
        assert_eq!(err("{{if .A}}\nx"), Some((2, "unexpected EOF".into())));
        assert_eq!(err("a\n{{end}}"), Some((2, "unexpected {{end}}".into())));
        assert_eq!(err("{{else}}"), Some((1, "unexpected {{else}}".into())));
        assert_eq!(
            err("{{if 1}}{{else}}{{else}}{{end}}"),
            Some((1, "expected end; found {{else}}".into()))
        );
        assert_eq!(
            err(r#"{{define "a"}}{{else}}{{end}}"#),
            Some((1, "unexpected {{else}} in define clause".into()))
        );
    }
}
