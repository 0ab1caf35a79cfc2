//! Reads every `-f` input into plain objects (Lists flattened), with the shared manifest
//! loader: the same files, directories, standard input, size bounds and error reporting as
//! `check`.

use std::io::Read;
use std::path::PathBuf;

use serde_json::Value;

use crate::shared::manifests::positions::{Node, Step};
use crate::shared::manifests::{LoadErrors, Source, load_documents};
use crate::shared::unknown_fields::UnknownFields;

/// Where a Policy was written, to point template errors at the user's file.
#[derive(Clone, Debug)]
pub struct Written {
    pub at: Source,
    pub positions: Node,
}

/// The objects of every input, in input order; where each Policy was written (same order,
/// `None` for other kinds); and the fields the objects' schemas do not know.
pub struct Loaded {
    pub objects: Vec<Value>,
    /// Where each object was written (same order).
    pub sources: Vec<Source>,
    pub written: Vec<Option<Written>>,
    pub unknown_fields: UnknownFields,
}

/// Objects of every input, in input order.
pub fn load_objects(args: &[PathBuf], stdin: impl Read) -> Result<Loaded, LoadErrors> {
    let documents = load_documents(args, stdin)?;
    let mut loaded = Loaded {
        objects: Vec::new(),
        sources: Vec::new(),
        written: Vec::new(),
        unknown_fields: UnknownFields::default(),
    };
    for document in documents {
        loaded.unknown_fields.add_document(&document);
        let is_list = document.value.get("kind").and_then(Value::as_str) == Some("List");
        let (at, positions) = (document.at, document.positions);
        match document.value {
            // `kind: List` documents (what `kubectl get -o yaml` prints) contribute their items.
            Value::Object(mut map) if is_list => {
                if let Some(Value::Array(items)) = map.remove("items") {
                    let nodes = positions.child(Step::Key("items"));
                    for (index, item) in items.into_iter().enumerate() {
                        let node = nodes.and_then(|n| n.child(Step::Index(index)));
                        let item_at = at.item(index).at(node.and_then(|n| n.at));
                        loaded.push(item, item_at, node);
                    }
                }
            }
            value => loaded.push(value, at, Some(&positions)),
        }
    }
    Ok(loaded)
}

impl Loaded {
    fn push(&mut self, value: Value, at: Source, positions: Option<&Node>) {
        if !value.is_object() {
            return;
        }
        let is_policy = value.get("kind").and_then(Value::as_str) == Some("Policy");
        let written = is_policy
            .then(|| Written { at: at.clone(), positions: positions.cloned().unwrap_or_default() });
        self.objects.push(value);
        self.sources.push(at);
        self.written.push(written);
    }
}
