//! The part of `metadata` Contour's processing looks at.

use serde::{Deserialize, Serialize};

use super::Extra;

/// `metadata` of an object: name, namespace and generation; labels and the rest stay in `extra`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Copied into `observedGeneration` of the status Contour writes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
    #[serde(flatten)]
    pub extra: Extra,
}

impl ObjectMeta {
    /// The name, or `""` when absent (the API server would have refused such an object).
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("")
    }

    /// The namespace; a manifest without one is applied to `default`, as `kubectl` does.
    pub fn namespace(&self) -> &str {
        match self.namespace.as_deref() {
            Some(ns) if !ns.is_empty() => ns,
            _ => "default",
        }
    }
}
