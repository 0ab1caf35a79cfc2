//! The entry point the API server's request pipeline calls.

use crate::attributes::AdmissionAttributes;
use crate::call::Transports;
use crate::configurations::Configurations;
use crate::rejection::Rejection;

/// Calls webhooks; holds pooled HTTPS clients (one per caBundle), so reuse one for the
/// process. Must be used from within a tokio runtime (connections run as tasks).
#[derive(Debug, Default)]
pub struct Dispatcher {
    transports: Transports,
}

impl Dispatcher {
    pub fn new() -> Dispatcher {
        Dispatcher::default()
    }

    /// Runs matching mutating webhooks in order, applying each JSON patch to
    /// `attributes.object` before calling the next, and re-runs earlier
    /// `reinvocationPolicy: IfNeeded` webhooks once when a later one changed the object.
    /// Returns the warnings the webhooks sent.
    pub async fn mutate(
        &self,
        configurations: &Configurations,
        attributes: &mut AdmissionAttributes,
    ) -> Result<Vec<String>, Rejection> {
        crate::mutating::mutate(&self.transports, configurations, attributes).await
    }

    /// Runs matching validating webhooks concurrently; any denial rejects. Returns the
    /// warnings the webhooks sent.
    pub async fn validate(
        &self,
        configurations: &Configurations,
        attributes: &AdmissionAttributes,
    ) -> Result<Vec<String>, Rejection> {
        crate::validating::validate(&self.transports, configurations, attributes).await
    }
}
