//! Splits one input's text into documents, each tagged with where it starts in the file and
//! with the positions of its fields.

use std::sync::Arc;

use serde_json::Value;
use serde_saphyr::{MessageFormatter, Spanned, UserMessageFormatter};

use super::error::LoadError;
use super::positions::{self, DocumentPositions, Node, Position, Step};
use super::source::Source;

/// One parsed document.
#[derive(Debug)]
pub struct Document {
    pub at: Source,
    pub value: Value,
    /// Where each field of `value` was written (empty when unknown).
    pub positions: Node,
}

impl Document {
    /// Where the value at `path` was written: the document's source at that line and
    /// column (or at the nearest enclosing field that has one).
    pub fn source_of<'p>(&self, path: impl IntoIterator<Item = Step<'p>>) -> Source {
        self.at.at(self.positions.find(path))
    }
}

/// Which parser reads an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    Yaml,
    Json,
}

impl Syntax {
    /// `*.json` files are JSON; everything else (standard input included) is YAML, which
    /// also reads JSON documents.
    pub fn for_name(name: &str) -> Self {
        let is_json = std::path::Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if is_json { Syntax::Json } else { Syntax::Yaml }
    }
}

pub fn parse(file: &Arc<str>, text: &str, syntax: Syntax) -> Result<Vec<Document>, LoadError> {
    match syntax {
        Syntax::Yaml => parse_yaml(file, text),
        Syntax::Json => parse_json(file, text),
    }
}

/// A JSON file holds exactly one document (an object or a `List`). JSON is YAML too, so the
/// YAML position index finds its fields.
fn parse_json(file: &Arc<str>, text: &str) -> Result<Vec<Document>, LoadError> {
    let at = Source::document(file, 0);
    match serde_json::from_str::<Value>(text) {
        Ok(value) => {
            let positions = positions::index(text).into_iter().next().map(|d| d.root);
            let positions = positions.unwrap_or_default();
            Ok(vec![Document { at: at.at(positions.at), value, positions }])
        }
        Err(err) => {
            // serde_json appends " at line L column C" to its message; the position is
            // reported in our own format instead.
            let full = err.to_string();
            let suffix = format!(" at line {} column {}", err.line(), err.column());
            let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
            let position = Position { line: err.line(), column: err.column() };
            Err(LoadError::Json { at: at.at(Some(position)), message })
        }
    }
}

/// YAML streams: serde-saphyr resolves the YAML (anchors, merge keys, tags) and skips empty
/// and `null` documents; a light event pass finds where every document (and every field)
/// starts, so that indices still count the skipped ones and messages can name lines.
fn parse_yaml(file: &Arc<str>, text: &str) -> Result<Vec<Document>, LoadError> {
    let mut indexed = positions::index(text);
    let index_of = |line: usize| {
        indexed.partition_point(|d: &DocumentPositions| d.start_line <= line).saturating_sub(1)
    };
    match serde_saphyr::from_multiple::<Spanned<Value>>(text) {
        Ok(documents) => {
            let found: Vec<_> = documents
                .into_iter()
                .map(|doc| (index_of(line_of(&doc.referenced)), doc.value))
                .collect();
            Ok(found
                .into_iter()
                .map(|(index, value)| {
                    let positions = indexed.get_mut(index).map(|d| std::mem::take(&mut d.root));
                    let positions = positions.unwrap_or_default();
                    let at = Source::document(file, index).at(positions.at);
                    Document { at, value, positions }
                })
                .collect())
        }
        Err(err) => {
            let position = err
                .location()
                .map(|l| Position { line: to_usize(l.line()), column: to_usize(l.column()) });
            let line = position.map_or(0, |p| p.line);
            let message = UserMessageFormatter.format_message(err.without_snippet()).into_owned();
            let at = Source::document(file, index_of(line)).at(position);
            Err(LoadError::Yaml { at, message })
        }
    }
}

