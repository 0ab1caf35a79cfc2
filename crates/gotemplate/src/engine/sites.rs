//! Call sites: how execution errors of certgate's functions get Go's position and command.
//!
//! gotmpl's runtime errors carry no position. After parsing, every identifier that names a
//! function of the [`FuncMap`] is renamed to a per-site alias (`name#<site>`), and one
//! wrapper per site is registered under that alias. A failing wrapper returns an error whose
//! text starts with a marker naming the site; [`decode`] recovers the site, whose position
//! and command text were recorded at parse time. Executions never re-parse: the rewritten
//! trees and the site table are built once.

use std::sync::Arc;

use gotmpl::parse::{CommandNode, Expr, ListNode, Node, PipeNode, Pos, SmolStr};

use super::arg_messages::Constant;
use super::source::LineIndex;
use super::{arg_messages, builtin_errors, builtins, command_text, hooks, tracking};
use crate::budget::{self, Exceeded};
use crate::{FuncError, FuncMap, Value};

/// Separates a function's real name from its site number in an alias.
const ALIAS_SEPARATOR: char = '#';
/// Starts the text of an error returned by a site wrapper; cannot occur in user text
/// that reaches gotmpl otherwise, since functions' messages are carried after it.
const MARKER: &str = "\u{0}certgate-site:";
/// Starts the text of an execution bound reached outside any call site (a step hook).
const LIMIT_MARKER: &str = "\u{0}certgate-limit:";

/// Where Go would point for one placement: line, column and node text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub line: usize,
    pub column: usize,
    pub text: String,
}

/// One call site of a FuncMap function.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    /// The name the function is registered under.
    pub function: String,
    /// The template executing at this site (the `define` name inside a definition).
    pub template: String,
    /// The function's identifier (Go reports argument-count errors here).
    pub identifier: Place,
    /// The whole command (Go reports the function's own errors here). For a function used
    /// as an argument (`f (g)`, `f g`), Go's command is the identifier itself.
    pub command: Place,
    /// The explicit arguments (Go reports type errors at the argument).
    pub arguments: Vec<Place>,
    /// Which explicit arguments are literals (Go words their type errors differently).
    pub constants: Vec<Constant>,
}

/// The real name of a (possibly aliased) identifier.
pub(crate) fn real_name(name: &str) -> &str {
    name.rsplit_once(ALIAS_SEPARATOR).map_or(name, |(real, _)| real)
}

/// Rewrites `tree` in place (executing as `template`), appending its sites to `sites`.
pub(crate) fn rewrite(
    source: &str,
    lines: &LineIndex,
    template: &str,
    tree: &mut ListNode,
    funcs: &FuncMap,
    sites: &mut Vec<Site>,
) {
    let mut rewriter = Rewriter { source, lines, template, funcs, sites };
    rewriter.list(tree);
}

struct Rewriter<'a> {
    source: &'a str,
    lines: &'a LineIndex,
    template: &'a str,
    funcs: &'a FuncMap,
    sites: &'a mut Vec<Site>,
}

