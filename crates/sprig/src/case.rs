//! Case conversions (`snakecase`, `kebabcase`, `camelcase`) following huandu/xstrings 1.5.

/// Connector characters that separate words in the input.
fn is_connector(c: char) -> bool {
    c == '-' || c == '_' || c.is_whitespace()
}

/// `ToPascalCase`: connectors are dropped and the letter after them upper-cased; a run of
/// upper-case letters at the start is lower-cased after its first letter. Leading connectors
/// and the connector in a doubled run are kept, as xstrings does.
pub fn to_pascal(st: &str) -> String {
    let mut out = String::with_capacity(st.len());
    let mut chars = st.chars().peekable();
    // Leading connectors stay.
    while let Some(&c) = chars.peek() {
        if !is_connector(c) {
            break;
        }
        out.push(c);
        chars.next();
    }
    let Some(first) = chars.next() else {
        return out;
    };
    let mut first_upper = first.is_uppercase();
    let mut r0 = first.to_uppercase().next().unwrap_or(first);
    for c in chars {
        let r1 = r0;
        r0 = c;
        if is_connector(r0) && is_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_connector(r1) {
            r0 = r0.to_uppercase().next().unwrap_or(r0);
        } else {
            if first_upper {
                if r0.is_uppercase() {
                    r0 = r0.to_lowercase().next().unwrap_or(r0);
                } else {
                    first_upper = false;
                }
            }
            out.push(r1);
        }
    }
    out.push(r0);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Upper,
    Lower,
    Digit,
    Other,
}

fn kind(c: char) -> Kind {
    if c.is_uppercase() {
        Kind::Upper
    } else if c.is_lowercase() || (c.is_alphabetic() && !c.is_uppercase()) {
        Kind::Lower
    } else if c.is_numeric() {
        Kind::Digit
    } else {
        Kind::Other
    }
}

/// `ToSnakeCase`/`ToKebabCase`: words split at connectors, at lower→upper changes, before the
/// last capital of an acronym followed by lower case (`HTTPServer` → `http_server`), and
/// around numbers unless the number is glued to a preceding word and followed by a new word
/// (`Bld4Floor` → `bld4_floor`, `HTTP2xx` → `http_2xx`). Other punctuation is kept as is.
pub fn to_lower_words(st: &str, connector: char) -> String {
    // Split into words of (text, is_number).
    let chars: Vec<char> = st.chars().collect();
    let mut words: Vec<(String, Kind)> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_connector(c) {
            i += 1;
            // Mark a word break.
            words.push((String::new(), Kind::Other));
            continue;
        }
        let k = kind(c);
        let mut w = String::new();
        match k {
            Kind::Digit => {
                while i < chars.len() && kind(chars[i]) == Kind::Digit {
                    w.push(chars[i]);
                    i += 1;
                }
            }
            Kind::Upper => {
                // An acronym: consecutive capitals; the last one starts the next word when a
                // lower-case letter follows.
                let start = i;
                while i < chars.len() && kind(chars[i]) == Kind::Upper {
                    i += 1;
                }
                if i < chars.len() && kind(chars[i]) == Kind::Lower && i - start > 1 {
                    i -= 1;
                    w.extend(&chars[start..i]);
                } else {
                    w.extend(&chars[start..i]);
                    while i < chars.len() && kind(chars[i]) == Kind::Lower {
                        w.push(chars[i]);
                        i += 1;
                    }
                }
            }
            Kind::Lower => {
                while i < chars.len() && kind(chars[i]) == Kind::Lower {
                    w.push(chars[i]);
                    i += 1;
                }
            }
            Kind::Other => {
                w.push(c);
                i += 1;
            }
        }
        words.push((w, k));
    }
    // Glue numbers: to the previous word when a capitalised word follows ("Bld4Floor"),
    // otherwise to the following lower-case run ("2xx", "2m3s").
    let mut merged: Vec<(String, Kind)> = Vec::new();
    let mut j = 0;
    while j < words.len() {
        let (w, k) = words[j].clone();
        if k == Kind::Digit {
            let prev_is_word = merged
                .last()
                .is_some_and(|(p, pk)| !p.is_empty() && *pk != Kind::Other && *pk != Kind::Digit);
            let next = words.get(j + 1);
            let next_new_word = next.is_some_and(|(_, nk)| *nk == Kind::Upper);
            if prev_is_word && next_new_word {
                if let Some(last) = merged.last_mut() {
                    last.0.push_str(&w);
                }
                j += 1;
                continue;
            }
            // A number followed by lower case (and more digits/lower) forms one word.
            let mut word = w;
            let mut jj = j + 1;
            while let Some((nw, nk)) = words.get(jj) {
                if *nk == Kind::Lower || *nk == Kind::Digit {
                    word.push_str(nw);
                    jj += 1;
                } else {
                    break;
                }
            }
            merged.push((word, Kind::Digit));
            j = jj;
            continue;
        }
        merged.push((w, k));
        j += 1;
    }
    let mut out = String::new();
    let mut need_sep = false;
    for (w, k) in merged {
        if w.is_empty() {
            need_sep = !out.is_empty();
            continue;
        }
        if k == Kind::Other {
            out.push_str(&w);
            need_sep = false;
            continue;
        }
        if need_sep || (!out.is_empty() && !out.ends_with(|c: char| kind(c) == Kind::Other)) {
            out.push(connector);
        }
        need_sep = false;
        out.push_str(&w.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_examples() {
        for (i, want) in [
            ("FirstName", "first_name"),
            ("HTTPServer", "http_server"),
            ("NoHTTPS", "no_https"),
            ("GO_PATH", "go_path"),
            ("GO PATH", "go_path"),
            ("GO-PATH", "go_path"),
            ("http2xx", "http_2xx"),
            ("HTTP20xOK", "http_20x_ok"),
            ("Duration2m3s", "duration_2m3s"),
            ("Bld4Floor3rd", "bld4_floor_3rd"),
        ] {
            assert_eq!(to_lower_words(i, '_'), want, "{i}");
        }
    }

    #[test]
    fn pascal_examples() {
        for (i, want) in [
            ("some_words", "SomeWords"),
            ("http_server", "HttpServer"),
            ("_complex__case_", "_Complex_Case_"),
            ("all", "All"),
            ("", ""),
        ] {
            assert_eq!(to_pascal(i), want, "{i}");
        }
    }
}
