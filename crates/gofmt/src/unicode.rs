//! Go's character classes (`unicode.IsLetter`, `strconv.IsPrint`, ...) and one-character case
//! mappings (`unicode.ToUpper`, ...) as the Go release
//! upstream is built with defines them.
//!
//! The ranges are generated from Go itself (`tools/gotables`): Rust's own tables follow a
//! newer Unicode version, and a character assigned since Go's (U+113C7, Unicode 16) would be
//! printable or a letter to certgate where Go escapes it or treats it as unassigned.

mod tables;

/// The index of the entry of `table` (sorted, disjoint ranges) whose range holds `n`.
fn locate<T>(table: &[T], n: u32, range: impl Fn(&T) -> (u32, u32)) -> Option<usize> {
    table
        .binary_search_by(|entry| {
            let (first, last) = range(entry);
            if last < n {
                std::cmp::Ordering::Less
            } else if first > n {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .ok()
}

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    locate(table, u32::from(c), |&range| range).is_some()
}

/// `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space.
/// Other spaces (U+00A0, U+3000), separators, controls, format characters (U+00AD,
/// U+200B..U+200F, U+FEFF), private-use and unassigned code points are not printable.
pub fn is_print(c: char) -> bool {
    in_table(tables::PRINT, c)
}

/// `unicode.IsLetter` (categories L*).
pub fn is_letter(c: char) -> bool {
    in_table(tables::LETTER, c)
}

/// `unicode.IsUpper`.
pub fn is_upper(c: char) -> bool {
    in_table(tables::UPPER, c)
}

/// `unicode.IsNumber` (categories N*).
pub fn is_number(c: char) -> bool {
    in_table(tables::NUMBER, c)
}

/// `unicode.IsPunct` (categories P*: `<`, `$` and `+` are symbols, not punctuation).
pub fn is_punct(c: char) -> bool {
    in_table(tables::PUNCT, c)
}

/// `unicode.IsSpace`.
pub fn is_space(c: char) -> bool {
    in_table(tables::SPACE, c)
}

/// `unicode.IsLower`.
pub fn is_lower(c: char) -> bool {
    in_table(tables::LOWER, c)
}

/// `unicode.IsTitle` (`ǅ`, Greek capitals with prosgegrammeni).
pub fn is_title(c: char) -> bool {
    in_table(tables::TITLE, c)
}

/// The character a run-length case table maps `c` to; `c` itself when none does.
fn mapped(table: &[(u32, u32, u32, i32)], c: char) -> char {
    let n = u32::from(c);
    let Some(at) = locate(table, n, |&(first, last, _, _)| (first, last)) else {
        return c;
    };
    let (first, _, step, delta) = table[at];
    if (n - first) % step != 0 {
        return c;
    }
    n.checked_add_signed(delta).and_then(char::from_u32).unwrap_or(c)
}

/// `unicode.ToUpper`: one character to one (`ß` stays `ß`, where Rust's full mapping
/// gives `SS`), and characters newer than Go's Unicode stay as they are.
pub fn to_upper(c: char) -> char {
    mapped(tables::TO_UPPER, c)
}

/// `unicode.ToLower` (`İ` becomes `i`, where Rust's full mapping gives `i̇`).
pub fn to_lower(c: char) -> char {
    mapped(tables::TO_LOWER, c)
}

/// `unicode.ToTitle` (`ǆ` becomes `ǅ`; Georgian letters are their own title case).
pub fn to_title(c: char) -> char {
    mapped(tables::TO_TITLE, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_follow_go() {
        assert!(is_print('é') && is_print(' ') && !is_print('\u{a0}') && !is_print('\u{113c7}'));
        assert!(is_letter('ß') && !is_letter('1') && !is_letter('\u{113c7}'));
        assert!(is_upper('Ä') && !is_upper('ä'));
        assert!(is_number('7') && is_number('Ⅻ') && !is_number('x'));
        assert!(is_punct('\'') && is_punct('&') && !is_punct('<') && !is_punct('$'));
        assert!(is_space('\u{85}') && is_space('\u{a0}') && !is_space('\u{200b}'));
        assert_eq!(to_lower('İ'), 'i');
        assert_eq!(to_lower('Σ'), 'σ');
        assert_eq!(to_lower('ᾼ'), 'ᾳ');
        assert!(is_lower('ß') && is_lower('ʕ') && !is_lower('ª') && !is_lower('ⅰ'));
        assert!(is_title('ǅ') && !is_title('Ǆ'));
        let upper = |s: &str| s.chars().map(to_upper).collect::<String>();
        assert_eq!(upper("ßtraße ǆ ᾳ ﬁ"), "ßTRAßE Ǆ ᾼ ﬁ");
        assert_eq!(upper("ა"), "Ა");
        // Alternating pairs (a run of step 2) and the characters between them.
        assert_eq!(upper("āĂă"), "ĀĂĂ");
        // ƛ's capital (U+A7DC) is newer than Go's Unicode.
        assert_eq!(upper("ƛ"), "ƛ");
        assert_eq!(['ǆ', 'ǅ', 'Ǆ', 'ა', 'x'].map(to_title), ['ǅ', 'ǅ', 'ǅ', 'ა', 'X']);
    }
}
