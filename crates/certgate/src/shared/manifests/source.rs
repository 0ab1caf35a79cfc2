//! Where an input object came from, for messages that must point at it.

use std::fmt;
use std::sync::Arc;

/// A file (as the user named it, or found under a directory they named), a 0-based document
/// index within that file, and the item index when the document is a `List`.
///
/// Document indices count every YAML document of the file, empty ones included, so `#2` is
/// the third document whatever it holds. JSON files hold one document (`#0`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Source {
    pub file: Arc<str>,
    pub document: usize,
    pub item: Option<usize>,
}

impl Source {
    pub fn document(file: &Arc<str>, document: usize) -> Self {
        Source { file: Arc::clone(file), document, item: None }
    }

    /// The same document, item `index` of its `List`.
    pub fn item(&self, index: usize) -> Self {
        Source { item: Some(index), ..self.clone() }
    }
}

impl fmt::Display for Source {
    /// `file#document` or `file#document.items[i]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
}
