//! Resolving the hub templates of one replica (§4 of the spec).

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::names::{
    ANNOTATION_DISABLE_TEMPLATES, ANNOTATION_ENCRYPTION_IV, ANNOTATION_HUB_TEMPLATES_ERROR,
    ANNOTATION_TRIGGER_UPDATE,
};
use crate::access::{Access, ErrorClass, ObjectReader, ReadSet};
use crate::encryption::{EncryptionKeys, uses_encryption};
use crate::pipeline::{
    HubContext, HubResolver, PolicyMetadata, ResolveError, ResolveErrorKind, ResolveRequest,
};

/// How the templates of this replica are to be read: a resolver could be set up for the
/// policy (default mode, or its ServiceAccount exists and can be used), or not.
#[derive(Clone)]
pub enum ResolverSetup {
    Ready {
        reader: Arc<dyn ObjectReader>,
        access: Access,
    },
    /// `spec.hubTemplateOptions.serviceAccountName` names a ServiceAccount that does not
    /// exist (`namespace/name`).
    ServiceAccountMissing(String),
    /// The resolver for the ServiceAccount could not be set up (`namespace/name`, why).
    ServiceAccountFailed(String, String),
}

/// Where encryption keys come from (§8): the `policy-encryption-key` Secret of the cluster
/// namespace (created when missing, by the caller), and fresh IVs.
pub trait EncryptionSource {
    /// The AES-256 key for `cluster`; an error is retryable and written nowhere.
    fn key(&self, cluster: &str) -> Result<[u8; 32], String>;
    /// A new random IV, used when the replica has no valid one yet. A failure stops template
    /// processing without an annotation and is not retried (upstream).
    fn new_iv(&self) -> Result<[u8; 16], String>;
}

/// Inputs of [`process_templates`].
pub struct TemplateProcessing<'a> {
    pub resolver: &'a HubResolver,
    pub setup: ResolverSetup,
    pub encryption: &'a dyn EncryptionSource,
    pub cluster: &'a str,
    pub policy_metadata: PolicyMetadata,
}

/// What processing did.
#[derive(Debug, Default)]
pub struct TemplateOutcome {
    /// Every object the templates read (to watch), including misses and denied reads.
    pub reads: ReadSet,
    /// The first template error, also written into that template's annotation.
    pub error: Option<ResolveError>,
    /// The index in `spec.policy-templates` of the template `error` is about, so that callers
    /// can point at the template as the user wrote it.
    pub failed_template: Option<usize>,
    /// Warning events for the root policy (`Failed to resolve templates for cluster …`).
    pub warnings: Vec<String>,
    /// Set when the replica must not be written now (retryable failure, §4 step 6).
    pub retry: Option<String>,
    /// Processing stopped on a failure that is neither retried nor written into an annotation
    /// (no IV could be generated); the replica is not written.
    pub failed: Option<String>,
}

/// Resolves the hub templates of `replica` in place, as the propagator does.
pub fn process_templates(replica: &mut Value, p: TemplateProcessing<'_>) -> TemplateOutcome {
    let mut outcome = TemplateOutcome::default();
    let start = p.resolver.config().start_delim.clone();
    let (reader, access) = match p.setup {
        ResolverSetup::Ready { reader, access } => (reader, access),
        ResolverSetup::ServiceAccountMissing(sa) => {
            let text = format!(
                "the service account in hubTemplateOptions.serviceAccountName ({sa}) does not exist"
            );
            annotate_every_template(replica, &start, &text);
            return outcome;
        }
        ResolverSetup::ServiceAccountFailed(sa, why) => {
            let text = format!(
                "failed to set up the template resolver for the service account in hubTemplateOptions.serviceAccountName ({sa}): {why}"
            );
            annotate_every_template(replica, &start, &text);
            return outcome;
        }
    };

    if annotation(replica, ANNOTATION_DISABLE_TEMPLATES).is_some_and(|v| go_parse_bool(&v)) {
        return outcome;
    }
    remove_annotation(replica, ANNOTATION_TRIGGER_UPDATE);

    let mut encryption: Option<EncryptionKeys> = None;
    // Upstream appends the labels transformer to the resolve options the first time a template
    // mentions ManagedClusterLabels; the options then keep it for the later templates.
    let mut wants_labels = false;
    let count = templates_len(replica);
    for index in 0..count {
        let Some(raw) = object_definition_ref(replica, index).map(certgate_gofmt::json) else {
            continue;
        };
        if !raw.contains(&start) {
            continue;
        }
        wants_labels |= raw.contains("ManagedClusterLabels");
        let template_uses_encryption = uses_encryption(&raw);
        if template_uses_encryption && encryption.is_none() {
            let key = match p.encryption.key(p.cluster) {
                Ok(key) => key,
                Err(e) => {
                    outcome.retry = Some(e);
                    return outcome;
                }
            };
            let existing = annotation(replica, ANNOTATION_ENCRYPTION_IV)
                .and_then(|v| STANDARD.decode(v).ok())
                .and_then(|bytes| <[u8; 16]>::try_from(bytes).ok());
            let iv = match existing.map_or_else(|| p.encryption.new_iv(), Ok) {
                Ok(iv) => iv,
                Err(e) => {
                    outcome.failed = Some(e);
                    return outcome;
                }
            };
            set_annotation(replica, ANNOTATION_ENCRYPTION_IV, &STANDARD.encode(iv));
            encryption = Some(EncryptionKeys { key, iv });
        }

        let mut context = HubContext {
            managed_cluster_name: p.cluster.to_owned(),
            managed_cluster_labels: None,
            policy_metadata: p.policy_metadata.clone(),
        };
        if wants_labels {
            match crate::cluster_labels::read(reader.as_ref(), &access, p.cluster) {
                (Ok(labels), read) => {
                    outcome.reads.extend(read);
                    context.managed_cluster_labels = Some(labels);
                }
                (Err(e), read) => {
                    outcome.reads.extend(read);
                    let error = ResolveError {
                        message: format!(
                            "the context transformer failed at options.ContextTransformers[0]: {}",
                            e
                        ),
                        kind: match e.class() {
                            ErrorClass::Retryable => ResolveErrorKind::Retryable,
                            ErrorClass::AccessDenied => ResolveErrorKind::Forbidden,
                            ErrorClass::Other => ResolveErrorKind::Permanent,
                        },
                    };
                    fail(replica, index, error, p.cluster, &mut outcome);
                    return outcome;
                }
            }
        }

        let request = ResolveRequest {
            context,
            reader: reader.clone(),
            access: access.clone(),
            encryption: encryption.clone(),
        };
        let resolved = p.resolver.resolve(&raw, &request);
        outcome.reads.extend(resolved.reads);
        match resolved.result {
            Ok(mut object) => {
                if let (true, Some(keys)) = (template_uses_encryption, &encryption) {
                    set_object_annotation(
                        &mut object,
                        ANNOTATION_ENCRYPTION_IV,
                        &STANDARD.encode(keys.iv),
                    );
                }
                set_object_definition(replica, index, object);
            }
            Err(error) => {
                fail(replica, index, error, p.cluster, &mut outcome);
                return outcome;
            }
        }
    }
    outcome
}

