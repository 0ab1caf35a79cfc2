//! `cert-manager.io/v1` `ClusterIssuer`: an issuer for requests in every namespace.

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::issuer_spec::{IssuerConfig, IssuerStatus};

/// Spec of a `ClusterIssuer`: its [`IssuerConfig`], inlined as upstream inlines it.
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cert-manager.io",
    version = "v1",
    kind = "ClusterIssuer",
    plural = "clusterissuers",
    shortname = "ciss",
    category = "cert-manager",
    status = "IssuerStatus",
    derive = "Default",
    derive = "PartialEq",
    doc = "A certificate authority that signs CertificateRequests of any namespace.",
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = r#".status.conditions[?(@.type == "Ready")].status"#
    ),
    printcolumn(
        name = "Status",
        type_ = "string",
        priority = 1,
        json_path = r#".status.conditions[?(@.type == "Ready")].message"#
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        description = "Time since the object was created.",
        json_path = ".metadata.creationTimestamp"
    )
)]
pub struct ClusterIssuerSpec {
    /// The issuer type and its settings.
    #[serde(flatten)]
    pub config: IssuerConfig,
}
