//! What the propagator writes into a managed cluster's namespace for one root policy (§3 of
//! the spec): the replica's metadata and canonical dependencies, then its hub templates
//! resolved (§4).

mod build;
mod dependencies;
mod names;
mod replicate;
mod templates;

pub use build::{ReplicaMetadata, build_replica};
pub use dependencies::canonicalize_dependencies;
pub use names::{
    ANNOTATION_DISABLE_TEMPLATES, ANNOTATION_ENCRYPTION_IV, ANNOTATION_HUB_TEMPLATES_ERROR,
    ANNOTATION_TRIGGER_UPDATE, LABEL_CLUSTER_NAME, LABEL_CLUSTER_NAMESPACE, LABEL_ROOT_POLICY,
    POLICY_GROUP, replica_name, split_replica_name,
};
pub use replicate::{ReplicaSources, Replication, replicate};
pub use templates::{
    EncryptionSource, ResolverSetup, TemplateOutcome, TemplateProcessing, process_templates,
};