impl Rewriter<'_> {
    /// A FuncMap function, or a builtin run under the budget (a FuncMap function of the same
    /// name replaces the builtin, as in Go).
    fn is_function(&self, name: &str) -> bool {
        self.funcs.contains(name) || builtins::is_guarded(name)
    }

    fn place(&self, pos: Pos, text: String) -> Place {
        let (line, column) = self.lines.line_column(pos.offset);
        Place { line, column, text }
    }

    fn list(&mut self, list: &mut ListNode) {
        for node in &mut list.nodes {
            self.node(node);
        }
    }

    fn node(&mut self, node: &mut Node) {
        match node {
            Node::List(list) => self.list(list),
            Node::Action(action) => self.pipe(&mut action.pipe),
            Node::Range(branch) => {
                // Go refuses the range value at the node its pipeline evaluated last; that
                // place is taken before the pipeline is rewritten.
                let last = tracking::last_node(&branch.pipe).map(|node| {
                    self.place(node_pos(node), command_text::argument(self.source, node))
                });
                self.pipe(&mut branch.pipe);
                if let Some(place) = last {
                    let check = if branch.pipe.decl.len() > 1 {
                        tracking::RANGE_PAIR
                    } else {
                        tracking::RANGE
                    };
                    let alias = self.add_site(check, place.clone(), place, Vec::new(), Vec::new());
                    branch.pipe.commands.push(tracking::range_command(branch.pipe.pos, alias));
                }
                self.list(&mut branch.body);
                if let Some(else_body) = &mut branch.else_body {
                    self.list(else_body);
                }
            }
            Node::If(branch) | Node::With(branch) => {
                self.pipe(&mut branch.pipe);
                self.list(&mut branch.body);
                if let Some(else_body) = &mut branch.else_body {
                    self.list(else_body);
                }
            }
            Node::Template(call) => {
                if let Some(pipe) = &mut call.pipe {
                    self.pipe(pipe);
                }
            }
            Node::Define(define) => self.list(&mut define.body),
            Node::Text(_) | Node::Break(_) | Node::Continue(_) => {}
        }
    }

    fn pipe(&mut self, pipe: &mut PipeNode) {
        for (i, cmd) in pipe.commands.iter_mut().enumerate() {
            self.command(cmd, i == 0);
        }
    }

    /// `first`: the pipeline's first command (later ones receive a piped value).
    fn command(&mut self, cmd: &mut CommandNode, first: bool) {
        // The command's text is taken before any of its parts are renamed (nested sites
        // print real names anyway, but the order keeps this independent of that).
        let is_call =
            matches!(cmd.args.first(), Some(Expr::Identifier(_, name)) if self.is_function(name));
        if is_call {
            let command = self.place(cmd.pos, command_text::command(self.source, cmd));
            let arguments = cmd
                .args
                .iter()
                .skip(1)
                .map(|arg| {
                    // Go converts a pipeline's value at the node it evaluated last.
                    let node = tracking::last_of(arg).unwrap_or(arg);
                    self.place(node_pos(node), command_text::argument(self.source, node))
                })
                .collect();
            let constants = cmd.args.iter().skip(1).map(constant).collect();
            if let Some(Expr::Identifier(pos, name)) = cmd.args.first_mut() {
                let identifier = self.place(*pos, name.to_string());
                *name = self.add_site(name, identifier, command, arguments, constants);
            }
            for arg in cmd.args.iter_mut().skip(1) {
                self.expr(arg);
            }
        } else {
            // A field given arguments or a piped value is an error in its own words, which
            // stays gotmpl's; only a field standing alone as a command is marked.
            let alone = first && cmd.args.len() == 1;
            for (i, arg) in cmd.args.iter_mut().enumerate() {
                if i == 0 && !alone {
                    self.expr_unmarked(arg);
                } else {
                    self.expr(arg);
                }
            }
        }
    }

    fn expr(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Identifier(pos, name) if self.is_function(name) => {
                // Go evaluates a function used as an operand as its own command.
                let place = self.place(*pos, name.to_string());
                *name = self.add_site(name, place.clone(), place, Vec::new(), Vec::new());
            }
            Expr::Field(..) | Expr::Variable(..) => {
                let place = self.place(node_pos(expr), command_text::argument(self.source, expr));
                if tracking::mark_fields(expr, SmolStr::default()).is_some() {
                    let alias = self.add_site(
                        tracking::FIELD,
                        place.clone(),
                        place,
                        Vec::new(),
                        Vec::new(),
                    );
                    if let Some(marked) = tracking::mark_fields(expr, alias) {
                        *expr = marked;
                    }
                }
            }
            _ => self.expr_unmarked(expr),
        }
    }

    /// `expr` rewritten without marking a field chain at its top.
    fn expr_unmarked(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Identifier(_, name) if self.is_function(name) => self.expr(expr),
            Expr::Pipe(_, pipe) => self.pipe(pipe),
            Expr::Chain(_, inner, _) => self.expr(inner),
            _ => {}
        }
    }

    fn add_site(
        &mut self,
        function: &str,
        identifier: Place,
        command: Place,
        arguments: Vec<Place>,
        constants: Vec<Constant>,
    ) -> SmolStr {
        let id = self.sites.len();
        self.sites.push(Site {
            function: function.to_owned(),
            template: self.template.to_owned(),
            identifier,
            command,
            arguments,
            constants,
        });
        SmolStr::from(format!("{function}{ALIAS_SEPARATOR}{id}"))
    }
}