fn fail(
    replica: &mut Value,
    index: usize,
    error: ResolveError,
    cluster: &str,
    outcome: &mut TemplateOutcome,
) {
    outcome
        .warnings
        .push(format!("Failed to resolve templates for cluster {cluster}: {}", error.message));
    if let Some(mut definition) = object_definition(replica, index) {
        set_object_annotation(&mut definition, ANNOTATION_HUB_TEMPLATES_ERROR, &error.message);
        set_object_definition(replica, index, definition);
    }
    if error.kind == ResolveErrorKind::Retryable {
        outcome.retry = Some(error.message.clone());
    }
    outcome.failed_template = Some(index);
    outcome.error = Some(error);
}

fn annotate_every_template(replica: &mut Value, start: &str, text: &str) {
    for index in 0..templates_len(replica) {
        let Some(mut definition) = object_definition(replica, index) else { continue };
        if certgate_gofmt::json(&definition).contains(start) {
            set_object_annotation(&mut definition, ANNOTATION_HUB_TEMPLATES_ERROR, text);
            set_object_definition(replica, index, definition);
        }
    }
}

fn templates_len(replica: &Value) -> usize {
    replica.pointer("/spec/policy-templates").and_then(Value::as_array).map_or(0, Vec::len)
}

fn object_definition_ref(replica: &Value, index: usize) -> Option<&Value> {
    replica.pointer(&format!("/spec/policy-templates/{index}/objectDefinition"))
}

fn object_definition(replica: &Value, index: usize) -> Option<Value> {
    replica.pointer(&format!("/spec/policy-templates/{index}/objectDefinition")).cloned()
}

fn set_object_definition(replica: &mut Value, index: usize, definition: Value) {
    if let Some(template) = replica
        .pointer_mut(&format!("/spec/policy-templates/{index}"))
        .and_then(Value::as_object_mut)
    {
        template.insert("objectDefinition".to_owned(), definition);
    }
}

fn annotations_mut(object: &mut Value) -> Option<&mut serde_json::Map<String, Value>> {
    let metadata = object
        .as_object_mut()?
        .entry("metadata")
        .or_insert_with(|| Value::Object(Default::default()));
    let annotations = metadata
        .as_object_mut()?
        .entry("annotations")
        .or_insert_with(|| Value::Object(Default::default()));
    if !annotations.is_object() {
        *annotations = Value::Object(Default::default());
    }
    annotations.as_object_mut()
}

fn set_object_annotation(object: &mut Value, key: &str, value: &str) {
    if let Some(annotations) = annotations_mut(object) {
        annotations.insert(key.to_owned(), Value::String(value.to_owned()));
    }
}

fn set_annotation(replica: &mut Value, key: &str, value: &str) {
    set_object_annotation(replica, key, value);
}

fn annotation(replica: &Value, key: &str) -> Option<String> {
    replica.pointer("/metadata/annotations")?.get(key)?.as_str().map(str::to_owned)
}

fn remove_annotation(replica: &mut Value, key: &str) {
    if let Some(annotations) =
        replica.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut)
    {
        annotations.remove(key);
    }
}

/// Go's `strconv.ParseBool`.
fn go_parse_bool(value: &str) -> bool {
    matches!(value, "1" | "t" | "T" | "TRUE" | "true" | "True")
}
