//! The `HTTPProxy` status as Contour writes it (`HTTPProxyStatus`, `DetailedCondition`).
//!
//! Field order follows the Go structs so the JSON reads like `kubectl get -o json` output.

use serde::{Deserialize, Serialize};

use super::Extra;

/// `status` of an `HTTPProxy`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpProxyStatus {
    /// `valid`, `invalid` or `orphaned`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Go writes the non-pointer `LoadBalancerStatus` even when empty, as `{}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_balancer: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<DetailedCondition>>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A `metav1.Condition` with Contour's `errors` and `warnings` sub-conditions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DetailedCondition {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    /// `omitempty` in Go: absent when the object has no generation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// Go's zero `metav1.Time` marshals as `null`; offline checks pass the time explicitly.
    #[serde(default)]
    pub last_transition_time: Option<String>,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<SubCondition>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<SubCondition>,
}

/// One error or warning under a [`DetailedCondition`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SubCondition {
    #[serde(rename = "type", default)]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
}
