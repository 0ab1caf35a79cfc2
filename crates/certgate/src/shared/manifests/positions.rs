//! Where each field of a YAML (or JSON) document was written: a tree of line and column
//! positions built from the parser's events, so that messages about an object or one of its
//! fields can point at the user's file, line and column rather than a document index.
//!
//! The tree follows the text as written: a merge key (`<<`) or an alias has a position of its
//! own but no children, so a lookup inside one stops at the nearest position written in the
//! file. The work is bounded: past [`MAX_NODES`] nodes per input no more fields are recorded
//! (lookups then fall back to the nearest recorded ancestor).

use serde_saphyr::granit_parser::{Event, Parser};

/// Most nodes recorded per input.
pub const MAX_NODES: usize = 500_000;

/// A 1-based line and column in the user's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// One step of a path into a document: a mapping key or a sequence index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// A node of the document as written: where it is (for a mapping entry, where its key is),
/// and its children.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub at: Option<Position>,
    children: Children,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Children {
    #[default]
    None,
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
}

impl Node {
    /// The child at `step`, if it was recorded.
    pub fn child(&self, step: Step<'_>) -> Option<&Node> {
        match (&self.children, step) {
            // The last of duplicate keys wins, as in the parsed value.
            (Children::Map(entries), Step::Key(key)) => {
                entries.iter().rev().find(|(k, _)| k == key).map(|(_, node)| node)
            }
            (Children::Seq(items), Step::Index(index)) => items.get(index),
            _ => None,
        }
    }

    /// The position of the deepest node along `path` that has one (the node itself when the
    /// whole path was recorded).
    pub fn find<'p>(&self, path: impl IntoIterator<Item = Step<'p>>) -> Option<Position> {
        let mut node = self;
        let mut found = self.at;
        for step in path {
            match node.child(step) {
                Some(child) => {
                    node = child;
                    found = child.at.or(found);
                }
                None => break,
            }
        }
        found
    }
}

/// An owned [`Step`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    Key(String),
    Index(usize),
}

impl PathStep {
    pub fn as_step(&self) -> Step<'_> {
        match self {
            PathStep::Key(key) => Step::Key(key),
            PathStep::Index(index) => Step::Index(*index),
        }
    }
}

