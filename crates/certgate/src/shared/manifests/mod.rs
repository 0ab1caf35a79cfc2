//! Reading `-f` inputs (files, directories searched recursively, `-` for standard input) into
//! parsed YAML or JSON documents, with every input error collected so one run reports all of
//! them. `check`, `crl check` and `template resolve` read their manifests through here, so
//! the same arguments mean the same files everywhere.

pub mod discover;
pub mod documents;
pub mod error;
pub mod positions;
pub mod read;
pub mod source;

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use discover::{InputFile, expand};
use documents::{Document, Syntax, parse};
pub use error::{DecodeProblem, LoadError, LoadErrors};
use read::{read_file, read_stdin};
pub use source::Source;

/// How messages name standard input.
pub const STDIN_NAME: &str = "<stdin>";

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

/// Every document of every input, in input order, as plain JSON values (`List`s left
/// whole). For commands that read objects of their own kinds rather than `check`'s.
pub fn load_values(args: &[PathBuf], stdin: impl Read) -> Result<Vec<Value>, LoadErrors> {
    Ok(load_documents(args, stdin)?.into_iter().map(|d| d.value).collect())
}

/// Every document of every input, in input order, with where it (and each of its fields)
/// was written.
pub fn load_documents(args: &[PathBuf], stdin: impl Read) -> Result<Vec<Document>, LoadErrors> {
    let mut all = Vec::new();
    for_each_input(args, stdin, |name, text, errors| {
        let file: Arc<str> = Arc::from(name);
        match parse(&file, text, Syntax::for_name(name)) {
            Ok(documents) => all.extend(documents),
            Err(err) => errors.push(err),
        }
    })?;
    Ok(all)
}
