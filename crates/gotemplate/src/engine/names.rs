//! Go's parse-time name checks, which gotmpl leaves to execution: every function must be
//! defined (`function "x" not defined`) and every variable declared before use
//! (`undefined variable "$x"`), with Go's scoping (a declaration lasts until the `{{end}}`
//! of the enclosing `if`/`range`/`with`; each `define`/`block` body starts with only `$`).

use gotmpl::parse::{BranchNode, CommandNode, Expr, ListNode, Node, PipeNode};

use crate::FuncMap;

/// The functions gotmpl always provides (Go's builtins).
pub(crate) const BUILTINS: &[&str] = &[
    "and", "call", "eq", "ge", "gt", "html", "index", "js", "le", "len", "lt", "ne", "not", "or",
    "print", "printf", "println", "slice", "urlquery",
];

/// The first name error of one template body: byte offset and Go's message.
pub(crate) fn first_error(tree: &ListNode, funcs: &FuncMap) -> Option<(usize, String)> {
    let mut walk = Walk { funcs, vars: vec!["$".to_owned()], first: None };
    walk.list(tree);
    walk.first
}

struct Walk<'a> {
    funcs: &'a FuncMap,
    vars: Vec<String>,
    first: Option<(usize, String)>,
}

impl Walk<'_> {
    fn report(&mut self, offset: usize, message: String) {
        // Go stops at the first error in source order; keep the earliest.
        if self.first.as_ref().is_none_or(|(first, _)| offset < *first) {
            self.first = Some((offset, message));
        }
    }

    fn list(&mut self, list: &ListNode) {
        for node in &list.nodes {
            self.node(node);
        }
    }

    fn node(&mut self, node: &Node) {
        match node {
            Node::List(list) => self.list(list),
            Node::Action(action) => self.pipe(&action.pipe),
            Node::If(branch) | Node::Range(branch) | Node::With(branch) => self.branch(branch),
            Node::Template(call) => {
                if let Some(pipe) = &call.pipe {
                    self.pipe(pipe);
                }
            }
            // Defines are checked as their own trees, with their own scope.
            Node::Define(_) | Node::Text(_) | Node::Break(_) | Node::Continue(_) => {}
        }
    }

    fn branch(&mut self, branch: &BranchNode) {
        let mark = self.vars.len();
        self.pipe(&branch.pipe);
        self.list(&branch.body);
        if let Some(else_body) = &branch.else_body {
            self.list(else_body);
        }
        self.vars.truncate(mark);
    }

    fn pipe(&mut self, pipe: &PipeNode) {
        // Go declares the variables before parsing the commands, so `$x := $x` is accepted.
        self.vars.extend(pipe.decl.iter().map(|d| d.to_string()));
        for cmd in &pipe.commands {
            self.command(cmd);
        }
    }

    fn command(&mut self, cmd: &CommandNode) {
        for arg in &cmd.args {
            self.expr(arg);
        }
    }

    fn expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Identifier(pos, name) => {
                if !self.funcs.contains(name) && !BUILTINS.contains(&name.as_str()) {
                    self.report(pos.offset, format!("function {:?} not defined", name.as_str()));
                }
            }
            Expr::Variable(pos, name, _) => {
                if !self.vars.iter().any(|v| v == name.as_str()) {
                    self.report(pos.offset, format!("undefined variable {:?}", name.as_str()));
                }
            }
            Expr::Pipe(_, pipe) => {
                // A parenthesised pipeline cannot declare; scope is unchanged.
                let mark = self.vars.len();
                self.pipe(pipe);
                self.vars.truncate(mark);
            }
            Expr::Chain(_, inner, _) => self.expr(inner),
            Expr::Dot(_)
            | Expr::Field(..)
            | Expr::String(..)
            | Expr::Number(..)
            | Expr::Bool(..)
            | Expr::Nil(_) => {}
        }
    }
}
