//! Who is asking, and may they: the access logic of certgate's sandbox API server
//! (`certgate dev`), written to answer exactly as kube-apiserver 1.33 does.
//!
//! - [`request_attributes`] reads a request's verb, resource and namespace from its method,
//!   path and query (kube-apiserver's `RequestInfoFactory`).
//! - [`Authenticator`] turns the `Authorization` header into a user: the admin token, the
//!   static users of the `--users` file ([`StaticUsers`]), bound service-account tokens
//!   ([`TokenSigner`], [`token_request`]); no bearer token means `system:anonymous`.
//! - [`Impersonation`] reads the `Impersonate-*` headers, lists the `impersonate` checks to
//!   make and builds the impersonated user.
//! - [`RequestAuthorizer`] is the one authorization question; RBAC answers it.
//! - [`forbidden_status`] and friends word the 403 (the texts are `certgate-rbac`'s, re-exported
//!   with [`RequestAttributes`] so sandbox code keeps its paths), [`StatusError`] every other
//!   API error.
//! - [`reviews`] answers SubjectAccessReview, LocalSubjectAccessReview,
//!   SelfSubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview and TokenReview.
//! - [`bootstrap_policy`] is the RBAC kube-apiserver creates at start.
//!
//! The crate is pure: callers pass text, bytes and the time in, and look objects up through
//! the [`ServiceAccounts`] trait. Everything read is treated as hostile: sizes are bounded,
//! nothing panics on input, and tokens and keys never appear in errors or `Debug` output.
//! See `docs/access.md` for what users of `certgate dev` see.
#![forbid(unsafe_code)]

mod attributes;
mod authn;
mod authorize;
mod bootstrap;
mod decode;
mod field_selector;
mod forbidden;
mod impersonation;
mod invalid;
mod names;
mod query;
pub mod reviews;
mod status;

pub use attributes::{RequestAttributes, RequestInfoError, is_read_only, request_attributes};
pub use authn::{
    ADMIN_USERNAME, ANONYMOUS_USERNAME, AUTHENTICATED_GROUP, Authenticated, AuthenticationError,
    Authenticator, CREDENTIAL_ID_KEY, ISSUER, MAX_BEARER_TOKEN_BYTES, MAX_USERS_FILE_BYTES,
    ServiceAccounts, SignerError, StaticUsers, TokenRequestError, TokenSigner,
    UNAUTHENTICATED_GROUP, UsersFileError, anonymous, bound_secret_name, token_request,
};
pub use authorize::RequestAuthorizer;
pub use bootstrap::bootstrap_policy;
/// The field errors of [`InvalidRequest`], re-exported so callers need not depend on
/// `certgate-api` to read them.
pub use certgate_api::field::{BadValue, ErrorType, FieldError};
pub use certgate_rbac::{AccessDecision, NonResourceAttributes, ResourceAttributes, UserInfo};
pub use forbidden::{forbidden_message, forbidden_status, forbidden_status_message};
pub use impersonation::{Impersonation, ImpersonationError};
pub use invalid::InvalidRequest;
pub use names::{SERVICE_ACCOUNT_PREFIX, split_service_account_username};
pub use reviews::{
    ReviewError, local_subject_access_review, self_subject_access_review, self_subject_review,
    self_subject_rules_review, subject_access_review, token_review,
};
pub use status::{StatusError, plain_internal_error};