/// Where Go's parser puts a node: a field or variable followed by fields (`.d.x`, `$.n`) is
/// a chain folded into one node, positioned at its second part (`.x`, `.n`).
pub(crate) fn node_pos(expr: &Expr) -> Pos {
    let mut pos = expr.pos();
    match expr {
        Expr::Field(_, fields) if fields.len() > 1 => {
            let first = fields.first().map_or(0, |f| f.len());
            pos.offset = pos.offset.saturating_add(1 + first);
        }
        Expr::Variable(_, name, fields) if !fields.is_empty() => {
            pos.offset = pos.offset.saturating_add(name.len());
        }
        _ => {}
    }
    pos
}

fn constant(arg: &Expr) -> Constant {
    match arg {
        Expr::Nil(_) => Constant::Nil,
        Expr::String(..) | Expr::Number(..) | Expr::Bool(..) => Constant::Literal,
        Expr::Field(_, fields) | Expr::Variable(_, _, fields) if !fields.is_empty() => {
            Constant::Field
        }
        _ => Constant::No,
    }
}

/// The gotmpl functions to register: one wrapper per site, under its alias, and the step
/// hook. Every wrapper counts a step, runs the function and charges its result to the
/// execution's budget (`budget`).
pub(crate) fn wrappers(sites: &[Site], funcs: &FuncMap) -> gotmpl::FuncMap {
    let mut out = gotmpl::FuncMap::new();
    for (id, site) in sites.iter().enumerate() {
        let alias = format!("{}{ALIAS_SEPARATOR}{id}", site.function);
        if let Some(func) = funcs.get(&site.function).cloned() {
            let function = site.function.clone();
            let constants = site.constants.clone();
            let wrapper: gotmpl::ValueFunc = Arc::new(move |args: &[Value]| {
                let fail =
                    |error: FuncError| gotmpl::TemplateError::Exec(encode(id, &function, &error));
                budget::step().map_err(|e| fail(exceeded(&e)))?;
                let mut result = func(args);
                // Each retry makes one more literal an integer: at most one per argument.
                let mut converted: Option<Vec<Value>> = None;
                for _ in 0..args.len() {
                    let Err(error) = &result else { break };
                    let now = converted.as_deref().unwrap_or(args);
                    let Some(next) = arg_messages::untyped_integer(error, now, &constants) else {
                        break;
                    };
                    result = func(&next);
                    converted = Some(next);
                }
                let result = result.map_err(fail)?;
                charge(&result, args).map_err(|e| fail(exceeded(&e)))?;
                Ok(result)
            });
            out.insert(alias, wrapper);
        } else if site.function == tracking::FIELD {
            let marker = tracking::field_marker(id, &site.identifier.text, move |e| {
                encode(id, tracking::FIELD, e)
            });
            out.insert(alias, marker);
        } else if site.function == tracking::RANGE || site.function == tracking::RANGE_PAIR {
            let pair = site.function == tracking::RANGE_PAIR;
            out.insert(alias, tracking::range_check(pair, move |e| encode(id, "range", e)));
        } else if let Some(name) = builtins::GUARDED.iter().copied().find(|b| *b == site.function) {
            out.insert(alias, builtin_wrapper(id, name, site.constants.clone()));
        }
    }
    let hook: gotmpl::ValueFunc = Arc::new(|_: &[Value]| {
        budget::step()
            .map(|()| hooks::empty())
            .map_err(|e| gotmpl::TemplateError::Exec(format!("{LIMIT_MARKER}{e}")))
    });
    out.insert(hooks::STEP.to_owned(), hook);
    let show: gotmpl::ValueFunc = Arc::new(|args: &[Value]| Ok(hooks::show(args)));
    out.insert(hooks::SHOW.to_owned(), show);
    out
}

