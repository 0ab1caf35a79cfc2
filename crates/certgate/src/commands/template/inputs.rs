//! Reads every `-f` input into plain objects (Lists flattened), with `check`'s reader: the
//! same files, directories, standard input, size bounds and error reporting.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::commands::check::LoadErrors;
use crate::commands::check::documents::{Syntax, parse};
use crate::commands::check::load::for_each_input;

/// Objects of every input, in input order.
pub fn load_objects(args: &[PathBuf], stdin: impl Read) -> Result<Vec<Value>, LoadErrors> {
    let mut objects = Vec::new();
    for_each_input(args, stdin, |name, text, errors| {
        let file: Arc<str> = Arc::from(name);
        match parse(&file, text, Syntax::for_name(name)) {
            Ok(documents) => {
                for document in documents {
                    flatten(document.value, &mut objects);
                }
            }
            Err(err) => errors.push(err),
        }
    })?;
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
