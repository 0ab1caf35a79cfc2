//! The AdmissionReview exchanged with a webhook: the request we send, the response we accept.

mod request;
mod response;

pub(crate) use request::{ReviewVersion, body as request_body};
pub(crate) use response::{HttpAnswer, VerifiedResponse, WebhookStatus, read};
