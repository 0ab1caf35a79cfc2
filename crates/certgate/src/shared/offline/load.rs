//! Reads every `-f` input into [`Inputs`], collecting all input errors before giving up.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use super::classify::{Ignored, Item, classify};
use super::inputs::Inputs;
use crate::shared::manifests::documents::{Syntax, parse};
use crate::shared::manifests::{LoadError, LoadErrors, for_each_input};

/// The inputs, plus the objects skipped because `check` does not read their kind.
#[derive(Debug, Default)]
pub struct Loaded {
    pub inputs: Inputs,
    pub ignored: Vec<Ignored>,
}

/// Loads the files and directories in `args` (`-` is `stdin`). A file that fails to read or
/// parse is skipped after recording its error and the others are still read, so one run
/// reports every problem.
pub fn load(args: &[PathBuf], stdin: impl Read) -> Result<Loaded, LoadErrors> {
    let mut loaded = Loaded { inputs: Inputs::default(), ignored: Vec::new() };
    for_each_input(args, stdin, |name, text, errors| load_text(name, text, &mut loaded, errors))?;
    Ok(loaded)
}

/// Adds the objects of one input's text (YAML or JSON documents) to `loaded`.
pub fn load_text(name: &str, text: &str, loaded: &mut Loaded, errors: &mut Vec<LoadError>) {
    let file: Arc<str> = Arc::from(name);
    let documents = match parse(&file, text, Syntax::for_name(name)) {
        Ok(documents) => documents,
        Err(err) => return errors.push(err),
    };
    // Items are added document by document, so errors come out in file order.
    for document in documents {
        let mut items = Vec::new();
        if let Err(err) = classify(document.at, document.value, &mut items) {
            errors.push(err);
        }
        for item in items {
            match item {
                Item::Object(at, object) => {
                    if let Err(err) = loaded.inputs.add(at, object) {
                        errors.push(err);
                    }
                }
                Item::Ignored(ignored) => loaded.ignored.push(ignored),
            }
        }
    }
}
