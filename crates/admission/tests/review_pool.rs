//! The inline pool policy reviews run on by default: at once, on the caller's thread,
//! within the compile-time budget; a cancelled review is answered 503 as before the pool
//! became a seam (issue #17). The bounded tokio pool is tested in `certgate-webhook`
//! (`tests/heavy_reviews.rs` and the unit tests of `src/review_pool.rs`).

mod common;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use certgate_admission::review::{
    Cancelled, Endpoint, HeavyReviewStats, InlineReviewPool, Rejection, ReviewPool,
};
use common::webhook::*;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn policy_review(rules: usize) -> Value {
    let validations: Vec<Value> =
        (0..rules).map(|i| json!({"rule": format!("self.endsWith('.{i}.example.com')")})).collect();
    let policy = json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1",
        "kind": "CertificateRequestPolicy",
        "metadata": {"name": "default"},
        "spec": {"selector": {"issuerRef": {}}, "allowed": {"dnsNames": {"validations": validations}}}
    });
    let admin = json!({"username": "kubernetes-admin", "groups": ["system:authenticated"]});
    review(Target::Policies, "CREATE", admin, policy, None)
}

#[test]
fn by_default_a_policy_review_runs_inline_and_is_counted() {
    let admission = permissive();
    assert_allowed(&admission, Endpoint::Validate, &policy_review(2));
    let stats = admission.heavy_review_stats();
    assert_eq!(stats, HeavyReviewStats { completed: 1, ..HeavyReviewStats::default() });
}

#[test]
fn the_inline_pool_honours_its_compile_time_budget() {
    let pool = Arc::new(InlineReviewPool::new(Duration::ZERO));
    let admission = permissive().with_review_pool(pool.clone());
    let message = forbidden(&admission, Endpoint::Validate, &policy_review(2));
    assert!(
        message.contains(
            "compiling the validation rules of this policy took more than the 0ms allowed per \
             review; this and the following rules were not compiled"
        ),
        "{message}"
    );
    // Out of time is an answer (a denial), not a cancellation.
    assert_eq!(pool.stats(), Some(HeavyReviewStats { completed: 1, ..Default::default() }));
}

#[test]
fn the_inline_pool_gives_each_job_its_budget_and_answers_a_cancelled_one_with_503() {
    let pool = InlineReviewPool::new(Duration::from_millis(1500));
    let answer = block_on(pool.run(Box::new(|budget| {
        assert_eq!(budget.time, Some(Duration::from_millis(1500)));
        let flag = budget.cancelled.as_ref().expect("a cancel flag");
        assert!(!flag.load(Ordering::Acquire), "nothing cancels an inline review");
        Err(Cancelled { left: 3 })
    })));
    assert_eq!(
        answer.unwrap_err(),
        Rejection {
            status: 503,
            message: "the policy review was cancelled with 3 validation rules not compiled"
                .to_owned()
        }
    );
    assert_eq!(pool.counters(), HeavyReviewStats { cancelled: 1, ..Default::default() });
}
