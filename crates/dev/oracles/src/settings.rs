//! How many generated cases a differential test runs, and from which seed.

use std::time::Duration;

/// The size of a differential run.
///
/// - `CERTGATE_DIFF_SEED` (default: a fixed seed per test): the proptest RNG seed, so CI
///   always runs the same corpus and a mismatch reproduces.
/// - `CERTGATE_DIFF_CASES` (default: the test's own CI count): how many cases to generate.
/// - `CERTGATE_DIFF_MINUTES`: the long mode; generate cases until this much time has passed
///   (the case count is then ignored) and print the agreement figures.
#[derive(Clone, Debug)]
pub struct Settings {
    pub seed: u64,
    pub cases: u64,
    pub duration: Option<Duration>,
}

impl Settings {
    /// The settings for a test whose CI run is `cases` cases from `seed`, with the
    /// environment's overrides.
    pub fn from_env(seed: u64, cases: u64) -> Self {
        let number = |name: &str| -> Option<u64> {
            let text = std::env::var(name).ok()?;
            Some(
                text.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{name}={text:?} is not a whole number")),
            )
        };
        Self {
            seed: number("CERTGATE_DIFF_SEED").unwrap_or(seed),
            cases: number("CERTGATE_DIFF_CASES").unwrap_or(cases),
            duration: number("CERTGATE_DIFF_MINUTES").map(|m| Duration::from_secs(m * 60)),
        }
    }
}
