//! Where an input object (or one of its fields) came from, for messages that must point at it.

use std::fmt;
use std::sync::Arc;

pub use super::positions::Position;

/// A file (as the user named it, or found under a directory they named), a 0-based document
/// index within that file, the item index when the document is a `List`, and the line and
/// column in the file where they are known.
///
/// With a position, messages name `file:line:column`, as compilers and linters do. Without
/// one (objects that did not come from a file, or a file the position index could not read)
/// they fall back to `file#document`, where document indices count every YAML document of the
/// file, empty ones included, so `#2` is the third document whatever it holds.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    pub file: Arc<str>,
    pub document: usize,
    pub item: Option<usize>,
    pub position: Option<Position>,
}

impl Source {
    pub fn document(file: &Arc<str>, document: usize) -> Self {
        Source { file: Arc::clone(file), document, item: None, position: None }
    }

    /// The same document, item `index` of its `List`.
    pub fn item(&self, index: usize) -> Self {
        Source { item: Some(index), ..self.clone() }
    }

    /// The same place, at `position` in the file (kept as it is when `position` is `None`).
    pub fn at(&self, position: Option<Position>) -> Self {
        Source { position: position.or(self.position), ..self.clone() }
    }
}

impl fmt::Display for Source {
    /// `file:line:column`, or `file#document` (`file#document.items[i]`) without a position.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(Position { line, column }) = self.position {
            return write!(f, "{}:{line}:{column}", self.file);
        }
        write!(f, "{}#{}", self.file, self.document)?;
        if let Some(item) = self.item {
            write!(f, ".items[{item}]")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_file_document_and_item() {
        let file: Arc<str> = Arc::from("dir/a.yaml");
        let source = Source::document(&file, 2);
        assert_eq!(source.to_string(), "dir/a.yaml#2");
        assert_eq!(source.item(5).to_string(), "dir/a.yaml#2.items[5]");
    }

    #[test]
    fn renders_line_and_column_when_known() {
        let file: Arc<str> = Arc::from("dir/a.yaml");
        let source = Source::document(&file, 2).at(Some(Position { line: 7, column: 3 }));
        assert_eq!(source.to_string(), "dir/a.yaml:7:3");
        assert_eq!(source.item(1).to_string(), "dir/a.yaml:7:3");
        assert_eq!(source.at(None), source);
    }
}
