//! Driving a generated corpus through certgate and an oracle and counting agreement.

use std::fmt::Write as _;
use std::time::Instant;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::Settings;

/// One case on which certgate and the oracle disagree.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// The case, as a reader can paste it into a fixed table.
    pub case: String,
    /// certgate's answer.
    pub certgate: String,
    /// The oracle's answer.
    pub upstream: String,
}

/// The outcome of a generated run.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub cases: u64,
    /// Cases where certgate and upstream agree.
    pub agree: u64,
    /// Cases that disagree but match a listed, explained exception.
    pub excepted: u64,
    pub mismatches: Vec<Mismatch>,
    /// Mismatches beyond the first few kept in `mismatches`.
    pub more_mismatches: u64,
}

/// How many mismatches a tally keeps in full.
const KEPT_MISMATCHES: usize = 20;

impl Tally {
    /// Agreement on the whole corpus, in percent (excepted cases count as disagreement).
    pub fn agreement_percent(&self) -> f64 {
        if self.cases == 0 {
            return 100.0;
        }
        self.agree as f64 * 100.0 / self.cases as f64
    }

    /// A summary line plus the kept mismatches, for a failing assertion or the long mode.
    pub fn report(&self, library: &str) -> String {
        let mut text = format!(
            "{library}: {} cases, {} agree ({:.3} %), {} listed exceptions, {} unexplained mismatches\n",
            self.cases,
            self.agree,
            self.agreement_percent(),
            self.excepted,
            self.mismatches.len() as u64 + self.more_mismatches,
        );
        for mismatch in &self.mismatches {
            let _ = writeln!(
                text,
                "--- case: {}\n    certgate: {}\n    upstream: {}",
                mismatch.case, mismatch.certgate, mismatch.upstream
            );
        }
        if self.more_mismatches > 0 {
            let _ = writeln!(text, "... and {} more", self.more_mismatches);
        }
        text
    }

    /// Panics with the report when any case disagrees without a listed exception.
    pub fn assert_agreement(&self, library: &str) {
        assert!(
            self.mismatches.is_empty(),
            "certgate disagrees with upstream {}",
            self.report(library)
        );
    }
}

/// What comparing one case found.
pub enum Verdict {
    Agree,
    /// A known difference, listed with its reason in the test's exception table.
    Excepted,
    Differ(Mismatch),
}

/// Generates cases from `strategy` (seeded by `settings`) and hands each to `compare`, until
/// the case count or, in the long mode, the duration is reached. No shrinking: a differential
/// run wants every mismatch, and each is reported with the case that produced it.
pub fn run_generated<S: Strategy>(
    settings: &Settings,
    strategy: S,
    mut compare: impl FnMut(&S::Value) -> Verdict,
) -> Tally {
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&settings.seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let started = Instant::now();
    let mut tally = Tally::default();
    loop {
        let done = match settings.duration {
            Some(limit) => started.elapsed() >= limit,
            None => tally.cases >= settings.cases,
        };
        if done {
            break;
        }
        let tree = match strategy.new_tree(&mut runner) {
            Ok(tree) => tree,
            // A strategy that rejects too often is a bug in the test's generator.
            Err(reason) => panic!("the generator rejected too many cases: {reason}"),
        };
        tally.cases += 1;
        match compare(&tree.current()) {
            Verdict::Agree => tally.agree += 1,
            Verdict::Excepted => tally.excepted += 1,
            Verdict::Differ(mismatch) => {
                if tally.mismatches.len() < KEPT_MISMATCHES {
                    tally.mismatches.push(mismatch);
                } else {
                    tally.more_mismatches += 1;
                }
            }
        }
    }
    tally
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::any;

    fn settings(seed: u64, cases: u64) -> Settings {
        Settings { seed, cases, duration: None }
    }

    fn corpus(seed: u64) -> Vec<u32> {
        let mut seen = Vec::new();
        run_generated(&settings(seed, 50), any::<u32>(), |value| {
            seen.push(*value);
            Verdict::Agree
        });
        seen
    }

    #[test]
    fn a_seed_always_generates_the_same_corpus_and_another_seed_another() {
        assert_eq!(corpus(7), corpus(7));
        assert_ne!(corpus(7), corpus(8));
    }

    #[test]
    fn a_tally_counts_every_verdict_and_keeps_only_the_first_mismatches() {
        let mut next = 0u32;
        let tally = run_generated(&settings(1, 100), any::<u8>(), |_| {
            next += 1;
            match next % 4 {
                0 => Verdict::Excepted,
                1 | 2 => Verdict::Agree,
                _ => Verdict::Differ(Mismatch {
                    case: format!("case {next}"),
                    certgate: "a".into(),
                    upstream: "b".into(),
                }),
            }
        });
        assert_eq!(tally.cases, 100);
        assert_eq!(tally.agree, 50);
        assert_eq!(tally.excepted, 25);
        assert_eq!(tally.mismatches.len(), KEPT_MISMATCHES);
        assert_eq!(tally.more_mismatches, 5);
        assert_eq!(tally.mismatches[0].case, "case 3");
        let report = tally.report("demo");
        assert!(
            report.starts_with(
                "demo: 100 cases, 50 agree (50.000 %), 25 listed exceptions, 25 unexplained mismatches\n"
            ),
            "{report}"
        );
        assert!(report.ends_with("... and 5 more\n"), "{report}");
    }

    #[test]
    #[should_panic(expected = "certgate disagrees with upstream demo: 1 cases")]
    fn an_unexplained_mismatch_fails_the_assertion() {
        let tally = run_generated(&settings(1, 1), any::<u8>(), |_| {
            Verdict::Differ(Mismatch {
                case: "x".into(),
                certgate: "a".into(),
                upstream: "b".into(),
            })
        });
        tally.assert_agreement("demo");
    }
}
