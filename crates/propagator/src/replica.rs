//! The replicated-policy reconcile (spec §3 and §4) of `<cluster>/<rootNamespace>.<rootName>`.

use std::sync::Arc;

use certgate_templates::pipeline::ResolveErrorKind;
use certgate_templates::propagation::{ReplicaPlan, WritePlan, plan_replica, plan_write};
use certgate_templates::replica::{ReplicaSources, replicate};
use serde_json::Value;

use crate::context::{Context, ReconcileError};
use crate::effects::{Effects, root_reference};
use crate::reads::{ReplicaKey, reading_as};
use crate::stored::StoredPolicy;

pub async fn reconcile<E: Effects>(
    context: &Arc<Context<E>>,
    key: &ReplicaKey,
) -> Result<(), ReconcileError> {
    let (cluster, name) = key;
    let existing = context.deleted.filter(key, context.index.policy(cluster, name));
    let root = name.split_once('.').and_then(|(ns, root)| context.index.root(ns, root));
    let root_json = root.as_deref().map(|root| context.root_json.get(root));
    let plan = plan_replica(
        cluster,
        name,
        existing.is_some(),
        root_json.as_deref(),
        &|| context.index.is_cluster_namespace(cluster),
        &context.index,
    );
    let (root_namespace, decision) = match plan {
        ReplicaPlan::Nothing => {
            context.resolvers.release(key);
            return Ok(());
        }
        ReplicaPlan::Skip(why) => {
            tracing::debug!(replica = %format!("{cluster}/{name}"), why, "leaving the replicated policy alone");
            return Ok(());
        }
        ReplicaPlan::Delete(why) => {
            context.resolvers.release(key);
            let version = existing.as_ref().and_then(|e| e.metadata().resource_version.clone());
            context
                .effects
                .delete_replica(cluster, name, version.clone())
                .await
                .map_err(ReconcileError::Write)?;
            context.deleted.record(key, version);
            tracing::info!(replica = %format!("{cluster}/{name}"), why, "deleted the replicated policy");
            return Ok(());
        }
        ReplicaPlan::Replicate { root_namespace, decision, .. } => (root_namespace, decision),
    };
    let (Some(root), Some(root_json)) = (root, root_json) else { return Ok(()) };
    let existing_json = existing.as_deref().map(StoredPolicy::json);

    let service_account = root_json
        .pointer("/spec/hubTemplateOptions/serviceAccountName")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let (setup, identity) =
        context.resolvers.setup(key, &root_namespace, &service_account, cluster).await;
    let work = {
        let context = context.clone();
        let key = key.clone();
        let cluster = cluster.clone();
        let existing_json = existing_json.clone();
        let root_json = root_json.clone();
        move || {
            let policy_set = |ns: &str, set: &str| context.index.policy_set_json(ns, set);
            reading_as(&key, || {
                replicate(
                    &root_json,
                    ReplicaSources {
                        cluster: &cluster,
                        existing: existing_json.as_ref(),
                        policy_set: &policy_set,
                        remediation_override: decision.remediation_override.as_deref(),
                        setup,
                        resolver: &context.resolver,
                        encryption: &context.encryption,
                    },
                )
            })
        }
    };
    let replication = tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ReconcileError::Internal(e.to_string()))?;
    context.resolvers.finish(key, &identity, &replication.outcome.reads);

    let reference = root_reference(&root);
    for warning in &replication.outcome.warnings {
        context.effects.publish(&reference, true, warning.clone()).await;
    }
    if let Some(why) = replication.outcome.retry {
        return Err(ReconcileError::Retry(why));
    }
    if let Some(why) = replication.outcome.failed {
        tracing::warn!(replica = %format!("{cluster}/{name}"), error = %why, "not writing the replicated policy");
        return Ok(());
    }
    let root_name = format!(
        "{}/{}",
        root.metadata.namespace.as_deref().unwrap_or_default(),
        root.metadata.name.as_deref().unwrap_or_default()
    );
    match plan_write(&replication.replica, existing_json.as_ref()) {
        WritePlan::Create(replica) => {
            let version =
                context.effects.create_replica(&replica).await.map_err(ReconcileError::Write)?;
            context.written.record(key, version);
            context
                .effects
                .publish(
                    &reference,
                    false,
                    format!("Policy {root_name} was propagated to cluster {cluster}"),
                )
                .await;
            Ok(())
        }
        WritePlan::Update(replica) => {
            let version =
                context.effects.update_replica(&replica).await.map_err(ReconcileError::Write)?;
            context.written.record(key, version);
            context
                .effects
                .publish(
                    &reference,
                    false,
                    format!("Policy {root_name} was updated for cluster {cluster}"),
                )
                .await;
            forbidden(&replication.outcome.error)
        }
        WritePlan::Unchanged => forbidden(&replication.outcome.error),
    }
}

/// On the update path a Forbidden or Unauthorized template error is returned, so the replica
/// is retried: no event announces an RBAC grant (§3 step 11).
fn forbidden(
    error: &Option<certgate_templates::pipeline::ResolveError>,
) -> Result<(), ReconcileError> {
    match error {
        Some(error) if error.kind == ResolveErrorKind::Forbidden => {
            Err(ReconcileError::Retry(error.message.clone()))
        }
        _ => Ok(()),
    }
}
