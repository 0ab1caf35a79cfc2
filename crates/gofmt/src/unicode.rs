//! Go's character classes (`unicode.IsLetter`, `strconv.IsPrint`, ...) as the Go release
//! upstream is built with defines them.
//!
//! The ranges are generated from Go itself (`tools/gotables`): Rust's own tables follow a
//! newer Unicode version, and a character assigned since Go's (U+113C7, Unicode 16) would be
//! printable or a letter to certgate where Go escapes it or treats it as unassigned.

mod tables;

fn in_table(table: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    table
        .binary_search_by(|&(first, last)| {
            if last < c {
                std::cmp::Ordering::Less
            } else if first > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
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

/// `unicode.ToLower`: the simple (one-character) mapping, so `İ` becomes `i` where Rust's
/// full mapping gives `i̇`.
pub fn to_lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
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
    }
}
