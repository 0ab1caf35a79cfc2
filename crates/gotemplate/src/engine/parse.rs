//! Parsing: gotmpl's parser, then the checks Go makes and gotmpl does not, then the
//! call-site rewrite that lets execution errors be placed (see `sites`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use gotmpl::parse::{ListNode, Parser};

use super::limits::source_message;
use super::{Engine, Parsed, TemplateError, hooks, messages, names, sites, structure};

#[path = "parse_lex/mod.rs"]
mod parse_lex;

use parse_lex::Prefix;

pub(crate) fn parse(engine: &Engine, source: &str) -> Result<Parsed, TemplateError> {
    let parse_error = |line: usize, message: String| TemplateError::Parse {
        name: engine.name.clone(),
        line: line.max(1),
        message,
    };
    let limit = engine.limits.max_source_bytes;
    if source.len() > limit {
        return Err(parse_error(1, source_message(source.len(), limit)));
    }
    let (left, right) = engine.delimiters();

    // gotmpl's parser is not expected to panic; if it does on some input, that input is
    // refused like any other malformed template instead of taking the caller down.
    let checked = catch_unwind(AssertUnwindSafe(|| {
        gotmpl::Template::new(&engine.name).delims(left, right).parse(source)
    }))
    .map_err(|_| parse_error(1, "the template could not be parsed".to_owned()))?
    .map_err(|e| {
        let (mut line, mut message) = messages::go_parse_error(&e);
        if message.starts_with("template: multiple definition of template ") {
            // gotmpl names another clash than Go's first (in Go's order of adding).
            if let Some((at, name)) =
                parse_lex::first_redefinition(source, &engine.name, left, right)
            {
                line = at;
                message = format!("template: multiple definition of template {name:?}");
            }
        }
        // gotmpl lexes differently from Go (it has no token for a stray character and
        // refuses other inputs in its own words), so Go's first lexical error is found by
        // Go's token rules. gotmpl lexes the whole source before parsing: its lexer error
        // says nothing about where Go stops, its parser error does.
        let lexical = lexical_error(engine, source)
            .filter(|l| matches!(e, gotmpl::TemplateError::Lex { .. }) || l.line <= line.max(1));
        // gotmpl stops at some block-structure mistakes with its own words; Go reads the
        // source front to back, so a structural error no later than gotmpl's is Go's.
        match (structure::check(source, left, right), lexical) {
            (Err(s), Some(l)) if s.offset < l.action => parse_error(s.line, s.message),
            (_, Some(l)) => parse_error(l.line, l.message),
            (Err(s), None) if s.line <= line.max(1) => parse_error(s.line, s.message),
            _ => parse_error(line, message),
        }
    })?;

    let trees = trees(&checked, &engine.name, source, left, right);

    // Go stops at its first error in source order; gotmpl reported none, so take the
    // earliest of the structural and name errors.
    let structural = structure::check(source, left, right)
        .err()
        .map(|s| (s.offset, s.line, s.message))
        .into_iter()
        .chain(lexical_error(engine, source).map(|l| (l.offset, l.line, l.message)))
        .min_by_key(|(offset, _, _)| *offset);
    let named = trees
        .iter()
        .filter_map(|(_, tree)| names::first_error(tree, &engine.funcs))
        .min_by_key(|(offset, _)| *offset);
    let first = match (structural, named) {
        (Some((s, line, message)), Some((offset, _))) if s <= offset => Some((line, message)),
        (_, Some((offset, message))) => Some((super::source::line_of(source, offset), message)),
        (Some((_, line, message)), None) => Some((line, message)),
        (None, None) => None,
    };
    if let Some((line, message)) = first {
        return Err(parse_error(line, message));
    }

    let mut site_table = Vec::new();
    let mut template = gotmpl::Template::new(&engine.name)
        .delims(left, right)
        .max_range_iters(engine.limits.max_range_iterations);
    let mut rewritten = Vec::with_capacity(trees.len());
    // One index for every tree: a template of many `define`s must not rescan the source.
    let lines = super::source::LineIndex::new(source);
    for (name, mut tree) in trees {
        sites::rewrite(source, &lines, &name, &mut tree, &engine.funcs, &mut site_table);
        hooks::insert(&mut tree);
        rewritten.push((name, tree));
    }
    template = template.funcs(sites::wrappers(&site_table, &engine.funcs));
    for (name, tree) in rewritten {
        template = template.add_parse_tree(&name, tree);
    }
    Ok(Parsed {
        name: engine.name.clone(),
        template: Arc::new(template),
        sites: Arc::new(site_table),
        limits: engine.limits,
    })
}

