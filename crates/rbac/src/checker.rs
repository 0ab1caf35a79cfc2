//! The one asynchronous access-check seam: "may this user do this?" answered by whatever
//! the caller plugs in. In a cluster that is a SubjectAccessReview client (in
//! `certgate-cluster`); offline, in the sandbox and for `--authorizer=local` it is any
//! synchronous [`Authorizer`], which is an [`AccessChecker`] through the blanket impl below.
//!
//! The trait returns boxed futures so that it is dyn-compatible: a server picks its checker
//! at start and holds it as `Arc<dyn AccessChecker>`, without an enum of implementations.

use std::future::{Future, ready};
use std::pin::Pin;
use std::sync::Arc;

use crate::{AccessDecision, AccessReview, Authorizer, AuthorizerError};

/// The future an [`AccessChecker`] answers with; it may borrow the checker and the review.
pub type CheckFuture<'a> =
    Pin<Box<dyn Future<Output = Result<AccessDecision, AuthorizerError>> + Send + 'a>>;

/// Asks whether a user may do something (in a cluster: a SubjectAccessReview). An error
/// means the checker could not answer; callers fail closed.
pub trait AccessChecker: Send + Sync {
    /// The answer to `review`, possibly after asking the API server.
    fn check<'a>(&'a self, review: &'a AccessReview) -> CheckFuture<'a>;

    /// The answer at once, when this checker has one without waiting (every synchronous
    /// [`Authorizer`] does). Callers that gather questions to ask them asynchronously answer
    /// these in place instead, so a synchronous checker costs one pass, not two. `None`
    /// (the default) means "ask through [`Self::check`]".
    fn check_now(&self, _review: &AccessReview) -> Option<Result<AccessDecision, AuthorizerError>> {
        None
    }

    /// Drops cached answers, so the next question is asked again: called when RBAC objects
    /// changed. Checkers without a cache have nothing to drop.
    fn forget(&self) {}
}

/// Every synchronous authorizer answers at once, with a ready future.
impl<T: Authorizer + ?Sized> AccessChecker for T {
    fn check<'a>(&'a self, review: &'a AccessReview) -> CheckFuture<'a> {
        Box::pin(ready(self.authorize(review)))
    }

    fn check_now(&self, review: &AccessReview) -> Option<Result<AccessDecision, AuthorizerError>> {
        Some(self.authorize(review))
    }
}

/// A shared checker checks as the checker does, so `Arc<dyn AccessChecker>` is one.
impl<T: AccessChecker + ?Sized> AccessChecker for Arc<T> {
    fn check<'a>(&'a self, review: &'a AccessReview) -> CheckFuture<'a> {
        (**self).check(review)
    }

    fn check_now(&self, review: &AccessReview) -> Option<Result<AccessDecision, AuthorizerError>> {
        (**self).check_now(review)
    }

    fn forget(&self) {
        (**self).forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AllowAll, RbacAuthorizer, RbacObjects, UserInfo};

    /// Polls a future that must be ready at once.
    fn now<F: Future>(future: F) -> F::Output {
        let mut future = std::pin::pin!(future);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match future.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(output) => output,
            std::task::Poll::Pending => panic!("a synchronous authorizer never waits"),
        }
    }

    fn review(username: &str) -> AccessReview {
        AccessReview {
            user: UserInfo { username: username.to_owned(), ..UserInfo::default() },
            ..AccessReview::default()
        }
    }

    #[test]
    fn a_synchronous_authorizer_answers_at_once_and_through_the_future() {
        let rbac: Arc<dyn AccessChecker> = Arc::new(RbacAuthorizer::new(RbacObjects::default()));
        let expected =
            Authorizer::authorize(&RbacAuthorizer::new(RbacObjects::default()), &review("alice"));
        assert_eq!(rbac.check_now(&review("alice")), Some(expected.clone()));
        assert_eq!(now(rbac.check(&review("alice"))), expected);
        rbac.forget();
    }

    #[test]
    fn a_boxed_authorizer_is_a_checker_too() {
        let authorizer: Box<dyn Authorizer> = Box::new(AllowAll);
        assert_eq!(now(authorizer.check(&review("bob"))).map(|d| d.allowed), Ok(true));
        assert!(authorizer.check_now(&review("bob")).is_some());
    }
}
