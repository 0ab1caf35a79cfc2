//! Parsing: gotmpl's parser, then the checks Go makes and gotmpl does not, then the
//! call-site rewrite that lets execution errors be placed (see `sites`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use gotmpl::parse::{ListNode, Parser};

use super::limits::source_message;
use super::{Engine, Parsed, TemplateError, hooks, messages, names, sites, structure};

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
        let (line, message) = messages::go_parse_error(&e);
        // gotmpl stops at some block-structure mistakes with its own words; Go reads the
        // source front to back, so a structural error no later than gotmpl's is Go's.
        match structure::check(source, left, right) {
            Err(s) if s.line <= line.max(1) => parse_error(s.line, s.message),
            _ => parse_error(line, message),
        }
    })?;

    let trees = trees(&checked, &engine.name, source, left, right);

    // Go stops at its first error in source order; gotmpl reported none, so take the
    // earliest of the structural and name errors.
    let structural = structure::check(source, left, right).err();
    let named = trees
        .iter()
        .filter_map(|(_, tree)| names::first_error(tree, &engine.funcs))
        .min_by_key(|(offset, _)| *offset);
    let first = match (structural, named) {
        (Some(s), Some((offset, _))) if s.offset <= offset => Some((s.line, s.message)),
        (_, Some((offset, message))) => Some((super::source::line_of(source, offset), message)),
        (Some(s), None) => Some((s.line, s.message)),
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
