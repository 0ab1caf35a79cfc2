//! Just enough of `fields.ParseSelector` to answer `RequiresExactMatch("metadata.name")`,
//! which kube-apiserver uses to authorize a list or watch of one object by name.

/// The value a selector requires `field` to equal, if it does. `Err` when Go's parser
/// rejects the selector (kube-apiserver then ignores it for authorization).
pub(crate) fn required_value(selector: &str, field: &str) -> Result<Option<String>, ()> {
    let mut terms = split_terms(selector);
    // Go sorts the terms before building the selector; the first matching term wins.
    terms.sort();
    let mut found = None;
    for term in terms.iter().filter(|term| !term.is_empty()) {
        let (lhs, op, rhs) = split_term(term).ok_or(())?;
        let value = unescape_value(rhs)?;
        if found.is_none() && op != "!=" && lhs == field {
            found = Some(value);
        }
    }
    Ok(found)
}

/// Splits on commas that are not escaped by a backslash, keeping the escapes.
fn split_terms(selector: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut current = String::new();
    let mut escaped = false;
    for c in selector.chars() {
        if escaped {
            current.push(c);
            escaped = false;
        } else if c == '\\' {
            current.push(c);
            escaped = true;
        } else if c == ',' {
            terms.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    terms.push(current);
    terms
}

/// The first `!=`, `==` or `=` (in that order of preference at each position).
fn split_term(term: &str) -> Option<(&str, &'static str, &str)> {
    for (i, _) in term.char_indices() {
        let rest = &term[i..];
        for op in ["!=", "==", "="] {
            if let Some(rhs) = rest.strip_prefix(op) {
                return Some((&term[..i], op, rhs));
            }
        }
    }
    None
}

/// `fields.UnescapeValue`: `\\`, `\,` and `\=` are the only escapes; a bare `,` or `=` is an
/// error.
fn unescape_value(value: &str) -> Result<String, ()> {
    let mut out = String::with_capacity(value.len());
    let mut escaped = false;
    for c in value.chars() {
        match (escaped, c) {
            (true, '\\' | ',' | '=') => {
                out.push(c);
                escaped = false;
            }
            (true, _) => return Err(()),
            (false, '\\') => escaped = true,
            (false, ',' | '=') => return Err(()),
            (false, _) => out.push(c),
        }
    }
    if escaped { Err(()) } else { Ok(out) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_match_on_name() {
        let name = |s: &str| required_value(s, "metadata.name");
        assert_eq!(name("metadata.name=a"), Ok(Some("a".into())));
        assert_eq!(name("metadata.name==a"), Ok(Some("a".into())));
        assert_eq!(name("metadata.name!=a"), Ok(None));
        assert_eq!(name("metadata.namespace=x,metadata.name=b"), Ok(Some("b".into())));
        assert_eq!(name("metadata.name=b,metadata.name=a"), Ok(Some("a".into())));
        assert_eq!(name("metadata.name=a\\,b"), Ok(Some("a,b".into())));
        assert_eq!(name(""), Ok(None));
        assert_eq!(name("metadata.name"), Err(()));
        assert_eq!(name("metadata.name=a=b"), Err(()));
        assert_eq!(name("metadata.name=a\\x"), Err(()));
        assert_eq!(name("metadata.name=a\\"), Err(()));
    }
}