/// `spec.routes[0].x`, the API server's rendering of a path.
pub fn render_path(steps: &[PathStep]) -> String {
    let mut path = String::new();
    for step in steps {
        match step {
            PathStep::Key(key) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            PathStep::Index(index) => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

impl Node {
    /// The last node (in the order written) that starts on or before `line`, with its path
    /// and position: the field a line of the text belongs to.
    pub fn last_at_or_before(&self, line: usize) -> Option<(Vec<PathStep>, Position)> {
        let mut best: Option<(Vec<PathStep>, Position)> = None;
        // Depth-first in document order, without recursion.
        let mut stack: Vec<(&Node, Vec<PathStep>)> = vec![(self, Vec::new())];
        while let Some((node, path)) = stack.pop() {
            if let Some(at) = node.at
                && at.line <= line
                && best.as_ref().is_none_or(|(_, b)| (b.line, b.column) <= (at.line, at.column))
            {
                best = Some((path.clone(), at));
            }
            let children: Vec<(PathStep, &Node)> = match &node.children {
                Children::None => Vec::new(),
                Children::Map(entries) => {
                    entries.iter().map(|(k, n)| (PathStep::Key(k.clone()), n)).collect()
                }
                Children::Seq(items) => {
                    items.iter().enumerate().map(|(i, n)| (PathStep::Index(i), n)).collect()
                }
            };
            for (step, child) in children.into_iter().rev() {
                let mut child_path = path.clone();
                child_path.push(step);
                stack.push((child, child_path));
            }
        }
        best
    }

    /// The node at `path`, when every step of it was recorded.
    pub fn get<'p>(&self, path: impl IntoIterator<Item = Step<'p>>) -> Option<&Node> {
        let mut node = self;
        for step in path {
            node = node.child(step)?;
        }
        Some(node)
    }
}

/// One document of an input: the line its start was found on, and its tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentPositions {
    pub start_line: usize,
    pub root: Node,
}

/// A collection being filled while its events arrive.
enum Frame {
    /// A mapping; `key` is the key (and its position) whose value comes next, `None` while
    /// a key is expected.
    Map {
        node: Node,
        key: Option<(String, Option<Position>)>,
    },
    Seq {
        node: Node,
    },
    /// A collection used as a mapping key: nothing inside it is recorded.
    ComplexKey {
        depth: usize,
    },
}

struct Builder {
    stack: Vec<Frame>,
    documents: Vec<DocumentPositions>,
    budget: usize,
}

impl Builder {
    /// Attaches a finished node (or a key scalar) to the innermost open collection.
    fn attach(&mut self, node: Node, scalar_text: Option<&str>) {
        let Some(top) = self.stack.last_mut() else {
            if let Some(document) = self.documents.last_mut() {
                document.root = node;
            }
            return;
        };
        let record = self.budget > 0;
        match top {
            Frame::Map { node: map, key } => match key.take() {
                None => {
                    // This node is a key: remember it; its value comes next.
                    *key = Some((scalar_text.unwrap_or_default().to_owned(), node.at));
                }
                Some((name, key_at)) => {
                    if record && let Children::Map(entries) = &mut map.children {
                        self.budget -= 1;
                        entries.push((name, Node { at: key_at.or(node.at), ..node }));
                    }
                }
            },
            Frame::Seq { node: seq } => {
                if record && let Children::Seq(items) = &mut seq.children {
                    self.budget -= 1;
                    items.push(node);
                }
            }
            Frame::ComplexKey { .. } => {}
        }
    }

    /// Whether the innermost open collection is a mapping waiting for a key.
    fn expecting_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map { key: None, .. }))
    }

    fn open(&mut self, at: Position, children: Children) {
        if let Some(Frame::ComplexKey { depth }) = self.stack.last_mut() {
            *depth += 1;
            return;
        }
        if self.expecting_key() {
            self.stack.push(Frame::ComplexKey { depth: 0 });
            return;
        }
        let node = Node { at: Some(at), children };
        match node.children {
            Children::Seq(_) => self.stack.push(Frame::Seq { node }),
            _ => self.stack.push(Frame::Map { node, key: None }),
        }
    }

    fn close(&mut self) {
        match self.stack.pop() {
            Some(Frame::ComplexKey { depth }) if depth > 0 => {
                self.stack.push(Frame::ComplexKey { depth: depth - 1 });
            }
            // A collection key stands for a key nobody can look up.
            Some(Frame::ComplexKey { .. }) => self.attach(Node::default(), Some("")),
            Some(Frame::Map { node, .. } | Frame::Seq { node }) => self.attach(node, None),
            None => {}
        }
    }

    fn leaf(&mut self, at: Position, text: Option<&str>) {
        if matches!(self.stack.last(), Some(Frame::ComplexKey { .. })) {
            return;
        }
        self.attach(Node { at: Some(at), children: Children::None }, text);
    }
}

/// The positions of every document of `text`, in order (empty documents included), up to
/// the first syntax error.
pub fn index(text: &str) -> Vec<DocumentPositions> {
    index_within(text, MAX_NODES)
}

