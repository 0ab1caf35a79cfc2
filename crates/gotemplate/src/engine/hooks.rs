//! Step hooks: a call to the budget at the start of every template body and `range` body.
//!
//! gotmpl offers no callback when a `{{template}}` call starts or a `range` iteration
//! begins, and both can repeat without calling any function or writing any output (a
//! template calling another twice per level, forty levels deep, runs for hours). After
//! parsing, an action calling [`STEP`] is put first in every template body and every
//! `range` body; it prints the empty string, so output is unchanged, and counts the step and
//! checks the deadline (`budget::step`). Between two hooks an execution walks each node of
//! one body at most once, so the work between checks is bounded by the template's size.
//!
//! gotmpl prints an action's value with Rust's formatting; every printing action
//! (`{{.f}}`, not `{{$x := .f}}`) therefore ends with a call to [`SHOW`], which hands gotmpl
//! Go's `fmt.Sprint` text instead ([`show`]).

use std::sync::{Arc, LazyLock};

use gotmpl::parse::{ActionNode, CommandNode, Expr, ListNode, Node, PipeNode, Pos, SmolStr};

use crate::Value;

/// The hook's function name; `#` cannot appear in an identifier of template source, so no
/// template can name (or shadow) it.
pub(crate) const STEP: &str = "certgate#step";
/// The printing hook's function name (unnameable in templates, like [`STEP`]).
pub(crate) const SHOW: &str = "certgate#show";

/// Starts `body` (a template's body) and every `range` body within it with a hook.
pub(crate) fn insert(body: &mut ListNode) {
    insert_nested(body);
    body.nodes.insert(0, hook(body.pos));
}

fn insert_nested(list: &mut ListNode) {
    for node in &mut list.nodes {
        match node {
            Node::List(inner) => insert_nested(inner),
            Node::Range(branch) => {
                insert_nested(&mut branch.body);
                branch.body.nodes.insert(0, hook(branch.pos));
                if let Some(else_body) = &mut branch.else_body {
                    insert_nested(else_body);
                }
            }
            Node::If(branch) | Node::With(branch) => {
                insert_nested(&mut branch.body);
                if let Some(else_body) = &mut branch.else_body {
                    insert_nested(else_body);
                }
            }
            Node::Define(define) => insert(&mut define.body),
            Node::Action(action) if action.pipe.decl.is_empty() => {
                let pos = action.pos;
                let show = Expr::Identifier(pos, SmolStr::new_static(SHOW));
                action.pipe.commands.push(CommandNode { pos, args: vec![show] });
            }
            Node::Text(_)
            | Node::Action(_)
            | Node::Template(_)
            | Node::Break(_)
            | Node::Continue(_) => {}
        }
    }
}

fn hook(pos: Pos) -> Node {
    Node::Action(ActionNode {
        pos,
        pipe: PipeNode {
            pos,
            decl: Vec::new(),
            commands: vec![CommandNode {
                pos,
                args: vec![Expr::Identifier(pos, SmolStr::new_static(STEP))],
            }],
            is_assign: false,
        },
    })
}

/// The printing hook: Go's `%v` text of the piped value (the last argument); nil stays nil,
/// which gotmpl prints as Go's `<no value>`.
pub(crate) fn show(args: &[Value]) -> Value {
    match args.last() {
        None | Some(Value::Nil) => Value::Nil,
        Some(Value::String(s)) => Value::String(s.clone()),
        Some(other) => Value::String(Arc::from(crate::print::sprint(std::slice::from_ref(other)))),
    }
}

/// The hook's result: printed as nothing.
pub(crate) fn empty() -> Value {
    static EMPTY: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from(""));
    Value::String(EMPTY.clone())
}
