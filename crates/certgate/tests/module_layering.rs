//! The binary crate's module layering: `cli` → `commands` → `shared`, and no command module
//! is a library for another (issue #17). Reads the sources under `src/commands/` and
//! `src/shared/` and fails on any path that climbs to another command module or to
//! `crate::cli` (`crate::commands::<other>`, `super::super::<other>`, `use` groups
//! included), so a new shortcut between commands shows up here instead of as an import cycle.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// (from, to): command modules that may use another one. None: the controllers, the live
/// review and the webhook's cluster side live in their runtime crates, and the registry of
/// controllers in `crate::controllers`.
const ALLOWED: &[(&str, &str)] = &[];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn command_modules_use_neither_each_other_nor_the_cli() {
    let commands = command_modules(&src().join("commands/mod.rs"));
    assert!(commands.contains("check") && commands.contains("dev"), "{commands:?}");
    let mut problems = Vec::new();
    for file in rust_files(&src().join("commands")) {
        let module = module_path(&file, &src());
        // `commands/mod.rs` itself declares the modules; every other file belongs to one.
        let Some(own) = module.get(2).cloned() else { continue };
        for (line, path) in references(&std::fs::read_to_string(&file).unwrap(), &module) {
            let at = format!("{}:{line}", file.strip_prefix(src()).unwrap().display());
            match path.get(..2).map(|p| p.join("::")).as_deref() {
                Some("crate::cli") => problems.push(format!("{at}: refers to crate::cli")),
                Some("crate::commands") => {
                    // `crate::commands` alone, `{self}` or `*` would reach every command.
                    let other = path.get(2).map_or("self", String::as_str);
                    let is_command = commands.contains(other) || matches!(other, "self" | "*");
                    let allowed = ALLOWED.contains(&(own.as_str(), other));
                    if is_command && other != own && !allowed {
                        problems.push(format!(
                            "{at}: command `{own}` refers to command `{other}` ({}); move what \
                             both need to crate::shared",
                            path.join("::")
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    problems.dedup();
    assert!(problems.is_empty(), "module layering broken:\n{}", problems.join("\n"));
}

#[test]
fn shared_pieces_sit_below_the_commands() {
    let mut problems = Vec::new();
    for file in rust_files(&src().join("shared")) {
        let module = module_path(&file, &src());
        for (line, path) in references(&std::fs::read_to_string(&file).unwrap(), &module) {
            if matches!(path.get(1).map(String::as_str), Some("cli" | "commands")) {
                let at = format!("{}:{line}", file.strip_prefix(src()).unwrap().display());
                problems.push(format!("{at}: shared code refers to {}", path.join("::")));
            }
        }
    }
    assert!(problems.is_empty(), "module layering broken:\n{}", problems.join("\n"));
}

#[test]
fn the_checker_sees_every_form_of_reference() {
    let module = |path: &[&str]| path.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let found = |text: &str, at: &[&str]| -> Vec<String> {
        references(text, &module(at)).into_iter().map(|(_, path)| path.join("::")).collect()
    };
    let text = "use crate::commands::check::load;\nuse super::super::webhook::X;\n\
                use crate::{cli::Cli, commands::{dev, crl::Y}};\nfn f() { super::check::run() }\n\
                mod tests { use super::super::crds; }\n\
                // crate::commands::explain in a comment\nconst S: &str = \"crate::cli\";\n\
                const C: char = '\"'; use self::inner::Z;";
    assert_eq!(
        found(text, &["crate", "commands", "template", "inputs"]),
        [
            "crate::commands::check::load",
            "crate::commands::webhook::X",
            "crate::cli::Cli",
            "crate::commands::dev",
            "crate::commands::crl::Y",
            "crate::commands::template::check::run",
            "crate::commands::template::crds",
            "crate::commands::template::inputs::inner::Z",
        ]
    );
    assert_eq!(found("use super::*;", &["crate", "commands", "crds"]), ["crate::commands::*"]);
}

/// The modules `commands/mod.rs` declares.
fn command_modules(mod_rs: &Path) -> BTreeSet<String> {
    let text = strip(&std::fs::read_to_string(mod_rs).unwrap());
    let tokens = tokens(&text);
    tokens.windows(3).filter(|w| w[0].1 == "mod" && w[2].1 == ";").map(|w| w[1].1.clone()).collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `src/commands/check/mod.rs` → `crate::commands::check`.
fn module_path(file: &Path, src: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut path = vec!["crate".to_owned()];
    path.extend(relative.iter().map(|c| c.to_string_lossy().into_owned()));
    if path.last().is_some_and(|last| last == "mod") {
        path.pop();
    }
    path
}

/// Every path starting with `crate`, `super` or `self`, resolved to an absolute path from
/// `crate`, with its line. `use` groups are expanded; inline `mod x { ... }` blocks count.
fn references(text: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let tokens = tokens(&strip(text));
    let mut found = Vec::new();
    // (inline module name, brace depth inside it)
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let (line, token) = (&tokens[i].0, tokens[i].1.as_str());
        match token {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t.1 == "{") => {
                inline.push((tokens[i + 1].1.clone(), depth + 1));
            }
            "crate" | "super" | "self"
                if tokens.get(i + 1).is_some_and(|t| t.1 == "::")
                    && (i == 0 || tokens[i - 1].1 != "::") =>
            {
                let mut here = module.to_vec();
                here.extend(inline.iter().map(|(name, _)| name.clone()));
                let mut leaves = Vec::new();
                i = use_tree(&tokens, i, Vec::new(), &mut leaves);
                for leaf in leaves {
                    found.push((*line, resolve(&here, &leaf)));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// Reads a path (or `use` tree) from `tokens[i]`, pushing every full path; returns the index
/// after it.
fn use_tree(
    tokens: &[(usize, String)],
    mut i: usize,
    mut prefix: Vec<String>,
    leaves: &mut Vec<Vec<String>>,
) -> usize {
    loop {
        match tokens.get(i).map(|t| t.1.as_str()) {
            Some("{") => {
                i += 1;
                loop {
                    match tokens.get(i).map(|t| t.1.as_str()) {
                        Some("}") => return i + 1,
                        Some(",") => i += 1,
                        Some(_) => i = use_tree(tokens, i, prefix.clone(), leaves),
                        None => return i,
                    }
                }
            }
            Some(token) if is_ident(token) || token == "*" => {
                prefix.push(token.to_owned());
                i += 1;
                if tokens.get(i).is_some_and(|t| t.1 == "::") {
                    i += 1;
                    continue;
                }
                leaves.push(prefix);
                return i;
            }
            _ => {
                if !prefix.is_empty() {
                    leaves.push(prefix);
                }
                return i;
            }
        }
    }
}

/// `super`/`self` relative to `here`; `crate` absolute.
fn resolve(here: &[String], path: &[String]) -> Vec<String> {
    let mut absolute = here.to_vec();
    let mut rest = path;
    if rest.first().is_some_and(|s| s == "crate") {
        absolute = vec!["crate".to_owned()];
        rest = &rest[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => {
                absolute.pop();
            }
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    absolute.extend(rest.iter().cloned());
    absolute
}

fn is_ident(token: &str) -> bool {
    token.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::` and single punctuation characters, each with its 1-based line.
fn tokens(text: &str) -> Vec<(usize, String)> {
    let mut tokens = Vec::new();
    let mut line = 1;
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let mut end = start + c.len_utf8();
            while let Some(&(i, next)) = chars.peek() {
                if !(next.is_alphanumeric() || next == '_') {
                    break;
                }
                end = i + next.len_utf8();
                chars.next();
            }
            tokens.push((line, text[start..end].to_owned()));
        } else if c == ':' && chars.peek().is_some_and(|&(_, n)| n == ':') {
            chars.next();
            tokens.push((line, "::".to_owned()));
        } else if !c.is_whitespace() {
            tokens.push((line, c.to_string()));
        }
    }
    tokens
}

/// The text with comments, string literals and char literals blanked (newlines kept, so line
/// numbers still match).
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut level = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    level += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    level -= 1;
                    out.push_str("  ");
                    i += 2;
                    if level == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !chars.get(i.wrapping_sub(1)).is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // Raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                match chars.get(j) {
                    None => break,
                    Some('"') if (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) => {
                        j += 1 + hashes;
                        break;
                    }
                    Some(_) => j += 1,
                }
            }
            out.extend(chars[i..j.min(chars.len())].iter().map(|&c| blank(c)));
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.extend(chars[i..end].iter().map(|&c| blank(c)));
            i = end;
        } else if c == '\'' && next == Some('\\') {
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            let end = (j + 1).min(chars.len());
            out.extend(chars[i..end].iter().map(|&c| blank(c)));
            i = end;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}
