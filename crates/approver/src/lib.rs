//! certgate's approval system, live: the controllers that decide CertificateRequests in a
//! cluster, and the index of what they watch.
//!
//! - [`world`]: the index: CertificateRequestPolicies, Namespaces and RBAC objects in
//!   reflector stores, which pending requests each change concerns, and the local RBAC
//!   authorizer over them. Fed by watches in production and by hand in tests, through the
//!   same [`world::Feed`];
//! - [`policy_approver`]: `policy-approver`, approver-policy's review of pending requests;
//! - [`live_review`]: a review whose access questions an asynchronous checker answers
//!   (SubjectAccessReviews), shared by the policy approver and `certgate explain`;
//! - [`readiness`]: `policy-readiness`, the policies' `Ready` condition;
//! - [`builtin`]: `builtin-approver`, cert-manager's approve-everything controller.
//!
//! The decisions themselves are pure and live in `certgate-approval` (policy review and the
//! texts the approvers write); this crate observes, asks the core and writes back.
//!
//! Reconcilers are tested branch by branch with a recording `Effects` fake; the policy approver
//! also on the wire: the exact status apply and event against a mocked API server (tower-test).
#![forbid(unsafe_code)]

pub mod builtin;
pub mod live_review;
pub mod policy_approver;
pub mod readiness;
pub mod world;