/// A builtin's wrapper: Go's failures of the builtin (`builtin_errors`) and the budget's are
/// placed at the call like a function's; gotmpl's remaining errors stay unplaced.
fn builtin_wrapper(id: usize, name: &'static str, kinds: Vec<Constant>) -> gotmpl::ValueFunc {
    Arc::new(move |args: &[Value]| {
        let fail = |error: FuncError| gotmpl::TemplateError::Exec(encode(id, name, &error));
        budget::step().map_err(|e| fail(exceeded(&e)))?;
        builtins::precheck(name, args).map_err(fail)?;
        // Go's own failure of the builtin, placed at the call with Go's words.
        if let Some(message) = builtin_errors::check(name, args, &kinds) {
            return Err(fail(FuncError::call(message)));
        }
        let result = builtins::run(name, args)?;
        if builtins::produces_data(name) {
            charge(&result, args).map_err(|e| fail(exceeded(&e)))?;
        }
        Ok(result)
    })
}

fn exceeded(error: &Exceeded) -> FuncError {
    FuncError::call(error.to_string())
}

/// Charges a function's result, unless it is one of the arguments handed back (`default`,
/// `coalesce`, ...), which produces nothing new.
fn charge(result: &Value, args: &[Value]) -> Result<(), Exceeded> {
    let shared = args.iter().any(|arg| match (result, arg) {
        (Value::String(a), Value::String(b)) => Arc::ptr_eq(a, b),
        (Value::List(a), Value::List(b)) => Arc::ptr_eq(a, b),
        (Value::Map(a), Value::Map(b)) => Arc::ptr_eq(a, b),
        _ => false,
    });
    if shared {
        return Ok(());
    }
    budget::charge(result)
}

/// The message of an execution bound reached by a step hook.
pub(crate) fn decode_limit(text: &str) -> Option<&str> {
    text.strip_prefix(LIMIT_MARKER)
}

/// How a site's failure is to be placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement {
    /// At the command (the function's own error).
    Command,
    /// At the identifier (argument count).
    Identifier,
    /// At an argument, when it is one of the explicit ones.
    Argument(usize),
}

fn encode(id: usize, function: &str, error: &FuncError) -> String {
    let placement = if error.is_call_error() {
        "c".to_owned()
    } else if error.is_arg_count() {
        "i".to_owned()
    } else {
        error.argument().map_or_else(|| "i".to_owned(), |index| format!("a{index}"))
    };
    format!("{MARKER}{id}:{placement}:{}", error.render(function))
}

/// A failure of a site wrapper: the site, how to place it and Go's message.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Failure {
    pub site: usize,
    pub placement: Placement,
    pub message: String,
}

/// Recovers a site wrapper's failure from gotmpl's error text.
pub(crate) fn decode(text: &str) -> Option<Failure> {
    let rest = text.strip_prefix(MARKER)?;
    let (site, rest) = rest.split_once(':')?;
    let (placement, message) = rest.split_once(':')?;
    let placement = match placement {
        "c" => Placement::Command,
        "i" => Placement::Identifier,
        other => Placement::Argument(other.strip_prefix('a')?.parse().ok()?),
    };
    Some(Failure { site: site.parse().ok()?, placement, message: message.to_owned() })
}

/// The site of an alias (for panics, which gotmpl reports with the registered name).
pub(crate) fn site_of_alias(alias: &str) -> Option<usize> {
    alias.rsplit_once(ALIAS_SEPARATOR)?.1.parse().ok()
}
