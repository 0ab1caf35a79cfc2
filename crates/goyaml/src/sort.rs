//! Map key order of yaml.v3's encoder (`sorter.go`, `keyList.Less`), for string keys.
//!
//! It is not byte order: letters sort before non-letters, and runs of digits compare by
//! numeric value ("a2" < "a10"). JSON objects only have string keys, so only the string
//! branch of the upstream comparison is needed.

use std::cmp::Ordering;

/// `keyList.Less(a, b)` for two string keys.
pub fn key_less(a: &str, b: &str) -> bool {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let mut i = 0;
    // Whether the last equal character was a digit: then a letter sorts *before* a
    // non-letter ("0x" < "017"), the other way round from the general rule.
    let mut digits = false;
    while i < ar.len() && i < br.len() {
        if ar[i] == br[i] {
            digits = is_go_digit(ar[i]);
            i += 1;
            continue;
        }
        // Go's unicode.IsLetter; Rust's is_alphabetic also admits a few marks and numerals
        // (Other_Alphabetic), which only matters for exotic keys.
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return if digits { al } else { bl };
        }
        // Neither is a letter: compare the digit runs starting here numerically.
        let mut an: i64 = 0;
        let mut bn: i64 = 0;
        if ar[i] == '0' || br[i] == '0' {
            // Upstream quirk: a differing '0' inside a run that had a non-zero digit before
            // it counts both sides as starting from 1.
            let mut j = i;
            while j > 0 && ar[j - 1].is_ascii_digit() {
                j -= 1;
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_go_digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(digit_value(ar[ai]));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_go_digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(digit_value(br[bi]));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// Go's `unicode.IsDigit` (category Nd). `char::is_numeric` also admits Nl/No characters
/// such as '½'; keys with those sort slightly differently from Go.
fn is_go_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// Upstream subtracts '0' from the rune; for non-ASCII digits that yields large values, which
/// wrapping arithmetic reproduces closely enough for ordering.
fn digit_value(c: char) -> i64 {
    i64::from(u32::from(c)) - i64::from(u32::from('0'))
}

/// Total order usable with `sort_by`, derived from `key_less` (stable sort, like Go's
/// `sort.Sort` result for distinct keys).
pub fn key_cmp(a: &str, b: &str) -> Ordering {
    if key_less(a, b) {
        Ordering::Less
    } else if key_less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_digit_order() {
        // Non-letters sort before letters; digit runs compare numerically.
        let mut keys = vec!["a10", "a2", "b", "A", "_x", "a", "1", "10", "2"];
        keys.sort_by(|a, b| key_cmp(a, b));
        assert_eq!(keys, vec!["_x", "1", "2", "10", "A", "a", "a2", "a10", "b"]);
    }
}
