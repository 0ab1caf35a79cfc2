//! Case conversions (`snakecase`, `kebabcase`, `camelcase`) following huandu/xstrings 1.5.0.

use certgate_gofmt::unicode as gounicode;

/// `ToPascalCase`: connectors are dropped and the letter after them upper-cased; in a word
/// that starts upper-case, the upper-case letters after the first are lower-cased until a
/// letter that is not (`BAZ` → `Baz`, `HTTPServer` → `HttpServer`). Leading connectors stay,
/// a doubled connector keeps one, and a text of connectors only gets its last one twice
/// (`_` → `__`), as xstrings writes them.
pub fn to_pascal(st: &str) -> String {
    let mut out = String::with_capacity(st.len() + 1);
    let mut chars = st.chars();
    let mut first_upper = false;
    let mut r0 = '\0';
    for c in chars.by_ref() {
        r0 = c;
        if !is_go_connector(c) {
            first_upper = gounicode::is_upper(c);
            r0 = gounicode::to_upper(c);
            break;
        }
        out.push(c);
    }
    let rest = chars.as_str();
    if rest.is_empty() {
        if !st.is_empty() {
            out.push(r0);
        }
        return out;
    }
    for c in rest.chars() {
        let r1 = r0;
        r0 = c;
        if is_go_connector(r0) && is_go_connector(r1) {
            out.push(r1);
            continue;
        }
        if is_go_connector(r1) {
            first_upper = gounicode::is_upper(r0);
            r0 = gounicode::to_upper(r0);
        } else {
            if first_upper {
                if gounicode::is_upper(r0) {
                    r0 = gounicode::to_lower(r0);
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

/// `ToSnakeCase`/`ToKebabCase` (xstrings' `camelCaseToLowerCase`): the text is cut into
/// words by [`next_word`], upper-case and connector words are lower-cased with connectors
/// replaced, and `connector` is put between two words unless punctuation or a connector
/// already separates them. A number glued to a preceding word stays with it when a new word
/// follows (`Bld4Floor` → `bld4_floor`), and starts a word of its own when lower-case letters
/// follow (`HTTP2xx` → `http_2xx`). Characters that are neither letters, numbers,
/// punctuation nor connectors (`<`, `$`, `+` are symbols to Unicode) form words too, so
/// `<a>` becomes `<_a_>`.
pub fn to_lower_words(st: &str, connector: char) -> String {
    use Word::*;
    if st.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(st.len() + st.len() / 4);
    let (mut wt, mut word, mut rest) = next_word(st);
    while !rest.is_empty() {
        if wt != Connector {
            push_lower(&mut out, wt, word, connector);
        }
        let (prev, last) = (wt, word);
        (wt, word, rest) = next_word(rest);
        match prev {
            Number => {
                while wt == Alphabet || wt == Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, rest) = next_word(rest);
                }
                if !matches!(wt, Invalid | Punct | Connector) {
                    out.push(connector);
                }
            }
            Connector => push_lower(&mut out, prev, last, connector),
            Punct => {}
            _ => {
                if wt != Number {
                    if !matches!(wt, Connector | Punct) {
                        out.push(connector);
                    }
                    continue;
                }
                if rest.is_empty() {
                    continue;
                }
                let number = word;
                (wt, word, rest) = next_word(rest);
                if wt != Alphabet {
                    // The number belongs to the word before it.
                    push_lower(&mut out, Number, number, connector);
                    if !matches!(wt, Connector | Punct) {
                        out.push(connector);
                    }
                    continue;
                }
                // Lower-case letters follow: the number starts a new word.
                out.push(connector);
                push_lower(&mut out, Number, number, connector);
                while wt == Alphabet || wt == Number {
                    push_lower(&mut out, wt, word, connector);
                    (wt, word, rest) = next_word(rest);
                }
                if !matches!(wt, Invalid | Connector | Punct) {
                    out.push(connector);
                }
            }
        }
    }
    push_lower(&mut out, wt, word, connector);
    out
}

/// What a word of [`next_word`] is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    /// No valid character (U+FFFD is what Go decodes invalid bytes to).
    Invalid,
    Number,
    /// Starts with an upper-case letter: an acronym (`HTTP`) or a capitalised word.
    Upper,
    /// Lower-case (or uncased) letters.
    Alphabet,
    Connector,
    Punct,
    Other,
}

fn is_go_connector(c: char) -> bool {
    c == '-' || c == '_' || gounicode::is_space(c)
}

/// xstrings' `isAlphabet`: a letter outside the common CJK blocks.
fn is_alphabet(c: char) -> bool {
    gounicode::is_letter(c)
        && !matches!(c, '\u{4E00}'..='\u{9FCC}' | '\u{3400}'..='\u{4D85}' | '\u{20000}'..='\u{2B81D}')
}

/// The first character of `st` that is not U+FFFD with the bytes up to its end, or `prev`
/// and the whole length when there is none (xstrings' `nextValidRune`).
fn next_valid(st: &str, prev: char) -> (char, usize) {
    let mut size = 0;
    for c in st.chars() {
        size += c.len_utf8();
        if c != '\u{FFFD}' {
            return (c, size);
        }
    }
    (prev, size)
}

/// The next word of `st`, its kind and the text after it (xstrings' `nextWord`).
fn next_word(st: &str) -> (Word, &str, &str) {
    use gounicode::{is_number, is_punct, is_upper};
    if st.is_empty() {
        return (Word::Invalid, "", "");
    }
    let (first, size) = next_valid(st, '\u{FFFD}');
    let mut offset = size;
    if first == '\u{FFFD}' {
        return (Word::Invalid, &st[..offset], &st[offset..]);
    }
    let mut rest = &st[size..];
    // Extends the word while `more` holds for the next valid character.
    let extend = |offset: &mut usize, rest: &mut &str, mut r: char, more: &dyn Fn(char) -> bool| {
        while !rest.is_empty() {
            let (c, size) = next_valid(rest, r);
            r = c;
            if !more(c) {
                return r;
            }
            *offset += size;
            *rest = &rest[size..];
        }
        r
    };
    let kind = if is_go_connector(first) {
        extend(&mut offset, &mut rest, first, &is_go_connector);
        Word::Connector
    } else if is_punct(first) {
        extend(&mut offset, &mut rest, first, &is_punct);
        Word::Punct
    } else if is_upper(first) {
        if !rest.is_empty() {
            let (second, size) = next_valid(rest, first);
            if is_upper(second) {
                // An acronym; its last capital starts the next word when a letter follows
                // (`HTTPStatus` is `HTTP` + `Status`).
                let mut prev_size = size;
                offset += size;
                rest = &rest[size..];
                let mut r = second;
                while !rest.is_empty() {
                    let (c, size) = next_valid(rest, r);
                    r = c;
                    if !is_upper(c) {
                        break;
                    }
                    prev_size = size;
                    offset += size;
                    rest = &rest[size..];
                }
                if !rest.is_empty() && is_alphabet(r) {
                    offset -= prev_size;
                    rest = &st[offset..];
                }
            } else if is_alphabet(second) {
                offset += size;
                rest = &rest[size..];
                extend(&mut offset, &mut rest, second, &|c| is_alphabet(c) && !is_upper(c));
            }
        }
        Word::Upper
    } else if is_alphabet(first) {
        extend(&mut offset, &mut rest, first, &|c| is_alphabet(c) && !is_upper(c));
        Word::Alphabet
    } else if is_number(first) {
        extend(&mut offset, &mut rest, first, &is_number);
        Word::Number
    } else {
        extend(&mut offset, &mut rest, first, &|c| {
            !(is_go_connector(c) || is_alphabet(c) || is_number(c) || is_punct(c))
        });
        Word::Other
    };
    (kind, &st[..offset], rest)
}

/// xstrings' `toLower`: upper-case and connector words are lower-cased with every connector
/// replaced by `connector`; other words are written as they are.
fn push_lower(out: &mut String, wt: Word, word: &str, connector: char) {
    if wt != Word::Upper && wt != Word::Connector {
        out.push_str(word);
        return;
    }
    for c in word.chars() {
        if is_go_connector(c) {
            out.push(connector);
        } else if gounicode::is_upper(c) {
            out.push(gounicode::to_lower(c));
        } else {
            out.push(c);
        }
    }
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
            // Symbols (`<`, `>`) are words of their own; punctuation (`'`, `&`, `"`) is not.
            ("<a href='x'>&\"</a>", "<_a_href_='x'>&\"</a_>"),
            ("", ""),
            ("HTTPStatus", "http_status"),
            ("a\u{FFFD}b", "a\u{FFFD}b"),
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
            ("foo_bar_BAZ", "FooBarBaz"),
            ("_", "__"),
            ("a", "A"),
            ("ßtraße", "ßtraße"),
            ("", ""),
        ] {
            assert_eq!(to_pascal(i), want, "{i}");
        }
    }
}
