//! libyaml as yaml.v3 v3.0.1 carries it (`readerc.go`, `scannerc.go`, `parserc.go`), ported
//! step for step, and the part of `decode.go` that builds a node tree from its events.
//!
//! Why a port and not a YAML crate: which texts yaml.v3 accepts, how far it reads before it
//! stops, and the wording and line of each refusal are libyaml's, including its quirks (tabs
//! after indicators, multi-line quoted scalars at any indentation, one line less for parser
//! errors, YAML 1.1 line breaks, a read-ahead of two tokens plus comments, reading in
//! 512-byte chunks). Templates depend on all of that (`docs/decisions/0010-libyaml-port.md`).
//!
//! The port keeps libyaml's structure (function names in comments where they help finding
//! the Go code) but not its error plumbing: a failing step returns `Err(Stop)`, and the
//! problem is recorded in [`Problem`], as libyaml records it in the parser struct — libyaml
//! also records problems it does not stop on (a reader error met while looking ahead for
//! comments), so the record is the source of truth, not the `Err`.

mod compose;
mod event;
mod parser;
mod reader;
mod scanner;
mod token;

pub(crate) use compose::{Kind, Node, compose};

/// A position: characters since the start, 0-based line and column (in characters).
/// Signed as in Go: libyaml computes marks one before the start and compares columns with
/// the indentation level -1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub index: isize,
    pub line: isize,
    pub column: isize,
}

/// Which stage recorded a problem (`yaml_error_type_t`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Stage {
    #[default]
    None,
    Reader,
    Scanner,
    Parser,
}

/// The error fields of `yaml_parser_t`. Setters overwrite only the fields libyaml's setters
/// write, so a later problem can keep an earlier context mark, as in Go.
#[derive(Clone, Debug, Default)]
pub(crate) struct Problem {
    pub stage: Stage,
    pub problem: String,
    pub problem_mark: Mark,
    pub context: &'static str,
    pub context_mark: Mark,
}

impl Problem {
    /// `parser.fail()` in decode.go: the line of the context mark, else of the problem mark
    /// (0-based for parser errors, 1-based for scanner errors: yaml.v3 adds one only for
    /// the scanner), and no line at all when it is 0.
    pub(crate) fn message(&self) -> String {
        let bump = isize::from(self.stage == Stage::Scanner);
        let line = if self.context_mark.line != 0 {
            self.context_mark.line + bump
        } else if self.problem_mark.line != 0 {
            self.problem_mark.line + bump
        } else {
            0
        };
        let problem = if self.problem.is_empty() {
            "unknown problem parsing YAML content"
        } else {
            &self.problem
        };
        if line == 0 { format!("yaml: {problem}") } else { format!("yaml: line {line}: {problem}") }
    }
}

/// A step failed; the reason is in the parser's [`Problem`].
#[derive(Debug)]
pub(crate) struct Stop;

pub(crate) type Step<T = ()> = Result<T, Stop>;
