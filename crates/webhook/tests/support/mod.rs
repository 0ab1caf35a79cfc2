//! A fake admission handler shared by the integration tests.
#![allow(dead_code)] // each test binary uses a different part

use certgate_admission::review::{Endpoint, Handled, Rejection};
use certgate_webhook::AdmissionHandler;

/// Answers like the real handler would, from a tiny script in the body:
/// `reject:<status>` is a [`Rejection`], `deny` a denial, `not covered` allowed without a
/// review, anything else is allowed, and the
/// response body is `<endpoint>:<body length>` so tests see what reached the handler.
pub struct Scripted;

impl AdmissionHandler for Scripted {
    async fn handle(&self, endpoint: Endpoint, body: &[u8]) -> Result<Handled, Rejection> {
        if let Some(status) = body.strip_prefix(b"reject:") {
            let status = std::str::from_utf8(status).unwrap().parse().unwrap();
            return Err(Rejection {
                status,
                message: "the AdmissionReview is not valid JSON".to_owned(),
            });
        }
        Ok(Handled {
            body: format!("{endpoint:?}:{}", body.len()).into_bytes(),
            resource: "cert-manager.io/v1/certificaterequests".to_owned(),
            operation: "CREATE".to_owned(),
            allowed: body != b"deny",
            reviewed: body != b"not covered",
        })
    }
}
