//! The review APIs: created to get an answer, never stored. SubjectAccessReview and friends
//! are answered by the sandbox's RBAC, TokenReview by its authenticator, SelfSubjectReview
//! (`kubectl auth whoami`) from the requester.

use axum::http::{HeaderMap, StatusCode};
use certgate_access::reviews;
use certgate_rbac::UserInfo;

use crate::api::parse_body;
use crate::gate::StoredAccounts;
use crate::server::Sandbox;
use crate::status::ApiError;
use crate::target::Target;
use crate::writes::Answer;

pub fn create(
    sandbox: &Sandbox,
    target: &Target,
    requester: &UserInfo,
    headers: &HeaderMap,
    body: &[u8],
) -> Answer {
    let now = chrono::Utc::now();
    let resource = &target.resource;
    // SelfSubjectReview has nothing to read from its body.
    if resource.plural == "selfsubjectreviews" {
        return Ok((StatusCode::CREATED, reviews::self_subject_review(requester, now)));
    }
    let body = parse_body(headers, body)?;
    let authorizer = sandbox.authorizer();
    let answer = match resource.plural.as_str() {
        "subjectaccessreviews" => reviews::subject_access_review(&body, &*authorizer),
        "localsubjectaccessreviews" => reviews::local_subject_access_review(
            &body,
            target.namespace.as_deref().unwrap_or_default(),
            &*authorizer,
        ),
        "selfsubjectaccessreviews" => {
            reviews::self_subject_access_review(&body, requester, &*authorizer)
        }
        "selfsubjectrulesreviews" => {
            reviews::self_subject_rules_review(&body, requester, &authorizer)
        }
        "tokenreviews" => {
            reviews::token_review(&body, &sandbox.authenticator, &StoredAccounts(sandbox), now)
        }
        other => {
            return Err(ApiError::new(
                500,
                "InternalError",
                format!("the review resource {other} has no handler"),
            ));
        }
    };
    answer.map(|review| (StatusCode::CREATED, review)).map_err(|err| err.status().into())
}
