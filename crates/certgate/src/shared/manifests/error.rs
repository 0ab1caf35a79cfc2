//! Input errors of manifest loading (`check`, `crl check`, `template resolve`) and of `check`'s
//! object checks: each names the file (and line and column, or the document index where no
//! position is known), what was wrong and, where it helps,
//! what to do. Any of them makes the command exit with status 2.

use std::fmt;
use std::path::PathBuf;

use super::source::Source;

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot read standard input: {0}")]
    Stdin(#[source] std::io::Error),

    #[error("`-` (standard input) was given more than once; give it at most once")]
    StdinTwice,

    #[error(
        "cannot walk {}: symbolic link loop: {} points back to its ancestor {}",
        root.display(), path.display(), ancestor.display()
    )]
    SymlinkLoop { root: PathBuf, path: PathBuf, ancestor: PathBuf },

    #[error("no *.yaml, *.yml or *.json files found under {}", path.display())]
    EmptyDirectory { path: PathBuf },

    #[error("{file}: larger than the {limit} byte limit; split it into several files")]
    TooLarge { file: String, limit: u64 },

    #[error("{file}: not valid UTF-8 (at byte {offset}); manifests must be UTF-8 text")]
    NotUtf8 { file: String, offset: usize },

    /// `at` carries the line and column of the error where the parser gave one.
    #[error("{at}: invalid YAML: {message}")]
    Yaml { at: Source, message: String },

    #[error("{at}: invalid JSON: {message}")]
    Json { at: Source, message: String },

    #[error(
        "{at}: expected a Kubernetes object (a mapping with apiVersion and kind), found {found}"
    )]
    NotAnObject { at: Source, found: &'static str },

    #[error("{at}: the object has no {field}; every manifest needs apiVersion and kind")]
    MissingTypeMeta { at: Source, field: &'static str },

    #[error("{at}: a List inside a List is not supported; flatten the items")]
    NestedList { at: Source },

    #[error("{at}: `items` of a List must be a sequence of objects")]
    ListItems { at: Source },

    #[error(
        "{at}: {kind} must have apiVersion {expected}, found {}; convert the \
         manifest to {expected}",
        certgate_gofmt::quote(.found)
    )]
    WrongApiVersion { at: Source, kind: &'static str, expected: &'static str, found: String },

    #[error("{at}: {kind} has no metadata.name; every object needs a name")]
    MissingName { at: Source, kind: &'static str },

    #[error("{at}: {kind} {}: {problem}", certgate_gofmt::quote(.name))]
    Decode { at: Source, kind: &'static str, name: String, problem: Box<DecodeProblem> },

    #[error(
        "{second}: duplicate {kind} {} (first given at {first}); names are unique in a \
         cluster, so remove or rename one",
        certgate_gofmt::quote(.name)
    )]
    Duplicate { kind: &'static str, name: String, first: Box<Source>, second: Source },
}

/// Why an object of a kind `check` reads did not decode into its type.
#[derive(Debug)]
pub struct DecodeProblem {
    /// The JSON path of the offending field (`.` when the problem is at the top).
    pub path: String,
    pub message: String,
}

impl fmt::Display for DecodeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path == "." {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Every input error found (files are read to the end even after one fails, so one run shows
/// all problems).
#[derive(Debug)]
pub struct LoadErrors(pub Vec<LoadError>);

impl fmt::Display for LoadErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadErrors {}
