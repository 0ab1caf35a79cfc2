//! `cert-manager.io/v1` `Issuer`: signs certificates for requests in its own namespace.

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::issuer_spec::{IssuerConfig, IssuerStatus};

/// Spec of an `Issuer`: its [`IssuerConfig`], inlined as upstream inlines it.
#[allow(
    clippy::duplicated_attributes,
    reason = "each `printcolumn(...)` repeats `type_`, which clippy mistakes for a duplicate"
)]
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "cert-manager.io",
    version = "v1",
    kind = "Issuer",
    plural = "issuers",
    namespaced,
    shortname = "iss",
    category = "cert-manager",
    status = "IssuerStatus",
    derive = "Default",
    derive = "PartialEq",
    doc = "A certificate authority that signs the CertificateRequests of its namespace.",
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
pub struct IssuerSpec {
    /// The issuer type and its settings.
    #[serde(flatten)]
    pub config: IssuerConfig,
}