fn line_of(location: &serde_saphyr::Location) -> usize {
    to_usize(location.line())
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn yaml(text: &str) -> Result<Vec<(usize, Value)>, String> {
        let file: Arc<str> = Arc::from("f.yaml");
        parse(&file, text, Syntax::Yaml)
            .map(|docs| docs.into_iter().map(|d| (d.at.document, d.value)).collect())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn indices_count_empty_and_null_documents() {
        let text = "---\n# comment\nkind: A\n---\n~\n---\n\n--- {kind: B}\n---\nkind: C\n";
        assert_eq!(
            yaml(text).unwrap(),
            [(0, json!({"kind": "A"})), (3, json!({"kind": "B"})), (4, json!({"kind": "C"}))]
        );
    }

    #[test]
    fn documents_and_fields_carry_their_line_and_column() {
        let file: Arc<str> = Arc::from("f.yaml");
        let text = "---\n# comment\nkind: A\n---\n~\n---\nkind: B\nspec:\n  dnsName: x\n";
        let docs = parse(&file, text, Syntax::Yaml).unwrap();
        assert_eq!(docs[0].at.to_string(), "f.yaml:3:1");
        assert_eq!(docs[1].at.to_string(), "f.yaml:7:1");
        let field = docs[1].source_of([Step::Key("spec"), Step::Key("dnsName")]);
        assert_eq!(field.to_string(), "f.yaml:9:3");
        assert_eq!(field.document, 2);
    }

    #[test]
    fn implicit_first_document_is_index_zero() {
        assert_eq!(yaml("kind: A\n").unwrap(), [(0, json!({"kind": "A"}))]);
        assert_eq!(yaml("").unwrap(), []);
    }

    #[test]
    fn anchors_and_merge_keys_resolve() {
        let text = "base: &b {x: 1}\nderived:\n  <<: *b\n  y: 2\n";
        assert_eq!(
            yaml(text).unwrap(),
            [(0, json!({"base": {"x": 1}, "derived": {"x": 1, "y": 2}}))]
        );
    }

    #[test]
    fn syntax_errors_name_file_line_and_column() {
        let text = "kind: A\n---\n---\n# c\nkind: [B, C\n";
        assert_eq!(yaml(text).unwrap_err(), "f.yaml:5:7: invalid YAML: unclosed bracket '['");
    }

    #[test]
    fn duplicate_keys_are_errors() {
        assert_eq!(
            yaml("kind: A\n---\nkind: B\nkind: C\n").unwrap_err(),
            "f.yaml:4:1: invalid YAML: duplicate mapping key `kind` is not allowed here"
        );
    }

    #[test]
    fn nesting_depth_is_bounded() {
        let deep = format!("{}{}\n", "[".repeat(200), "]".repeat(200));
        let err = yaml(&deep).unwrap_err();
        assert!(err.starts_with("f.yaml:1:"), "{err}");
        assert!(err.contains("limits breached"), "{err}");
    }

    #[test]
    fn json_holds_one_document() {
        let file: Arc<str> = Arc::from("f.json");
        let docs = parse(&file, r#"{"kind": "List", "items": []}"#, Syntax::Json).unwrap();
        assert_eq!(docs.len(), 1);
        assert_eq!(docs[0].at.to_string(), "f.json:1:1");
        assert_eq!(docs[0].source_of([Step::Key("items")]).to_string(), "f.json:1:18");
    }

    #[test]
    fn json_errors_name_line_and_column_once() {
        let file: Arc<str> = Arc::from("f.json");
        let err = parse(&file, "{\n  \"kind\": \n}", Syntax::Json).unwrap_err();
        assert_eq!(err.to_string(), "f.json:3:1: invalid JSON: expected value");
    }

    #[test]
    fn syntax_follows_the_extension() {
        assert_eq!(Syntax::for_name("a/b.JSON"), Syntax::Json);
        assert_eq!(Syntax::for_name("a/b.yml"), Syntax::Yaml);
        assert_eq!(Syntax::for_name("<stdin>"), Syntax::Yaml);
    }
}
