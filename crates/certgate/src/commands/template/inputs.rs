//! Reads every `-f` input into plain objects (Lists flattened), with the shared manifest
//! loader: the same files, directories, standard input, size bounds and error reporting as
//! `check`.

use std::io::Read;
use std::path::PathBuf;

use serde_json::Value;

use crate::shared::manifests::{LoadErrors, load_values};

/// Objects of every input, in input order.
pub fn load_objects(args: &[PathBuf], stdin: impl Read) -> Result<Vec<Value>, LoadErrors> {
    let mut objects = Vec::new();
    for value in load_values(args, stdin)? {
        flatten(value, &mut objects);
    }
    Ok(objects)
}

/// `kind: List` documents (what `kubectl get -o yaml` prints) contribute their items.
fn flatten(value: Value, objects: &mut Vec<Value>) {
    let is_list = value.get("kind").and_then(Value::as_str) == Some("List");
    match value {
        Value::Object(mut map) if is_list => {
            if let Some(Value::Array(items)) = map.remove("items") {
                objects.extend(items.into_iter().filter(Value::is_object));
            }
        }
        Value::Object(_) => objects.push(value),
        _ => {}
    }
}
