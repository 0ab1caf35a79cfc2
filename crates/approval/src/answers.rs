//! Access answers gathered before a review, for authorizers that cannot answer synchronously.
//!
//! The review asks its RBACBound questions through the synchronous
//! [`certgate_rbac::Authorizer`] trait, so that the pipeline stays a pure function. In a
//! cluster the answers come from SubjectAccessReviews, which are network calls. The caller
//! reviews once with [`KnownAnswers`], which answers "not allowed" to every question it has
//! no answer for and records it; the caller asks the API server those questions (concurrently,
//! through its cache), adds the answers, and reviews again. The questions a review asks do not
//! depend on earlier answers (one per policy that passed the selectors), so the second review
//! asks nothing new and its outcome is the one a synchronous authorizer would have given.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use certgate_rbac::{AccessDecision, AccessReview, Authorizer, AuthorizerError};

/// Why a question without a recorded answer was refused, if such an outcome ever escaped.
const NOT_ASKED: &str = "not asked yet";

/// Answers from a fixed set, recording the questions asked that it has no answer for.
///
/// Both the answers and the unanswered questions are hashed: a review asks one question
/// per policy, so with lists a review of `P` policies compared `P²/2` questions, which was
/// a quarter of the policy approver's CPU time at 50 policies (docs/performance.md).
#[derive(Debug, Default)]
pub struct KnownAnswers {
    known: HashMap<AccessReview, Result<AccessDecision, AuthorizerError>>,
    unanswered: Mutex<Unanswered>,
}

/// Questions without an answer, each once, in the order they were first asked.
#[derive(Debug, Default)]
struct Unanswered {
    order: Vec<AccessReview>,
    seen: HashSet<AccessReview>,
}

impl KnownAnswers {
    /// Records the answer to `question`, replacing an earlier one.
    pub fn insert(
        &mut self,
        question: AccessReview,
        answer: Result<AccessDecision, AuthorizerError>,
    ) {
        self.known.insert(question, answer);
    }

    /// The questions asked since the last call that had no answer, each once, in the order
    /// they were first asked.
    pub fn take_unanswered(&self) -> Vec<AccessReview> {
        let taken = std::mem::take(
            &mut *self.unanswered.lock().unwrap_or_else(|poisoned| poisoned.into_inner()),
        );
        taken.order
    }

    /// How many answers are recorded.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// Whether no answer is recorded.
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }
}

impl Authorizer for KnownAnswers {
    fn authorize(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        if let Some(answer) = self.known.get(review) {
            return answer.clone();
        }
        let mut unanswered =
            self.unanswered.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if unanswered.seen.insert(review.clone()) {
            unanswered.order.push(review.clone());
        }
        Ok(AccessDecision { allowed: false, reason: NOT_ASKED.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use certgate_rbac::ResourceAttributes;

    use super::*;

    fn question(name: &str) -> AccessReview {
        AccessReview {
            resource: ResourceAttributes {
                name: name.to_owned(),
                verb: "use".to_owned(),
                ..ResourceAttributes::default()
            },
            ..AccessReview::default()
        }
    }

    fn allowed(reason: &str) -> Result<AccessDecision, AuthorizerError> {
        Ok(AccessDecision { allowed: true, reason: reason.to_owned() })
    }

    #[test]
    fn unknown_questions_are_refused_and_recorded_once_in_order() {
        let answers = KnownAnswers::default();
        for name in ["b", "a", "b"] {
            assert_eq!(answers.authorize(&question(name)).map(|d| d.allowed), Ok(false));
        }
        assert_eq!(answers.take_unanswered(), vec![question("b"), question("a")]);
        assert_eq!(answers.take_unanswered(), vec![]);
    }

    #[test]
    fn recorded_answers_and_errors_are_returned_as_given() {
        let mut answers = KnownAnswers::default();
        answers.insert(question("a"), allowed("first"));
        answers.insert(question("a"), allowed("second"));
        answers.insert(question("b"), Err(AuthorizerError("unreachable".to_owned())));
        assert_eq!(answers.len(), 2);
        assert_eq!(answers.authorize(&question("a")), allowed("second"));
        assert_eq!(
            answers.authorize(&question("b")),
            Err(AuthorizerError("unreachable".to_owned()))
        );
        assert!(answers.take_unanswered().is_empty());
    }

    #[test]
    fn many_questions_keep_their_first_asked_order_and_their_own_answers() {
        let names: Vec<String> = (0..2_000).rev().map(|i| format!("policy-{i:04}")).collect();
        let mut answers = KnownAnswers::default();
        for name in names.iter().chain(&names) {
            assert_eq!(answers.authorize(&question(name)).map(|d| d.allowed), Ok(false));
        }
        let asked = answers.take_unanswered();
        assert_eq!(asked, names.iter().map(|name| question(name)).collect::<Vec<_>>());
        for (i, question) in asked.into_iter().enumerate() {
            answers.insert(question, allowed(&format!("answer {i}")));
        }
        assert_eq!(answers.len(), names.len());
        for (i, name) in names.iter().enumerate() {
            assert_eq!(answers.authorize(&question(name)), allowed(&format!("answer {i}")));
        }
        assert!(answers.take_unanswered().is_empty());
    }
}
