//! The recording fake behind every reconciler's `Effects` in tests: each controller's test
//! module implements its own `Effects` for [`Recorded`] by describing its writes in one
//! line each, and asserts the lines in order.

use std::sync::Mutex;

use kube::runtime::events::{Event, EventType};

/// What a reconcile wrote and recorded, in order; writes fail with the refusal when set.
#[derive(Default)]
pub(crate) struct Recorded {
    refusal: Option<(&'static str, &'static str)>,
    calls: Mutex<Vec<String>>,
}

impl Recorded {
    /// A fake whose writes the API server refuses with `message` and `reason`.
    pub(crate) fn refusing(message: &'static str, reason: &'static str) -> Self {
        Recorded { refusal: Some((message, reason)), ..Recorded::default() }
    }

    /// Records a write described by `line`, then answers it as configured.
    pub(crate) fn write(&self, line: String) -> Result<(), kube::Error> {
        self.calls.lock().unwrap().push(line);
        match self.refusal {
            Some((message, reason)) => {
                Err(kube::Error::Api(Box::new(kube::core::Status::failure(message, reason))))
            }
            None => Ok(()),
        }
    }

    /// Records `event` about `object`: `event <object> <type> <reason> <action>: <note>`.
    pub(crate) fn event(&self, object: &str, event: &Event) {
        let type_ = match event.type_ {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        };
        self.calls.lock().unwrap().push(format!(
            "event {object} {type_} {} {}: {}",
            event.reason,
            event.action,
            event.note.as_deref().unwrap_or_default()
        ));
    }

    /// Everything recorded so far.
    pub(crate) fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}
