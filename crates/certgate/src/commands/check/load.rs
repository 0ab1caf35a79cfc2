//! Reads every `-f` input into [`Inputs`], collecting all input errors before giving up.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use super::classify::{Ignored, Item, classify};
use super::discover::{InputFile, expand};
use super::documents::{Syntax, parse};
use super::error::{LoadError, LoadErrors};
use super::inputs::Inputs;
use super::read::{read_file, read_stdin};

/// How messages name standard input.
pub const STDIN_NAME: &str = "<stdin>";

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

/// Reads every input of `args` (`-` is `stdin`, directories are searched) and hands each
/// one's name and text to `each`, which records its own problems in the error list. A file
/// that fails to read is recorded and the others are still read, so one run reports every
/// problem; any problem makes the whole call fail.
pub fn for_each_input(
    args: &[PathBuf],
    stdin: impl Read,
    mut each: impl FnMut(&str, &str, &mut Vec<LoadError>),
) -> Result<(), LoadErrors> {
    let files = expand(args).map_err(LoadErrors)?;
    let mut errors = Vec::new();
    let mut stdin = Some(stdin);
    for file in files {
        let (name, text) = match file {
            InputFile::Path(path) => {
                let name = path.display().to_string();
                let text = read_file(&path, &name);
                (name, text)
            }
            InputFile::Stdin => {
                // `expand` lets `-` through at most once.
                let text = match stdin.take() {
                    Some(reader) => read_stdin(reader, STDIN_NAME),
                    None => Err(LoadError::StdinTwice),
                };
                (STDIN_NAME.to_owned(), text)
            }
        };
        match text {
            Ok(text) => each(&name, &text, &mut errors),
            Err(err) => errors.push(err),
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(LoadErrors(errors)) }
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
