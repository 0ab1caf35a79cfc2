//! `docs/cel.md` lists every function certgate's CEL offers: a function added to the
//! library without documentation fails here.

use certgate_cel::check::full_library;

const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cel.md");

#[test]
fn the_reference_lists_every_declared_function() {
    let doc = std::fs::read_to_string(DOC).unwrap_or_else(|e| panic!("reading {DOC}: {e}"));
    let library = full_library().expect("library");
    let missing: Vec<&str> = library
        .functions()
        .map(|f| f.name.as_str())
        // Operators and internal helpers are documented as operators, not by name.
        .filter(|name| name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()))
        .filter(|name| !doc.contains(&format!("`{name}`")))
        .collect();
    assert!(missing.is_empty(), "functions missing from docs/cel.md: {missing:?}");
}
