//! The conditions of a `Certificate`'s and an issuer's status (upstream's
//! `CertificateCondition` and `IssuerCondition`, which have the same fields).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The condition types cert-manager sets.
pub mod condition_type {
    /// A `Certificate`: the Secret holds an up-to-date certificate. An issuer: it can sign.
    pub const READY: &str = "Ready";
    /// A `Certificate`: an issuance is in progress (`True`), or the last one failed
    /// (`False`, with `lastFailureTime`).
    pub const ISSUING: &str = "Issuing";
}

/// One entry of `status.conditions`, at most one per `type`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// The condition type (see [`condition_type`]).
    #[serde(rename = "type")]
    pub type_: String,
    /// One of [`CONDITION_STATUSES`](super::CONDITION_STATUSES).
    #[schemars(extend("enum" = super::CONDITION_STATUSES))]
    pub status: String,
    /// When the status last changed (RFC 3339).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub last_transition_time: Option<String>,
    /// Machine-readable reason for the last transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human-readable details of the last transition.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The `metadata.generation` the condition was set for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

impl Condition {
    /// Whether the status is `True`.
    pub fn is_true(&self) -> bool {
        self.status == "True"
    }
}

/// The condition of `type_` among `conditions`.
pub(super) fn find<'a>(conditions: Option<&'a [Condition]>, type_: &str) -> Option<&'a Condition> {
    conditions?.iter().find(|c| c.type_ == type_)
}