/// [`index`], recording at most `budget` nodes.
fn index_within(text: &str, budget: usize) -> Vec<DocumentPositions> {
    let mut builder = Builder { stack: Vec::new(), documents: Vec::new(), budget };
    let mut parser = Parser::new_from_str(text);
    while let Some(Ok((event, span))) = parser.next_event() {
        let at = Position { line: span.start.line(), column: span.start.col().saturating_add(1) };
        match event {
            Event::DocumentStart(..) => {
                builder.stack.clear();
                builder
                    .documents
                    .push(DocumentPositions { start_line: at.line, root: Node::default() });
            }
            Event::MappingStart(..) => builder.open(at, Children::Map(Vec::new())),
            Event::SequenceStart(..) => builder.open(at, Children::Seq(Vec::new())),
            Event::MappingEnd | Event::SequenceEnd => builder.close(),
            Event::Scalar(value, ..) => builder.leaf(at, Some(&value)),
            Event::Alias(..) => builder.leaf(at, Some("")),
            _ => {}
        }
    }
    builder.documents
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: usize, column: usize) -> Option<Position> {
        Some(Position { line, column })
    }

    #[test]
    fn fields_and_items_are_found_where_written() {
        let text = "kind: A\n---\n# c\nspec:\n  dnsNames:\n  - a\n  -   b\n  x: {y: 1, z: [2]}\n";
        let docs = index(text);
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].start_line, 2);
        let root = &docs[1].root;
        assert_eq!(root.at, pos(4, 1));
        let spec = Step::Key("spec");
        assert_eq!(root.find([spec]), pos(4, 1));
        assert_eq!(root.find([spec, Step::Key("dnsNames")]), pos(5, 3));
        assert_eq!(root.find([spec, Step::Key("dnsNames"), Step::Index(1)]), pos(7, 7));
        assert_eq!(root.find([spec, Step::Key("x"), Step::Key("z"), Step::Index(0)]), pos(8, 17));
        // Missing fields fall back to the nearest recorded ancestor.
        assert_eq!(root.find([spec, Step::Key("x"), Step::Key("nope")]), pos(8, 3));
    }

    #[test]
    fn complex_keys_aliases_and_errors_do_not_derail_the_index() {
        let text = "a: &x {b: 1}\n? [k]\n: v\nc: *x\nd: 2\n";
        let root = &index(text)[0].root;
        assert_eq!(root.find([Step::Key("d")]), pos(5, 1));
        assert_eq!(root.find([Step::Key("c"), Step::Key("b")]), pos(4, 1));
        // A syntax error ends the index; what came before is kept.
        let docs = index("a: 1\n---\nb: [\n");
        assert_eq!(docs[0].root.find([Step::Key("a")]), pos(1, 1));
    }

    #[test]
    fn a_line_is_traced_back_to_its_field() {
        let root = &index("a: 1\nb:\n  c: |\n    x\n    y\n  d: [1, 2]\n")[0].root;
        let (path, at) = root.last_at_or_before(5).unwrap();
        assert_eq!((render_path(&path), at), ("b.c".to_owned(), pos(3, 3).unwrap()));
        let (path, _) = root.last_at_or_before(6).unwrap();
        assert_eq!(render_path(&path), "b.d[1]");
        assert!(root.get([Step::Key("b"), Step::Key("c")]).is_some());
        assert!(root.get([Step::Key("b"), Step::Key("e")]).is_none());
    }

    #[test]
    fn past_the_budget_lookups_fall_back_to_what_was_recorded() {
        // `b`, `c` and then `a` (attached when its mapping closes) use the budget of 3.
        let docs = index_within("a: {b: 1, c: 2}\n---\nd: 3\n", 3);
        assert_eq!(docs.len(), 2, "documents are still counted");
        assert_eq!(docs[0].root.find([Step::Key("a"), Step::Key("c")]), pos(1, 11));
        assert_eq!(docs[1].start_line, 2);
        // `d` came after the budget: its document's own position stands in for it.
        assert_eq!(docs[1].root.find([Step::Key("d")]), pos(3, 1));
        assert!(docs[1].root.child(Step::Key("d")).is_none());
    }

    #[test]
    fn json_text_is_indexed_too() {
        let root = &index("{\n  \"kind\": \"A\",\n  \"spec\": {\"x\": 1}\n}\n")[0].root;
        assert_eq!(root.find([Step::Key("spec"), Step::Key("x")]), pos(3, 12));
    }
}
