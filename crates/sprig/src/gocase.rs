//! Go's per-character case mapping and case classes (`unicode.ToUpper`, `ToLower`, `ToTitle`,
//! `IsLower`, `IsTitle`) for Go's Unicode 15.0.0.
//!
//! Rust's `char::to_uppercase` is the full mapping (`ß` → `SS`, `İ` → `i̇`) from a newer Unicode
//! version; Go maps one character to one character and leaves characters it does not know
//! alone. Rust's single-character results are Go's except where listed here; the rules were
//! checked against Go (go1.26.8) for every code point.

use certgate_gofmt::unicode::is_print;

/// Letters Rust calls lowercase (the `Other_Lowercase` property: modifier letters,
/// ordinal indicators, small Roman numerals, circled letters) that are not in Go's `Ll`.
const OTHER_LOWERCASE: &[(u32, u32)] = &[
    (0xAA, 0xAA),
    (0xBA, 0xBA),
    (0x2B0, 0x2B8),
    (0x2C0, 0x2C1),
    (0x2E0, 0x2E4),
    (0x345, 0x345),
    (0x37A, 0x37A),
    (0x10FC, 0x10FC),
    (0x1D2C, 0x1D6A),
    (0x1D78, 0x1D78),
    (0x1D9B, 0x1DBF),
    (0x2071, 0x2071),
    (0x207F, 0x207F),
    (0x2090, 0x209C),
    (0x2170, 0x217F),
    (0x24D0, 0x24E9),
    (0x2C7C, 0x2C7D),
    (0xA69C, 0xA69D),
    (0xA770, 0xA770),
    (0xA7F2, 0xA7F4),
    (0xA7F8, 0xA7F9),
    (0xAB5C, 0xAB5F),
    (0xAB69, 0xAB69),
    (0x10780, 0x10780),
    (0x10783, 0x10785),
    (0x10787, 0x107B0),
    (0x107B2, 0x107BA),
    (0x1E030, 0x1E06D),
];

/// Go's `Lt` (title-case letters: `ǅ`, Greek capitals with prosgegrammeni).
const TITLE: &[(u32, u32)] = &[
    (0x1C5, 0x1C5),
    (0x1C8, 0x1C8),
    (0x1CB, 0x1CB),
    (0x1F2, 0x1F2),
    (0x1F88, 0x1F8F),
    (0x1F98, 0x1F9F),
    (0x1FA8, 0x1FAF),
    (0x1FBC, 0x1FBC),
    (0x1FCC, 0x1FCC),
    (0x1FFC, 0x1FFC),
];

fn within(table: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    table.iter().any(|&(first, last)| first <= c && c <= last)
}

/// A one-character mapping both ends of which Go knows, else `c` unchanged.
fn single(c: char, mut mapped: impl Iterator<Item = char>) -> char {
    match (mapped.next(), mapped.next()) {
        (Some(m), None) if is_print(c) && is_print(m) => m,
        _ => c,
    }
}

/// `unicode.IsLower` (category `Ll`).
pub fn is_lower(c: char) -> bool {
    // ʕ is `Ll` in Unicode 15 and `Lo` in Rust's.
    c == '\u{295}' || c.is_lowercase() && is_print(c) && !within(OTHER_LOWERCASE, c)
}

/// `unicode.IsTitle` (category `Lt`).
pub fn is_title(c: char) -> bool {
    within(TITLE, c)
}

/// `unicode.ToUpper`.
pub fn to_upper(c: char) -> char {
    let n = u32::from(c);
    match n {
        // Small Greek letters with ypogegrammeni map to the title-case capital.
        0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => char::from_u32(n + 8).unwrap_or(c),
        0x1FB3 => '\u{1FBC}',
        0x1FC3 => '\u{1FCC}',
        0x1FF3 => '\u{1FFC}',
        _ => single(c, c.to_uppercase()),
    }
}

/// `unicode.ToLower`.
pub fn to_lower(c: char) -> char {
    if c == '\u{130}' { 'i' } else { single(c, c.to_lowercase()) }
}

/// `unicode.ToTitle`: the upper case except for the digraphs (`ǆ` → `ǅ`) and Georgian,
/// whose letters are their own title case.
pub fn to_title(c: char) -> char {
    match u32::from(c) {
        0x1C4..=0x1C6 => '\u{1C5}',
        0x1C7..=0x1C9 => '\u{1C8}',
        0x1CA..=0x1CC => '\u{1CB}',
        0x1F1..=0x1F3 => '\u{1F2}',
        0x10D0..=0x10FA | 0x10FD..=0x10FF => c,
        _ => to_upper(c),
    }
}

/// `strings.ToUpper`.
pub fn upper(st: &str) -> String {
    st.chars().map(to_upper).collect()
}

/// `strings.ToLower`.
pub fn lower(st: &str) -> String {
    st.chars().map(to_lower).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mappings_follow_go() {
        assert_eq!(upper("ßtraße ǆ ᾳ ﬁ"), "ßTRAßE Ǆ ᾼ ﬁ");
        assert_eq!(lower("İSTANBUL ᾼ"), "istanbul ᾳ");
        assert_eq!(['ǆ', 'ǅ', 'Ǆ', 'ა', 'x'].map(to_title), ['ǅ', 'ǅ', 'ǅ', 'ა', 'X']);
        assert_eq!(upper("ა"), "Ა");
        // ƛ's capital (U+A7DC) is newer than Go's Unicode.
        assert_eq!(upper("ƛ"), "ƛ");
        assert!(is_lower('ß') && is_lower('ʕ') && !is_lower('ª') && !is_lower('ⅰ'));
        assert!(is_title('ǅ') && !is_title('Ǆ'));
    }
}
