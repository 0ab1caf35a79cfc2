//! Parsing and executing templates.
//!
//! `parse` runs gotmpl's parser and adds Go's parse-time checks (`structure`, `names`), then
//! rewrites function calls into per-site aliases (`sites`) so that execution errors can be
//! reported with Go's position and command text (`command_text`), also for the builtins that
//! run under the budget (`builtins`), and starts every template and `range` body with a step
//! hook (`hooks`). `limits` and `crate::budget` bound every execution.

mod arg_messages;
mod builtin_errors;
mod builtins;
mod command_text;
mod error;
mod hooks;
mod limits;
mod messages;
mod names;
mod parse;
mod sites;
mod source;
mod structure;
mod tracking;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

pub use error::TemplateError;
pub use limits::Limits;

use crate::{FuncMap, Value};
use sites::{Placement, Site};

/// The delimiters were configured inconsistently.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineConfigError {
    #[error("the configurations StartDelim and StopDelim cannot be set independently")]
    OneDelimiter,
}

/// Parses templates with one configuration (delimiters, functions, bounds).
#[derive(Clone, Debug)]
pub struct Engine {
    name: String,
    delims: Option<(String, String)>,
    funcs: FuncMap,
    limits: Limits,
}

impl Engine {
    /// A template named `name` (Go's `template.New(name)`) with these functions.
    pub fn new(name: impl Into<String>, funcs: FuncMap) -> Self {
        Self { name: name.into(), delims: None, funcs, limits: Limits::default() }
    }

    /// Custom delimiters; both must be given or neither (Go's defaults `{{` and `}}`).
    pub fn delims(mut self, left: &str, right: &str) -> Result<Self, EngineConfigError> {
        match (left.is_empty(), right.is_empty()) {
            (true, true) => self.delims = None,
            (false, false) => self.delims = Some((left.to_owned(), right.to_owned())),
            _ => return Err(EngineConfigError::OneDelimiter),
        }
        Ok(self)
    }

    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    pub fn funcs(&self) -> &FuncMap {
        &self.funcs
    }

    /// Parses `source`. Cheap to execute many times afterwards.
    ///
    /// Fails as Go's `Parse` fails, including Go's parse-time checks gotmpl leaves out:
    /// undefined functions and variables, a missing `{{end}}`, a stray `{{end}}`/`{{else}}`.
    pub fn parse(&self, source: &str) -> Result<Parsed, TemplateError> {
        parse::parse(self, source)
    }

    fn delimiters(&self) -> (&str, &str) {
        match &self.delims {
            Some((left, right)) => (left, right),
            None => ("{{", "}}"),
        }
    }
}

/// A parsed template: parse once, execute for every cluster. `Send + Sync`.
#[derive(Clone)]
pub struct Parsed {
    name: String,
    template: Arc<gotmpl::Template>,
    sites: Arc<Vec<Site>>,
    limits: Limits,
}

impl std::fmt::Debug for Parsed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parsed").field("name", &self.name).finish_non_exhaustive()
    }
}

impl Parsed {
    /// The template's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Executes with `data` as dot.
    pub fn execute(&self, data: &Value) -> Result<String, TemplateError> {
        let mut out = limits::BoundedOutput::new(self.limits.max_output_bytes);
        let _budget = crate::budget::enter(&self.limits);
        let _fields = tracking::enter();
        // gotmpl already turns panics of functions into errors; this guards the rest.
        let result = catch_unwind(AssertUnwindSafe(|| {
            self.template.execute_template_fmt(&mut out, &self.name, data)
        }));
        match result {
            Ok(Ok(())) => Ok(out.text),
            Ok(Err(error)) => Err(self.error(error, out.exceeded)),
            Err(_) => Err(self.unplaced("the template engine failed unexpectedly".to_owned())),
        }
    }

    fn unplaced(&self, message: String) -> TemplateError {
        TemplateError::ExecUnplaced { name: self.name.clone(), message }
    }

    fn limit(&self, message: String) -> TemplateError {
        TemplateError::Limit { name: self.name.clone(), message }
    }

    /// gotmpl's error as Go would have reported it, placed when it came from a site.
    fn error(&self, error: gotmpl::TemplateError, output_exceeded: bool) -> TemplateError {
        use gotmpl::TemplateError as E;
        match error {
            E::Write if output_exceeded => {
                self.limit(limits::output_message(self.limits.max_output_bytes))
            }
            E::RangeIterLimit => {
                self.limit(limits::range_message(self.limits.max_range_iterations))
            }
            E::RecursionLimit => self.limit(limits::depth_message()),
            E::Exec(message) if sites::decode_limit(&message).is_some() => {
                self.limit(sites::decode_limit(&message).unwrap_or_default().to_owned())
            }
            E::Exec(message) => match sites::decode(&message) {
                Some(failure) => self
                    .placed(failure.site, failure.placement, failure.message)
                    .unwrap_or_else(|| self.unplaced(message)),
                None => self.field_failure(&message).unwrap_or_else(|| self.unplaced(message)),
            },
            E::FuncPanic { name, message } => {
                // Go's safeCall turns a panic into the call's error.
                let placed = sites::site_of_alias(&name).and_then(|site| {
                    let function = self.sites.get(site)?.function.clone();
                    self.placed(
                        site,
                        Placement::Command,
                        format!("error calling {function}: {message}"),
                    )
                });
                placed.unwrap_or_else(|| {
                    self.unplaced(format!("function {name} panicked: {message}"))
                })
            }
            E::ArgCount { name, expected, got } => {
                self.unplaced(format!("wrong number of args for {name}: want {expected} got {got}"))
            }
            E::UndefinedTemplate(template) => {
                self.unplaced(format!("template {template:?} not defined"))
            }
            other => self.unplaced(other.to_string()),
        }
    }

    /// A failed field chain, placed at the chain whose marker ran last.
    fn field_failure(&self, message: &str) -> Option<TemplateError> {
        let site = tracking::last_field()?;
        let message = tracking::field_message(
            message,
            &self.sites.get(site)?.identifier.text,
            tracking::last_receiver(),
        )?;
        self.placed(site, Placement::Identifier, message)
    }

    fn placed(&self, site: usize, placement: Placement, message: String) -> Option<TemplateError> {
        let site = self.sites.get(site)?;
        let mut message = message;
        let place = match placement {
            Placement::Command => &site.command,
            Placement::Identifier => &site.identifier,
            Placement::Argument(index) => match site.arguments.get(index) {
                Some(argument) => {
                    let constant = site.constants.get(index).copied();
                    let constant = constant.unwrap_or(arg_messages::Constant::No);
                    message = arg_messages::reword(constant, &argument.text, message);
                    argument
                }
                // A piped value has no node of its own; Go then points at the function.
                None => &site.identifier,
            },
        };
        Some(TemplateError::Exec {
            name: self.name.clone(),
            template: site.template.clone(),
            line: place.line,
            column: place.column,
            command: place.text.clone(),
            message,
        })
    }
}
