//! One root policy replicated for one cluster (§3 steps 6–8), whatever the objects are read
//! from: the offline CLI's files or the controller's watch caches.

use serde_json::Value;

use super::build::build_replica;
use super::names::ANNOTATION_ENCRYPTION_IV;
use super::templates::{
    EncryptionSource, ResolverSetup, TemplateOutcome, TemplateProcessing, process_templates,
};
use crate::pipeline::HubResolver;

/// The replica built for one cluster and what resolving its templates did.
#[derive(Debug)]
pub struct Replication {
    pub replica: Value,
    pub outcome: TemplateOutcome,
}

/// What [`replicate`] needs besides the root policy.
pub struct ReplicaSources<'a> {
    pub cluster: &'a str,
    /// The replica as it exists now, for its encryption IV (step 7).
    pub existing: Option<&'a Value>,
    /// Reads a PolicySet (`namespace`, `name`) for dependency canonicalisation.
    pub policy_set: &'a dyn Fn(&str, &str) -> Option<Value>,
    /// The binding's `remediationAction` override, applied unless the root enforces.
    pub remediation_override: Option<&'a str>,
    pub setup: ResolverSetup,
    pub resolver: &'a HubResolver,
    pub encryption: &'a dyn EncryptionSource,
}

/// Builds the replica of `root` and resolves its hub templates.
pub fn replicate(root: &Value, sources: ReplicaSources<'_>) -> Replication {
    let (mut replica, metadata) = build_replica(root, sources.cluster, sources.policy_set);
    if let Some(action) = sources.remediation_override {
        let spec = replica.get_mut("spec").and_then(Value::as_object_mut);
        if let Some(spec) = spec {
            let current = spec.get("remediationAction").and_then(Value::as_str).unwrap_or("");
            if !current.eq_ignore_ascii_case("enforce") {
                spec.insert("remediationAction".to_owned(), Value::String(action.to_owned()));
            }
        }
    }
    let existing_iv = sources
        .existing
        .and_then(|e| e.pointer("/metadata/annotations"))
        .and_then(|a| a.get(ANNOTATION_ENCRYPTION_IV))
        .cloned();
    let annotations = replica.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut);
    if let (Some(iv), Some(annotations)) = (existing_iv, annotations) {
        annotations.insert(ANNOTATION_ENCRYPTION_IV.to_owned(), iv);
    }
    let outcome = process_templates(
        &mut replica,
        TemplateProcessing {
            resolver: sources.resolver,
            setup: sources.setup,
            encryption: sources.encryption,
            cluster: sources.cluster,
            policy_metadata: metadata.policy_metadata,
        },
    );
    Replication { replica, outcome }
}
