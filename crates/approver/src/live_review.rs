//! A review whose RBACBound questions are answered by any [`AccessChecker`]:
//! SubjectAccessReviews through [`certgate_cluster::SarAccessChecker`] (the policy approver
//! and `certgate explain` ask the API server the same questions this way), or a synchronous
//! RBAC authorizer (the approver's `--authorizer=local`), through the same path.
//!
//! See [`certgate_approval::answers`]: review, ask what the review could not answer, review
//! again with the answers. Questions a checker answers at once ([`AccessChecker::check_now`])
//! are answered during the review, so a synchronous checker reviews once.

use certgate_approval::answers::KnownAnswers;
use certgate_approval::{
    Approver, NamespaceLookup, PolicyEntry, Request, Review, ReviewError, ReviewOptions,
};
use certgate_rbac::{
    AccessChecker, AccessDecision, AccessReview, Authorizer, AuthorizerError, CheckFuture,
};
use futures_util::stream::{self, StreamExt as _};

/// SubjectAccessReviews of one review in flight at once. A review asks one per policy that
/// passed the selectors; more at once would only queue in the client.
const CONCURRENT_QUESTIONS: usize = 8;

/// Reviews after the first that may still find questions without answers. The questions do
/// not depend on answers, so the second review finds none; the bound is a guard.
const MAX_ROUNDS: usize = 3;

/// Reviews `request`, asking `checker` every access question the review needs.
pub async fn review_asking(
    approver: &Approver,
    request: &Request<'_>,
    policies: &[PolicyEntry<'_>],
    namespaces: &(dyn NamespaceLookup + Sync),
    checker: &dyn AccessChecker,
    options: ReviewOptions,
) -> Review {
    let mut answers = KnownAnswers::default();
    for _ in 0..MAX_ROUNDS {
        let answering = Answering { known: &answers, checker };
        let review = approver.review(request, policies, namespaces, &answering, options);
        let questions = answers.take_unanswered();
        if questions.is_empty() {
            return review;
        }
        // Collected in a loop rather than mapped with a closure: a closure's future borrowing
        // its argument is not general enough for the `Send` bound the controller's future needs.
        let mut asking: Vec<CheckFuture<'_>> = Vec::with_capacity(questions.len());
        for question in &questions {
            asking.push(checker.check(question));
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

/// What one review round is answered with: the checker's answer when it has one at once,
/// else the answers gathered so far (which record the questions still to ask).
struct Answering<'a> {
    known: &'a KnownAnswers,
    checker: &'a dyn AccessChecker,
}

impl Authorizer for Answering<'_> {
    fn authorize(&self, review: &AccessReview) -> Result<AccessDecision, AuthorizerError> {
        self.checker.check_now(review).unwrap_or_else(|| self.known.authorize(review))
    }
}
