//! One webhook call, shared by the mutating and validating dispatchers: the dry-run check,
//! the AdmissionReview version, the POST and the response checks (upstream's `callHook`
//! and `callAttrMutatingHook` up to the decision).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::attributes::AdmissionAttributes;
use crate::call_error::CallError;
use crate::configurations::{FailurePolicy, Hook};
use crate::rejection::Rejection;
use crate::review::{ReviewVersion, VerifiedResponse, read, request_body};
use crate::transport::Transport;
use crate::transport::endpoint::{Resolved, resolve};
use crate::uid::new_uid;
use certgate_gofmt::quote;

/// How one webhook call went wrong.
#[derive(Debug)]
pub(crate) enum HookError {
    /// The webhook could not be consulted; `failurePolicy` decides.
    Calling(CallError),
    /// A refusal that stands whatever the failure policy (a denial, an unsupported dry run,
    /// a patch that cannot be applied).
    Rejected(Box<Rejection>),
}

impl HookError {
    /// The rejection this error becomes for `hook`, or `None` when the webhook fails open.
    pub(crate) fn into_rejection(self, hook: &Hook) -> Option<Rejection> {
        match self {
            HookError::Rejected(rejection) => Some(*rejection),
            HookError::Calling(error) => {
                let error = format!("failed calling webhook {}: {error}", quote(&hook.name));
                if hook.failure_policy == FailurePolicy::Ignore {
                    tracing::warn!(webhook = %hook.name, configuration = %hook.configuration_name, %error, "Failed calling webhook, failing open");
                    None
                } else {
                    tracing::warn!(webhook = %hook.name, configuration = %hook.configuration_name, %error, "Failed calling webhook, failing closed");
                    Some(Rejection::internal(&error))
                }
            }
        }
    }
}

/// One HTTPS client per distinct caBundle, built on first use.
#[derive(Debug, Default)]
pub(crate) struct Transports {
    by_ca_bundle: Mutex<HashMap<Vec<u8>, Arc<Transport>>>,
}

impl Transports {
    fn get(&self, ca_bundle: &[u8]) -> Result<Arc<Transport>, CallError> {
        let mut map = self.by_ca_bundle.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(transport) = map.get(ca_bundle) {
            return Ok(transport.clone());
        }
        let transport = Arc::new(Transport::new(ca_bundle)?);
        map.insert(ca_bundle.to_vec(), transport.clone());
        Ok(transport)
    }
}

/// Calls `hook` and returns its verified response.
pub(crate) async fn call(
    transports: &Transports,
    hook: &Hook,
    attributes: &AdmissionAttributes,
    mutating: bool,
) -> Result<VerifiedResponse, HookError> {
    if attributes.dry_run {
        match hook.side_effects.as_deref() {
            None => return Err(HookError::Calling(CallError::SideEffectsNil)),
            Some("None" | "NoneOnDryRun") => {}
            Some(_) => {
                return Err(HookError::Rejected(Box::new(Rejection::bad_request(format!(
                    "admission webhook {} does not support dry run",
                    quote(&hook.name)
                )))));
            }
        }
    }
    let version = ReviewVersion::choose(&hook.admission_review_versions)
        .ok_or(HookError::Calling(CallError::NoKnownReviewVersion))?;
    let ca_bundle =
        hook.client_config.ca_bundle.as_ref().map(|b| b.0.as_slice()).unwrap_or_default();
    let transport = transports.get(ca_bundle).map_err(HookError::Calling)?;
    let endpoint = match resolve(&hook.client_config, hook.timeout_seconds)
        .map_err(HookError::Calling)?
    {
        Resolved::Url(endpoint) => endpoint,
        Resolved::Service { url, name } => {
            return Err(HookError::Calling(CallError::Transport {
                url,
                cause: format!(
                    "service {} not found (the certgate sandbox runs no Services, so clientConfig.service cannot be resolved; use clientConfig.url)",
                    quote(&name)
                ),
            }));
        }
    };
    let uid = new_uid();
    let body = request_body(version, &uid, attributes);
    let timeout = Duration::from_secs(u64::try_from(hook.timeout_seconds).unwrap_or(0));
    let answer = transport.post(&endpoint, body, timeout).await.map_err(HookError::Calling)?;
    read(&answer, version, &uid, mutating).map_err(HookError::Calling)
}
