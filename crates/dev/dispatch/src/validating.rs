//! The validating dispatcher: every matching webhook is called concurrently and any denial
//! or failing-closed error rejects the request.

use crate::attributes::AdmissionAttributes;
use crate::call::{Transports, call};
use crate::configurations::Configurations;
use crate::join::join_all;
use crate::matching::{is_exempt, should_call};
use crate::rejection::Rejection;
use crate::warnings::WarningRecorder;

pub(crate) async fn validate(
    transports: &Transports,
    configurations: &Configurations,
    attributes: &AdmissionAttributes,
) -> Result<Vec<String>, Rejection> {
    if is_exempt(attributes) {
        return Ok(Vec::new());
    }
    let mut relevant = Vec::new();
    for hook in &configurations.validating {
        if should_call(hook, attributes).map_err(|r| *r)? {
            relevant.push(hook);
        }
    }
    let calls = relevant.iter().map(|hook| call(transports, hook, attributes, false)).collect();
    let results = join_all(calls).await;

    // Upstream returns whichever error its goroutines report first; the sandbox takes the
    // first in configuration order, so the message does not depend on timing.
    let mut warnings = WarningRecorder::default();
    let mut rejection: Option<Rejection> = None;
    for (hook, result) in relevant.iter().zip(results) {
        let refused = match result {
            Ok(response) => {
                warnings.extend(&response.warnings);
                (!response.allowed).then(|| Rejection::denied(&hook.name, response.status.as_ref()))
            }
            Err(error) => error.into_rejection(hook),
        };
        if rejection.is_none() {
            rejection = refused;
        }
    }
    match rejection {
        Some(rejection) => Err(rejection.with_warnings(warnings.into_vec())),
        None => Ok(warnings.into_vec()),
    }
}
