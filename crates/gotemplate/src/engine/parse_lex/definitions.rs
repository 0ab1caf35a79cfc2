//! Go's check on definitions within one parse: a `define` or `block` with a non-empty body
//! may not reuse the name of another non-empty one (an empty body yields to the other).
//! Go adds each definition when its `{{end}}` has been read and the top-level body last,
//! so the first clash in that order is the one Go names; gotmpl names another.

use std::collections::HashMap;

use super::lexer::{Kind, Lexer};

/// What Go's parser holds open.
enum Frame {
    Control,
    Definition { name: String, filled: bool },
}

/// Go's line and template name for the first redefinition in `source`, when it can tell.
pub(crate) fn first_redefinition(
    source: &str,
    name: &str,
    left: &str,
    right: &str,
) -> Option<(usize, String)> {
    let items = Lexer::items(source, left, right);
    let lines = super::super::super::source::LineIndex::new(source);
    let mut stack: Vec<Frame> = Vec::new();
    let mut top_filled = false;
    let mut defined: HashMap<String, bool> = HashMap::new();
    let mut text_from = 0;
    let mut index = 0;
    while let Some(item) = items.get(index) {
        index += 1;
        let filled_text = |from: usize, to: usize| {
            source.get(from..to).is_some_and(|text| !text.trim().is_empty())
        };
        match &item.kind {
            Kind::LeftDelim | Kind::CommentDelim => {
                if filled_text(text_from, item.start) {
                    fill(&mut stack, &mut top_filled);
                }
            }
            Kind::Error(_) => return None,
            _ => continue,
        }
        if item.kind == Kind::CommentDelim {
            // The text after a comment starts past its `*/` and closing delimiter.
            let after = source.get(item.start..)?;
            let close = after.find("*/")? + 2;
            text_from = item.start + close + after.get(close..)?.find(right)? + right.len();
            continue;
        }
        // The action's tokens up to its right delimiter.
        let mut words = Vec::new();
        let mut end = None;
        while let Some(token) = items.get(index) {
            index += 1;
            match &token.kind {
                Kind::RightDelim => {
                    end = Some(token.start);
                    break;
                }
                Kind::Space => {}
                Kind::Error(_) => return None,
                kind => words.push((kind.clone(), source.get(token.start..token.end)?)),
            }
        }
        let end = end?;
        text_from = end + source.get(end..)?.find(right)? + right.len();
        match words.first().map(|(kind, _)| kind) {
            Some(Kind::Keyword("if" | "range" | "with")) => {
                fill(&mut stack, &mut top_filled);
                stack.push(Frame::Control);
            }
            Some(Kind::Keyword(keyword @ ("define" | "block"))) => {
                if *keyword == "block" {
                    fill(&mut stack, &mut top_filled);
                }
                let name = unquote(words.get(1)?.1)?;
                stack.push(Frame::Definition { name, filled: false });
            }
            Some(Kind::Keyword("end")) => {
                if let Some(Frame::Definition { name, filled }) = stack.pop() {
                    let line = lines.line_column(end).0;
                    if add(&mut defined, &name, filled) {
                        return Some((line, name));
                    }
                }
            }
            Some(Kind::Keyword("else")) => {}
            _ => fill(&mut stack, &mut top_filled),
        }
    }
    if filled_text_at(source, text_from) {
        fill(&mut stack, &mut top_filled);
    }
    if !stack.is_empty() {
        return None;
    }
    add(&mut defined, name, top_filled)
        .then(|| (lines.line_column(source.len()).0, name.to_owned()))
}

fn filled_text_at(source: &str, from: usize) -> bool {
    source.get(from..).is_some_and(|text| !text.trim().is_empty())
}

/// Marks the innermost definition (or the top level) as having a body.
fn fill(stack: &mut [Frame], top_filled: &mut bool) {
    let owner = stack.iter_mut().rev().find_map(|frame| match frame {
        Frame::Definition { filled, .. } => Some(filled),
        Frame::Control => None,
    });
    match owner {
        Some(filled) => *filled = true,
        None => *top_filled = true,
    }
}

/// Go's `add`: true when a non-empty body meets a non-empty one of the same name.
fn add(defined: &mut HashMap<String, bool>, name: &str, filled: bool) -> bool {
    match defined.get(name) {
        Some(true) => filled,
        _ => {
            defined.insert(name.to_owned(), filled);
            false
        }
    }
}

/// A template name as written, without escapes (others are not modelled).
fn unquote(token: &str) -> Option<String> {
    let inner = token
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|t| !t.contains('\\'))
        .or_else(|| token.strip_prefix('`').and_then(|t| t.strip_suffix('`')))?;
    Some(inner.to_owned())
}

#[cfg(test)]
mod tests {
    use super::first_redefinition;

    fn go(source: &str) -> Option<(usize, String)> {
        first_redefinition(source, "t", "{{", "}}")
    }

    #[test]
    fn the_first_clash_in_gos_order_is_named() {
        let source = r#"{{define "t"}}[{{.}}]{{end}}{{template "t" .l}} {{block "b" false}}<{{.}}>{{end}} {{block "b" .m}}<{{.}}>{{end}}"#;
        assert_eq!(go(source), Some((1, "b".to_owned())));
        assert_eq!(go("{{define \"t\"}}x{{end}}\ny"), Some((2, "t".to_owned())));
        assert_eq!(go("{{define \"a\"}} {{end}}{{define \"a\"}}x{{end}}"), None);
        assert_eq!(go("{{define \"t\"}}x{{end}}  "), None);
    }
}