/// Go's first lexical error (or stray character), when Go's parser is known to reach it.
fn lexical_error(engine: &Engine, source: &str) -> Option<parse_lex::LexError> {
    let (left, right) = engine.delimiters();
    let is_function = |name: &str| engine.funcs.contains(name) || names::BUILTINS.contains(&name);
    // Go parses front to back: the source before the failing action must hold no error
    // Go reports (gotmpl's, or a name check's). An unclosed block there is no error yet.
    let clean_before = |offset: usize| {
        let Some(prefix) = source.get(..offset) else { return Prefix::Unknown };
        match structure::check(prefix, left, right) {
            Ok(()) => {}
            Err(s) if s.message == "unexpected EOF" => {}
            Err(_) => return Prefix::Unknown,
        }
        names_before(engine, prefix)
    };
    // The same with the failing action cut at `offset` and closed there: Go has read and
    // checked its tokens (variables included) before it reaches the one at `offset`.
    let clean_through = |action: usize, offset: usize| match clean_before(action) {
        Prefix::Clean => {
            let Some(cut) = source.get(..offset) else { return Prefix::Unknown };
            names_before(engine, &format!("{cut}{right}"))
        }
        other => other,
    };
    let context = parse_lex::Context {
        name: &engine.name,
        left,
        right,
        is_function: &is_function,
        clean_before: &clean_before,
        clean_through: &clean_through,
    };
    parse_lex::first_error(source, &context)
}

/// The first name error Go reports in a prefix gotmpl parses (which is then Go's first
/// error there); `Unknown` when gotmpl refuses the prefix.
fn names_before(engine: &Engine, prefix: &str) -> Prefix {
    let (left, right) = engine.delimiters();
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        gotmpl::Template::new(&engine.name).delims(left, right).parse(prefix)
    }));
    let Ok(Ok(checked)) = parsed else { return Prefix::Unknown };
    let first = trees(&checked, &engine.name, prefix, left, right)
        .iter()
        .filter_map(|(_, tree)| names::first_error(tree, &engine.funcs))
        .min_by_key(|(offset, _)| *offset);
    match first {
        Some((offset, message)) => Prefix::Error(offset, message),
        None => Prefix::Clean,
    }
}

/// Every template body by name: the definitions gotmpl kept (with Go's rules for
/// redefinition) and the top-level body under the template's own name.
fn trees(
    checked: &gotmpl::Template,
    name: &str,
    source: &str,
    left: &str,
    right: &str,
) -> Vec<(String, ListNode)> {
    let mut trees: Vec<(String, ListNode)> = checked
        .templates()
        .into_iter()
        .filter_map(|n| checked.lookup(n).map(|tree| (n.to_owned(), tree.clone())))
        .collect();
    if !trees.iter().any(|(n, _)| n == name) {
        // gotmpl files an empty (or unnamed) top-level body nowhere we can read it back;
        // parse the top level on its own (this source parsed already, so this succeeds).
        let top = Parser::new(source, left, right)
            .and_then(Parser::parse)
            .map(|(tree, _)| tree)
            .unwrap_or_else(|_| ListNode { pos: gotmpl::parse::Pos::new(0, 1), nodes: Vec::new() });
        trees.push((name.to_owned(), top));
    }
    trees
}
