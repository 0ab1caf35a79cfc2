//! A review whose RBACBound questions are answered by an asynchronous checker
//! (SubjectAccessReviews through [`certgate_cluster::SarAccessChecker`]): the policy approver
//! and `certgate explain` ask the API server the same questions this way.
//!
//! See [`certgate_approval::answers`]: review, ask what the review could not answer, review
//! again with the answers.

use certgate_admission::review::AccessChecker;
use certgate_approval::answers::KnownAnswers;
use certgate_approval::{
    Approver, NamespaceLookup, PolicyEntry, Request, Review, ReviewError, ReviewOptions,
};
use certgate_rbac::{AccessDecision, AuthorizerError};
use futures_util::FutureExt as _;
use futures_util::future::BoxFuture;
use futures_util::stream::{self, StreamExt as _};

/// SubjectAccessReviews of one review in flight at once. A review asks one per policy that
/// passed the selectors; more at once would only queue in the client.
const CONCURRENT_QUESTIONS: usize = 8;

/// Reviews after the first that may still find questions without answers. The questions do
/// not depend on answers, so the second review finds none; the bound is a guard.
const MAX_ROUNDS: usize = 3;

/// Reviews `request`, asking `checker` every access question the review needs.
pub async fn review_asking<C: AccessChecker>(
    approver: &Approver,
    request: &Request<'_>,
    policies: &[PolicyEntry<'_>],
    namespaces: &(dyn NamespaceLookup + Sync),
    checker: &C,
    options: ReviewOptions,
) -> Review {
    let mut answers = KnownAnswers::default();
    for _ in 0..MAX_ROUNDS {
        let review = approver.review(request, policies, namespaces, &answers, options);
        let questions = answers.take_unanswered();
        if questions.is_empty() {
            return review;
        }
        // Boxed in a loop rather than mapped with a closure: a closure's future borrowing its
        // argument is not general enough for the `Send` bound the controller's future needs.
        let mut asking: Vec<BoxFuture<'_, Result<AccessDecision, AuthorizerError>>> =
            Vec::with_capacity(questions.len());
        for question in &questions {
            asking.push(checker.check(question).boxed());
        }
        let replies: Vec<_> = stream::iter(asking).buffered(CONCURRENT_QUESTIONS).collect().await;
        for (question, reply) in questions.into_iter().zip(replies) {
            answers.insert(question, reply);
        }
    }
    Review {
        outcome: Err(ReviewError(
            "access questions kept changing between reviews; this is a bug in certgate".to_owned(),
        )),
        trace: None,
    }
}
