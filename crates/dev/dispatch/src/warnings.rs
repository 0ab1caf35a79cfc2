//! Warnings webhooks return, kept as kube-apiserver's warning recorder keeps them: empty and
//! duplicate texts dropped, texts with control characters dropped (they cannot go in a
//! `Warning` header), and once the texts exceed 4096 characters in total every warning is
//! cut to 256 characters and later ones are dropped when the budget is spent.

use std::collections::HashSet;

const TOTAL_RUNES: usize = 4 * 1024;
const ITEM_RUNES: usize = 256;

#[derive(Debug, Default)]
pub(crate) struct WarningRecorder {
    seen: HashSet<String>,
    /// Every accepted warning, untruncated, so truncation can be replayed from the start.
    accepted: Vec<String>,
    written: Vec<String>,
    written_runes: usize,
    truncating: bool,
}

fn truncate(text: &str) -> (String, usize) {
    let runes = text.chars().count();
    if runes > ITEM_RUNES {
        (text.chars().take(ITEM_RUNES).collect(), ITEM_RUNES)
    } else {
        (text.to_owned(), runes)
    }
}

impl WarningRecorder {
    pub(crate) fn add(&mut self, text: &str) {
        if text.is_empty() || (self.truncating && self.written_runes >= TOTAL_RUNES) {
            return;
        }
        if !self.seen.insert(text.to_owned()) {
            return;
        }
        self.accepted.push(text.to_owned());
        if text.chars().any(char::is_control) {
            // Upstream cannot build a Warning header from it and drops it.
            return;
        }
        let (shown, runes) =
            if self.truncating { truncate(text) } else { (text.to_owned(), text.chars().count()) };
        if self.truncating || self.written_runes + runes <= TOTAL_RUNES {
            self.written_runes += runes;
            self.written.push(shown);
            return;
        }
        // Over budget for the first time: replay everything, truncated.
        self.truncating = true;
        self.written.clear();
        self.written_runes = 0;
        for text in &self.accepted {
            if text.chars().any(char::is_control) {
                continue;
            }
            let (shown, runes) = truncate(text);
            self.written_runes += runes;
            self.written.push(shown);
        }
    }

    pub(crate) fn extend<'a>(&mut self, texts: impl IntoIterator<Item = &'a String>) {
        for text in texts {
            self.add(text);
        }
    }

    pub(crate) fn into_vec(self) -> Vec<String> {
        self.written
    }

    pub(crate) fn snapshot(&self) -> Vec<String> {
        self.written.clone()
    }
}

/// Applies kube-apiserver's warning rules to `warnings` in order: drops empty, duplicate and
/// control-character texts and caps the total as the API server does per response. The
/// dispatcher already does this for the warnings it returns; use this when merging them with
/// warnings from elsewhere in the request.
pub fn cap_warnings<I: IntoIterator<Item = String>>(warnings: I) -> Vec<String> {
    let mut recorder = WarningRecorder::default();
    for warning in warnings {
        recorder.add(&warning);
    }
    recorder.into_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_empty_duplicate_and_control_character_warnings() {
        let out = cap_warnings(["a".into(), "".into(), "a".into(), "bad\nline".into(), "b".into()]);
        assert_eq!(out, ["a", "b"]);
    }

    #[test]
    fn truncates_everything_once_the_total_is_exceeded() {
        let long = "x".repeat(3000);
        let longer = "y".repeat(3000);
        let out = cap_warnings([long, "short".into(), longer]);
        assert_eq!(out, ["x".repeat(256), "short".into(), "y".repeat(256)]);
    }

    #[test]
    fn keeps_warnings_within_the_budget_whole() {
        let out = cap_warnings(["z".repeat(4000), "ok".into()]);
        assert_eq!(out, ["z".repeat(4000), "ok".into()]);
    }
}
