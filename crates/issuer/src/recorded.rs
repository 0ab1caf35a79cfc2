//! The recording fake behind [`Effects`] in tests: Secrets served from a map, every write
//! and event described in one line, in order; writes fail with the refusal when set.

use std::collections::BTreeMap;
use std::sync::Mutex;

use certgate_api::CertificateRequest;
use k8s_openapi::api::core::v1::ObjectReference;
use kube::runtime::events::{Event, EventType};

use crate::effects::Effects;
use crate::generic::IssuerApi;
use crate::setup::SecretData;

#[derive(Default)]
pub(crate) struct Recorded {
    pub(crate) secrets: BTreeMap<(String, String), SecretData>,
    refusal: Option<(&'static str, &'static str)>,
    calls: Mutex<Vec<String>>,
}

impl Recorded {
    /// A fake holding `secrets` (namespace, name, data).
    pub(crate) fn with_secrets(secrets: Vec<(&str, &str, SecretData)>) -> Self {
        Recorded {
            secrets: secrets
                .into_iter()
                .map(|(namespace, name, data)| ((namespace.to_owned(), name.to_owned()), data))
                .collect(),
            ..Recorded::default()
        }
    }

    /// Writes are refused with `message` and `reason`.
    pub(crate) fn refusing(mut self, message: &'static str, reason: &'static str) -> Self {
        self.refusal = Some((message, reason));
        self
    }

    fn write(&self, line: String) -> Result<(), kube::Error> {
        self.calls.lock().unwrap().push(line);
        match self.refusal {
            Some((message, reason)) => {
                Err(kube::Error::Api(Box::new(kube::core::Status::failure(message, reason))))
            }
            None => Ok(()),
        }
    }

    /// Everything recorded so far.
    pub(crate) fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

impl Effects for Recorded {
    async fn read_secret(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Option<SecretData>, kube::Error> {
        self.calls.lock().unwrap().push(format!("read secret {namespace}/{name}"));
        Ok(self.secrets.get(&(namespace.to_owned(), name.to_owned())).cloned())
    }

    async fn write_request_status(&self, updated: &CertificateRequest) -> Result<(), kube::Error> {
        let status = updated.status.clone().unwrap_or_default();
        let conditions = status
            .conditions
            .unwrap_or_default()
            .iter()
            .map(|c| {
                format!(
                    "{}={} {} at {}: {}",
                    c.type_,
                    c.status,
                    c.reason.as_deref().unwrap_or_default(),
                    c.last_transition_time.as_deref().unwrap_or_default(),
                    c.message.as_deref().unwrap_or_default()
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        self.write(format!(
            "write request {} [{conditions}] failureTime={} certificate={} ca={}",
            updated.metadata.name.as_deref().unwrap_or_default(),
            status.failure_time.as_deref().unwrap_or("-"),
            status.certificate.is_some(),
            status.ca.is_some(),
        ))
    }

    async fn write_issuer_status<I: IssuerApi>(&self, updated: &I) -> Result<(), kube::Error> {
        let conditions = updated
            .status()
            .and_then(|s| s.conditions.clone())
            .unwrap_or_default()
            .iter()
            .map(|c| {
                format!(
                    "{}={} {} generation {:?} at {}: {}",
                    c.type_,
                    c.status,
                    c.reason.as_deref().unwrap_or_default(),
                    c.observed_generation,
                    c.last_transition_time.as_deref().unwrap_or_default(),
                    c.message.as_deref().unwrap_or("<none>")
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        self.write(format!(
            "write {} {} [{conditions}]",
            I::KIND,
            updated.meta().name.as_deref().unwrap_or_default()
        ))
    }

    async fn publish(&self, regarding: &ObjectReference, event: &Event) {
        let type_ = match event.type_ {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        };
        self.calls.lock().unwrap().push(format!(
            "event {} {type_} {} {}: {}",
            regarding.name.as_deref().unwrap_or_default(),
            event.reason,
            event.action,
            event.note.as_deref().unwrap_or_default()
        ));
    }
}
