//! Kubernetes-backed implementations of the cluster seams defined in `certgate-rbac`, which
//! the webhook, the policy approver and `certgate explain` code against.
//!
//! - [`SarAccessChecker`] answers [`certgate_rbac::AccessChecker`] with
//!   `authorization.k8s.io/v1` SubjectAccessReviews. Allow and deny answers are cached for a
//!   short TTL ([`DEFAULT_SAR_TTL`], 1 s, as the API server's delegating authorizer does),
//!   keyed by the whole review, in a bounded LRU ([`DEFAULT_SAR_CACHE_ENTRIES`]). Errors are
//!   never cached; callers fail closed on them. Transient failures (reset connections, HTTP
//!   429, 500, 504, a `retryAfterSeconds` hint) are sent again on a [`Backoff`] schedule,
//!   [`DEFAULT_SAR_BACKOFF`] (one retry after about 1 s) unless set otherwise.
//! - [`DiscoveryKindResolver`] answers [`certgate_rbac::KindResolver`] through API
//!   discovery (`/apis`, then `/apis/<group>/<version>` for each served version in listed
//!   order). Found kinds are cached for [`DEFAULT_FOUND_TTL`]; a kind missing from an
//!   existing group is cached as missing for [`DEFAULT_NOT_FOUND_TTL`] (30 s); a missing group
//!   is never cached, because its CRD may still be propagating; errors are never cached.
//!
//! Both caches read time from certgate's one `certgate_clock::Clock`, so tests move time
//! with `ManualClock`.
#![forbid(unsafe_code)]

mod api_error;
mod backoff;
mod discovery;
mod sar;
mod ttl_cache;

pub use backoff::{Backoff, DEFAULT_SAR_BACKOFF};
pub use discovery::{
    DEFAULT_DISCOVERY_CACHE_ENTRIES, DEFAULT_FOUND_TTL, DEFAULT_NOT_FOUND_TTL,
    DiscoveryKindResolver,
};
pub use sar::{DEFAULT_SAR_CACHE_ENTRIES, DEFAULT_SAR_TTL, SarAccessChecker};
