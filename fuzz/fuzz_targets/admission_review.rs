//! Arbitrary bytes as an AdmissionReview body, to both webhook endpoints: `handle` never
//! panics, and answers with a rejection or an AdmissionReview.
#![no_main]

use std::future::{Future, ready};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Wake, Waker};

use certgate_admission::review::{Admission, Endpoint};
use certgate_cel::PolicyCel;
use certgate_rbac::{
    AccessChecker, AccessDecision, AccessReview, CheckFuture, KindResolver, ResolveFuture,
    ResolvedKind,
};
use libfuzzer_sys::fuzz_target;

/// Allows only the wildcard cert-manager issuer signer, so both answers are reachable.
struct Access;

impl AccessChecker for Access {
    fn check<'a>(&'a self, review: &'a AccessReview) -> CheckFuture<'a> {
        let allowed = review.resource.name == "issuers.cert-manager.io/*";
        Box::pin(ready(Ok(AccessDecision { allowed, reason: String::new() })))
    }
}

/// Knows `Issuer` only; everything else is missing.
struct Kinds;

impl KindResolver for Kinds {
    fn resolve<'a>(&'a self, group: &'a str, kind: &'a str) -> ResolveFuture<'a> {
        let known = group == "cert-manager.io" && kind == "Issuer";
        let resolved =
            known.then(|| ResolvedKind { plural: "issuers".to_owned(), namespaced: true });
        Box::pin(ready(Ok(resolved)))
    }
}

struct Noop;

impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

/// The fakes answer at once, so one poll completes the future.
fn poll_once<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let waker = Waker::from(Arc::new(Noop));
    match future.as_mut().poll(&mut Context::from_waker(&waker)) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the fakes never wait"),
    }
}

fn admission() -> &'static Admission<Access, Kinds> {
    static ADMISSION: OnceLock<Admission<Access, Kinds>> = OnceLock::new();
    ADMISSION.get_or_init(|| Admission::new(Arc::new(PolicyCel::default()), Access, Kinds))
}

fuzz_target!(|body: &[u8]| {
    for endpoint in [Endpoint::Mutate, Endpoint::Validate] {
        if let Ok(handled) = poll_once(admission().handle(endpoint, body)) {
            assert!(serde_json::from_slice::<serde_json::Value>(&handled.body).is_ok());
        }
    }
});
