//! Commands re-printed as Go's `CommandNode.String()` prints them, for the `at <...>` part
//! of execution errors: arguments separated by single spaces, literals as written,
//! parenthesised pipelines, `|` between commands.

use gotmpl::parse::{CommandNode, Expr, Number, PipeNode};

use super::source::literal_at;

/// Go's text of a command.
pub(crate) fn command(source: &str, cmd: &CommandNode) -> String {
    let mut out = String::new();
    write_command(source, cmd, &mut out);
    out
}

/// Go's text of one argument.
pub(crate) fn argument(source: &str, expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(source, expr, &mut out);
    out
}

fn write_command(source: &str, cmd: &CommandNode, out: &mut String) {
    for (i, arg) in cmd.args.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        write_expr(source, arg, out);
    }
}

fn write_pipe(source: &str, pipe: &PipeNode, out: &mut String) {
    if !pipe.decl.is_empty() {
        out.push_str(&pipe.decl.iter().map(|d| d.as_str()).collect::<Vec<_>>().join(", "));
        out.push_str(if pipe.is_assign { " = " } else { " := " });
    }
    for (i, cmd) in pipe.commands.iter().enumerate() {
        if i > 0 {
            out.push_str(" | ");
        }
        write_command(source, cmd, out);
    }
}

fn write_expr(source: &str, expr: &Expr, out: &mut String) {
    match expr {
        Expr::Dot(_) => out.push('.'),
        Expr::Field(_, fields) => write_fields(fields, out),
        Expr::Variable(_, name, fields) => {
            out.push_str(name);
            write_fields(fields, out);
        }
        Expr::Identifier(_, name) => out.push_str(super::sites::real_name(name)),
        Expr::String(pos, text) => match literal_at(source, pos.offset) {
            Some(written) => out.push_str(written),
            // Unreachable for parsed source; Go's quoting is the closest stand-in.
            None => out.push_str(&format!("{text:?}")),
        },
        Expr::Number(pos, number) => match literal_at(source, pos.offset) {
            Some(written) => out.push_str(written),
            None => out.push_str(&match number {
                Number::Int(i) => i.to_string(),
                Number::Uint(u) => u.to_string(),
                Number::Float(f) => f.to_string(),
            }),
        },
        Expr::Bool(_, b) => out.push_str(if *b { "true" } else { "false" }),
        Expr::Nil(_) => out.push_str("nil"),
        Expr::Pipe(_, pipe) => {
            out.push('(');
            write_pipe(source, pipe, out);
            out.push(')');
        }
        Expr::Chain(_, inner, fields) => {
            write_expr(source, inner, out);
            write_fields(fields, out);
        }
    }
}

fn write_fields(fields: &[gotmpl::parse::SmolStr], out: &mut String) {
    for field in fields {
        out.push('.');
        out.push_str(field);
    }
}
