//! approver-policy's wildcard patterns: `*` matches any run of characters (including none
//! and including `.`); everything else matches itself, case-sensitively; the whole value
//! must match.
//!
//! The matcher is the iterative two-pointer algorithm: when a literal fails after a `*`,
//! it retries from one character further along the value, remembering only the last
//! star. That bounds the work at O(len(pattern) · len(value)) whatever the pattern, so a
//! hostile policy such as `*a*a*a*a*b` cannot blow up evaluation the way a naive
//! backtracking matcher would.
//!
//! It works on bytes. That is equivalent to matching on characters because `*` is ASCII
//! and a literal run of a valid UTF-8 pattern can only equal a run of a valid UTF-8 value
//! that starts and ends on character boundaries (UTF-8 lead bytes never equal
//! continuation bytes).

/// Whether `value` matches `pattern` in full.
pub fn matches(pattern: &str, value: &str) -> bool {
    let pattern = pattern.as_bytes();
    let value = value.as_bytes();
    let (mut p, mut v) = (0usize, 0usize);
    // Position in `pattern` just after the last `*` seen, and where in `value` that star's
    // current match ends.
    let mut star: Option<(usize, usize)> = None;

    while v < value.len() {
        match (pattern.get(p), value.get(v)) {
            (Some(b'*'), _) => {
                p += 1;
                star = Some((p, v));
            }
            (Some(pc), Some(vc)) if pc == vc => {
                p += 1;
                v += 1;
            }
            _ => match star {
                // Let the last star swallow one more byte and retry the literal after it.
                Some((after_star, swallowed_to)) => {
                    p = after_star;
                    v = swallowed_to + 1;
                    star = Some((after_star, v));
                }
                None => return false,
            },
        }
    }
    pattern.get(p..).is_some_and(|rest| rest.iter().all(|&b| b == b'*'))
}

/// Whether every value matches at least one of the patterns (approver-policy's
/// "wildcard subset"). An empty list of values is a subset of anything.
pub fn subset<P: AsRef<str>, V: AsRef<str>>(patterns: &[P], values: &[V]) -> bool {
    values
        .iter()
        .all(|value| patterns.iter().any(|pattern| matches(pattern.as_ref(), value.as_ref())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, written recursively over characters: obviously right, exponential
    /// in the worst case, so only used on small inputs.
    fn reference(pattern: &[char], value: &[char]) -> bool {
        match pattern.split_first() {
            None => value.is_empty(),
            Some(('*', rest)) => (0..=value.len())
                .any(|skip| value.get(skip..).is_some_and(|tail| reference(rest, tail))),
            Some((c, rest)) => {
                value.split_first().is_some_and(|(v, tail)| v == c && reference(rest, tail))
            }
        }
    }

    #[test]
    fn table() {
        let cases: &[(&str, &str, bool)] = &[
            ("", "", true),
            ("", "a", false),
            ("*", "", true),
            ("*", "anything.at.all", true),
            ("**", "", true),
            ("a", "a", true),
            ("a", "A", false),
            ("a", "ab", false),
            ("ab", "a", false),
            ("*.example.com", "foo.example.com", true),
            ("*.example.com", "a.b.example.com", true),
            ("*.example.com", ".example.com", true),
            ("*.example.com", "example.com", false),
            ("*.example.com", "foo.example.com.evil", false),
            ("foo.*", "foo.", true),
            ("foo.*", "foo", false),
            ("f*o", "fo", true),
            ("f*o", "fooo", true),
            ("f*o", "foa", false),
            ("*a*b*c*", "xxaxxbxxcxx", true),
            ("*a*b*c*", "xxcxxbxxaxx", false),
            ("a*a", "a", false),
            ("a*a", "aa", true),
            ("é*", "éte", true),
            ("*é", "caf\u{e9}", true),
            ("*\u{1F600}*", "smile \u{1F600} now", true),
            ("?", "a", false),
            ("?", "?", true),
            ("[a]", "a", false),
        ];
        for (pattern, value, want) in cases {
            assert_eq!(matches(pattern, value), *want, "pattern {pattern:?} value {value:?}");
        }
    }

    #[test]
    fn adversarial_patterns_finish_and_answer_correctly() {
        let value = "a".repeat(20_000);
        assert!(!matches("*a*a*a*a*a*a*a*a*b", &value));
        assert!(matches("*a*a*a*a*a*a*a*a*", &value));
        let pattern = format!("{}b", "*a".repeat(200));
        assert!(!matches(&pattern, &value));
        let mut almost = "a".repeat(20_000);
        almost.push('b');
        assert!(matches(&pattern, &almost));
    }

    #[test]
    fn subset_requires_every_value_to_match_some_pattern() {
        assert!(subset(&["*.a.com", "b.com"], &["x.a.com", "b.com"]));
        assert!(!subset(&["*.a.com"], &["x.a.com", "b.com"]));
        assert!(subset::<&str, &str>(&[], &[]));
        assert!(!subset::<&str, &str>(&[], &["x"]));
        assert!(subset(&["*"], &["", "x"]));
    }

    fn small_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(prop_oneof![Just('a'), Just('b'), Just('.'), Just('é')], 0..10)
            .prop_map(|chars| chars.into_iter().collect())
    }

    fn small_pattern() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![Just('a'), Just('b'), Just('.'), Just('é'), Just('*')],
            0..8,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    proptest! {
        #[test]
        fn agrees_with_the_recursive_definition(pattern in small_pattern(), value in small_text()) {
            let p: Vec<char> = pattern.chars().collect();
            let v: Vec<char> = value.chars().collect();
            prop_assert_eq!(matches(&pattern, &value), reference(&p, &v));
        }

        #[test]
        fn a_value_matches_itself_and_star(value in "\\PC{0,20}") {
            if !value.contains('*') {
                prop_assert!(matches(&value, &value));
            }
            prop_assert!(matches("*", &value));
        }
    }
}
